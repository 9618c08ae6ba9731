"""A trace recorded as the run goes (`Engine.run(trace=True)`, what the server and the
command line ask for) is the trace the replay makes when it is read: step for step, in
text and JSON, for every action of a rulebook, runs that fail included."""

from __future__ import annotations

import sys

import pytest

import dsl
from interpreter import Engine, SeededDice
from interpreter.compile.codegen import SWITCH
from interpreter.errors import EvaluationError
from interpreter.sheets.character import shipped_characters_folder
from interpreter.trace import Later, Step, render_text

SHEETS = {
    "brujeria": ["brujeria_bruja", "brujeria_malherido"],
    "arcana_mundi": ["menecma"],
    "mago": ["mago_ada"],
}


def shown(trace) -> tuple:
    return render_text(trace, verbose=True), [step.to_json() for step in trace]


def outcome_or_error(engine, action, sheet, seed, trace):
    try:
        return engine.run(action, sheet, {}, SeededDice(seed), trace=trace).trace
    except EvaluationError as error:
        return error.trace
    except dsl.RulebookError:  # a parameter this action needs: not a case
        return None


@pytest.mark.parametrize("name", sorted(SHEETS))
def test_a_recorded_trace_is_the_replayed_one(name):
    engine = Engine(dsl.load(name))
    compared = 0
    for character in SHEETS[name]:
        sheet = engine.load_sheet(shipped_characters_folder() / f"{character}.yaml")
        for action in engine.rulebook.actions:
            for seed in range(3):
                replayed = outcome_or_error(engine, action, sheet, seed, trace=False)
                recorded = outcome_or_error(engine, action, sheet, seed, trace=True)
                assert (replayed is None) == (recorded is None)
                if replayed is not None:
                    assert shown(recorded) == shown(replayed), (action, seed)
                    compared += 1
    assert compared > 20


def test_a_step_is_written_only_when_it_is_read():
    engine = Engine(dsl.load("brujeria"))
    sheet = engine.load_sheet(shipped_characters_folder() / "brujeria_bruja.yaml")
    trace = engine.run("chequeo_sencillo", sheet, {}, SeededDice(1), trace=True).trace
    pending = [s for s in trace if type(s._text) is Later and s._text.make is not None]
    assert len([s for s in pending if not s.verbose]) >= 3  # heading, roll, check: not yet
    render_text(trace)
    # written once shown; a verbose step (a condition tested) only when it is shown
    assert all((s._text.make is None) != s.verbose for s in pending)
    render_text(trace, verbose=True)
    assert all(s._text.make is None for s in pending)


#: every statement that writes a step of its own: let, set (a local, a field past its
#: bounds), spend, gain (capped), add, a lookup, match, note, if, an action called, choose
STATEMENTS = """
sheet {
  attribute A in 1..10
  resource R max 5
  counter C in 0..9
  list L
}
table T by total {
  ..3: "low"
  4..: "high"
}
action inner(n: int) { note "inner {n}" }
action act() {
  let x = A + 1
  set x to x + 1
  spend 1 from R
  gain 9 to R
  set C to C + 20
  add "x" to L
  let t = T[x]
  match t { case "low" { note "lo" } else { note "hi" } }
  if x > 2 { note "big" }
  do inner(x)
  choose go "Go on?" {
    option no
    option yes if x > 100
  }
}
"""


def test_no_statement_writes_its_step_before_it_is_read():
    engine = Engine(dsl.load_text(STATEMENTS, "statements.rules"))
    sheet = engine.sheet({"A": 3, "R": 3, "C": 0, "L": []})
    trace = engine.run("act", sheet, {}, SeededDice(1), trace=True).trace
    kinds = {"let", "set", "cost", "change", "lookup", "match", "note", "if", "call", "choice"}
    assert kinds <= {step.kind for step in trace}
    # recorded, not written: each text is made when the step is read
    assert all(type(s._text) is Later and s._text.make is not None for s in trace)
    replayed = engine.run("act", sheet, {}, SeededDice(1)).trace
    assert shown(trace) == shown(replayed)
    assert "gain 9 R: 2 → 5 (capped at its maximum 5)" in render_text(trace)
    assert "set C: 0 → 9 (kept within its bounds, not 20)" in render_text(trace)
    assert "go: no (the only option open)" in render_text(trace)


#: a roll's step (a plain die's, of the generated code: `step_texts.rolled_die`; any
#: other; of symbol dice)
ROLLS = """
symbols hit, miss
die Coin { hit, miss, hit + miss }
action act() {
  let x = d6 + 2d20kh1
  let pool = 3dCoin
  result { x: x, hits: pool.hit }
}
"""
STATED = {"let", "set", "lookup", "if", "call", "choice"}


def made_yet(step: Step) -> bool:
    """Whether a step's parts are made (`Step._r` set), read without making them."""
    try:
        Step.__dict__["_r"].__get__(step, Step)  # (the slot itself: no `__getattr__`)
    except AttributeError:
        return False
    return True


