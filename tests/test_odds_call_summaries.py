"""A called action's summary is one memory for every exploration of the caller that
shares it (issue 24): a summary of more result fields serves a caller reading fewer,
its results cut to those (interpreter.odds.called.Calls.summary)."""

from __future__ import annotations

from fractions import Fraction

import dsl
from interpreter import Engine
from interpreter.odds import BUDGET, marginals
from interpreter.odds.marginals import ByField
from interpreter.odds.passes import Passes

TEXT = """
action inner() {
  let a = d6
  let b = d8
  result { a: a, b: b }
}

action act() {
  let r = inner()
  let c = d20
  result { x: r.a, y: r.b + 1, z: c }
}
"""

#: a field of the called action that may stop a run (b is 0 once in 4): it stops the
#: runs of a caller that never reads it too, as a real run computes the whole result
FAILING = """
action inner() {
  let a = d6
  let b = d4 - 1
  result { a: a, b: 12 / b }
}

action act() {
  let r = inner()
  let c = d20
  result { x: r.a, y: r.b, z: c }
}
"""


def counted(monkeypatch) -> list:
    """The fields each exploration of a called action was asked for."""
    asked: list = []
    original = Passes.call

    def call(self, action, args, state, fields, rider=None, steps=(0, 0)):
        asked.append(fields)
        return original(self, action, args, state, fields, rider, steps)

    monkeypatch.setattr(Passes, "call", call)
    return asked


def answered(text: str, monkeypatch) -> tuple:
    engine = Engine(dsl.load_text(text, "calls.rules"))
    sheet = engine.sheet({})
    asked = counted(monkeypatch)
    with monkeypatch.context() as patch:
        # the joint's try explores `inner`, then stops at `let c` (past 100 worlds)
        patch.setattr(marginals, "JOINT_WORLDS", 100)
        patch.setattr(marginals, "JOINT_OUTCOMES", 100)
        whole = engine.odds("act", sheet, {})
        done = list(asked)
    alone = {name: engine.odds("act", sheet, {}, name) for name in ("x", "y")}
    return whole, alone, done


def test_the_joints_summary_of_a_call_serves_each_fields_groups(monkeypatch):
    whole, alone, asked = answered(TEXT, monkeypatch)
    assert type(whole) is ByField
    # the joint's try explored `inner` for both fields; the fork groups (x reads r.a,
    # y reads r.b, z neither) each had that summary cut, not explored again
    assert asked == [("a", "b")]
    for name, odds in alone.items():
        assert whole.fields[name].exact and odds.exact
        assert whole.fields[name].probabilities == odds.probabilities


def test_a_field_of_a_call_that_may_stop_a_run_stops_the_callers_that_do_not_read_it(
    monkeypatch,
):
    whole, alone, asked = answered(FAILING, monkeypatch)
    assert type(whole) is ByField
    assert asked == [("a", "b")]  # every summary has b's failures: the groups' cut
    stopped = [o for o in alone["x"].probabilities if not isinstance(o, int)]
    assert len(stopped) == 1 and alone["x"].probabilities[stopped[0]] == Fraction(1, 4)
    assert alone["x"].probabilities[1] == Fraction(3, 4) / 6  # (a's face, b not 0)
    for name, odds in alone.items():
        assert whole.fields[name].probabilities == odds.probabilities


#: fork groups reading one field of a call and both: the wider first
NESTED = """
action inner() {
  let a = d6
  let b = d8
  result { a: a, b: b }
}

action act() {
  let r = inner()
  let c = d20
  result { x: r.a, y: r.a + r.b, z: c }
}
"""


def test_the_fork_group_reading_more_of_a_call_goes_first_and_serves_the_others(monkeypatch):
    engine = Engine(dsl.load_text(NESTED, "calls.rules"))
    sheet = engine.sheet({})
    asked = counted(monkeypatch)
    with monkeypatch.context() as patch:
        patch.setattr(marginals, "JOINT_SHARE", BUDGET)  # the joint's try: one unit
        patch.setattr(marginals, "JOINT_OUTCOMES", 0)  # (not counted whole again)
        whole = engine.odds("act", sheet, {})
    assert type(whole) is ByField
    # the joint's try stopped within `inner` (its one unit); then y (r.a and r.b)
    # explored it first, and x (r.a) and z (neither) had that summary cut
    assert asked == [("a", "b"), ("a", "b")]
    for name in ("x", "y", "z"):
        alone = engine.odds("act", sheet, {}, name)
        assert whole.fields[name].exact and alone.exact
        assert whole.fields[name].probabilities == alone.probabilities
