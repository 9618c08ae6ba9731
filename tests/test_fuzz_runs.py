"""Fuzzing runs: generated actions over pools, lists, ifs and loops give only our errors.

Each generated action (dice terms and named rolls bound with `let`, `if` expressions
choosing a pool, lists of dice and of numbers, loops over lists and over a pool's dice,
pool functions, texts showing lists) is run with a few seeds, its trace built and written
as text and as JSON, and its odds asked for, under tight limits: anything but a
RulebookError is a bug. A test of the test checks that most generated actions run.
"""

from __future__ import annotations

import contextlib
import json

from hypothesis import HealthCheck, find, given
from hypothesis import strategies as st
from profiles import fewer

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, Limits, SeededDice, render_text

LIMITS = Limits(
    dice_per_evaluation=2_000,
    steps_per_run=20_000,
    repeat_count=20,
    list_length=200,
    text_length=2_000,
    value_size=2_000,
    odds_seconds=0.2,
    odds_outcomes=5_000,
    trace_steps=50,
    shown_length=40,
)
ODDS = {"trials": 50, "budget": 2_000}

FUZZ = fewer(2, 10, HealthCheck.filter_too_much)

HEAD = """
sheet {
  attribute A in 1..10
  list L
}
roll op = d6 then { on die = 6: add d6, again while die = 6 }
roll plain = 2d6
check c(a: attribute = "A") { roll d10 + a >= 7 }
"""

POOLS = ["d6", "3d6", "4d6kh3", "2d20kh1", "d20", "5d10cs>=7", "3d6x", "{d6, d8}kh1", "op", "plain"]
NUMBERS = ["1", "0", "-2", "3/2", "A", "x", "size(l)", "c().total"]


def pools(names: set) -> st.SearchStrategy:
    """Pool expressions: a dice term, a named roll, a pool bound, an `if` choosing one."""
    known = sorted(names & {"r", "q"})
    leaf = st.sampled_from(POOLS + known)
    return st.one_of(
        leaf,
        st.tuples(conditions(names), leaf, leaf).map(
            lambda t: f"if {t[0]} then {t[1]} else {t[2]}"
        ),
    )


def numbers(names: set) -> st.SearchStrategy:
    bound = [n for n in NUMBERS if n not in ("x", "size(l)") or n.split("(")[-1][0] in names]
    bound = [n for n in bound if (n != "x" or "x" in names) and (n != "size(l)" or "l" in names)]
    pooled = sorted(names & {"r", "q"})
    questions = [f"{p}.{f}" for p in pooled for f in ("total", "successes")]
    questions += [f"count({p}, 6)" for p in pooled] + [f"highest({p})" for p in pooled]
    if "l" in names:
        questions += ["sum(l)", "max(l)", "count(l, 1)", "highest(l)", "sum(lowest(l, 2))"]
    questions += sorted(names & {"v", "w"})
    leaf = st.sampled_from(bound + questions + ["d6"])
    return st.recursive(
        leaf,
        lambda parts: st.one_of(
            st.tuples(parts, st.sampled_from(["+", "-", "*"]), parts).map(" ".join),
            st.tuples(conditions(names), parts, parts).map(
                lambda t: f"(if {t[0]} then {t[1]} else {t[2]})"
            ),
        ),
        max_leaves=3,
    )


def conditions(names: set) -> st.SearchStrategy:
    simple = ["yes", "A > 3", "d6 > 3"]
    if "x" in names:
        simple += ["x > 2", "x = 1"]
    if "l" in names:
        simple += ["1 in l", "size(l) > 1"]
    if "r" in names:
        simple += ["r.total > 7", "6 in r.dice"]
    return st.sampled_from(simple)


def lists(names: set) -> st.SearchStrategy:
    items = st.lists(
        st.sampled_from(["1", "2", "d6", "3d6", "x" if "x" in names else "4"]), max_size=4
    )
    made = items.map(lambda i: "[" + ", ".join(i) + "]")
    more = [f"{p}.{f}" for p in sorted(names & {"r", "q"}) for f in ("dice", "kept", "sorted")]
    if "l" in names:
        more += ["l + l", "l + [1]", "highest(l, 2)"]
    return st.one_of(made, st.sampled_from(more)) if more else made


