"""A result run in a world of runs that took steps apart (merged worlds), from the most,
directly (interpreter.odds.explore.Explorer.each, switch worlds.EACH.apart): the same
odds as every roll and as explored (its switch off), and explored where that run
passes the step limit."""

from __future__ import annotations

import pytest
from oracle import assert_counted_as_run

import dsl
import interpreter.odds.explore as explore
import interpreter.odds.worlds as worlds
from interpreter import Engine, Limits

#: a die's faces take steps apart (an `if`'s block run for some), the worlds merged on
#: `s` alone; the result reads `s` (and, for `roll`, a die of its own: a run asking)
TEXT = """rulebook "Each" { }
sheet { attribute A in 0..3 default 1 }
action act() "Act" {
  let s = 0
  let a = d4
  if a >= 3 { set s to s + 1  set s to s + A }
  let b = d4
  if b = 4 { set s to s + 1 }
  result { s: s, big: s * 3 + A >= 6, roll: s + d2 >= 3 }
}
"""


def _explored(monkeypatch) -> list:
    """The worlds Explorer.explore was given, as each calls it."""
    found = explore.Explorer.explore
    seen: list = []

    def spy(self, world, run):
        seen.append(world.steps)
        return found(self, world, run)

    monkeypatch.setattr(explore.Explorer, "explore", spy)
    return seen


def _answers(field: str, limits=None) -> tuple:
    engine = Engine(dsl.load_text(TEXT, "each.rules"), limits or Limits())
    odds = engine.odds("act", engine.sheet({}), {}, field, seed=1)
    return odds.probabilities, odds.exact, odds.work


@pytest.mark.parametrize("apart", [True, False])
@pytest.mark.parametrize("steps", [None, 28, 32, 42])
def test_agrees_with_every_roll(monkeypatch, apart, steps):
    monkeypatch.setattr(worlds.EACH, "apart", apart)
    limits = Limits(tie_rerolls=1, steps_per_run=steps) if steps else Limits(tie_rerolls=1)
    assert_counted_as_run(TEXT, {}, limits=limits)


def test_worlds_of_steps_apart_run_directly(monkeypatch):
    seen = _explored(monkeypatch)
    on = _answers("big")
    apart = [steps for steps in seen if steps[0] != steps[1]]
    assert not apart, "explored"
    monkeypatch.setattr(worlds.EACH, "apart", False)
    seen.clear()
    assert _answers("big") == on
    assert [steps for steps in seen if steps[0] != steps[1]], "none of its worlds apart"


@pytest.mark.parametrize("field", ["s", "big", "roll"])
@pytest.mark.parametrize("steps", [None, 28, 32, 34, 38, 42])
def test_the_same_answer_and_work_switched_off(monkeypatch, field, steps):
    """(34 and 38: merged runs on both sides of the limit, the answer sampled either way)"""
    limits = Limits(tie_rerolls=1, steps_per_run=steps) if steps else None
    on = _answers(field, limits)
    monkeypatch.setattr(worlds.EACH, "apart", False)
    assert _answers(field, limits) == on
