"""A term kept from one computation to the next keeps its projections onto fields with
it (distribution.KEPT): the next computation cuts it down to them no more, and answers
the same, charged the same work."""

from __future__ import annotations

import dsl
import interpreter.odds.distribution as distribution
import interpreter.odds.remembered as remembered
from interpreter import Engine

TEXT = """
symbols hit, crit, miss

die Rune { blank, hit, 2 hit, crit, hit + miss, miss }

action act(n: int) {
  let hits = 0
  let misses = 0
  repeat n times {
    let r = 1dRune
    set hits to hits + r.hit + r.crit
    set misses to misses + r.miss
  }
  result { ok: hits > misses }
}
"""


def _cuts_made(monkeypatch) -> list:
    found = distribution._projected
    made: list = []

    def spy(dist, fields):
        made.append(fields)
        return found(dist, fields)

    monkeypatch.setattr(distribution, "_projected", spy)
    return made


def _answers(kept: bool, monkeypatch) -> tuple:
    monkeypatch.setattr(remembered, "_counted", {})  # (nothing kept from other tests)
    monkeypatch.setattr(distribution, "KEPT", {})
    monkeypatch.setattr(remembered, "KEPT", distribution.KEPT)
    monkeypatch.setattr(remembered, "PROJECTIONS_KEPT", kept)
    made = _cuts_made(monkeypatch)
    book = dsl.load_text(TEXT, "runes.rules")
    out = []
    for _ in range(2):
        engine = Engine(book)
        odds = engine.odds("act", engine.sheet({}), {"n": 3}, "ok")
        out.append((odds.probabilities, odds.work, len(made)))
    return out


def test_a_kept_terms_cuts_are_made_once(monkeypatch):
    first, second = _answers(True, monkeypatch)
    assert first[2] >= 1
    assert second[2] == first[2], "cut again in the next computation"
    assert first[:2] == second[:2]


def test_switched_off_each_computation_cuts_again(monkeypatch):
    first, second = _answers(False, monkeypatch)
    assert second[2] > first[2]
    assert first[:2] == second[:2]
