"""An untraced run's fixed costs: its context reused, its generated code's constants.

`Engine.run` keeps a finished run's context (and its working sheet, if the run wrote
nothing) for the next run when nothing else holds it (`engine.REUSE_RUNS`); generated
code reads its plain constants as literals (`emitted.FOLD_CONSTANTS`) and a limit read
more than once from a local (`emitted.HOIST_LIMITS`). Each must change nothing a run
gives: the same results, dice, steps, changes and errors as a run made afresh.
"""

from __future__ import annotations

import contextlib
import dis

import pytest

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, SeededDice
from interpreter import engine as engine_module
from interpreter.compile.codegen import SWITCH, emitted
from interpreter.runtime import Context, Run
from interpreter.state import State

BOOK = """
rulebook "Reuse" {
  system "a check, a write, a require"
  language "en"
}

sheet {
  attribute Strength in 1..10
  resource Health max 10
}

check plain(bonus: int = 0) "Plain" {
  roll d10 + Strength + bonus >= 8
}

action test(bonus: int = 0) "Test" {
  let c = plain(bonus)
  result { total: c.total, success: c.success, more: c.total * 2 + bonus * 3 }
}

action hurt(by: int = 1) "Hurt" {
  require by < 5 else "too much"
  lose by from Health
  result { left: Health }
}
"""


@pytest.fixture(autouse=True)
def generated_at_once():
    before, SWITCH.after = SWITCH.after, 0
    yield
    SWITCH.after = before


@pytest.fixture
def engine():
    return Engine(dsl.load_text(BOOK, "reuse.rules"))


def counted(monkeypatch, cls) -> list[int]:
    """A list that grows by one for each object of `cls` made from now on."""
    made: list[int] = []
    init = cls.__init__

    def counting(self, *args, **kwargs):
        made.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", counting)
    return made


def plain(out):
    return (dict(out.result), out.dice, out.steps, out.changes, out.sheet)


def test_runs_one_after_another_make_one_context_and_one_working_sheet(engine, monkeypatch):
    sheet = engine.sheet({"Strength": 3, "Health": 10})
    engine.run("test", sheet, {"bonus": 1}, SeededDice(1))  # (its function made)
    runs, states = counted(monkeypatch, Run), counted(monkeypatch, State)
    outs = [engine.run("test", sheet, {"bonus": 1}, SeededDice(seed)) for seed in range(20)]
    assert len(runs) <= 1 and len(states) <= 1
    monkeypatch.setattr(engine_module, "REUSE_RUNS", False)
    again = [engine.run("test", sheet, {"bonus": 1}, SeededDice(seed)) for seed in range(20)]
    assert len(runs) >= 20 and len(states) >= 20  # (each run its own, the switch off)
    assert [plain(out) for out in outs] == [plain(out) for out in again]


def test_a_context_kept_is_as_a_new_one_after_every_kind_of_run(engine):
    """After a plain run, a run that writes, one that fails and one with forced dice, the
    context kept has every slot as a new run's has it (but the run's own: its dice
    source, its faces, its working sheet), and the runs give what runs made afresh do."""
    sheet = engine.sheet({"Strength": 3, "Health": 10})
    fresh = Engine(engine.rulebook)
    runs = [
        ("test", {"bonus": 1}, [4]),
        ("hurt", {"by": 2}, []),
        ("hurt", {"by": 7}, []),  # (refused: its require)
        ("test", {"bonus": -9}, [10]),
        ("hurt", {"by": 1}, []),
    ]
    new = Run(None, engine.limits, None, None)
    for _ in range(3):
        for name, params, dice in runs:
            with engine_module_reuse(False):
                try:
                    expected = plain(fresh.run(name, sheet, params, ForcedDice(dice)))
                except RulebookError as error:
                    expected = str(error)
            try:
                got = plain(engine.run(name, sheet, params, ForcedDice(dice)))
            except RulebookError as error:
                got = str(error)
            assert got == expected
            for kept in engine._spares:
                assert kept.roller is kept
                for slot in (*Context.__slots__, "who", "why"):
                    if slot not in ("roller", "state", "steps"):
                        assert getattr(kept, slot) == getattr(new, slot), slot
                state = kept.state
                assert state is None or (not state.own and state.cast is None and not state.before)


@contextlib.contextmanager
def engine_module_reuse(value: bool):
    """`REUSE_RUNS` set for a while."""
    before, engine_module.REUSE_RUNS = engine_module.REUSE_RUNS, value
    try:
        yield
    finally:
        engine_module.REUSE_RUNS = before


def test_a_context_something_else_holds_is_never_reused(engine):
    """A context still held once the run is over (here by a wrapper keeping it) is left
    alone: the next run makes its own, and the one held has no cycle left."""
    sheet = engine.sheet({"Strength": 3, "Health": 10})
    for _ in range(2):  # (its function made, then its entry: `run_entries`)
        engine.run("test", sheet, {"bonus": 1}, SeededDice(1))
    runnable = engine.runnable("test")
    fast, held = runnable.entered, []  # (what its entry calls: `Runnable.entered`)

    def keeping(ctx, args, span):
        held.append(ctx)
        return fast(ctx, args, span)

    engine._spares.clear()
    runnable.entered = keeping
    try:
        first = engine.run("test", sheet, {"bonus": 1}, SeededDice(2))
        second = engine.run("test", sheet, {"bonus": 1}, SeededDice(2))
    finally:
        runnable.entered = fast
    assert held[0] is not held[1] and held[0].roller is None
    assert engine._spares == [] and plain(first) == plain(second)


def generated(engine, name: str):
    engine.run(name, engine.sheet({"Strength": 3, "Health": 10}), {}, SeededDice(1))
    return engine.compiler.action(name).generated


@pytest.mark.parametrize("fold", [True, False])
def test_plain_constants_are_the_codes_own(monkeypatch, fold):
    """With FOLD_CONSTANTS, a whole number or a text of the rules is a constant of the
    compiled code, not a name read from its namespace (the source is as checked)."""
    monkeypatch.setattr(emitted, "FOLD_CONSTANTS", fold)
    engine = Engine(dsl.load_text(BOOK, "reuse.rules"))
    function, source = generated(engine, "test")
    namespace = function.__globals__
    wholes = {name for name, value in namespace.items() if type(value) is int}
    assert wholes and all(name in source for name in wholes)
    read = {i.argval for i in dis.get_instructions(function) if i.opname == "LOAD_GLOBAL"}
    assert (read & wholes == set()) is fold
    assert (3 in function.__code__.co_consts) is fold  # (`bonus * 3`)


@pytest.mark.parametrize("hoist", [True, False])
def test_a_limit_read_more_than_once_is_read_once(monkeypatch, hoist):
    monkeypatch.setattr(emitted, "HOIST_LIMITS", hoist)
    engine = Engine(dsl.load_text(BOOK, "reuse.rules"))
    _, source = generated(engine, "test")
    assert ("number_bound = limits.number_bound" in source) is hoist
    assert (source.count("limits.number_bound") == 1) is hoist
