"""A traced run's generated code (interpreter.compile.codegen: `generated_traced_action`,
`generated_traced_check`): an action's body and a check's record, run inside the frame
their closure enters, record the steps the closures record.

A traced run through the generated code and one through the closures alone give the same
trace (every step's kind, text, detail, line, file, depth, verbose and data), result,
dice and steps, or the same error and its trace up to it: on every shipped action (the
cases of benchmarks/run_cost.py) and on generated rulebooks. No text of a rulebook reaches
the generated source; and the generated path is the one taken (fewer Python calls).
"""

from __future__ import annotations

import contextlib
import sys

import pytest
from fuzz_cases import LIMITS, rulebooks
from hypothesis import HealthCheck, assume, given
from hypothesis import strategies as st
from profiles import fewer
from test_codegen import BOOK, names, shipped_cases, texts, written
from test_fuzz_runs import HEAD, actions
from test_fuzz_runs import LIMITS as FUZZ_LIMITS

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, SeededDice
from interpreter.compile.actions import too_deep
from interpreter.compile.codegen import SWITCH, closures_only
from interpreter.compile.codegen.emit_values import records_nothing
from interpreter.compile.codegen.emitted import check_source


@pytest.fixture(autouse=True, scope="module")
def generated_at_once():
    """Every traced run here through the generated code from the first (not after a few)."""
    before, SWITCH.after = SWITCH.after, 0
    yield
    SWITCH.after = before


def steps_of(trace) -> list | None:
    if trace is None:
        return None
    return [(s.kind, s.text, s.detail, s.line, s.file, s.depth, s.verbose, s.data) for s in trace]


def traced(engine, name, sheet, params, seed, choices=None):
    """A traced run as plain values: its trace, result, sheet, dice and steps; or its
    error, after how many steps, and its trace up to it."""
    try:
        out = engine.run(name, sheet, params, SeededDice(seed), choices=choices, trace=True)
    except RulebookError as error:
        trace = getattr(error, "trace", None)
        return ("error", str(error), getattr(error, "steps", None), steps_of(trace))
    return (steps_of(out.trace), out.result, dict(out.sheet._values), out.dice, out.steps)


def both_ways(engine, name, sheet, params, seed, choices=None):
    assert SWITCH.generated
    generated = traced(engine, name, sheet, params, seed, choices)
    with closures_only():
        closures = traced(engine, name, sheet, params, seed, choices)
    return generated, closures


def test_a_traced_run_generated_and_through_the_closures_agree_on_every_shipped_action():
    cases = shipped_cases()
    assert len(cases) > 500
    engines, ran = set(), 0
    for label, engine, name, sheet, params, choices in cases:
        engines.add(engine)
        for seed in (0, 3):
            generated, closures = both_ways(engine, name, sheet, params, seed, choices)
            assert generated == closures, f"{label}, seed {seed}"
            ran += 1
    compiled = [
        made
        for engine in engines
        for key, made in engine.compiler.compiled.items()
        if key[0] in ("action", "check")
    ]
    tried = [made for made in compiled if made.traced is not None]
    # every shipped action and check run traced had its generated body (none left to
    # the closures)
    assert len(tried) > 100 and all(made.traced for made in tried)
    assert ran == 2 * len(cases)


@fewer(2, 20, HealthCheck.filter_too_much)
@given(rulebooks(), st.integers(0, 2**32))
def test_a_traced_run_generated_and_through_the_closures_agree_on_generated_rulebooks(text, seed):
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), LIMITS)
        sheet = engine.sheet({"A": 5, "B": 4, "S": 1})
    except RulebookError:
        assume(False)
        return
    for action in ("act", "other"):
        for params in ({}, {"p": 7}) if action == "act" else ({},):
            generated, closures = both_ways(engine, action, sheet, params, seed)
            assert generated == closures, action


@fewer(2, 20, HealthCheck.filter_too_much)
@given(actions())
def test_a_traced_run_agrees_on_actions_over_pools_lists_and_loops(text):
    try:
        engine = Engine(dsl.load_text(text, "fuzz.rules"), FUZZ_LIMITS)
    except RulebookError:
        assume(False)
        return
    sheet = engine.sheet({"A": 4})
    for seed in range(3):
        generated, closures = both_ways(engine, "act", sheet, {}, seed)
        assert generated == closures


