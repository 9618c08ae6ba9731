"""Fuzzing records and journals: mutated many ways at once, they give only our errors.

A record's fields given hostile values and its text cut and spliced; a journal's columns
given hostile values, its rows deleted or copied. Every command that reads them is run
(tests/hostile_cases.py); the test fails on an exception that is not a RulebookError, or
on a file written outside the campaign's folder. The long run, with counts, is
`python benchmarks/fuzz.py` (its records and journals sections).
"""

from __future__ import annotations

import os

from hostile_cases import (
    Campaign,
    fuzz_journal,
    fuzzed_record,
    journal_fuzz,
    record_fuzz,
    try_record,
)
from hypothesis import HealthCheck, given, settings
from profiles import fewer

#: a few examples each in CI (each copies a campaign; a journal's runs every command)
FUZZ = fewer(4, 10, HealthCheck.function_scoped_fixture)


@FUZZ
@given(mutations=record_fuzz(Campaign.made().record))
def test_fuzzed_records_give_only_our_errors(tmp_path, mutations):
    copy = Campaign.made().copy(tmp_path / f"r{len(os.listdir(tmp_path))}")
    try_record(copy, fuzzed_record(copy.record, mutations))


@FUZZ
@given(edits=journal_fuzz())
def test_fuzzed_journals_give_only_our_errors(tmp_path, edits):
    copy = Campaign.made().copy(tmp_path / f"j{len(os.listdir(tmp_path))}")
    fuzz_journal(copy, edits)


def test_the_fuzzing_reaches_a_verified_record_and_a_refused_one(tmp_path):
    # a test of the test: some fuzzed records still verify, some are refused
    from hypothesis import find

    made = Campaign.made()
    seen = []

    def ends(outcome):
        def check(mutations):
            copy = made.copy(tmp_path / f"f{len(seen)}")
            seen.append(copy)
            return try_record(copy, fuzzed_record(made.record, mutations)) == outcome

        return check

    find(record_fuzz(made.record), ends("ok"), settings=settings(max_examples=200))
    find(record_fuzz(made.record), ends("JournalError"), settings=settings(max_examples=200))
