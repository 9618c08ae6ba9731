"""The long fuzzing run: many generated expressions, rulebooks, sheets and inputs, counted.

    python benchmarks/fuzz.py                 # 2000 cases of each kind
    python benchmarks/fuzz.py 20000 --odds    # more, computing odds too (slower)
    python benchmarks/fuzz.py 500 --files     # only records and journals (a tenth as many)

Prints how each kind of case ended: "ok", or the project's error it raised (by class);
any other exception is a bug: it is counted as such and its case printed. The cases are
the strategies of tests/fuzz_cases.py and tests/fuzz_inputs.py (tests/test_fuzz.py and
tests/test_fuzz_inputs.py run a few in CI). Also the
slowest case of each kind, in seconds of CPU.
"""

from __future__ import annotations

import sys
import time
import traceback
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from fuzz_cases import (
    expressions,
    rulebooks,
    sheet_engine,
    sheets,
    try_expression,
    try_rulebook,
    try_sheet,
)
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
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st


def run(label: str, strategy, attempt, count: int) -> int:
    outcomes: Counter = Counter()
    bugs: list = []
    slowest = [0.0, None]

    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def probe(case):
        started = time.thread_time()
        try:
            outcomes[attempt(case)] += 1
        except Exception as error:  # the very thing being looked for
            outcomes[f"BUG {type(error).__name__}"] += 1
            bugs.append((case, traceback.format_exc(limit=4)))
        spent = time.thread_time() - started
        if spent > slowest[0]:
            slowest[:] = [spent, case]

    started = time.monotonic()
    probe()
    total = sum(outcomes.values())
    print(f"{label}: {total} cases in {time.monotonic() - started:.0f} s")
    for outcome, number in outcomes.most_common():
        print(f"  {number:7}  {outcome}")
    print(f"  slowest: {slowest[0]:.2f} s  {str(slowest[1])[:100]!r}")
    for case, where in bugs[:5]:
        print(f"  BUG on {case!r}\n{where}")
    return len(bugs)


def files(count: int) -> int:
    """Records and journals (issue 23), mutated as tests/test_fuzz_records.py does: each
    case on a fresh copy of a played campaign, `verify` run on a record, every command
    that reads entries on a journal (log, show, export, undo, replay, journal verify
    --rerun, the server's history and undo). A file written outside the campaign's
    folder fails the case's own check: it is counted as a bug too."""
    from tempfile import TemporaryDirectory

    from hostile_cases import (
        Campaign,
        fuzz_journal,
        fuzzed_record,
        journal_fuzz,
        record_fuzz,
        try_record,
    )

    made = Campaign.made()

    def record(mutations) -> str:
        with TemporaryDirectory() as root:
            return try_record(made.copy(Path(root) / "c"), fuzzed_record(made.record, mutations))

    def journal(edits) -> str:  # how the commands ended, each kind once
        with TemporaryDirectory() as root:
            ends = fuzz_journal(made.copy(Path(root) / "c"), edits)
        return ", ".join(sorted({e if not e.isdigit() else f"exit {e}" for e in ends}))

    bugs = run("records", record_fuzz(made.record), record, count)
    return bugs + run("journals", journal_fuzz(), journal, max(1, count // 10))


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv and argv[0].isdigit() else 2000
    odds = "--odds" in argv
    if "--files" in argv:
        bugs = files(count)
        print(f"{bugs} case(s) ended in an exception that is not the project's own")
        return 1 if bugs else 0
    engine = sheet_engine()
    bugs = run(
        "expressions",
        st.tuples(expressions(), st.integers(0, 2**32)),
        lambda case: try_expression(case[0], case[1], odds),
        count,
    )
    bugs += run(
        "rulebooks",
        st.tuples(rulebooks(), st.integers(0, 2**32)),
        lambda case: try_rulebook(case[0], case[1], odds),
        count,
    )
    bugs += run("sheets", sheets(), lambda case: try_sheet(engine, *case), count)
    # the front end's inputs (issue 23): keys given twice, odd Unicode, other scripts'
    # digits, dice terms built to backtrack
    bugs += run("odd sheets", odd_sheets(), lambda case: try_odd_sheet(engine, *case), count)
    bugs += run("backtracking dice", backtracking_dice(), try_dice, count)
    bugs += run("odd rulebooks", odd_rulebooks(), try_odd_rulebook, count)
    bugs += run("odd parameters", odd_parameters(), try_parameters, count)
    bugs += files(count // 10)  # (each case plays a whole campaign's commands: slower)
    print(f"{bugs} case(s) ended in an exception that is not the project's own")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
