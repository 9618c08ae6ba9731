"""The engine on the showcase rulebook (tests/data/showcase.rules), which uses every
construct of the language: each construct's meaning, with forced dice."""

from __future__ import annotations

from pathlib import Path

import pytest

import dsl
from interpreter import (
    Engine,
    EvaluationError,
    ForcedDice,
    InsufficientResource,
    ParameterError,
    RequirementFailed,
    SeededDice,
    render_text,
)
from interpreter.describe import describe

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load(DATA / "showcase.rules"))


@pytest.fixture(scope="module")
def sheet(engine):
    return engine.load_sheet(DATA / "showcase.yaml")


def run(engine, sheet, action, params=None, dice=()):
    return engine.run(action, sheet, params or {}, ForcedDice(dice))


def test_every_construct_loads_and_describe_lists_the_actions(engine):
    info = describe(engine.rulebook)
    assert [a["name"] for a in info["actions"]] == [
        "scare",
        "cast_spell",
        "heal",
        "learn",
        "wrestle",
        "grow",
        "hit",
        "chain",
        "compete",
    ]
    cast = next(a for a in info["actions"] if a["name"] == "cast_spell")
    time = next(p for p in cast["params"] if p["name"] == "time")
    assert time["choices"] == ["normal", "half", "double"] and time["default"] == "normal"
    assert not engine.rulebook.warnings


def test_sheet_defaults_maxima_and_derived_values(engine, sheet):
    assert sheet["Health"] == 16  # a resource left out starts at its maximum: 10 + 2 * 3
    assert sheet["Essence"] == 40
    assert dict(sheet["dinamis"]) == {"Virtus": 5, "Fides": 10}
    assert sheet["Virtus"] == 1 and sheet["Shadow"] == 0 and sheet["Mundane"] is False
    assert sheet.get("skills.Cooking") == 3
    out = run(engine, sheet, "cast_spell", {"spell": "Fireball"}, [3, 4])
    assert "Dignitas" not in sheet.to_data()  # derived: computed, never stored
    assert out.result["cost"] == 2


def test_open_roll_procedure_adds_and_subtracts_chains(engine, sheet):
    # open d10: 10 → + (d6 − 1) again while the d6 shows 6; 1 → − d6 again while 1.
    up = run(engine, sheet, "scare", {}, [10, 6, 3])
    assert up.result["total"] == 10 + 5 + 2 + 2 * 4
    down = run(engine, sheet, "scare", {}, [1, 1, 4])
    assert down.result["total"] == 1 - 1 - 4 + 2 * 4
    assert not down.result["success"]
    # each step with its own arithmetic; --verbose keeps the faces as rolled
    assert "open: 1 - 1 - 4 = -4" in render_text(down.trace)
    assert "open: [1] - [1] - [4] = -4" in render_text(down.trace, verbose=True)
    assert "open: 10 + (6−1) + (3−1) = 17" in render_text(up.trace)


def test_doubles_procedure(engine, sheet):
    # A double is rolled again and added; a double 1 subtracts what follows.
    out = run(engine, sheet, "cast_spell", {"spell": "Fireball"}, [5, 5, 2, 3])
    text = render_text(out.trace)
    assert "doubles: [5, 5] + [2, 3] = 15" in text
    low = run(engine, sheet, "cast_spell", {"spell": "Fireball"}, [1, 1, 4, 4, 2, 1])
    assert "doubles: [1, 1] - [4, 4] - [2, 1] = -9" in render_text(low.trace)


def test_tables_ranged_open_formula_records_two_levels(engine, sheet):
    out = run(engine, sheet, "scare", {}, [9])  # 9 + 8 = 17 → Great, extra floor(4 / 3)
    text = render_text(out.trace)
    assert "Degree[17] → Great {extra: 1}" in text
    fear = run(engine, sheet, "scare", {"modifier": "2"}, [1, 3])  # total 4 → Fear[7]
    assert fear.result["effect"] == {"label": "Worse"}
    assert fear.changes == ()
    hit = run(engine, sheet, "hit", {"zone": 1, "spot": 2})
    assert hit.result["where"] == "Skull" and hit.result["zone"] == "Head"


def test_two_level_table_rows_and_else(engine, sheet):
    out = run(engine, sheet, "hit", {"zone": 7, "spot": 9})
    assert out.result["where"] == "Chest" and out.result["zone"] == "Body"


def test_lose_stops_at_the_minimum_and_gain_at_the_maximum(engine, sheet):
    fear = run(engine, sheet, "scare", {}, [1, 2])  # 1 − 2 + 8 = 7 → Fear[2] = Flight
    assert fear.result["effect"]["essence"] == 2
    assert [(c.path, c.before, c.after) for c in fear.changes] == [("Essence", 40, 38)]
    heal = run(engine, sheet, "heal", {"amount": 5})
    assert heal.result["health"] == 16 and heal.result["max"] == 16
    assert "capped at its maximum 16" in render_text(heal.trace)


