"""Character sheets: validation messages, defaults, immutability, atomic saving."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, SheetError

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load(DATA / "showcase.rules"))


BASE = {"Strength": 3, "Wits": 4}


@pytest.mark.parametrize(
    "change, message",
    [
        ({"Fides": 13}, "Fides: 13 is above its maximum 12"),
        ({"Strength": 0}, "Strength: 0 is below its minimum 1"),
        ({"Strength": "tres"}, "Strength: 'tres' is not a whole number"),
        ({"Strenght": 3}, "Strenght: not a field of the Showcase sheet"),
        ({"Health": 17}, "Health: 17 is above its maximum 16"),
        ({"Essence": -31}, "Essence: -31 is below its minimum -30"),
        ({"dinamis": {"Virtus": 6}}, "dinamis.Virtus: 6 is above its maximum 5"),
        ({"dinamis": {"Virtud": 1}}, "dinamis.Virtud: not one of Dignitates"),
        ({"Mundane": "maybe"}, "Mundane: 'maybe' is not yes or no"),  # "yes" is accepted
        ({"Known": "Fireball"}, "Known: a list of texts"),
        ({"Shadow": 11}, "Shadow: 11 is above its maximum 10"),
        ({"skills": {"Cooking": 11}}, "skills.Cooking: 11 is above its maximum 10"),
        ({"Spells": {"X": {"grade": 1}}}, "Spells.X: missing school, dignitas, trait, art"),
        (
            {
                "Spells": {
                    "X": {
                        "grade": 1,
                        "school": "earth",
                        "dignitas": "Fides",
                        "trait": "Wits",
                        "art": "Stealth",
                    }
                }
            },
            "Spells.X.school: 'earth' is not one of fire, water",
        ),
        (
            {
                "Spells": {
                    "X": {
                        "grade": 1,
                        "school": "fire",
                        "dignitas": "Gravitas",
                        "trait": "Wits",
                        "art": "Stealth",
                    }
                }
            },
            "Spells.X.dignitas: 'Gravitas' is not a Dignitates",
        ),
    ],
)
def test_a_sheet_that_does_not_fit_says_which_field_and_what_is_allowed(engine, change, message):
    with pytest.raises(SheetError) as error:
        engine.sheet({**BASE, **change})
    assert message in error.value.render()
    assert error.value.exit_code == 3


def test_did_you_mean_for_unknown_fields(engine):
    with pytest.raises(SheetError) as error:
        engine.sheet({**BASE, "Strenght": 3})
    assert "did you mean Strength?" in error.value.render()


def test_a_field_far_from_every_name_lists_the_fields_in_the_sheets_language():
    text = (
        'rulebook "{title}" {{\n  language "{lang}"\n}}\n'
        "sheet {{\n  attribute Fuerza in 1..5\n  skills in 0..5\n}}\n"
    )
    english = Engine(dsl.load_text(text.format(title="E", lang="en")))
    with pytest.raises(SheetError) as error:
        english.sheet({"Fuerza": 2, "equipo": "Ana"})
    assert "fields: Fuerza; a skill the rulebook does not list goes under `skills:`" in (
        error.value.render()
    )
    spanish = Engine(dsl.load_text(text.format(title="S", lang="es")))
    with pytest.raises(SheetError) as error:
        spanish.sheet({"Fuerza": 2, "equipo": "Ana"})
    assert "campos: Fuerza; una habilidad que el reglamento no lista va bajo `skills:`" in (
        error.value.render("es")
    )
    with pytest.raises(SheetError) as error:  # the open list's own key, misspelt
        english.sheet({"Fuerza": 2, "skils": {"Nadar": 2}})
    assert error.value.hint == "did you mean skills?"


def test_a_name_in_a_sheet_file_says_where_a_characters_name_is():
    text = 'rulebook "E" {\n  language "en"\n}\nsheet {\n  skills in 0..5\n}\n'
    bare = Engine(dsl.load_text(text))
    for key in ("name", "Nombre"):
        with pytest.raises(SheetError) as error:
            bare.sheet({key: "Ana"})
        assert "a character's name is its file's name" in error.value.render()
    with pytest.raises(SheetError) as error:  # no fields to list: not `fields: ;`
        bare.sheet({"equipo": "Ana"})
    assert error.value.hint is not None and "fields" not in str(error.value.render())
    assert "a skill goes under `skills:`" in error.value.render()


def test_attributes_without_default_are_required(engine):
    with pytest.raises(SheetError, match="Wits: missing"):
        engine.sheet({"Strength": 3})


def test_ensure_rules_refuse_a_sheet():
    book = dsl.load_text(
        'rulebook "E" { }\nsheet { attribute A, B in 0..10\n'
        'ensure A <= B else "A cannot pass B" }\naction x() { }',
        "e.rules",
    )
    engine = Engine(book)
    assert engine.sheet({"A": 2, "B": 3})["A"] == 2
    with pytest.raises(SheetError, match="A cannot pass B"):
        engine.sheet({"A": 4, "B": 3})


def test_ensure_rules_stop_a_run_that_would_break_them():
    book = dsl.load_text(
        'rulebook "E" { }\nsheet { attribute A, B in 0..10\n'
        'ensure A <= B else "A cannot pass B" }\n'
        "action raise_a() { gain 2 to A }",
        "e.rules",
    )
    engine = Engine(book)
    sheet = engine.sheet({"A": 2, "B": 3})
    from interpreter import EvaluationError, ForcedDice

    with pytest.raises(EvaluationError, match="would break a rule: A cannot pass B"):
        engine.run("raise_a", sheet, {}, ForcedDice([]))
    assert sheet["A"] == 2


def test_yaml_aliases_are_refused(tmp_path, engine):
    path = tmp_path / "bomb.yaml"
    path.write_text("Strength: &a 3\nWits: *a\n", encoding="utf-8")
    with pytest.raises(SheetError, match="aliases are not allowed"):
        engine.load_sheet(path)


@pytest.mark.parametrize(
    "text, message",
    [
        ("Strength: [1\n", "not valid YAML"),
        ("- 1\n- 2\n", "a mapping of field names"),
    ],
)
def test_broken_files_say_where(tmp_path, engine, text, message):
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SheetError, match=message):
        engine.load_sheet(path)


def test_json_sheets_and_saving_keeps_the_format(tmp_path, engine):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**BASE, "Tribute": 2}), encoding="utf-8")
    sheet = engine.load_sheet(path)
    from interpreter import ForcedDice

    out = engine.run("heal", sheet, {"amount": 1}, ForcedDice([]))
    out.sheet.save()
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["Cult"] == "healed" and saved["Tribute"] == 2
    assert not list(tmp_path.glob(".c.json.*"))  # no temporary file left behind


def test_saving_a_yaml_sheet_round_trips(tmp_path, engine):
    original = (DATA / "showcase.yaml").read_text(encoding="utf-8")
    path = tmp_path / "c.yaml"
    path.write_text(original, encoding="utf-8")
    sheet = engine.load_sheet(path)
    sheet.save()
    again = engine.load_sheet(path)
    assert again.to_data() == sheet.to_data()


def test_sheet_values_are_read_only(engine):
    sheet = engine.sheet(BASE)
    with pytest.raises(TypeError):
        sheet.values["Strength"] = 9
    with pytest.raises(TypeError):
        sheet["dinamis"]["Virtus"] = 9
