"""An action's entry (interpreter.run_entries): `Engine.run`'s untraced fast path made once
for an engine and a runnable, its last binding recognised in place, and its generated
function written for its limits on a fresh context (codegen.entry_body).

Each must give what a run gives without them (`SWITCH.on`, `SWITCH.fresh` off) and what
the closures give: the same results, dice, steps, changes, errors and replays, every
limit counted; and each, switched off, costs a run more (these fail).
"""

from __future__ import annotations

import sys

import pytest
from test_codegen_traced import python_calls

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, SeededDice, render_text, run_entries
from interpreter.compile.codegen import SWITCH, closures_only
from interpreter.limits import Limits

BOOK = """
rulebook "Entries" {
  system "a check, a table, a write, a require"
  language "en"
}

sheet {
  attribute Strength, Dexterity in 1..10
  skill Stealth in 0..10
  resource Health max 10
}

table Level by total {
  ..8:    "Failure"
  9..12:  "Good"
  13..:   "Great"
}

check simple(attr: attribute, skill: skill, modifier: int = 0) "Simple" {
  roll d10 + 2 * attr + skill + modifier >= 9
  level = Level[total]
}

action test(attr: attribute, skill: skill, modifier: int = 0) "Test" {
  let c = simple(attr, skill, modifier)
  result { success: c.success, total: c.total, margin: c.margin, level: c.level }
}

action hurt(by: int = 1) "Hurt" {
  require by < 5 else "too much"
  lose by from Health
  result { left: Health }
}

action plain() "Plain" {
  let t = d6 + Strength
  result { t: t }
}
"""

SHEET = {"Strength": 3, "Dexterity": 4, "Stealth": 2, "Health": 9}


@pytest.fixture(autouse=True)
def generated_at_once():
    before, SWITCH.after = SWITCH.after, 0
    yield
    SWITCH.after = before


def made(limits: Limits | None = None) -> Engine:
    book = dsl.load_text(BOOK, "entries.rules")
    return Engine(book, limits) if limits is not None else Engine(book)


def shown(engine: Engine, name: str, sheet, params, dice) -> tuple:
    """What a run gives, every part of it (or its error and the steps it counted)."""
    try:
        out = engine.run(name, sheet, params, ForcedDice(dice))
    except RulebookError as error:
        return ("error", type(error).__name__, str(error), getattr(error, "steps", None))
    return (
        dict(out.result),
        out.dice,
        out.steps,
        out.changes,
        dict(out.sheet.values),
        out.warnings,
    )


RUNS = [
    ("test", {"attr": "Dexterity", "skill": "Stealth", "modifier": m}, [face])
    for m in (-16, -2, 0, 5, 11)
    for face in (1, 4, 10)
] + [
    ("test", {"attr": "Strength", "skill": "Stealth"}, [7]),
    ("test", {"attr": "Strength", "skill": "Stealth", "modifier": 2}, [7]),
    ("test", {"attr": "Nope", "skill": "Stealth"}, [7]),
    ("test", {"attr": "Strength", "skill": "Stealth", "other": 1}, [7]),
    ("test", {"attr": "Strength"}, [7]),
    ("test", {"attr": "Strength", "skill": "Stealth", "modifier": True}, [7]),
    ("hurt", {"by": 2}, []),
    ("hurt", {"by": 7}, []),
    ("hurt", None, []),
    ("plain", None, [3]),
    ("plain", {}, [5]),
    ("plain", {"x": 1}, [5]),
]


@pytest.mark.parametrize(
    "limits",
    [
        None,
        Limits(steps_per_run=3),
        Limits(call_depth=1),
        Limits(number_digits=1),
        Limits(run_seconds=60),
        Limits(dice_per_evaluation=1, faces_per_die=6),
    ],
    ids=["default", "steps", "depth", "numbers", "clock", "dice"],
)
def test_entries_agree_with_the_engines_own_path_and_the_closures(monkeypatch, limits):
    with_entries, without, fresh_off = made(limits), made(limits), made(limits)
    sheet_of = {id(e): e.sheet(SHEET) for e in (with_entries, without, fresh_off)}
    for _ in range(3):  # (each the same runs again: generated, then entered, then again)
        for name, params, dice in RUNS:
            expected = shown(without, name, sheet_of[id(without)], params, dice)
            with closures_only():
                assert shown(without, name, sheet_of[id(without)], params, dice) == expected
            got = shown(with_entries, name, sheet_of[id(with_entries)], params, dice)
            assert got == expected, (name, params, dice)
            with monkeypatch.context() as patched:
                patched.setattr(run_entries.SWITCH, "fresh", False)
                assert shown(fresh_off, name, sheet_of[id(fresh_off)], params, dice) == expected
            patched_off = run_entries.SWITCH.on
            run_entries.SWITCH.on = False
            try:
                without._entries.clear()
                assert shown(without, name, sheet_of[id(without)], params, dice) == expected
            finally:
                run_entries.SWITCH.on = patched_off
    assert not without._entries
    if limits is None:  # (under others, some are refused on every run: never entered)
        assert {"test", "hurt", "plain"} <= set(with_entries._entries)