def test_checks_greater_than_points_and_margin(engine, sheet):
    # doubles 3+4 = 7, + Wits 4 + Stealth 2 = 13 > 10 → success, margin 3, 1 point.
    out = run(engine, sheet, "cast_spell", {"spell": "Fireball"}, [3, 4])
    assert out.result == {"success": True, "points": 1, "cost": 2}
    assert [(c.path, c.before, c.after) for c in out.changes] == [("dinamis.Fides", 10, 8)]
    text = render_text(out.trace)
    assert "Casting: doubles [3, 4] + Wits 4 + Stealth 2 = 13 vs 10 (>) → success" in text
    # exactly 10 is not above 10
    failed = run(engine, sheet, "cast_spell", {"spell": "Fireball"}, [1, 3])
    assert failed.result["success"] is False
    assert [(c.path, c.before, c.after) for c in failed.changes] == [
        ("dinamis.Fides", 10, 8),
        ("Tribute", 8, 9),
    ]


def test_match_for_each_and_repeat(engine, sheet):
    half = run(
        engine, sheet, "cast_spell", {"spell": "Fireball", "time": "half", "helpers": "3,5"}, [3, 4]
    )
    assert half.result["cost"] == 3
    assert "1 point(s), 3 from helpers" in render_text(half.trace)
    # A failure by 5 or more: Tribute grows by points_of(-margin); each 10 Tribute turns
    # into a point of Shadow. Grade 4 (target 20): 3 + 4 + 2 = 9, margin -11 → 3 points.
    data = sheet.to_data()
    data["Spells"]["Hard"] = {
        "grade": 4,
        "school": "water",
        "dignitas": "Fides",
        "trait": "Wits",
        "art": "Stealth",
    }
    bad = run(engine, engine.sheet(data), "cast_spell", {"spell": "Hard", "time": "double"}, [1, 2])
    assert bad.result["cost"] == 3
    changes = {c.path: (c.before, c.after) for c in bad.changes}
    assert changes == {"dinamis.Fides": (10, 7), "Tribute": (8, 1), "Shadow": (0, 1)}


def test_spend_more_than_the_sheet_holds_changes_nothing(engine, sheet):
    with pytest.raises(
        InsufficientResource,
        match=r"You cannot spend 12 dinamis\[Virtus\]: you have 5",
    ):
        run(engine, sheet, "cast_spell", {"spell": "Drown"}, [])
    assert dict(sheet["dinamis"]) == {"Virtus": 5, "Fides": 10}


def test_require_fails_with_its_message_and_changes_nothing(engine):
    broke = engine.sheet(
        {
            "Strength": 3,
            "Wits": 4,
            "Virtus": 0,
            "Fides": 0,
            "Spells": {
                "X": {
                    "grade": 1,
                    "school": "fire",
                    "dignitas": "Fides",
                    "trait": "Wits",
                    "art": "Stealth",
                }
            },
        }
    )
    with pytest.raises(RequirementFailed, match=r"no dignitas left \(0\)") as error:
        engine.run("cast_spell", broke, {"spell": "X"}, ForcedDice([]))
    assert error.value.exit_code == 4


def test_opposed_check_ties_reroll(engine, sheet):
    # contest: simple(Strength) [d10 + 6] against simple(Wits, "Easy") [d10 + 8 + 5],
    # compared by success, then total. 9 + 6 = 15 and 2 + 13 = 15 tie: rolled again;
    # then 8 + 6 = 14 against 2 + 13 = 15: they win.
    out = run(engine, sheet, "compete", {}, [9, 2, 8, 2])
    assert out.result == {"won": False, "rerolls": 1, "margin": -1}
    assert "Contest: tie (15 - 15), roll again" in render_text(out.trace)


def test_opposed_tie_rule_theirs_and_best_of_three(engine, sheet):
    # arm: d10 + 3 against d10 + 4, ties go to them. Bouts: 5+3=8 v 4+4=8 (tie → they),
    # 9+3=12 v 1+4=5 (we), 2+3=5 v 7+4=11 (they) → lost.
    out = run(engine, sheet, "wrestle", {}, [5, 4, 9, 1, 2, 7])
    assert out.result["won"] is False
    # two wins end it early: only four dice are rolled
    out = run(engine, sheet, "wrestle", {}, [9, 1, 9, 1])
    assert out.result["won"] is True


def test_ladders_step_and_stop_at_the_ends(engine, sheet):
    out = run(engine, sheet, "grow", {"die": 10, "steps": 3}, [12])
    assert out.result == {"die": 12, "rolled": 12, "level": "medium", "target": 15}
    down = run(engine, sheet, "grow", {"die": 6, "steps": -5, "level": "hard"}, [4])
    assert down.result["die"] == 4 and down.result["level"] == "hard"


def test_add_to_a_list_and_a_catalog(engine, sheet):
    out = run(engine, sheet, "learn", {"name": "Ice"})
    assert out.result["known"] == 2
    assert out.sheet["Known"] == ("Fireball", "Ice")
    assert out.sheet["Spells"]["Ice"]["grade"] == 1
    with pytest.raises(EvaluationError, match="already has a Spells entry 'Fireball'"):
        run(engine, sheet, "learn", {"name": "Fireball"})


