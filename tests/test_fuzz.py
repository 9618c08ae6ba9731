"""Fuzzing: generated expressions, small rulebooks and mutated sheets give only our errors.

Each case is run through the public API with tight limits; the test fails on any
exception that is not a RulebookError (the strategies are in fuzz_cases.py; the long
run, with counts, is benchmarks/fuzz.py).
"""

from __future__ import annotations

from fuzz_cases import (
    expressions,
    rulebooks,
    sheet_engine,
    sheets,
    try_expression,
    try_rulebook,
    try_sheet,
)
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from profiles import fewer

#: a few examples each in CI (the profile's count, cut down: every case may compute odds)
FUZZ = fewer(3, 10, HealthCheck.filter_too_much)


@FUZZ
@given(expressions(), st.integers(0, 2**32), st.booleans())
def test_expressions_give_only_our_errors(text, seed, odds):
    try_expression(text, seed, odds)


@FUZZ
@given(rulebooks(), st.integers(0, 2**32), st.booleans())
def test_small_rulebooks_give_only_our_errors(text, seed, odds):
    try_rulebook(text, seed, odds)


ENGINE = sheet_engine()


@FUZZ
@given(sheets())
def test_mutated_sheets_give_only_our_errors(case):
    text, text_format = case
    try_sheet(ENGINE, text, text_format)


def test_the_fuzzing_reaches_evaluation():
    # a test of the test: generated rulebooks are mostly valid, so that they run
    from hypothesis import find

    find(rulebooks(), lambda text: try_rulebook(text, 1, False) == "ok")
    find(sheets(), lambda case: try_sheet(ENGINE, *case) == "ok")