def test_the_commonest_steps_are_made_only_when_read():
    # SWITCH.lazy_steps: a let's, a set's, a lookup's, an if's, a call's, a choice's, a
    # check's and a roll's step recorded as what makes it, made when first read, as the
    # replay's
    assert SWITCH.lazy_steps
    statements = Engine(dsl.load_text(STATEMENTS, "statements.rules"))
    made = statements.sheet({"A": 3, "R": 3, "C": 0, "L": []})
    brujeria = Engine(dsl.load("brujeria"))
    bruja = brujeria.load_sheet(shipped_characters_folder() / "brujeria_bruja.yaml")
    dice = Engine(dsl.load_text(ROLLS, "rolls.rules"))
    cases = ((statements, made, "act"), (brujeria, bruja, "chequeo_sencillo"))
    cases += ((dice, dice.sheet({}), "act"),) * 4  # (its closures, then its generated code)
    for engine, sheet, action in cases:
        trace = engine.run(action, sheet, {}, SeededDice(1), trace=True).trace
        unmade = [step for step in trace if not made_yet(step)]
        assert unmade and not any(made_yet(step) for step in unmade)
        replayed = engine.run(action, sheet, {}, SeededDice(1)).trace
        assert shown(trace) == shown(replayed)
        lazy = {"check"} if engine is brujeria else {"roll"} if engine is dice else STATED
        assert lazy <= {step.kind for step in unmade}


def test_the_commonest_steps_are_recorded_flat_until_the_trace_is_read():
    # SWITCH.flat_steps: a let's, a set's, a lookup's, an if's, a call's, a check's and a
    # roll's step put in the trace as the tuple that makes it: no `Step` made by the run
    assert SWITCH.flat_steps
    statements = Engine(dsl.load_text(STATEMENTS, "statements.rules"))
    made = statements.sheet({"A": 3, "R": 3, "C": 0, "L": []})
    brujeria = Engine(dsl.load("brujeria"))
    bruja = brujeria.load_sheet(shipped_characters_folder() / "brujeria_bruja.yaml")
    for engine, sheet, action in ((statements, made, "act"), (brujeria, bruja, "chequeo_sencillo")):
        for _ in range(4):  # (its closures, then its generated code)
            trace = engine.run(action, sheet, {}, SeededDice(1), trace=True).trace
            recorded = list(list.__iter__(trace))  # (the list itself: nothing read yet)
            kinds = {type(entry) for entry in recorded}  # (the rarer steps: Steps)
            assert trace.flat and tuple in kinds and kinds <= {tuple, Step}
            steps = list(trace)  # read: each a Step, its parts still made only when read
            assert not trace.flat and {Step} == {type(entry) for entry in list.__iter__(trace)}
            assert [s for s in steps if not made_yet(s)]
            assert trace[0] is steps[0] and trace == steps and steps[-1] in trace
            replayed = engine.run(action, sheet, {}, SeededDice(1)).trace
            assert shown(trace) == shown(replayed)


def test_a_trace_recorded_without_flat_steps_is_the_same():
    engine = Engine(dsl.load("brujeria"))
    sheet = engine.load_sheet(shipped_characters_folder() / "brujeria_bruja.yaml")
    flat = [engine.run("ataque_a_distancia", sheet, {}, SeededDice(s), trace=True) for s in (1, 2)]
    SWITCH.flat_steps = False
    try:
        made = [
            engine.run("ataque_a_distancia", sheet, {}, SeededDice(s), trace=True) for s in (1, 2)
        ]
        assert all(type(e) is Step for o in made for e in list.__iter__(o.trace))
    finally:
        SWITCH.flat_steps = True
    assert [shown(o.trace) for o in flat] == [shown(o.trace) for o in made]


#: an opposed check's sides: one plain die each, rolled by their closures (no generated
#: code runs an opposed check), a tie rolled again
OPPOSED = """
sheet { attribute A in 1..10 }
opposed contest(a: int) "Contest" {
  roll d10 + a
  against d6 + 3
  tie reroll
}
action act() {
  let t = contest(A)
  result { won: t.won, ours: t.ours.total }
}
"""


def test_a_plain_die_a_closure_rolls_in_a_traced_run_is_drawn_as_untraced():
    # SWITCH.traced_faces: the die's face drawn as an untraced run draws it, its roll
    # and step made as the generated code makes them: the same results, dice and trace
    # as its pool's (switched off), in fewer Python calls (off: this fails)
    engine = Engine(dsl.load_text(OPPOSED, "opposed.rules"))
    sheet = engine.sheet({"A": 4})

    def runs() -> list:
        return [engine.run("act", sheet, {}, SeededDice(s), trace=True) for s in range(12)]

    def calls() -> int:
        counted = [0]

        def count(frame, event, arg):
            counted[0] += event == "call"

        sys.setprofile(count)
        try:
            engine.run("act", sheet, {}, SeededDice(1), trace=True)
        finally:
            sys.setprofile(None)
        return counted[0]

    assert SWITCH.traced_faces
    fast, fewer = runs(), calls()
    SWITCH.traced_faces = False
    try:
        slow, more = runs(), calls()
    finally:
        SWITCH.traced_faces = True
    assert [(o.result, o.dice, shown(o.trace)) for o in fast] == [
        (o.result, o.dice, shown(o.trace)) for o in slow
    ]
    assert any("tie" in render_text(o.trace) for o in fast)  # (a tie rolled again)
    assert fewer < more, (fewer, more)