@fewer(4, 15, HealthCheck.filter_too_much, HealthCheck.too_slow)
@given(
    st.lists(names, min_size=17, max_size=17, unique=True),
    st.lists(texts, min_size=8, max_size=8),
)
def test_no_text_of_the_rulebook_reaches_the_traced_source(idents, words):
    values = {f"i{i}": name for i, name in enumerate(idents)}
    values |= {f"t{i}": written(text) for i, text in enumerate(words)}
    try:
        book = dsl.load_text(BOOK.format(**values), "hostile.rules")
    except RulebookError:
        assume(False)
        return
    engine = Engine(book)
    action, check = engine.compiler.action(idents[7]), engine.compiler.check(idents[3])
    sheet = engine.sheet({idents[0]: 3, idents[1]: 4})
    for seed in range(3):
        generated, closures = both_ways(engine, idents[7], sheet, {idents[8]: idents[1]}, seed)
        assert generated == closures
    assert action.traced and check.traced
    for made in (action, check):
        source = made.generate_traced(engine.compiler, made, too_deep)[1]  # (checks inline)
        check_source(source)  # only the generator's own words (it compiled: it ran)
        assert source.isascii() and not set(source) & set("\"'\\%#$\t")
        for text in words:  # (one of code's own characters alone may be in it: `(ctx)`)
            if set(text) & set("\"'\\%#$\t") or not text.isascii():
                assert text not in source


BRANCHY = (
    HEAD
    + """
check probe(n: int) {
  roll d6 + n >= 4
  half = total - 2
}
action act() {
  let a = A + 1
  let b = a * 2
  set b to b + 1
  let p = probe(a)
  if b > 3 and p.success { set a to a + 1 } else { set a to 0 }
  let d = if a > 1 then b else a
  result { a: a, b: b, d: d }
}
"""
)