@st.composite
def statements(draw, names: set, depth: int = 0) -> str:
    kinds = ["pool", "number", "list", "note", "set_list", "add"]
    if depth < 2:
        kinds += ["if", "for", "repeat", "match"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("pool", "number", "list"):
        name = {"pool": draw(st.sampled_from(["r", "q"])), "number": "x", "list": "l"}[kind]
        made = {"pool": pools, "number": numbers, "list": lists}[kind]
        expr = draw(made(names))
        if name in names:  # given again: `set`
            return f"set {name} to {expr}"
        names.add(name)
        return f"let {name} = {expr}"
    if kind == "note":
        shown = draw(st.sampled_from(sorted(names & {"l", "r", "x", "q"}) or ["A"]))
        return f'note "{{{shown}}}"'
    if kind == "set_list":
        return f"set l to {draw(lists(names))}" if "l" in names else 'add "a" to L'
    if kind == "add":
        return f"add {draw(numbers(names))} to l" if "l" in names else 'add "b" to L'
    inner = set(names)
    if kind == "for":
        over = draw(lists(names))
        var = "v" if "v" not in names else "w"
        inner.add(var)
        body = " ".join(draw(st.lists(statements(inner, depth + 1), min_size=1, max_size=3)))
        return f"for each {var} in {over} {{ {body} }}"
    body = " ".join(draw(st.lists(statements(inner, depth + 1), min_size=1, max_size=3)))
    if kind == "if":
        return f"if {draw(conditions(names))} {{ {body} }} else {{ {body} }}"
    if kind == "repeat":
        return f"repeat {draw(st.sampled_from(['2', '5', 'd6']))} times {{ {body} }}"
    return f"match {draw(numbers(names))} {{ case 1, 2 {{ {body} }} else {{ {body} }} }}"


@st.composite
def actions(draw) -> str:
    names: set = set()
    body = " ".join(draw(st.lists(statements(names), min_size=1, max_size=5)))
    fields = [
        f"f{i}: {e}" for i, e in enumerate(draw(st.lists(numbers(names), min_size=1, max_size=2)))
    ]
    if "l" in names:
        fields.append("n: size(l)")
    return HEAD + f"action act() {{ {body}  result {{ {', '.join(fields)} }} }}\n"


def try_action(text: str, odds: bool = True) -> str:
    """Load, run with three seeds, trace (text and JSON), ask the odds: our errors only."""
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), LIMITS)
    except RulebookError:
        return "invalid"
    sheet = engine.sheet({"A": 4})
    outcome = "ok"
    for seed in range(3):
        try:
            out = engine.run("act", sheet, {}, SeededDice(seed))
            steps = out.trace
            json.dumps(out.to_json())
        except RulebookError as error:
            outcome = "stopped"
            steps = getattr(error, "trace", None) or []
        render_text(steps)
        assert len(steps) <= LIMITS.trace_steps + 1  # and one line saying how many more
    if odds:
        with contextlib.suppress(RulebookError):  # (a refusal of ours: fine)
            engine.odds("act", sheet, {}, **ODDS)
    return outcome


@FUZZ
@given(actions())
def test_actions_over_pools_lists_ifs_and_loops_give_only_our_errors(text):
    try_action(text)


def test_the_fuzzing_of_runs_reaches_evaluation():
    # a test of the test: generated actions are often valid, and run to their result
    find(actions(), lambda text: try_action(text, odds=False) == "ok")


def test_the_issues_cases():
    # a die in a list read in a loop; an `if` choosing between two pools (issue 23)
    for body in (
        "let t = 0  for each x in [d6, d8] { set t to t + x }  result { t: t }",
        "let r = if A > 3 then 2d20kh1 else d20  result { r: r, h: highest(r) }",
        "let r = if d6 > 3 then 2d20kh1 else d20  result { r: r, k: r.kept }",
    ):
        assert try_action(HEAD + f"action act() {{ {body} }}\n") == "ok", body
