"""An opposed check whose sides name their die before the roll (`let d = d100`, a natural
die the fields read) is counted side by side, each side path by path
(interpreter.odds.side_paths): exact at once, where the explorer branched on each side's
die and on each reroll of a tie (sampled after seconds for d100 against d100)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import dsl
from interpreter import Engine, ForcedDice, Limits
from interpreter.odds import side_paths

#: Warhammer's opposed test: d100 under a skill, success levels compared, ties rolled again
TEXT = """
check test(skill: int) "Test" {
  let d = d100
  roll d <= skill
  success = d <= 5 or (d < 96 and total <= target)
  sl = floor(target / 10) - floor(d / 10)
}
check bare(skill: int) "Bare" {
  roll d100 <= skill
  sl = floor(target / 10) - floor(total / 10)
}
opposed named(skill: int) "Named" { roll test(skill) against test(skill) compare sl tie reroll }
opposed plain(skill: int) "Plain" { roll bare(skill) against bare(skill) compare sl tie reroll }
opposed once(a: int, b: int) "Once" { roll test(a) against test(b) compare sl tie none }
"""


def _engine(limits=None):
    book = dsl.load_text(TEXT, "sl.rules")
    return Engine(book) if limits is None else Engine(book, limits)


def test_a_side_naming_its_die_is_exact_within_a_small_budget(monkeypatch):
    engine = _engine()
    sheet = engine.sheet({})
    odds = engine.odds("named", sheet, {"skill": 41}, "won", budget=5_000, trials=200)
    assert odds.exact and odds.work <= 5_000
    # the same rules with the die unnamed: the same answer
    assert odds.probabilities == engine.odds("plain", sheet, {"skill": 41}, "won").probabilities
    monkeypatch.setattr(side_paths.SWITCH, "on", False)  # (the explorer branches: past it)
    fresh = _engine()  # (nothing remembered of the count above)
    off = fresh.odds("named", fresh.sheet({}), {"skill": 41}, "won", budget=5_000, trials=200)
    assert not off.exact


def test_every_pair_of_dice_as_a_real_run_gives_it():
    engine = _engine()
    sheet = engine.sheet({})
    for a, b in ((41, 41), (12, 87), (97, 3)):
        counts: dict = {}
        for ours in range(1, 101):
            for theirs in range(1, 101):
                dice = ForcedDice([ours, theirs])
                result = engine.run("once", sheet, {"a": a, "b": b}, dice=dice).result
                key = (result["won"], result["tie"], result["margin"])
                counts[key] = counts.get(key, 0) + 1
        expected = {k: Fraction(n, 10_000) for k, n in counts.items()}
        got: dict = {}
        for field in ("won", "tie", "margin"):
            odds = engine.odds("once", sheet, {"a": a, "b": b}, field)
            assert odds.exact and odds.omitted == 0
            got[field] = odds.probabilities
        for i, field in enumerate(("won", "tie", "margin")):
            alone: dict = {}
            for key, p in expected.items():
                alone[key[i]] = alone.get(key[i], 0) + p
            assert got[field] == alone, (a, b, field)


@pytest.mark.parametrize("paths", [1, 50])
def test_past_its_paths_the_explorer_branches_as_before(monkeypatch, paths):
    monkeypatch.setattr(side_paths, "PATHS", paths)
    engine = _engine(Limits(tie_rerolls=1))
    odds = engine.odds("once", engine.sheet({}), {"a": 41, "b": 41}, "won")
    assert odds.exact  # (no reroll: the explorer's 10,000 worlds are within its budget)
    monkeypatch.setattr(side_paths, "PATHS", 4096)
    fresh = _engine(Limits(tie_rerolls=1))
    again = fresh.odds("once", fresh.sheet({}), {"a": 41, "b": 41}, "won")
    assert odds.probabilities == again.probabilities