def python_calls(run) -> int:
    """How many Python functions a call of `run` calls (`sys.setprofile`)."""
    calls = 0

    def counted(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1

    sys.setprofile(counted)
    try:
        run()
    finally:
        sys.setprofile(None)
    return calls


def test_a_traced_run_goes_through_the_generated_code():
    # The fast path's budget: a traced run of an action of lets, sets, ifs and a check
    # calls at most two thirds of the Python functions the closures call, and records
    # the same trace. (Switched off, both ways are the closures': this fails.)
    engine = Engine(dsl.load_text(BRANCHY, "branchy.rules"), FUZZ_LIMITS)
    sheet = engine.sheet({"A": 4})

    def run():
        engine.run("act", sheet, {}, SeededDice(2), trace=True)

    generated, closures = both_ways(engine, "act", sheet, {}, 2)
    assert generated == closures and len(generated[0]) > 6
    run()  # (the function it is called by, run on its own, made: SWITCH.traced_whole)
    fast = python_calls(run)
    with closures_only():
        slow = python_calls(run)
    assert fast * 3 <= slow * 2, (fast, slow)
    compiled = engine.compiler.action("act")
    assert compiled.traced and engine.compiler.check("probe").traced


def test_a_traced_body_is_generated_after_a_few_traced_runs_only():
    engine = Engine(dsl.load_text(HEAD + "action act() { let x = A + 1  result { x: x } }\n", "f"))
    sheet, compiled = engine.sheet({"A": 4}), engine.compiler.action("act")
    before, SWITCH.after = SWITCH.after, 2
    try:
        made = []
        for seed in range(4):
            out = engine.run("act", sheet, {}, SeededDice(seed), trace=True)
            assert out.result == {"x": 5} and [s.kind for s in out.trace] == ["action", "let"]
            made.append(compiled.traced is not None)
    finally:
        SWITCH.after = before
    assert made == [False, False, True, True]


FORMULAS = (
    HEAD
    + """
table T by total {
  ..5: 1
  6..: 2
}
formula simple(x: int) = max(0, x * 2 - 1)
formula twice(x: int) = simple(x) + simple(x + 1)
formula rolls(x: int) = x + d6
formula looks(x: int) = T[x] + simple(x)
action act() {
  let a = twice(A)
  let b = rolls(a)
  let e = looks(b)
  result { a: a, b: b, e: e }
}
"""
)


def test_a_formula_that_records_no_step_is_run_generated_in_a_traced_run():
    engine = Engine(dsl.load_text(FORMULAS, "formulas.rules"), FUZZ_LIMITS)
    compiler, sheet = engine.compiler, engine.sheet({"A": 4})
    quiet = {name: records_nothing(compiler, name) for name in engine.rulebook.formulas}
    assert quiet == {"simple": True, "twice": True, "rolls": False, "looks": False}
    for seed in range(4):
        generated, closures = both_ways(engine, "act", sheet, {}, seed)
        assert generated == closures
        kinds = [step[0] for step in generated[0]]
        assert kinds.count("roll") == 1 and kinds.count("lookup") == 1


CHECKED = (
    HEAD
    + """
table Level by total {
  ..3: "low"
  4..7: "mid"
  8..: "high"
}
table Bonus by total {
  ..5: 0
  6..: 2
}
check probe(n: int, a: attribute = "A") {
  let b = Bonus[n]
  roll d10 + n + b + 2 * a + a >= 18
  level = Level[total]
}
action act() {
  let p = probe(A)
  let q = probe(A + 2)
  let both = p.success and q.success
  let r = d6 + 1
  result { both: both, level: p.level, margin: q.margin, r: r }
}
"""
)


@contextlib.contextmanager
def switched_off(name: str, engine):
    """SWITCH.<name> off for a while (a traced path of the generated code's), the
    traced functions made again (on its way in and out)."""

    def made_again():
        for key in (("action", "act"), ("check", "probe")):
            made = engine.compiler.compiled[key]
            made.traced, made.traced_runs, made.whole = None, 0, None

    setattr(SWITCH, name, False)
    made_again()
    try:
        yield
    finally:
        setattr(SWITCH, name, True)
        made_again()


@pytest.mark.parametrize(
    "switch",
    [
        "traced_inline",
        "traced_lookups",
        "traced_lookup_steps",
        "traced_dice",
        "traced_labels",
        "traced_places",
        "traced_steps",
        "traced_whole",
    ],
)
def test_a_traced_run_writes_its_checks_inline_and_reads_remembered_rows(switch):
    # A called check written inline in the traced code (SWITCH.traced_inline), a
    # one-key table's remembered rows read there (SWITCH.traced_lookups), their lookup's
    # step put in the trace there (SWITCH.traced_lookup_steps), one plain die
    # drawn there (SWITCH.traced_dice), a term's label's names read there
    # (SWITCH.traced_labels), the place a term names found there (SWITCH.traced_places),
    # a let's, a die's and a check's step put in the trace there (SWITCH.traced_steps),
    # the action run on its own by one function, its frame too (SWITCH.traced_whole),
    # each step recorded as its closure records it:
    # the same trace as the closures', in fewer Python calls than with any of them
    # switched off (off: this fails).
    engine = Engine(dsl.load_text(CHECKED, "checked.rules"), FUZZ_LIMITS)
    sheet = engine.sheet({"A": 4})

    def run():
        engine.run("act", sheet, {}, SeededDice(2), trace=True)

    for seed in range(6):
        generated, closures = both_ways(engine, "act", sheet, {}, seed)
        assert generated == closures
    kinds = [step[0] for step in generated[0]]
    assert kinds.count("check") == 2 and kinds.count("lookup") == 4 and kinds.count("roll") == 3
    run()  # (the rows remembered)
    fast = python_calls(run)
    with switched_off(switch, engine):
        for seed in range(6):
            generated, closures = both_ways(engine, "act", sheet, {}, seed)
            assert generated == closures
        run()
        slow = python_calls(run)
    assert fast < slow, (fast, slow)


def test_a_recorded_trace_is_freed_with_its_outcome():
    # The run's context is its own roller (a cycle, freed by the garbage collector): a
    # recorded trace is not left in it, but is the Outcome's alone, freed with it.
    engine = Engine(dsl.load_text(CHECKED, "checked.rules"), FUZZ_LIMITS)
    sheet = engine.sheet({"A": 4})
    out = engine.run("act", sheet, {}, SeededDice(1), trace=True)
    trace = out.trace
    del out
    assert sys.getrefcount(trace) == 2  # (`trace`, and the call's own argument)


def test_a_formula_called_in_a_traced_run_runs_generated():
    # A note's text (its closure) calls a formula that records no step: in a traced run
    # the formula's generated function runs; a formula that records steps (a roll, a
    # lookup) runs its traced generated function (SWITCH.traced_formulas, both): the
    # same trace in fewer Python calls than its closures' (off: this fails).
    text = FORMULAS.replace("  let a = twice(A)\n", '  let a = twice(A)\n  note "{twice(A + a)}"\n')
    counted = {}
    for on in (True, False):
        SWITCH.traced_formulas = on
        try:
            engine = Engine(dsl.load_text(text, "formulas.rules"), FUZZ_LIMITS)
            sheet = engine.sheet({"A": 4})

            def run(engine=engine, sheet=sheet):
                engine.run("act", sheet, {}, SeededDice(2), trace=True)

            for seed in range(4):
                generated, closures = both_ways(engine, "act", sheet, {}, seed)
                assert generated == closures
                assert "note" in [step[0] for step in generated[0]]
            run()
            counted[on] = python_calls(run)
            # the formulas that record steps (a roll, a lookup): their traced functions
            made = [engine.compiler.compiled.get(("generated traced formula", f)) for f in FEW]
            assert all(made) if on else not any(made)
        finally:
            SWITCH.traced_formulas = True
    assert counted[True] < counted[False], counted


FEW = ("rolls", "looks")


NOTED = (
    HEAD
    + """
action noted(n: int = 2) {
  let x = d6 + n
  note "rolled"
  note x * 2
  if x > 4 {
    note "high: {x}"
  }
  let y = x + A
  note [x, y]
  result { x: x, y: y }
}
"""
)


@pytest.mark.parametrize("switch", ["traced_notes", "traced_straight"])
def test_a_traced_run_puts_its_notes_and_is_called_straight(switch):
    # A note's value computed and its step put in the trace by the generated code, the
    # locals known before it read from their locals after it (SWITCH.traced_notes); a
    # traced run's whole generated function called by `Engine.run` itself
    # (SWITCH.traced_straight): the same trace as the closures', in fewer Python calls
    # than with either switched off (off: this fails).
    engine = Engine(dsl.load_text(NOTED, "noted.rules"), FUZZ_LIMITS)
    sheet = engine.sheet({"A": 4})

    def run():
        engine.run("noted", sheet, {}, SeededDice(2), trace=True)

    def made_again():
        made = engine.compiler.compiled["action", "noted"]
        made.traced, made.traced_runs, made.whole = None, 0, None

    for seed in range(8):
        generated, closures = both_ways(engine, "noted", sheet, {}, seed)
        assert generated == closures
    assert [step[0] for step in generated[0]].count("note") >= 3
    run()
    fast = python_calls(run)
    setattr(SWITCH, switch, False)
    made_again()
    try:
        for seed in range(8):
            generated, closures = both_ways(engine, "noted", sheet, {}, seed)
            assert generated == closures
        run()
        slow = python_calls(run)
    finally:
        setattr(SWITCH, switch, True)
        made_again()
    assert fast < slow, (fast, slow)


OPPOSED = """
rulebook "O" { }
sheet { attribute A in 1..10 default 4 }
check side(a: int) { roll d10 + a >= 8 }
opposed duel(rival: int) {
  roll side(A)
  against side(rival)
  tie reroll
}
action strike(rival: int = 5) {
  let d = duel(rival)
  result { won: d.won, ours: d.ours.total }
}
"""


def test_an_opposed_checks_sides_run_their_whole_generated_function_in_a_traced_run():
    # An opposed check runs through its closure; its sides, checks it calls one level
    # down, each call the one function generated for them, frame, body and step
    # (SWITCH.traced_whole_within): the same trace as the closures', in fewer Python
    # calls than with the switch off (off: this fails).
    engine = Engine(dsl.load_text(OPPOSED, "opposed.rules"), FUZZ_LIMITS)
    sheet = engine.sheet({})

    def run():
        engine.run("strike", sheet, {}, SeededDice(1), trace=True)

    run()
    side = engine.compiler.compiled["check", "side"]

    def calls_and_agreement() -> int:
        side.traced, side.traced_runs, side.whole = None, 0, None
        for seed in range(8):
            generated, closures = both_ways(engine, "strike", sheet, {}, seed)
            assert generated == closures, seed
        run()
        return python_calls(run)

    fast = calls_and_agreement()
    assert side.whole  # (made: the sides are called at depth 1)
    SWITCH.traced_whole_within = False
    try:
        slow = calls_and_agreement()
        assert side.whole is None  # (never made: only a check run alone calls it)
    finally:
        SWITCH.traced_whole_within = True
    assert fast < slow, (fast, slow)
