"""Properties of runs, over generated sheets, actions, parameters and seeds:

- a run that fails leaves the sheet equal to the input (and a run never mutates it);
- no resource ends below its floor or above its cap, no number outside its range;
- the same seed replays the same result and the same trace.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsl
from dsl import nodes as n
from interpreter import Engine, EvaluationError, SeededDice

DATA = Path(__file__).resolve().parent / "data"
ENGINE = Engine(dsl.load(DATA / "showcase.rules"))


@st.composite
def sheets(draw):
    strength = draw(st.integers(1, 10))
    wits = draw(st.integers(1, 10))
    virtus, fides = draw(st.integers(0, 12)), draw(st.integers(0, 12))
    data = {
        "Strength": strength,
        "Wits": wits,
        "Virtus": virtus,
        "Fides": fides,
        "Health": draw(st.integers(0, 10 + 2 * strength)),
        "Essence": draw(st.integers(-30, wits * 10)),
        "dinamis": {
            "Virtus": draw(st.integers(0, 5 * virtus)),
            "Fides": draw(st.integers(0, 5 * fides)),
        },
        "Tribute": draw(st.integers(0, 30)),
        "Shadow": draw(st.integers(0, 10)),
        "Mundane": draw(st.booleans()),
        "Spells": {
            "Spark": {
                "grade": draw(st.integers(1, 6)),
                "school": "fire",
                "dignitas": draw(st.sampled_from(["Virtus", "Fides"])),
                "trait": "Wits",
                "art": "Stealth",
            },
        },
    }
    return ENGINE.sheet(data)


ACTIONS = st.one_of(
    st.tuples(st.just("scare"), st.fixed_dictionaries({"modifier": st.integers(-5, 5)})),
    st.tuples(
        st.just("cast_spell"),
        st.fixed_dictionaries(
            {
                "spell": st.just("Spark"),
                "time": st.sampled_from(["normal", "half", "double"]),
                "bonus": st.integers(0, 3),
            }
        ),
    ),
    st.tuples(st.just("heal"), st.fixed_dictionaries({"amount": st.integers(0, 30)})),
    st.tuples(st.just("wrestle"), st.fixed_dictionaries({"rival": st.integers(0, 10)})),
    st.tuples(st.just("chain"), st.just({})),
    st.tuples(st.just("learn"), st.fixed_dictionaries({"name": st.sampled_from(["Ice", "Spark"])})),
)


def assert_within_bounds(sheet) -> None:
    book = ENGINE.rulebook
    for name, field in book.fields.items():
        value = sheet.values.get(name)
        if isinstance(field, n.Stat | n.Counter) and field.range is not None:
            assert value in field.range, (name, value)
        if isinstance(field, n.Counter):
            assert value >= 0
    strength, wits = sheet["Strength"], sheet["Wits"]
    assert 0 <= sheet["Health"] <= 10 + 2 * strength
    assert -30 <= sheet["Essence"] <= wits * 10
    for key, pool in sheet["dinamis"].items():
        assert 0 <= pool <= 5 * sheet[key]


@given(sheets(), ACTIONS, st.integers(0, 2**31))
def test_a_run_never_changes_its_input_and_a_failure_changes_nothing(sheet, action, seed):
    name, params = action
    before = sheet.to_data()
    try:
        out = ENGINE.run(name, sheet, params, SeededDice(seed))
    except EvaluationError:
        assert sheet.to_data() == before
        return
    assert sheet.to_data() == before
    assert_within_bounds(out.sheet)
    for change in out.changes:
        assert out.sheet.get(change.path) == change.after
        assert sheet.get(change.path) == change.before or change.before is None


@given(sheets(), ACTIONS, st.integers(0, 2**31))
def test_the_same_seed_replays_the_same_run_and_trace(sheet, action, seed):
    name, params = action
    try:
        first = ENGINE.run(name, sheet, params, SeededDice(seed))
    except EvaluationError as error:
        with pytest.raises(type(error)):
            ENGINE.run(name, sheet, params, SeededDice(seed))
        return
    again = ENGINE.run(name, sheet, params, SeededDice(seed))
    assert again.result == first.result and again.dice == first.dice
    assert again.changes == first.changes
    assert [s.text for s in again.trace] == [s.text for s in first.trace]
    assert again.sheet.to_data() == first.sheet.to_data()
