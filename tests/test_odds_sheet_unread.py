"""Sheet changes nothing later reads stop splitting worlds (interpreter.odds.sheet_live):
the store of lasting effects kept only where a statement or function of lasting effects
may read it, `effects("a")` reading only the effects on `a`, a call on another
character's sheet reading none of this one's, and inside a called action the changes
neither its rest nor its caller reads. Each has a small-budget case only it answers
(switched off there, the same case is sampled), and answers equal to every way the dice
fall (issue 24)."""

from __future__ import annotations

import pytest
from oracle import action_outcomes, counted

import dsl
import interpreter.odds.sheet_live as sheet_live
from interpreter import Engine

SHEET = """
sheet {
  counter A
  effects Efectos on x, y
    time turno
}
check chk() "C" {
  roll d6 + effects("x")
}
"""

#: `a` is written into an effect six ways, then READ: 6 × 6 × 6 worlds at `let d` where
#: the effect is kept, 36 where it is not
ACTION = """
action act(rival: character = none) {
  let a = d6
  effect "E" modifier a on x for 2 turno
  let b = d6
  let c = d6
  let d = d6
  let t = (if b > c then d else b) + 0
  READ
  result { t: t }
}
"""

#: what each case reads after the effect, and the switch only it needs
CASES = {
    # nothing reads the store again: not kept to the end of the run
    "effects": "",
    # the effects on y alone: the one on x counted, its modifier not kept
    "targets": 'set t to t + effects("y")',
    # the rival's check reads the rival's own effects, not these
    "elsewhere": "if rival != none { let r = rival.chk()\n set t to t + r.total }",
}

#: work units: what the merged worlds need, a fourth of what the split ones do
SMALL = 600


def engine_of(read: str) -> Engine:
    text = SHEET + ACTION.replace("READ", read)
    return Engine(dsl.load_text(text, "effects.rules"))


def params_of(engine: Engine, case: str) -> dict:
    if case != "elsewhere":
        return {}
    return {"rival": engine.sheet({"Efectos": {}})}


@pytest.mark.parametrize("case", list(CASES))
def test_an_effect_nothing_reads_later_stops_splitting_worlds(case, monkeypatch):
    engine = engine_of(CASES[case])
    sheet, params = engine.sheet({}), params_of(engine, case)
    odds = engine.odds("act", sheet, params, budget=SMALL, trials=50)
    assert odds.exact
    monkeypatch.setattr(sheet_live.SWITCH, case, False)
    engine = engine_of(CASES[case])  # (what is read is found once per compiled rulebook)
    odds = engine.odds("act", engine.sheet({}), params_of(engine, case), budget=SMALL, trials=50)
    assert not odds.exact


READS = {
    "whole": 'set t to t + effects("x")',
    "by name": 'set t to t + effect_modifier("E") + (if active("E") then 1 else 0)',
    "after time": 'pass 1 turno\n set t to t + effects("x", "y")',
    "ended": 'if t > 3 { end "E" }\n set t to t + effects("x")',
    "another target": 'effect "F" modifier t on y for 1 turno\n set t to t + effects("y")',
    "rival": "if rival != none { let r = rival.chk()\n set t to t + r.total }",
    "ours": "let r = chk()\n set t to t + r.total",
}


#: a called action writes Oro six ways that neither it nor its caller reads again, and
#: then makes 6 × 6 × 6 worlds (36 where Oro is left out of its merges)
CALLED = """
sheet {
  counter Oro
  counter Fama
  ensure Fama <= 3 else "too famous"
}
action ganar() {
  let a = d6
  gain a to Oro
  let b = d6
  let c = d6
  let d = d6
  let t = (if b > c then d else b) + 0
  result { t: t }
}
action act() {
  let r = ganar()
  READ
  result { t: r.t }
}
"""


def test_a_change_no_caller_reads_stops_splitting_a_calls_worlds(monkeypatch):
    engine = Engine(dsl.load_text(CALLED.replace("READ", ""), "called.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)
    assert odds.exact
    monkeypatch.setattr(sheet_live.SWITCH, "calls", False)
    engine = Engine(dsl.load_text(CALLED.replace("READ", ""), "called.rules"))
    assert not engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50).exact


CALLERS = {
    "reads it": "let o = Oro + 0",
    "moves it": "gain 1 to Oro",
    "its rule": "gain Oro to Fama",
}


@pytest.mark.parametrize("read", list(CALLERS))
def test_what_a_caller_reads_of_a_calls_changes_is_answered_as_every_roll(read):
    engine = Engine(dsl.load_text(CALLED.replace("READ", CALLERS[read]), "called.rules"))
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {})
    assert odds.exact
    assert counted(odds) == action_outcomes(engine, "act", sheet, {})


#: a call inside a call: what its caller's caller reads of the sheet is kept in it too
NESTED = """
sheet {
  counter Oro
}
action inner() {
  let a = d3
  gain a to Oro
  let z = d3
  result { x: a + z }
}
action mid() {
  let i = inner()
  let b = d3 + 0
  MID
  result { t: i.x + b }
}
action act() {
  let r = mid()
  let o = 0
  ACT
  result { t: r.t + o }
}
"""


@pytest.mark.parametrize("mid, act", [("", "set o to Oro"), ("set b to b + Oro", ""), ("", "")])
def test_what_a_callers_caller_reads_is_kept_in_a_nested_call(mid, act):
    text = NESTED.replace("MID", mid).replace("ACT", act)
    engine = Engine(dsl.load_text(text, "nested.rules"))
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {})
    assert odds.exact
    assert counted(odds) == action_outcomes(engine, "act", sheet, {})


@pytest.mark.parametrize("read", list(READS))
def test_what_reads_the_effects_later_is_answered_as_every_roll(read):
    engine = engine_of(READS[read])
    sheet = engine.sheet({})
    params = params_of(engine, "elsewhere") if read == "rival" else {}
    odds = engine.odds("act", sheet, params)
    assert odds.exact
    assert counted(odds) == action_outcomes(engine, "act", sheet, params)
