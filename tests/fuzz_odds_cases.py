"""Odds of generated actions, as hypothesis strategies: each field's answer against the whole's.

Shared by tests/test_fuzz_odds.py (a few examples in CI) and benchmarks/fuzz.py (many,
with counts). An action is a few statements (lets of small dice, ifs, loops, `require`,
divisions that fail on some rolls, sets of the sheet and of a group's fields through a
loop's name) and a result of several fields. `check_action` computes its odds as a whole
and field by field and holds them together: each field's answer is the whole result's
marginal, its failures included; and, where the dice are few enough to list every way
they can fall, the whole is what brute force (a real run per way) gives. It returns how
the case ended ("ok", "brute force", "brute force, failing in some runs", "sampled", the
project's error) and raises AssertionError on a wrong answer.
"""

from __future__ import annotations

from hypothesis import strategies as st
from oracle import action_outcomes, keyed, marginal

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, Limits

#: tight limits: a run stops early (and a failure is an outcome like any other)
LIMITS = Limits(tie_rerolls=1, number_digits=4, repeat_count=5, list_length=20)
#: the most ways the dice may fall for brute force to list them all
BRUTE_FORCE_WAYS = 3_000

SHEET = """rulebook "Fuzzed odds" {
  language "en"
}

sheet {
  attribute A in 0..5 default 2
  attribute B in 0..5 default 4
  group Stats = A, B
}

formula half(x: int) = 6 / (x - 3)

check c(x: int = 0) "C" {
  roll d3 + x >= 3
  q = 6 / (total - 2)
}
"""

#: a statement that does nothing the odds see
NOTE = 'note "nothing"'


def numbers(names) -> st.SearchStrategy:
    """Numeric expressions over the names in scope: small dice, literals, arithmetic (a
    division may divide by zero, a product pass number_digits), a formula."""
    leaf = st.one_of(
        st.sampled_from(sorted(names) or ["A"]),
        st.sampled_from(["d2", "d3", "2d2", "d3", "1", "2", "A", "B", "9999", "3d20"]),
        st.sampled_from(["c().q", "c(1).total", "c(A).q"]),
    )
    return st.recursive(
        leaf,
        lambda parts: st.one_of(
            st.tuples(parts, st.sampled_from(["+", "-", "*", "/"]), parts).map(" ".join),
            parts.map(lambda p: f"half({p})"),
            st.tuples(parts, parts).map(lambda t: f"max({t[0]}, {t[1]})"),
            parts.map(lambda p: f"({p})"),
        ),
        max_leaves=3,
    )


def conditions(names) -> st.SearchStrategy:
    compared = st.tuples(numbers(names), st.sampled_from([">=", "<", "=", "!="]), numbers(names))
    return st.one_of(compared.map(" ".join), st.sampled_from(["c().success", "c(B).success"]))


@st.composite
def statements(draw, names: set, depth: int = 0) -> str:
    kinds = ["let", "let", "set", "require", "set_local"]
    if depth < 1:
        kinds += ["if", "repeat", "for", "group"]
    kind = draw(st.sampled_from(kinds))
    if kind == "let" and depth == 0:
        name = f"x{len(names)}"
        value = draw(numbers(names))
        names.add(name)
        return f"let {name} = {value}"
    if kind in ("let", "set"):
        return f"set {draw(st.sampled_from(['A', 'B']))} to {draw(numbers(names))}"
    if kind == "set_local":
        local = sorted(n for n in names if n.startswith("x"))
        if not local:
            return f"set A to {draw(numbers(names))}"
        name = draw(st.sampled_from(local))
        return f"set {name} to {draw(numbers(names))}"
    if kind == "require":
        return f'require {draw(conditions(names))} else "no"'
    if kind == "group":  # the loop's name names a field of the group
        return f"for each s in Stats {{ set s to {draw(numbers(names))} }}"
    inner = set(names)
    body = " ".join(draw(st.lists(statements(inner, depth + 1), min_size=1, max_size=2)))
    if kind == "if":
        other = " ".join(draw(st.lists(statements(set(names), depth + 1), max_size=2)))
        return f"if {draw(conditions(names))} {{ {body} }} else {{ {other or NOTE} }}"
    if kind == "repeat":
        return f"repeat 2 times {{ {body} }}"
    return f"for each v in [1, 2] {{ {body} }}"


@st.composite
def actions(draw) -> str:
    """A rulebook of one action `act`, of a few statements and a result of 2-3 fields."""
    names: set = set()
    body = "\n  ".join(draw(st.lists(statements(names), min_size=1, max_size=4)))
    fields = draw(st.lists(st.one_of(numbers(names), conditions(names)), min_size=2, max_size=3))
    result = ", ".join(f"f{i}: {value}" for i, value in enumerate(fields))
    return f"{SHEET}\naction act() {{\n  {body}\n  result {{ {result} }}\n}}\n"


def check_action(text: str) -> str:
    """How the odds of `act` ended; AssertionError when a field's answer is not the
    whole's marginal, or the whole not what brute force gives."""
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), LIMITS)
        sheet = engine.sheet({})
        whole = engine.odds("act", sheet, {}, trials=50, seconds=2)
        fields = [name for name, _ in engine.rulebook.actions["act"].body[-1].fields]
        answers = {
            name: engine.odds("act", sheet, {}, name, trials=50, seconds=2) for name in fields
        }
    except RulebookError as error:
        return type(error).__name__
    exact = whole.exact and all(odds.exact for odds in answers.values())
    if not exact or getattr(whole, "fields", None) is not None:
        return "sampled" if not exact else "field by field"
    joint = keyed(whole.probabilities)
    for name, odds in answers.items():
        assert keyed(odds.probabilities) == marginal(joint, name), (name, text)
    listed = action_outcomes(engine, "act", sheet, ways=BRUTE_FORCE_WAYS)
    if listed is None:
        return "ok"
    assert whole.omitted == 0, text
    assert joint == listed, text
    if any(type(outcome) is tuple for outcome in joint):
        return "brute force, failing in some runs"
    return "brute force"
