"""A long table of whole results opens with each field on its own (`rulebook odds` text,
interpreter.cli.render.each_field_alone): each summed-up field's chances are the field's
own odds, as `--field` answers them."""

from __future__ import annotations

from fractions import Fraction

import dsl
from interpreter import Engine
from interpreter.cli.render import EACH_FIELD, EVERY_OUTCOME, to_text
from interpreter.odds.listing import SUMMARY_ABOVE, SUMMARY_VALUES, field_summaries
from interpreter.values import Record, is_number

#: a d100 roll-under test with success levels and degrees on doubles: 100 outcomes, a
#: failure for a d4 of 1 (no record: weighs in no field)
TEXT = """
rulebook "Roll under" { language "en" }
check test(skill: int) "Test" {
  let d = d100
  roll d <= skill
  success = d <= 5 or (d < 96 and total <= target)
  sl = floor(target / 10) - floor(d / 10)
  degrees {
    critical: d % 11 = 0 and success
    fumble: d % 11 = 0 and not success
    pass: success
    fail: else
  }
}
action act(skill: int) {
  let t = test(skill)
  require d4 > 1 else "no"
  result { success: t.success, degree: t.degree, sl: t.sl, total: t.total, skill: skill }
}
"""


def _engine():
    return Engine(dsl.load_text(TEXT, "under.rules"))


def test_each_summed_up_field_is_the_fields_own_odds():
    engine = _engine()
    sheet = engine.sheet({})
    odds = engine.odds("act", sheet, {"skill": 51})
    summaries = {s.name: s for s in field_summaries(odds.table, Record, is_number)}
    assert list(summaries) == ["success", "degree", "sl", "total", "skill"]
    for name in ("success", "degree"):  # value by value
        alone = engine.odds("act", sheet, {"skill": 51}, name).probabilities
        given = {v: Fraction(w, odds.table.total) for v, w in summaries[name].values}
        assert given == {v: p for v, p in alone.items() if not hasattr(v, "message")}
        assert len(given) <= SUMMARY_VALUES
    assert sum(p for _, p in summaries["success"].values) * 4 == odds.table.total * 3
    total = summaries["total"]  # more values than SUMMARY_VALUES: its range and mean
    assert (total.values, total.low, total.high) == (None, 1, 100)
    assert total.mean == Fraction(101, 2)
    assert summaries["skill"].values == [(51, odds.table.total * 3 // 4)]


def test_the_text_opens_with_each_field_then_every_outcome():
    engine = _engine()
    odds = engine.odds("act", engine.sheet({}), {"skill": 51})
    lines = to_text(odds).splitlines()
    head = lines.index("  " + EACH_FIELD.render(None))
    assert lines[head + 1 : head + 6] == [
        "    success: no 36.7500%, yes 38.2500%",
        "    degree: critical 3.0000%, fumble 3.7500%, pass 35.2500%, fail 33.0000%",
        "    sl: -5 to 5, mean 0.4000",
        "    total: 1 to 100, mean 50.5000",
        "    skill: 51",
    ]
    assert lines[head + 6] == "  " + EVERY_OUTCOME.render(None)
    spanish = to_text(odds, language="es")
    assert "cada campo por separado:" in spanish and "de 1 a 100, media 50,5000" in spanish


def test_a_short_table_or_a_single_value_has_no_summary():
    engine = _engine()
    sheet = engine.sheet({})
    short = engine.odds("act", sheet, {"skill": 51}, "degree")  # one field: no records
    assert field_summaries(short.table, Record, is_number) == []
    assert EACH_FIELD.render(None) not in to_text(short)
    text = """
    action few() { let a = d6  result { a: a, big: a > 3 } }
    """
    few = Engine(dsl.load_text(text, "few.rules"))
    odds = few.odds("few", few.sheet({}), {})
    assert len(odds.table) <= SUMMARY_ABOVE and EACH_FIELD.render(None) not in to_text(odds)
