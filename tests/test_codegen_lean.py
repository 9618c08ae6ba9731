"""A run's fixed costs cut (issue 25): lean frames, plain tables, a binding recognised again.

Each is a fast path with its switch: `lean_frames.LEAN_FRAMES`, `LEAN_OWN` and
`MERGED_COUNTS` (a called check's frame and the function's own without their count of
calls, two counts on entry made one), `SETTLED_TOTALS` (a total made a number off its
sum's fast path only), `NESTED_WHOLES` (a `+ - *` of a value just made written inside
that value's fast path), `lookups.PLAIN_ROWS` (a table of plain
constants' lookup tested for nothing) and `parameters.WRITTEN_OUT` (the last binding
recognised by a function made for it). The lean forms are written by the emitter as it
goes (`lean_frames`), not found again in finished source. The source tests below fail
with their switch off; the agreement tests hold the generated code to the closures at
every edge of `call_depth` and `steps_per_run` the lean frames touch, each switch on and
off.
"""

from __future__ import annotations

import re
import sys

import pytest
from test_codegen_traced import python_calls

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, SeededDice, run_entries
from interpreter import parameters as parameters_module
from interpreter.compile.codegen import SWITCH, closures_only, lean_frames, lookups, returned
from interpreter.compile.codegen.emitted import UnsafeSource, check_source
from interpreter.compile.tables import Pending
from interpreter.limits import Limits
from interpreter.values import Record

BOOK = """
rulebook "Lean frames" {
  system "a check called by an action, an action by another"
  language "en"
}

sheet {
  attribute Strength, Dexterity in 1..10
  skill Athletics in 0..10
}

table Level by total {
  ..8:    "Failure"
  9..12:  "Decent"
  13..:   "Good"
}

check simple(attr: attribute, skill: skill, modifier: int = 0) "Simple check" {
  roll d10 + 2 * attr + skill + modifier >= 9
  level = Level[total]
}

action test(attr: attribute, skill: skill, modifier: int = 0) "Test" {
  let c = simple(attr, skill, modifier)
  result { success: c.success, total: c.total, margin: c.margin, level: c.level }
}

action outer(modifier: int = 0) "Outer" {
  let r = test(Strength, Athletics, modifier)
  let c = simple(Dexterity, Athletics, modifier - 1)
  result { first: r.total, second: c.total }
}
"""
SHEET = {"Strength": 3, "Dexterity": 4, "Athletics": 2}
PARAMS = {"test": {"attr": "Dexterity", "skill": "Athletics", "modifier": -2}, "outer": {}}


@pytest.fixture(autouse=True)
def generated_at_once():
    """Every run here through the generated code from the first (not after a few)."""
    before, SWITCH.after = SWITCH.after, 0
    yield
    SWITCH.after = before


def outcome(engine: Engine, name: str, seed: int) -> tuple:
    """A run's result, dice and steps; or its error, where, and after how many steps."""
    sheet = engine.sheet(SHEET)
    try:
        out = engine.run(name, sheet, PARAMS[name], SeededDice(seed))
    except RulebookError as error:
        return ("error", str(error), error.span, getattr(error, "steps", None))
    return (dict(out.result), out.dice, out.steps)


SWITCHES = ["LEAN_FRAMES", "LEAN_OWN", "MERGED_COUNTS", "SETTLED_TOTALS", "NESTED_WHOLES"]


@pytest.mark.parametrize("off", [None, *SWITCHES])
@pytest.mark.parametrize("name", ["test", "outer"])
def test_the_lean_frames_agree_with_the_closures_at_every_edge(monkeypatch, name, off):
    # Every call_depth and step bound around the counts the lean frames merge or leave
    # out: the same result, or the same error at the same place after the same steps
    # (every switch on, or one off).
    if off is not None:
        monkeypatch.setattr(lean_frames, off, False)
    book = dsl.load_text(BOOK + f"\n# {off}\n", "lean.rules")
    seen = set()
    for depth in (1, 2, 3):
        for bound in range(1, 80):
            engine = Engine(book, Limits(call_depth=depth, steps_per_run=bound))
            generated = outcome(engine, name, 7)
            with closures_only():
                closures = outcome(engine, name, 7)
            assert generated == closures, (depth, bound)
            seen.add(generated[0] if generated[0] == "error" else "done")
    assert seen == {"error", "done"}


def source_of(name: str, text: str = BOOK) -> str:
    """The generated source of an action of a freshly loaded rulebook."""
    book = dsl.load_text(text + f"\n# {len(sys.argv)} {id(object())}\n", "lean.rules")
    engine = Engine(book)
    engine.run(name, engine.sheet(SHEET), PARAMS[name], SeededDice(1))
    made = engine.compiler.action(name).generated
    assert made is not None
    return made[1]


@pytest.mark.parametrize("switch", ["LEAN_FRAMES", "LEAN_OWN", "MERGED_COUNTS"])
def test_a_quiet_action_and_its_check_count_no_call(monkeypatch, switch):
    # The action calls a check that calls nothing, through code that calls nothing that
    # enters a definition: neither raises `ctx.calls`, and both counts on entry are one.
    # Switched off: what it leaves out is written (this fails).
    source = source_of("test")
    assert "ctx.calls +=" not in source and source.count("ctx.steps =") == 1
    assert "ctx.calls + " in source  # (the check's depth test: the action's call counted)
    monkeypatch.setattr(lean_frames, switch, False)
    source = source_of("test")
    assert "ctx.calls +=" in source or source.count("ctx.steps =") == 2


