"""A called action summarised once where a whole result's fields part at its call
(interpreter.odds.called.Calls.widened, `SWITCH.widest`): the parts reading its result
differently, the widest part asks also for the field another part reads once (riding: a
distribution in each record, no more outcomes), and that summary, cut to each part's
reads, serves them all (issue 24: Arcana Mundi's combate_teurgico explored usar_numina
twice, once for `lanzada.puntos`, once for `lanzada.total` riding)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from oracle import action_outcomes, counted, marginal

import dsl
import interpreter.odds.called as called
import interpreter.odds.marginals as marginals
from interpreter import Engine
from interpreter.odds.marginals import ByField

#: two rolls the whole result reads together (w, t: each read twice, so no value rides):
#: their pairs stop the whole result's try before the call, and its fields go on in
#: parts; `u`, `u2` read `r.x` (twice: it does not ride), `v` reads `r.y` once (riding)
SHAPE = """
sheet {{
  counter Usos
}}
action inner(k: int) {{
  let a = {inner} + k
  let b = {inner} + k
  gain 1 to Usos
  result {{ x: a, y: b }}
}}
action outer() {{
  let m = {outer}
  let q = {outer}
  let r = inner(1)
  result {{ u: r.x, u2: r.x + 1, v: r.y, w: m, w2: m + 1, t: q, t2: q + 1, z: Usos }}
}}
"""


def explored(monkeypatch, text: str, on: bool):
    """(the answer, how many times `inner` was explored) with the switch `on` or off."""
    monkeypatch.setattr(called.SWITCH, "widest", on)
    calls = Counter()
    call = called.Calls.call

    def counting(self, action, *args, **kwargs):
        calls[action.node.name] += 1
        return call(self, action, *args, **kwargs)

    monkeypatch.setattr(called.Calls, "call", counting)
    engine = Engine(dsl.load_text(text, "called_once.rules"))
    answer = engine.odds("outer", engine.sheet({}), {})
    monkeypatch.setattr(called.Calls, "call", call)
    return engine, answer, calls["inner"]


def two(sides: int, plus: int = 0) -> dict:
    """The distribution of two dice of `sides` faces added, plus `plus`."""
    ways = Counter(a + b + plus for a in range(1, sides + 1) for b in range(1, sides + 1))
    return {value: Fraction(n, sides * sides) for value, n in ways.items()}


@pytest.mark.parametrize("on", [True, False])
def test_a_call_where_the_fields_part_is_explored_once(monkeypatch, on):
    text = SHAPE.format(inner="d20 + d20", outer="d100 + d100")
    _, answer, explorations = explored(monkeypatch, text, on)
    assert isinstance(answer, ByField) and answer.exact
    assert explorations == (1 if on else 2)
    fields = answer.fields
    assert counted(fields["u"]) == two(20, 1)
    assert counted(fields["u2"]) == two(20, 2)
    assert counted(fields["v"]) == two(20, 1)
    assert counted(fields["w"]) == two(100) and counted(fields["t2"]) == two(100, 1)
    assert counted(fields["z"]) == {1: Fraction(1)}


def test_the_parts_cut_from_one_summary_are_what_brute_force_gives(monkeypatch):
    """Small dice, the whole result's try stopped early (JOINT_WORLDS made small): each
    field, the parts served by one summary of the call, against every roll."""
    monkeypatch.setattr(marginals, "JOINT_WORLDS", 4)
    text = SHAPE.format(inner="d3 + d2", outer="d4")
    engine, answer, explorations = explored(monkeypatch, text, True)
    assert isinstance(answer, ByField) and answer.exact and explorations == 1
    joint = action_outcomes(engine, "outer", engine.sheet({}))
    for name, odds in answer.fields.items():
        assert counted(odds) == marginal(joint, name), name
