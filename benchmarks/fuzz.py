"""The long fuzzing run: many generated expressions, rulebooks, sheets and inputs, counted.

    python benchmarks/fuzz.py                 # 2000 cases of each kind
    python benchmarks/fuzz.py 20000 --odds    # more, computing odds too (slower)

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


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv and argv[0].isdigit() else 2000
    odds = "--odds" in argv
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
    print(f"{bugs} case(s) ended in an exception that is not the project's own")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
