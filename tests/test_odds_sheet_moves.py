"""A field later statements only gain or lose, and no `ensure` rule reads, stops
splitting worlds (interpreter.odds.sheet_live.SheetReads.before): a small-budget case
only that path answers, and its answers against every way the dice fall (issue 24)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

from test_odds_sheet_live import answered  # (a result's `t`, or a refusal)

import dsl
import interpreter.odds.sheet_live as sheet_live
from interpreter import Engine

#: Gloria is gained by a called action (its result discarded, the field named by a
#: parameter, a note saying it) before three dice and again after: nothing reads it but
#: those gains, so the worlds of `a` merge before `let b` (6 × 6 × 6 × 6 worlds become
#: 6 × 6 × 6); Oro is gained twice too, but the `ensure` rule reads it at the end
MOVED = """
sheet {
  counter Gloria, Fama
  group Renombre = Gloria, Fama
  counter Oro
  ensure Oro <= LIMIT else "demasiado oro"
}
action ganar(puntos: int, en: Renombre = "Gloria") {
  gain puntos to en
  note "{puntos} de {en}"
  result { renombre: Gloria + Fama }
}
action act(en: Renombre = "Gloria") {
  let a = d6
  do ganar(a, en)
  let b = d6
  let c = d6
  let d = d6
  let t = if b > c then d else b
  lose b from Fama
  do ganar(t, en)
  result { t: t }
}
"""
#: work units: what the merged worlds need, well under what the split ones do
SMALL = 600


def engine_of(text: str = MOVED, limit: int = 1000) -> Engine:
    return Engine(dsl.load_text(text.replace("LIMIT", str(limit)), "gloria.rules"))


def brute(refused=lambda a, b, c, d: False) -> dict:
    counts: Counter = Counter()
    for a, b, c, d in product(range(1, 7), repeat=4):
        counts["refused" if refused(a, b, c, d) else (d if b > c else b)] += 1
    return {k: Fraction(v, 6**4) for k, v in counts.items()}


def test_a_field_only_gained_later_stops_splitting_worlds(monkeypatch):
    engine = engine_of()
    odds = engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)
    assert odds.exact and answered(odds) == brute()
    # switched off: a field only gained later is read before each statement
    monkeypatch.setattr(sheet_live.SWITCH, "moves", False)
    engine = engine_of()
    assert not engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50).exact


def test_a_field_gained_and_then_read_keeps_its_worlds_apart():
    text = MOVED.replace("result { t: t }", "result { t: t + Gloria }")
    engine = engine_of(text)
    odds = engine.odds("act", engine.sheet({}), {})
    counts: Counter = Counter()
    for a, b, c, d in product(range(1, 7), repeat=4):
        t = d if b > c else b
        counts[t + a + t] += 1
    expected = {k: Fraction(v, 6**4) for k, v in counts.items()}
    assert odds.exact and {k["t"]: p for k, p in odds.probabilities.items()} == expected


def test_a_field_an_ensure_rule_reads_is_kept_through_its_gains():
    text = MOVED.replace("gain puntos to en", "gain puntos to en\n  gain puntos to Oro")
    engine = engine_of(text, limit=7)
    odds = engine.odds("act", engine.sheet({}), {})
    expected = brute(lambda a, b, c, d: a + (d if b > c else b) > 7)
    assert odds.exact and answered(odds) == expected


def test_a_result_read_by_the_caller_keeps_its_fields():
    text = MOVED.replace("do ganar(a, en)", "let g = ganar(a, en)").replace(
        "result { t: t }", "result { t: t + g.renombre }"
    )
    engine = engine_of(text)
    odds = engine.odds("act", engine.sheet({}), {})
    counts: Counter = Counter()
    for a, b, c, d in product(range(1, 7), repeat=4):
        counts[(d if b > c else b) + a] += 1
    expected = {k: Fraction(v, 6**4) for k, v in counts.items()}
    assert odds.exact and {k["t"]: p for k, p in odds.probabilities.items()} == expected
