"""Fuzzing the front end's inputs: sheets with keys given twice and odd Unicode, dice
terms built to backtrack, rulebooks and parameters with characters that read otherwise
than they are give only the project's errors, and print as UTF-8 (the strategies are in
fuzz_inputs.py; the long run, with counts, is benchmarks/fuzz.py)."""

from __future__ import annotations

import pytest
from fuzz_cases import sheet_engine
from fuzz_inputs import (
    backtracking_dice,
    odd_parameters,
    odd_rulebooks,
    odd_sheets,
    try_dice,
    try_odd_rulebook,
    try_odd_sheet,
    try_parameters,
)
from hypothesis import given
from test_fuzz import FUZZ

from interpreter.errors import SheetError
from interpreter.sheets.character import Sheet

ENGINE = sheet_engine()


@FUZZ
@given(odd_sheets())
def test_odd_sheets_give_only_our_errors(case):
    try_odd_sheet(ENGINE, *case)


@FUZZ
@given(backtracking_dice())
def test_dice_built_to_backtrack_give_only_our_errors(text):
    try_dice(text)


@FUZZ
@given(odd_rulebooks())
def test_odd_rulebooks_give_only_our_errors(text):
    try_odd_rulebook(text)


@FUZZ
@given(odd_parameters())
def test_odd_parameters_give_only_our_errors(params):
    try_parameters(params)


@FUZZ
@given(odd_sheets())
def test_a_sheet_that_gives_a_key_twice_is_never_read(case):
    text, text_format = case
    if '"K": {"e1": {"g": 1, "g": 2}}' not in text:
        return
    with pytest.raises(SheetError):
        Sheet.from_text(text, ENGINE.rulebook, f"s.{text_format}", text_format)


def test_the_fuzzing_reaches_what_it_fuzzes():
    # a test of the test: some cases get through, some are refused for what they hold
    from hypothesis import find

    find(odd_sheets(), lambda case: try_odd_sheet(ENGINE, *case) == "ok")
    find(odd_parameters(), lambda params: try_parameters(params) == "ParameterError")