def test_a_seeded_run_draws_the_same_dice_and_replays_the_same_trace():
    engine, other = made(), made()
    sheet = engine.sheet(SHEET)
    params = {"attr": "Dexterity", "skill": "Stealth", "modifier": -2}
    for seed in range(30):
        out = engine.run("test", sheet, params, SeededDice(seed))
        with closures_only():
            again = other.run("test", other.sheet(SHEET), params, SeededDice(seed))
        assert (dict(out.result), out.dice, out.steps) == (
            dict(again.result),
            again.dice,
            again.steps,
        )
        assert render_text(out.trace) == render_text(again.trace)
    assert "test" in engine._entries


def test_a_sheet_of_another_rulebook_is_refused_by_the_entry():
    engine = made()
    other = Engine(dsl.load_text(BOOK + "\n# other\n", "other.rules"))
    params = {"attr": "Dexterity", "skill": "Stealth"}
    for _ in range(3):
        engine.run("test", engine.sheet(SHEET), params, ForcedDice([4]))
    with pytest.raises(RulebookError, match="another rulebook"):
        engine.run("test", other.sheet(SHEET), params, ForcedDice([4]))


def calls_of_a_run(on: bool) -> int:
    """Python calls of a run with the parameters of the runs before it."""
    before = run_entries.SWITCH.on
    run_entries.SWITCH.on = on
    try:
        engine = made()
        sheet, params, dice = engine.sheet(SHEET), {"attr": "Dexterity", "skill": "Stealth"}, None
        dice = SeededDice(3)
        for _ in range(3):
            engine.run("test", sheet, params, dice)
        return python_calls(lambda: engine.run("test", sheet, params, dice))
    finally:
        run_entries.SWITCH.on = before


def test_the_same_parameters_again_are_recognised_without_a_call():
    # With its entry, a run calls its entry and its generated function, and recognises
    # its parameters in place; switched off, it calls `Binder.prepared`'s function for
    # the binding too (this fails).
    assert calls_of_a_run(True) < calls_of_a_run(False)


def opcodes_of_the_function(monkeypatch, fresh: bool) -> int:
    """Bytecodes the generated function an entry calls runs in one run."""
    monkeypatch.setattr(run_entries.SWITCH, "fresh", fresh)
    engine = made()
    sheet, params, dice = engine.sheet(SHEET), {"attr": "Dexterity", "skill": "Stealth"}, None
    dice = SeededDice(3)
    for _ in range(3):
        engine.run("test", sheet, params, dice)
    code = engine.runnable("test").entered.__code__
    counted = 0

    def tracer(frame, event, arg):
        if frame.f_code is not code:
            return None
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False

        def opcode(frame, event, arg):
            nonlocal counted
            counted += event == "opcode"
            return opcode

        return opcode

    sys.settrace(tracer)
    try:
        engine.run("test", sheet, params, dice)
    finally:
        sys.settrace(None)
    return counted


def test_the_function_of_an_entry_skips_what_a_fresh_context_makes_known(monkeypatch):
    # Its depth not tested, its count given, the bound of its count and its whole-number
    # limits decided when written: fewer bytecodes a run. Switched off, the action's own
    # generated function runs (this fails).
    fresh = opcodes_of_the_function(monkeypatch, True)
    assert 0 < fresh < opcodes_of_the_function(monkeypatch, False) - 10


def test_a_limit_past_on_entry_is_still_refused():
    # A count on entry past the steps' bound, or a check inside too deep: the test is
    # left in the function, and the run refused as without the entry.
    for limits in (Limits(steps_per_run=1), Limits(call_depth=1)):
        engine = made(limits)
        sheet, params = engine.sheet(SHEET), {"attr": "Dexterity", "skill": "Stealth"}
        for _ in range(4):
            with pytest.raises(RulebookError, match="limit"):
                engine.run("test", sheet, params, ForcedDice([4]))