def test_set_keeps_values_within_bounds_and_texts(engine, sheet):
    out = run(engine, sheet, "heal", {"amount": 1})
    assert out.sheet["Cult"] == "healed"
    assert [c.path for c in out.changes] == ["Cult"]


def test_calls_of_checks_actions_rolls(engine, sheet):
    dice = [8, 5, 3, 9, 3, 3, 1, 6, 9, 8]
    out = run(engine, sheet, "chain", {}, dice)
    assert out.result == {
        "scared": False,
        "pool": 8,
        "d20": 9,
        "under": True,
        "counted": False,
        "contest": False,
    }
    assert [c.path for c in out.changes] == ["Cult"]
    text = render_text(out.trace)
    assert "(n)d10cs>=(target)df=1 = 3d10cs>=6df=1 [3, 1, 6]" in text
    assert "Roll under: d10 [3] + modifier 0 = 3 vs 3 (<=) → success" in text


def test_parameters_are_checked(engine, sheet):
    with pytest.raises(ParameterError, match="no parameter 'spel'"):
        engine.run("cast_spell", sheet, {"spel": "Fireball"})
    with pytest.raises(ParameterError, match="needs the parameter 'spell'") as error:
        engine.run("cast_spell", sheet, {})
    assert "--set spell=VALUE" in error.value.render()
    with pytest.raises(ParameterError, match="no Spells entry 'Firebal'") as error:
        engine.run("cast_spell", sheet, {"spell": "Firebal"})
    assert "did you mean Fireball?" in error.value.render()
    with pytest.raises(ParameterError, match="'quarter' is not one of normal, half, double"):
        engine.run("cast_spell", sheet, {"spell": "Fireball", "time": "quarter"})
    with pytest.raises(ParameterError, match="not a whole number"):
        engine.run("heal", sheet, {"amount": "1/2"})
    with pytest.raises(ParameterError, match="no action 'hael'"):
        engine.run("hael", sheet, {})


def test_the_input_sheet_is_never_mutated(engine, sheet):
    before = sheet.to_data()
    for dice in ([3, 4], [1, 2], [5, 5, 2, 3]):
        engine.run("cast_spell", sheet, {"spell": "Fireball"}, ForcedDice(dice))
    engine.run("learn", sheet, {"name": "Wind"}, ForcedDice([]))
    assert sheet.to_data() == before


def test_the_trace_is_the_replay_of_the_run(engine, sheet):
    out = engine.run("chain", sheet, {}, SeededDice(11))
    steps = out.trace
    assert steps[0].kind == "action" and steps[0].text.startswith("chain(")
    kinds = {s.kind for s in steps}
    assert {"check", "roll", "lookup", "change", "opposed", "call", "if"} <= kinds
    again = engine.run("chain", sheet, {}, ForcedDice(out.dice))
    assert [s.text.replace(" (forced)", "") for s in again.trace] == [s.text for s in steps]
    assert any(s.text.endswith(" (forced)") for s in again.trace)
    assert again.result == out.result


@pytest.mark.parametrize(
    "limit, action, message",
    [
        ({"steps_per_run": 40}, "wrestle", "steps_per_run"),  # it takes about 100
        ({"repeat_count": 2}, "wrestle", "repeat_count"),
        ({"call_depth": 1}, "chain", "call_depth"),
        ({"dice_per_evaluation": 3}, "chain", "dice_per_evaluation"),
    ],
)
def test_limits_stop_a_run_and_change_nothing(sheet, limit, action, message):
    from interpreter import LimitExceeded, Limits

    engine = Engine(dsl.load(DATA / "showcase.rules"), Limits(**limit))
    before = sheet.to_data()
    with pytest.raises(LimitExceeded, match=message) as error:
        engine.run(action, engine.sheet(before), {}, SeededDice(1))
    assert error.value.exit_code == 4 and error.value.span is not None
    assert sheet.to_data() == before


@pytest.mark.parametrize(
    ("ask", "message", "hint"),
    [
        (lambda e, s: e.run("scar", s, {}), "has no action 'scar' (nor a check", "scare"),
        (lambda e, s: e.prepare("scar", s, {}), "has no action 'scar'", "scare"),
        (lambda e, s: e.prepare("zzz", s, {}), "has no action 'zzz'", "actions: scare, "),
        (lambda e, s: e.run_check("simpel", s), "has no check 'simpel'", "simple"),
        (lambda e, s: e.check_arguments("contes", s, {}), "has no check 'contes'", "contest"),
        (lambda e, s: e.run_roll("opne", s), "has no roll 'opne'", "open"),
    ],
)
def test_a_name_the_rulebook_lacks_is_named_with_the_closest(engine, sheet, ask, message, hint):
    with pytest.raises(ParameterError) as raised:
        ask(engine, sheet)
    assert message in str(raised.value)
    assert hint in str(raised.value.hint)
