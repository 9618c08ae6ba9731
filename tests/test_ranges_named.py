"""A range whose end is a name (`count(r, ..Skill)`, `difficulty..`, `1..'Max Dice'`):
read as it is made, in a run and in the odds (against every roll); a sheet's or a
table's range stays of numbers, and says so."""

from __future__ import annotations

import pytest
from oracle import assert_counted_as_run

import dsl
from dsl import nodes as n
from dsl.errors import RulebookError
from interpreter import Engine
from interpreter.dice import ForcedDice

BOOK = """rulebook "Named ends" { language "en" }
sheet {
  counter Skill in 1..6 default 4
  counter 'Max Dice' in 1..6 default 5
}
action act(difficulty: int = 3) "Act" {
  let r = 4d6
  let d = d4
  let half = Skill / 2
  result {
    under: count(r, ..Skill), over: count(r, difficulty..), between: count(r, 2..'Max Dice'),
    rolled: count(r, d..), halved: count(r, ..half), within: d in 2..Skill
  }
}
"""


def test_an_end_written_as_a_name_is_read_from_it():
    book = dsl.load_text(BOOK)
    ranges = [node for node in n.walk(book.actions["act"].body) if isinstance(node, n.RangeOf)]
    written = sorted((repr(r.low), repr(r.high)) for r in ranges)
    assert written == sorted(
        [
            ("None", "Name(name='Skill')"),
            ("Name(name='difficulty')", "None"),
            ("Literal(value=2)", "Name(name='Max Dice')"),  # a quoted name, its quotes off
            ("Name(name='d')", "None"),
            ("None", "Name(name='half')"),
            ("Literal(value=2)", "Name(name='Skill')"),
        ]
    )
    under = next(r for r in ranges if r.low is None and r.high.name == "Skill")
    assert under.high.span.start == BOOK.index("..Skill") + 2  # the name's own place


def test_a_run_counts_against_the_values_the_names_hold():
    engine = Engine(dsl.load_text(BOOK))
    sheet = engine.sheet({"Skill": 3})
    outcome = engine.run("act", sheet, {"difficulty": 5}, ForcedDice([1, 5, 3, 6, 2]))
    assert dict(outcome.result) == {
        "under": 2,  # 1, 3 <= 3
        "over": 2,  # 5, 6 >= 5
        "between": 2,  # 5, 3 within 2..5 ('Max Dice' 5): 1 and 6 out
        "rolled": 3,  # d = 2: 5, 3, 6 are 2 or more
        "halved": 1,  # 3/2: only the 1
        "within": True,  # 2 in 2..3
    }


@pytest.mark.parametrize("skill", [1, 4])
def test_the_odds_are_those_of_every_roll(skill):
    assert_counted_as_run(BOOK.replace("4d6", "3d6"), {"Skill": skill})


def test_an_end_that_is_not_a_number_is_refused_when_checked():
    text = BOOK.replace("count(r, d..)", "count(r, word..)").replace(
        "let d = d4", 'let d = d4\n  let word = "x"'
    )
    with pytest.raises(RulebookError, match="a range's low end should be number, not text"):
        dsl.load_text(text)


def test_a_sheet_or_table_range_stays_of_numbers():
    sheet = 'rulebook "S" { }\nsheet { counter X in 0..Max default 1 }\n'
    with pytest.raises(RulebookError, match="a range here has whole numbers for ends, not Max"):
        dsl.load_text(sheet)
    table = 'rulebook "T" { }\ntable L by x {\n  1..high: "a"\n}\n'
    with pytest.raises(RulebookError, match="not high"):
        dsl.load_text(table)


def test_a_fraction_of_an_end_is_a_number_not_an_error():
    engine = Engine(dsl.load_text(BOOK))
    sheet = engine.sheet({"Skill": 5})
    outcome = engine.run("act", sheet, {}, ForcedDice([2, 2, 3, 4, 1]))
    assert outcome.result["halved"] == 2  # 2 and 2 are at most 5/2
