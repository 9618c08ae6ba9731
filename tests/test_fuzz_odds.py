"""Fuzzing the odds: generated actions, each field's answer the whole result's marginal, and
the whole what brute force gives where the dice are few (tests/fuzz_odds_cases.py; the
long run, with counts, is benchmarks/fuzz.py --odds)."""

from __future__ import annotations

from fuzz_odds_cases import actions, check_action
from hypothesis import HealthCheck, find, given
from profiles import fewer

#: a few examples in CI (each computes the odds of an action whole and field by field)
FUZZ = fewer(3, 10, HealthCheck.filter_too_much)


@FUZZ
@given(actions())
def test_each_field_is_the_whole_results_marginal(text):
    check_action(text)


def test_the_fuzzing_reaches_brute_force():
    # a test of the test: generated actions are mostly valid and small enough that
    # brute force lists their dice, some runs failing among them
    find(actions(), lambda text: check_action(text).startswith("brute force"))
    find(actions(), lambda text: check_action(text) == "brute force, failing in some runs")
