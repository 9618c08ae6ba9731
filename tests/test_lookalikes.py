"""Characters that make a text read otherwise than it is: direction controls anywhere in a
rulebook, names hiding a character, mixing scripts or looking just like another (in a
rulebook and in a sheet's keys), each warned about with the character's code point and
name, at its line and column."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsl
from dsl.check.lookalikes import MAX_CHARACTER_WARNINGS
from dsl.errors import did_you_mean
from dsl.load import shipped_rulebooks
from dsl.unicode_text import DIRECTION_CONTROLS, describe
from interpreter.sheets.character import Sheet


def warnings_of(text: str) -> list:
    return [w for w in dsl.load_text(text, "t.rules").warnings if "never used" not in w.render()]


@pytest.mark.parametrize("control", sorted(DIRECTION_CONTROLS))
@pytest.mark.parametrize(
    "where",
    [
        "# a comment {c} here\naction a() {{ result {{ v: 1 }} }}\n",
        'action a() {{ result {{ v: "x{c}y" }} }}\n',
        "action a() {{ let '{c}x' = 1  result {{ v: '{c}x' }} }}\n",
        'table t {{ "a{c}": 1, else: 2 }}\naction a() {{ result {{ v: t["a"] }} }}\n',
    ],
)
def test_a_direction_control_anywhere_is_warned_about_where_it_is(control, where):
    text = where.format(c=control)
    found = [w for w in warnings_of(text) if "direction control" in w.render()]
    assert found, text
    warning = found[0]
    assert describe(control) in warning.render()
    assert warning.span.start == text.index(control)
    assert control not in warning.span.excerpt()  # shown as U+FFFD: the excerpt stays as read


SHEET = "sheet {{\n  attribute Fuerza in 1..10\n{more}}}\n"


@pytest.mark.parametrize(
    "more, body",
    [
        ("  attribute Fuеrza in 1..10\n", ""),  # a sheet field
        ("", "action a(Fuеrza: number) { result { v: Fuеrza } }\n"),  # a parameter
        ("", "formula Fuеrza(x: int) = x\naction b() { result { v: Fuеrza(1) } }\n"),
        ("", "table t { Fuеrza: 1, else: 2 }\naction b() { result { v: t[Fuerza] } }\n"),
        ("", 'table t { "Fuеrza": 1, else: 2 }\naction b() { result { v: t["x"] } }\n'),
        ("", "action c() { let Fuеrza = 2  result { v: Fuеrza } }\n"),
    ],
)
def test_a_name_that_looks_just_like_another_is_warned_about(more, body):
    text = SHEET.format(more=more) + body
    found = [w for w in warnings_of(text) if "looks just like" in w.render()]
    assert len(found) == 1, [w.render() for w in warnings_of(text)]
    rendered = found[0].render()
    assert "U+0435 CYRILLIC SMALL LETTER IE" in rendered and "`Fuerza`" in rendered
    assert found[0].span.text.strip('"') == "Fuеrza"


LATIN_LOOKALIKES = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у"}


@given(st.from_regex(r"[A-Z][a-z]{2,8}", fullmatch=True), st.data())
def test_any_latin_letter_swapped_for_its_cyrillic_twin_is_named(name, data):
    places = [i for i, c in enumerate(name) if c in LATIN_LOOKALIKES]
    if not places:
        return
    at = data.draw(st.sampled_from(places))
    twin = name[:at] + LATIN_LOOKALIKES[name[at]] + name[at + 1 :]
    text = (
        f"sheet {{\n  attribute {name} in 1..10\n}}\n"
        f"action a({twin}: number) {{ result {{ v: {twin} + {name} }} }}\n"
    )
    found = [w.render() for w in warnings_of(text) if "looks just like" in w.render()]
    assert len(found) == 1 and describe(twin[at]) in found[0]


@pytest.mark.parametrize(
    "name, ok",
    [
        ("Fuеrza", False),  # a Cyrillic letter among Latin ones
        ("Сила", True),  # all Cyrillic
        ("Daño", True),  # Latin with an accent
        ("日本語のテキスト", True),  # Han and Hiragana, as Japanese is written
        ("攻撃force", True),  # Han and Latin
        ("Δύναμηx", False),  # Greek, then a Latin x
    ],
)
def test_a_name_mixing_scripts_is_warned_about(name, ok):
    text = f"action a() {{ let {name} = 1  result {{ v: {name} }} }}\n"
    found = [w for w in warnings_of(text) if "mixes scripts" in w.render()]
    assert (not found) == ok


def test_a_quoted_name_hiding_a_character_is_warned_about():
    text = "action a() { let 'Vi\u200bda' = 1  result { v: 'Vi\u200bda' } }\n"
    found = [w.render() for w in warnings_of(text)]
    assert any("U+200B ZERO WIDTH SPACE" in w and "not seen" in w for w in found)


def test_many_such_characters_give_a_bounded_number_of_warnings():
    lines = "".join(f"# \u202e{i}\n" for i in range(500))
    found = [w for w in warnings_of(lines + "action a() { result { v: 1 } }\n")]
    assert len(found) == MAX_CHARACTER_WARNINGS + 1
    assert "450 more warnings" in found[-1].render()


@pytest.mark.parametrize("name", sorted(shipped_rulebooks()))
def test_the_shipped_rulebooks_have_none(name):
    book = dsl.load(name)
    kinds = ("direction control", "looks just like", "mixes scripts", "not seen")
    assert not [w for w in book.warnings if any(k in w.render() for k in kinds)]


def test_did_you_mean_names_the_letter_that_only_looks_the_same():
    hint = did_you_mean("Fuеrza", ["Fuerza", "Destreza"])
    assert hint == "did you mean Fuerza? (Fuеrza has U+0435 CYRILLIC SMALL LETTER IE)"


# ─── a sheet's keys ─────────────────────────────────────────────────────────────

BOOK = dsl.load_text(
    "sheet {\n  attribute Fuerza in 1..10\n  skills in 0..5\n  skill Sigilo in 0..5\n"
    "  catalog Hechizos { grado: int }\n}\naction a() { result { v: Fuerza } }\n"
)


@pytest.mark.parametrize(
    "text, line, column, said",
    [
        ("Fuerza: 5\nskills:\n  Sigіlo: 2\n", 3, 3, "U+0456"),
        ("Fuerza: 5\nskills:\n  Bu\u202escar: 1\n", 3, 3, "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Fuerza: 5\nskills:\n  Buscаr: 1\n", 3, 3, "mixes scripts"),
        ('{"Fuerza": 5, "skills": {"Sigіlo": 2}}', 1, 26, "U+0456"),
    ],
)
def test_a_sheet_key_is_warned_about_at_its_place(text, line, column, said):
    text_format = "json" if text.startswith("{") else "yaml"
    sheet = Sheet.from_text(text, BOOK, f"s.{text_format}", text_format)
    assert len(sheet.warnings) == 1
    warning = sheet.warnings[0]
    assert said in warning.render() and "warning:" in warning.render()
    assert (warning.line, warning.column) == (line, column)


def test_plain_sheet_keys_give_no_warning():
    sheet = Sheet.from_text("Fuerza: 5\nskills:\n  Búsqueda: 2\n  Сила: 1\n", BOOK)
    assert sheet.warnings == ()


def test_an_unknown_sheet_field_that_looks_like_one_names_its_letter():
    with pytest.raises(Exception) as caught:
        Sheet.from_text("Fuеrza: 5\n", BOOK, "s.yaml")
    assert "U+0435 CYRILLIC SMALL LETTER IE" in caught.value.render()


def test_every_direction_control_is_one():
    for char in DIRECTION_CONTROLS:
        assert unicodedata.bidirectional(char) in {
            "LRE",
            "RLE",
            "PDF",
            "LRO",
            "RLO",
            "LRI",
            "RLI",
            "FSI",
            "PDI",
            "L",
            "R",
            "AL",
        }