def test_a_total_of_whole_numbers_is_not_tested_again(monkeypatch):
    # The check's total is made a number only where the sum giving it was not of whole
    # numbers: the test sits in the sum's slow path. Switched off, it follows the sum
    # at the function's own level (this fails).
    def test_depth(source: str) -> int:
        lines = [line for line in source.splitlines() if "is not int:" in line]
        return min(len(line) - len(line.lstrip()) for line in lines)

    assert test_depth(source_of("test")) > 4
    monkeypatch.setattr(lean_frames, "SETTLED_TOTALS", False)
    assert test_depth(source_of("test")) == 4


def test_a_sum_of_a_product_is_written_inside_its_fast_path(monkeypatch):
    # `d10 + 2 * attr`: the sum is written again inside the product's fast path, where
    # the product is a whole number and only the die is tested. Switched off, the sum
    # follows the product and tests both again (this fails).
    inside = re.compile(r"\n( +)if abs\(_v[0-9]+\) >= number_bound:\n\1    raise .*\n\1if type\(")
    assert inside.search(source_of("test"))
    monkeypatch.setattr(lean_frames, "NESTED_WHOLES", False)
    assert not inside.search(source_of("test"))


def test_the_marks_of_a_lean_frame_never_reach_the_compiled_source():
    # The emitter writes a lean check's depth test with a mark its function's end
    # replaces (`lean_frames.LIFT`): source still holding one is refused, never compiled.
    assert lean_frames.LIFT not in source_of("test") and lean_frames.LIFT_ARG not in source_of(
        "test"
    )
    for mark in (lean_frames.LIFT, lean_frames.LIFT_ARG):
        with pytest.raises(UnsafeSource):
            check_source(f"def _f1(ctx):\n    if ctx.calls{mark} >= _k1:\n        pass\n")


def test_an_action_calling_another_keeps_its_frame():
    # `outer` calls `test`'s function, which enters a definition: its own frame is kept
    # (the check it writes inline is lean all the same).
    source = source_of("outer")
    assert source.count("ctx.calls +=") == 1 and source.count("ctx.calls -=") == 1


def test_a_lookup_of_plain_rows_is_tested_for_nothing(monkeypatch):
    # `Level` holds texts only: what its lookup gives is not tested for a row's field to
    # roll (Pending) nor for a list or record to bound. Switched off, it is (this fails).
    book = dsl.load_text(BOOK, "plain.rules")
    engine = Engine(book)
    engine.run("test", engine.sheet(SHEET), PARAMS["test"], SeededDice(1))
    namespace = engine.compiler.action("test").generated[0].__globals__
    assert all(value is not Pending for value in namespace.values())
    monkeypatch.setattr(lookups, "PLAIN_ROWS", False)
    source_book = dsl.load_text(BOOK + "\n# rows tested\n", "plain.rules")
    engine = Engine(source_book)
    engine.run("test", engine.sheet(SHEET), PARAMS["test"], SeededDice(1))
    namespace = engine.compiler.action("test").generated[0].__globals__
    assert any(value is Pending for value in namespace.values())


def calls_per_run(written_out: bool, name: str = "bound") -> int:
    """Python calls of a run with the parameters of the runs before it."""
    engine = Engine(dsl.load_text(BOOK + f"\n# {written_out}\n", f"{name}.rules"))
    sheet, params, dice = engine.sheet(SHEET), PARAMS["test"], SeededDice(3)
    for _ in range(3):
        engine.run("test", sheet, params, dice)
    return python_calls(lambda: engine.run("test", sheet, params, dice))


def test_the_last_binding_is_recognised_in_one_call(monkeypatch):
    # The same parameters again: one Python call recognises them (the function made for
    # the binding), where `Binder.prepared` reads them and tests them in two. Switched
    # off, a run calls one function more (this fails). (Without entries, which recognise
    # it in none: tests/test_run_entries.py.)
    monkeypatch.setattr(run_entries.SWITCH, "on", False)
    written = calls_per_run(True)
    monkeypatch.setattr(parameters_module, "WRITTEN_OUT", False)
    assert calls_per_run(False) == written + 1


def test_a_result_is_made_bare(monkeypatch):
    # An action's result is made without a call of `Record.__init__` (`returned.MADE_BARE`),
    # every slot given as `__init__` gives it: the same record in every way. Switched off,
    # a run calls `Record.__init__` once more (this fails).
    engine = Engine(dsl.load_text(BOOK + "\n# bare\n", "bare.rules"))
    sheet = engine.sheet(SHEET)
    made = engine.run("test", sheet, PARAMS["test"], SeededDice(3)).result
    again = Record(dict(made), made.kind)
    unset = object()
    slots = [slot for slot in Record.__slots__ if slot != "_fields"]
    assert [getattr(made, slot, unset) for slot in slots] == [
        getattr(again, slot, unset) for slot in slots
    ]
    assert type(made) is Record and made == again and hash(made) == hash(again)
    bare = calls_per_run(True, "bare")
    monkeypatch.setattr(returned, "MADE_BARE", False)
    assert calls_per_run(True, "called") == bare + 1
