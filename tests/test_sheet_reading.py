"""Sheet files read once (interpreter.sheets.parsing): a key given twice refused with both
places, an error about a field placed without reading the file again, YAML and JSON."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import dsl
from interpreter.errors import SheetError
from interpreter.sheets import parsing
from interpreter.sheets.character import Sheet

BOOK = dsl.load_text(
    """
sheet {
  attribute Fuerza, Destreza in 1..10
  skills in 0..5
  group Atributos = Fuerza, Destreza
  catalog Hechizos { grado: int }
}
action a() { result { v: Fuerza } }
"""
)


def refused(text: str, text_format: str) -> SheetError:
    with pytest.raises(SheetError) as caught:
        Sheet.from_text(text, BOOK, f"s.{text_format}", text_format)
    return caught.value


@pytest.mark.parametrize(
    "text, first, second",
    [
        ("Fuerza: 5\nDestreza: 2\nFuerza: 3\n", "1:1", "3:1"),
        ("Fuerza: 5\nskills:\n  Sigilo: 1\n  Sigilo: 2\n", "3:3", "4:3"),
        ("Fuerza: 5\nHechizos:\n  Fuego: {grado: 1, grado: 2}\n", "3:11", "3:21"),
        ('Fuerza: 5\n"Destreza": 1\nDestreza: 2\n', "2:1", "3:1"),
    ],
)
def test_a_yaml_key_given_twice_is_refused_at_both_places(text, first, second):
    error = refused(text, "yaml")
    assert f"at {first} and at {second}" in error.message.render()
    assert f"{error.line}:{error.column}" == second


@pytest.mark.parametrize(
    "text, first, second",
    [
        ('{"Fuerza": 5, "Destreza": 2, "Fuerza": 3}', "1:2", "1:30"),
        ('{"Fuerza": 5,\n "skills": {"Sigilo": 1,\n  "Sigilo": 2}}', "2:13", "3:3"),
        ('{"Fuerza": 5, "Hechizos": {"Fuego": {"grado": 1, "grado": 2}}}', "1:38", "1:50"),
    ],
)
def test_a_json_key_given_twice_is_refused_at_both_places(text, first, second):
    error = refused(text, "json")
    assert f"at {first} and at {second}" in error.message.render()
    assert f"{error.line}:{error.column}" == second


KEYS = st.lists(st.from_regex(r"[A-Za-z][a-z0-9_]{0,6}", fullmatch=True), min_size=1, unique=True)


@given(KEYS, st.data())
def test_any_key_given_twice_is_found_where_it_is_written(keys, data):
    twice = data.draw(st.sampled_from(keys))
    at = data.draw(st.integers(keys.index(twice) + 1, len(keys)))
    order = [*keys[:at], twice, *keys[at:]]
    lines = [f"{key}: {i}" for i, key in enumerate(order)]
    text = "\n".join(lines) + "\n"
    with pytest.raises(parsing.Duplicate) as caught:
        yaml.load(text, Loader=parsing.Loader)
    assert caught.value.key == twice
    assert text[caught.value.first :].startswith(f"{twice}: {keys.index(twice)}")
    assert text[caught.value.second :].startswith(f"{twice}: {at}")
    # JSON: the same keys, one member a line
    members = ",\n".join(f" {json.dumps(key)}: {i}" for i, key in enumerate(order))
    json_text = "{\n" + members + "\n}"
    error = parsing._duplicate(json_text, None, parsing.Duplicate(twice))
    assert (error.line, error.column) == (at + 2, 2)
    assert f"at {keys.index(twice) + 2}:2 and" in error.message.render()


def counting(monkeypatch) -> list:
    """Each time a sheet's text is composed (YAML) or decoded (JSON) from now on."""
    calls: list = []
    compose = parsing.Loader.get_single_node
    loads = json.loads

    def composed(self):
        calls.append("yaml")
        return compose(self)

    def decoded(*args, **kwargs):
        calls.append("json")
        return loads(*args, **kwargs)

    monkeypatch.setattr(parsing.Loader, "get_single_node", composed)
    monkeypatch.setattr(yaml, "compose", lambda *a, **k: calls.append("compose"))
    monkeypatch.setattr(parsing.json, "loads", decoded)
    return calls


def test_an_error_in_a_large_yaml_sheet_is_placed_from_the_one_reading(monkeypatch):
    items = ", ".join(f"h{i}: {{grado: 1}}" for i in range(2000))
    text = f"Fuerza: 5\nDestreza: 2\nHechizos: {{{items}}}\nFuerzas: 3\n"
    calls = counting(monkeypatch)
    error = refused(text, "yaml")
    assert calls == ["yaml"]  # read once: not composed again to place the error
    assert (error.line, error.column) == (4, 1) and "Fuerzas" in error.render()


def test_an_error_in_a_large_json_sheet_is_placed_without_yaml(monkeypatch):
    data = {"Fuerza": 5, "Hechizos": {f"h{i}": {"grado": 1} for i in range(2000)}}
    data["Hechizos"]["h1500"]["grado"] = "alto"
    text = json.dumps(data, indent=1)
    calls = counting(monkeypatch)
    error = refused(text, "json")
    assert calls == ["json"]
    assert error.line == text[: text.index('"grado": "alto"')].count("\n") + 1


def test_json_errors_are_placed_where_yaml_would_place_them():
    text = '{"Fuerza": 5,\n "Destreza": 12}'
    from_json = refused(text, "json")
    from_yaml = refused(text, "yaml")  # JSON is YAML too
    assert (from_json.line, from_json.column) == (from_yaml.line, from_yaml.column) == (2, 2)


def test_a_key_yaml_reads_as_another_value_is_named_as_written_when_given_twice():
    # YAML 1.1 reads `No` as false and `1` as a number: the key is named as the file has it
    for key in ("No", "yes", "1"):
        with pytest.raises(parsing.Duplicate) as caught:
            yaml.load(f"{key}: 1\n{key}: 2\n", Loader=parsing.Loader)
        assert caught.value.key == key


@pytest.mark.parametrize("text_format", ["yaml", "json"])
def test_every_wrong_value_of_a_sheet_is_said_at_once_each_at_its_place(text_format):
    data = {"Fuerza": "ocho", "Destreza": 2, "Agilidad": 3, "skills": {"Sigilo": 9}}
    if text_format == "yaml":
        text = "Fuerza: ocho\nDestreza: 2\nAgilidad: 3\nskills: {Sigilo: 9}\n"
    else:
        text = json.dumps(data, indent=1)
    error = refused(text, text_format)
    assert error.field == "Fuerza"  # the first, holding them all
    assert [e.field for e in error.every_value] == ["Fuerza", "Agilidad", "skills.Sigilo"]
    assert all(e.line is not None for e in error.every_value)
    shown = error.render("en")
    assert shown.count("error:") == 3
    assert "Fuerza" in shown and "Agilidad" in shown and "Sigilo" in shown


def test_a_wrong_value_is_not_also_said_missing_and_a_missing_one_is_said_beside_it():
    with pytest.raises(SheetError) as caught:
        Sheet.from_text("Fuerza: ocho\n", BOOK, "s.yaml")
    error = caught.value
    assert [e.field for e in error.every_value] == ["Fuerza", "Destreza"]
    assert "missing" in error.every_value[1].message.render()
    with pytest.raises(SheetError) as caught:
        Sheet.from_text("Fuerza: ocho\nDestreza: 2\n", BOOK, "s.yaml")
    assert caught.value.every_value == []
    assert caught.value.render("en").count("error:") == 1
