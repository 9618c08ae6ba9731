"""Saving a sheet writes only the changed values into its own text (interpreter.sheets.writer)."""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import dsl
from interpreter import Engine, ForcedDice, SeededDice
from interpreter.errors import SheetChanged, SheetError, ShippedSheet
from interpreter.sheets import json_splice
from interpreter.sheets.character import shipped_characters_folder
from interpreter.sheets.writer import rewrite

SHIPPED = shipped_characters_folder()


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="")
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


@pytest.fixture(scope="module")
def arcana():
    return Engine(dsl.load("arcana_mundi"))


@pytest.fixture(scope="module")
def brujeria():
    return Engine(dsl.load("brujeria"))


def copy_of(tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.yaml"
    target.write_text((SHIPPED / f"{name}.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    return target


@pytest.mark.parametrize("path", sorted(SHIPPED.glob("*.yaml")), ids=lambda p: p.stem)
def test_a_sheet_with_nothing_changed_is_written_back_byte_for_byte(path):
    book = dsl.load(yaml.safe_load(path.read_text(encoding="utf-8"))["rulebook"])
    sheet = Engine.of(book).load_sheet(path)
    assert sheet.file_text() == path.read_text(encoding="utf-8")


def test_menecma_keeps_every_comment_and_line_but_the_changed_value(tmp_path, arcana):
    path = copy_of(tmp_path, "menecma")
    original = path.read_text(encoding="utf-8")
    sheet = arcana.load_sheet(path)
    out = arcana.run("usar_numina", sheet, {"numina": "Grito Báquico"}, ForcedDice([3, 4]))
    out.sheet.save(base=sheet)
    saved = path.read_text(encoding="utf-8")
    # dinamis was left out (full): only the changed pool is written, beside its dignitates
    assert changed_lines(original, saved) == ["+dinamis:", "+  Virtus: 2"]
    assert saved.count("#") == original.count("#")
    assert "Fides: 3\ndinamis:\n  Virtus: 2\n" in saved
    again = arcana.load_sheet(path)
    assert again["dinamis"] == {"Virtus": 2, "Gravitas": 10, "Fides": 15}
    # a second run changes the value where it now stands, and nothing else
    out = arcana.run("usar_numina", again, {"numina": "Gephyrismos"}, ForcedDice([3, 4]))
    out.sheet.save(base=again)
    assert changed_lines(saved, path.read_text(encoding="utf-8")) == [
        "+  Gravitas: 9",
    ]


def test_flags_keep_yes_and_no_and_new_flags_are_written_so(tmp_path, brujeria):
    path = copy_of(tmp_path, "brujeria_investigadora")
    original = path.read_text(encoding="utf-8")
    sheet = brujeria.load_sheet(path)
    # a fear check that fails badly: Essence lost, unconscious
    out = brujeria.run("asustarse", sheet, {"fuente": "Criatura horrible"}, SeededDice(1))
    assert {c.path for c in out.changes} == {"Esencia", "Inconsciente"}
    out.sheet.save(base=sheet)
    saved = path.read_text(encoding="utf-8")
    assert "Mundano: yes" in saved and "Inconsciente: yes" in saved
    assert "true" not in saved and "false" not in saved
    assert len(changed_lines(original, saved)) == 2


@pytest.mark.parametrize(
    "words, expected",
    [("yes", "no"), ("true", "false"), ("True", "False"), ("on", "off"), ("YES", "NO")],
)
def test_a_changed_flag_keeps_the_words_the_file_used(words, expected):
    text = f"# c\nflag: {words}  # kept\nn: 1\n"
    out = rewrite(text, "yaml", {"flag": True, "n": 1}, {"flag": False, "n": 1})
    assert out == f"# c\nflag: {expected}  # kept\nn: 1\n"


@pytest.mark.parametrize(
    "value", ["no", "12", "a: b", "x # y", "", " padded", "'quoted'", "[1]", "línea\nnueva", "~"]
)
def test_texts_that_yaml_would_misread_are_quoted(value):
    text = "name: 'Lucía'\nnote: plain\n"
    out = rewrite(
        text, "yaml", {"name": "Lucía", "note": "plain"}, {"name": "Lucía", "note": value}
    )
    assert yaml.safe_load(out) == {"name": "Lucía", "note": value}
    assert out.startswith("name: 'Lucía'\n")


def test_quoted_values_keep_their_quotes():
    text = "a: 'one'\nb: \"two\"\n"
    out = rewrite(text, "yaml", {"a": "one", "b": "two"}, {"a": "uno", "b": "dos"})
    assert out == "a: 'uno'\nb: \"dos\"\n"


def test_flow_mappings_over_several_lines_change_only_the_value():
    text = (
        "Núminas:\n"
        "  # the first one\n"
        "  Grito:\n"
        "    {grado: 3, misterio: Hierofanía,\n"
        "     dignitas: Virtus}\n"
        "  Otra: {grado: 1, misterio: X, dignitas: Fides}\n"
    )
    old = {
        "Núminas": {
            "Grito": {"grado": 3, "misterio": "Hierofanía", "dignitas": "Virtus"},
            "Otra": {"grado": 1, "misterio": "X", "dignitas": "Fides"},
        }
    }
    new = json.loads(json.dumps(old))
    new["Núminas"]["Grito"]["dignitas"] = "Fides"
    new["Núminas"]["Otra"]["nueva"] = 2
    out = rewrite(text, "yaml", old, new)
    assert out == (
        "Núminas:\n"
        "  # the first one\n"
        "  Grito:\n"
        "    {grado: 3, misterio: Hierofanía,\n"
        "     dignitas: Fides}\n"
        "  Otra: {grado: 1, misterio: X, dignitas: Fides, nueva: 2}\n"
    )
    assert yaml.safe_load(out) == new


@pytest.mark.parametrize(
    "text",
    [
        "list: [a, b]  # flow\nn: 1\n",
        "list:\n  - a\n  - b  # block\nn: 1\n",
        "list:\n- a\n- b\nn: 1\n",
    ],
)
def test_a_list_that_grew_gets_its_new_items_in_its_own_style(text):
    out = rewrite(text, "yaml", {"list": ["a", "b"], "n": 1}, {"list": ["a", "b", "c d"], "n": 1})
    assert yaml.safe_load(out) == {"list": ["a", "b", "c d"], "n": 1}
    assert ("# flow" in out) == ("# flow" in text) and ("# block" in out) == ("# block" in text)
    assert out.count("\n") == text.count("\n") + (0 if "[" in text else 1)


def test_a_removed_key_goes_with_its_line_only():
    text = "# head\na: 1\nb:\n  x: 1\n  y: 2\nc: 3\n"
    out = rewrite(
        text, "yaml", {"a": 1, "b": {"x": 1, "y": 2}, "c": 3}, {"a": 1, "b": {"x": 1}, "c": 3}
    )
    assert out == "# head\na: 1\nb:\n  x: 1\nc: 3\n"


def test_json_sheets_keep_key_order_and_indentation():
    text = '{\n    "z": 1,\n    "a": {"k": 2},\n    "m": [1, 2]\n}\n'
    data = json.loads(text)
    new = {"z": 5, "a": {"k": 2}, "m": [1, 2]}
    out = rewrite(text, "json", data, new)
    assert list(json.loads(out)) == ["z", "a", "m"] and json.loads(out)["z"] == 5
    assert out == '{\n    "z": 5,\n    "a": {"k": 2},\n    "m": [1, 2]\n}\n'  # only the value


@pytest.mark.parametrize(
    ("text", "new", "expected"),
    [
        # a one-line array that grew stays on one line; a nested object's new member
        # goes after its siblings, with their indentation
        (
            '{\n  "Vida": 5,\n  "Lista": [1, 2],\n  "skills": {\n    "Notar": 2\n  }\n}\n',
            {"Vida": 5, "Lista": [1, 2, 3], "skills": {"Notar": 2, "Huir": 1}},
            '{\n  "Vida": 5,\n  "Lista": [1, 2, 3],\n  "skills": {\n    "Notar": 2,\n'
            '    "Huir": 1\n  }\n}\n',
        ),
        # a compact file stays compact; a removed member goes with its comma
        ('{"a":1,"b":2,"c":3}', {"a": 1, "c": 4}, '{"a":1,"c":4}'),
        ('{"a": 1, "b": 2}', {"a": 1}, '{"a": 1}'),
        ('{"a": 1, "b": 2}', {"b": 2}, '{"b": 2}'),
        # escapes stay escapes; tabs stay tabs
        (
            '{\n\t"N": "Luc\\u00eda",\n\t"V": 1\n}',
            {"N": "Lucía", "V": 2},
            '{\n\t"N": "Luc\\u00eda",\n\t"V": 2\n}',
        ),
    ],
)
def test_json_sheets_get_only_the_changed_values(text, new, expected):
    assert rewrite(text, "json", json.loads(text), new) == expected


# (no booleans beside integers: a sheet types its values, so a 1 never becomes a true,
# and Python's 1 == True would make such a change look like none)
json_values = st.recursive(
    st.one_of(st.integers(-1000, 1000), st.none(), st.text(max_size=5)),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
json_sheets = st.dictionaries(st.text(max_size=6), json_values, min_size=1, max_size=5)


@given(
    old=json_sheets,
    edits=st.dictionaries(st.text(max_size=6), json_values | st.just("<remove>"), max_size=4),
    style=st.sampled_from([None, 0, 2, 4, "\t"]),
    separators=st.sampled_from([None, (",", ":")]),
    ascii_only=st.booleans(),
    data=st.data(),
)
def test_any_json_change_is_spliced_and_reads_back_exactly(
    old, edits, style, separators, ascii_only, data
):
    text = json.dumps(old, indent=style, ensure_ascii=ascii_only, separators=separators) + "\n"
    new = {k: v for k, v in {**old, **edits}.items() if v != "<remove>"}
    for key, value in list(new.items()):  # and a change inside a nested object
        if isinstance(value, dict) and value and data.draw(st.booleans()):
            new[key] = {**value, data.draw(st.sampled_from(list(value))): data.draw(json_values)}
    spliced = json_splice.splice(text, new)
    assert spliced is not None  # spliced, not written whole
    assert json.dumps(json.loads(spliced)) == json.dumps(new)  # values, types, key order
    out = rewrite(text, "json", old, new)
    assert json.dumps(json.loads(out), sort_keys=True) == json.dumps(new, sort_keys=True)
    if style is not None:  # each untouched top-level member keeps its own text
        colon = ":" if separators else ": "
        for key, value in old.items():
            if key in new and new[key] == value and not isinstance(value, dict | list):
                member = json.dumps(key, ensure_ascii=ascii_only) + colon
                assert member + json.dumps(value, ensure_ascii=ascii_only) in spliced


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path, brujeria):
    path = copy_of(tmp_path, "brujeria_investigadora")
    sheet = brujeria.load_sheet(path)
    out = brujeria.run("asustarse", sheet, {"fuente": "Criatura horrible"}, SeededDice(1))
    edited = path.read_text(encoding="utf-8").replace("Fuerza: 2", "Fuerza: 3")
    path.write_text(edited, encoding="utf-8")
    with pytest.raises(SheetChanged) as caught:
        out.sheet.save(base=sheet)
    assert caught.value.exit_code == 4
    assert path.read_text(encoding="utf-8") == edited
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_a_shipped_character_is_never_written(arcana):
    sheet = arcana.load_sheet(SHIPPED / "menecma.yaml")
    out = arcana.run("usar_numina", sheet, {"numina": "Grito Báquico"}, ForcedDice([3, 4]))
    before = (SHIPPED / "menecma.yaml").read_bytes()
    with pytest.raises(ShippedSheet) as caught:
        out.sheet.save(sheet.path, base=sheet)
    assert caught.value.exit_code == 2
    assert "rulebook new menecma" in caught.value.hint and "--save-as" in caught.value.hint
    assert (SHIPPED / "menecma.yaml").read_bytes() == before


def test_a_sheet_with_no_file_says_so_when_saved_without_one(arcana):
    # A sheet made from data has no file of its own: saving it needs one (it was a
    # TypeError from Path(None), found by mypy).
    data = yaml.safe_load((SHIPPED / "menecma.yaml").read_text(encoding="utf-8"))
    sheet = arcana.sheet(data)
    with pytest.raises(SheetError, match="no file to save to"):
        sheet.save()


def test_save_as_a_new_file_keeps_the_original_text(tmp_path, arcana):
    sheet = arcana.load_sheet(SHIPPED / "menecma.yaml")
    out = arcana.run("usar_numina", sheet, {"numina": "Grito Báquico"}, ForcedDice([3, 4]))
    target = tmp_path / "mine.yaml"
    out.sheet.save(target, base=sheet)
    original = (SHIPPED / "menecma.yaml").read_text(encoding="utf-8")
    assert changed_lines(original, target.read_text(encoding="utf-8")) == [
        "+dinamis:",
        "+  Virtus: 2",
    ]
    assert os.listdir(tmp_path) == ["mine.yaml"]
