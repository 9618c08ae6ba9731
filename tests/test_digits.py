"""Numbers are written with the digits 0-9 alone, everywhere a number is read from text: a
rulebook, a dice expression, `--set`, `--dice`, numeric options, a sheet. Any other
script's digit (Python's int() reads `١٢٣` as 123, and `\\d` matches it) is refused with
a message naming it."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsl
from dsl.errors import RulebookError
from dsl.unicode_text import describe
from interpreter import Engine
from interpreter.bounds import read_number
from interpreter.cli import main
from interpreter.cli.options import faces_of
from interpreter.errors import ParameterError, SheetError
from interpreter.expression import roll
from interpreter.limits import DEFAULT_LIMITS
from interpreter.sheets.character import Sheet

#: every decimal digit of Unicode that is not 0-9 (Arabic-Indic, Devanagari, fullwidth...)
OTHER_DIGITS = [c for c in map(chr, range(sys.maxunicode + 1)) if c.isdecimal() and not c.isascii()]
DIGITS = st.sampled_from(OTHER_DIGITS)
#: an ASCII number with one digit of another script in it
MIXED = st.tuples(
    st.from_regex(r"[0-9]{0,3}", fullmatch=True),
    DIGITS,
    st.from_regex(r"[0-9]{0,3}", fullmatch=True),
)

BOOK = dsl.load_text(
    "sheet {\n  attribute Fuerza in 0..10\n}\n"
    "action a(n: number, k: int) { result { v: n + k + Fuerza } }\n"
)
ENGINE = Engine(BOOK)


def test_there_are_hundreds_of_them():
    assert len(OTHER_DIGITS) > 600 and "١" in OTHER_DIGITS and "０" in OTHER_DIGITS


@given(MIXED)
def test_a_rulebook_refuses_them_where_a_number_or_dice_would_be(parts):
    written = "".join(parts)
    for expression in (written, f"1 + {written}", f"3d{written}", f"{written}d6"):
        with pytest.raises(RulebookError) as caught:
            roll(expression)
        rendered = caught.value.render()
        assert describe(parts[1]) in rendered, (expression, rendered)


@given(MIXED, st.sampled_from(["n", "k"]))
def test_a_parameter_refuses_them(parts, name):
    sheet = ENGINE.sheet({"Fuerza": 1})
    params = {"n": "1", "k": "2", name: "".join(parts)}
    with pytest.raises(ParameterError) as caught:
        ENGINE.run("a", sheet, params)
    assert describe(parts[1]) in caught.value.render()


@given(MIXED)
def test_read_number_never_reads_them(parts):
    assert read_number("".join(parts), DEFAULT_LIMITS) is None


@given(MIXED)
def test_forced_dice_refuse_them(parts):
    with pytest.raises(ParameterError) as caught:
        faces_of(f"6,{''.join(parts)},1")
    assert describe(parts[1]) in caught.value.render()


@given(MIXED, st.sampled_from(["yaml", "json"]))
def test_a_sheet_refuses_them_saying_why(parts, text_format):
    written = "".join(parts)
    text = f"Fuerza: {written}\n" if text_format == "yaml" else f'{{"Fuerza": "{written}"}}'
    with pytest.raises(SheetError) as caught:
        Sheet.from_text(text, BOOK, f"s.{text_format}", text_format)
    assert describe(parts[1]) in caught.value.render()
    assert caught.value.line == 1


@pytest.mark.parametrize("option", [["--seed", "١٢"], ["--dice", "٣"]])
def test_the_command_line_refuses_them(option, capsys):
    try:
        code = main(["roll", "d6", *option])
    except SystemExit as exit:  # argparse's refusal of an option's value
        code = exit.code
    assert code == 2
    assert "ARABIC-INDIC DIGIT" in capsys.readouterr().err


def test_set_refuses_them_on_the_command_line(tmp_path, capsys):
    rules = tmp_path / "d.rules"
    rules.write_text("action a(n: number) { result { v: n } }\n", encoding="utf-8")
    assert main(["run", str(rules), "a", "--set", "n=١٢٣"]) == 2
    assert "U+0661 ARABIC-INDIC DIGIT ONE" in capsys.readouterr().err
    assert main(["run", str(rules), "a", "--set", "n=123"]) == 0
