"""Sheet changes nothing later reads stop splitting worlds (interpreter.odds.sheet_live):
a small-budget case only that path answers, and its answers against every way the dice
fall (issue 24)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import dsl
import interpreter.odds.passes as passes
import interpreter.odds.sheet_ends as sheet_ends
from interpreter import Engine
from interpreter.odds.worlds import Failure

#: Oro is written six ways and then read by the `ensure` rule alone: judged where it is
#: written, its worlds merge (6 × 6 × 6 worlds at `let d` become 36)
WRITTEN = """
sheet {
  counter Oro
  counter Fama
  ensure Oro <= LIMIT else "demasiado oro"
}
action act() {
  let a = d6
  gain a to Oro
  let b = d6
  let c = d6
  let d = d6
  let t = if b > c then d else b
  result { t: t }
}
"""
#: work units: what the merged worlds need, a fourth of what the split ones do
SMALL = 400


def engine_of(limit: int = 1000, text: str = WRITTEN) -> Engine:
    return Engine(dsl.load_text(text.replace("LIMIT", str(limit)), "oro.rules"))


def brute(limit: int) -> dict:
    """Every way the four dice fall: the result, or the refusal past the ensure rule."""
    counts: Counter = Counter()
    for a, b, c, d in product(range(1, 7), repeat=4):
        counts["refused" if a > limit else (d if b > c else b)] += 1
    return {k: Fraction(v, 6**4) for k, v in counts.items()}


def answered(odds) -> dict:
    out: Counter = Counter()
    for outcome, p in odds.probabilities.items():
        out["refused" if isinstance(outcome, Failure) else outcome["t"]] += p
    return dict(out)


def test_a_change_only_the_ensure_reads_stops_splitting_worlds(monkeypatch):
    engine = engine_of()
    odds = engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)
    assert odds.exact and answered(odds) == brute(1000)
    # switched off: every merge keeps every change to the sheet
    monkeypatch.setattr(passes.Passes, "kept", lambda self, live: None)
    assert not engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50).exact


def test_a_change_that_breaks_the_ensure_still_fails_in_its_world():
    engine = engine_of(limit=4)
    odds = engine.odds("act", engine.sheet({}), {})
    assert odds.exact and answered(odds) == brute(4)


def test_a_change_read_later_keeps_its_worlds_apart():
    text = WRITTEN.replace("let t = if b > c then d else b", "let t = if b > c then d else Oro")
    engine = engine_of(text=text)
    odds = engine.odds("act", engine.sheet({}), {})
    counts: Counter = Counter()
    for a, b, c, d in product(range(1, 7), repeat=4):
        counts[d if b > c else a] += 1
    assert odds.exact and answered(odds) == {k: Fraction(v, 6**4) for k, v in counts.items()}


def test_a_field_of_the_sheet_asked_for_keeps_its_changes():
    engine = engine_of()
    odds = engine.odds("act", engine.sheet({}), {}, "Oro")
    assert odds.exact and odds.probabilities == {v: Fraction(1, 6) for v in range(1, 7)}


#: a called action writes Oro and reads it back: its body's merges keep every change
CALLED = """
sheet {
  counter Oro
}
action ganar() {
  let a = d6
  gain a to Oro
  let b = d6
  result { oro: Oro + b }
}
action act() {
  let r = ganar()
  let c = d6
  result { t: r.oro + c }
}
"""


def test_a_called_actions_changes_are_kept_for_its_own_reads():
    engine = Engine(dsl.load_text(CALLED, "called.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, "t")
    counts: Counter = Counter(a + b + c for a, b, c in product(range(1, 7), repeat=3))
    assert odds.exact and odds.probabilities == {k: Fraction(v, 216) for k, v in counts.items()}


#: a parameter naming a skill the rulebook does not name (its open skills): every field
OPEN = """
sheet {
  skill Ceremonia in 0..10
  skills in 0..10 default 0
}
action act(h: skill) {
  let a = d3
  set h to a
  let b = d3
  let c = d3
  result { t: h + b + c }
}
"""


def test_a_value_naming_an_open_skill_keeps_its_changes():
    engine = Engine(dsl.load_text(OPEN, "open.rules"))
    odds = engine.odds("act", engine.sheet({}), {"h": "Cocina"})
    counts: Counter = Counter(a + b + c for a, b, c in product(range(1, 4), repeat=3))
    expected = {k: Fraction(v, 27) for k, v in counts.items()}
    assert odds.exact and {k["t"]: p for k, p in odds.probabilities.items()} == expected


def test_a_sheets_key_is_found_once_per_sheet_not_once_per_world(monkeypatch):
    """A merge asks each world's sheet key (the changes kept, the `ensure` rules judged
    now): the worlds share six sheets (Oro written by `a`), so the keys are made about
    once per sheet and merge (sheet_ends.remembered), not once per world and merge."""
    made: list = []
    original = sheet_ends.Ends._key_for

    def counted(self, live):
        key = original(self, live)
        if key is None:
            return None

        def counting(state, snapshot):
            made.append(1)
            return key(state, snapshot)

        return counting

    monkeypatch.setattr(sheet_ends.Ends, "_key_for", counted)
    engine = engine_of()
    odds = engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)
    assert odds.exact and answered(odds) == brute(1000)
    remembered = len(made)
    made.clear()
    monkeypatch.setattr(
        sheet_ends, "remembered", lambda key: lambda state: key(state, state.snapshot())
    )
    engine = engine_of()
    odds = engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)
    assert odds.exact and answered(odds) == brute(1000)
    assert remembered * 10 < len(made)  # (switched off: once per world and merge)
