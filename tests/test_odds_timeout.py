"""Once the time is up, an odds computation stops within a bounded count of work (issue
23), counted, not timed (issue 31: no test asserts a time), and the time limit decides
nothing of the exact phase (issue 24): its budget of counted work does.

The time limit bounds sampling; the exact phase is bounded by its budget, every loop that
may run long counting its work against it (interpreter.odds.budget), with a clock only as
a last resort, switched off here. So here the time is up from the start (a limit of a
nanosecond), the budget is small (SMALL_BUDGET), and the work done before the computation
answers or gives up is counted as the Python calls it makes (`sys.setprofile`: calls of
Python and of built-in functions, the same on any machine): a loop that counts no work
makes millions of them. The expressions are the overruns issue 23 measured (42 s, 57 s,
over 60 s, 14 s with `--timeout 2`) and those benchmarks/odds_timeout.py generated that
overran before every loop counted its work; the CPU time a unit of work takes is
benchmarks/odds_units.py's to measure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import dsl
from interpreter import Engine
from interpreter.errors import EvaluationError
from interpreter.odds import budget, expression_odds

ROOT = Path(__file__).resolve().parent.parent
#: a time limit that is up before any work: seconds
UP = 1e-9
#: the most calls an answer may make once its time is up (the largest seen: 390,000, for
#: `10000d6x=6kh3`, a few tenths of a second of work before its first look; a computation
#: that does not look, for 9999d100kh1's mean alone, makes tens of millions)
MOST_CALLS = 1_500_000
#: the budget of every answer here (units of work: interpreter.odds.roller), a hundredth
#: of the default
SMALL_BUDGET = 1_000

LISTED = ["10000d6x=6kh3", "{999d6+3d8}k4", "-(10000d4kh5)", "9999d10x0d10x"]
GENERATED = [
    "9999d100kh1",  # 9 s making Fractions of 20,000 digits for the mean
    "{300d2+9999d100}kh2 * 2500d100kh5x>=5 * 3dF",  # rows of C(9999, c), no deadline
    "12dFmin3k4 / 10000d10cf=1x>=5rr<=2 + 999d20kl2kh1",  # one gcd of a huge total
    "-(12d20!p + 60d20!p!!dl3)",  # the top few of pools explosions grow
    "{10000d20+60d6+1d100}kh2 + -(2500d1000x0) + 12d6",  # a million splits of one state
    "2500d100000kh3kh1xo",  # a hundred thousand faces walked one by one
    "3d10x + 300d6k4 / 12d2x0kh3x=6 + 3d20kh5kl2",  # two large distributions combined
    "d100000",  # the answer itself: 100,000 outcomes, 200 listed
]


@pytest.fixture(autouse=True)
def no_safety_stop(monkeypatch):
    """The exact phase's clock switched off: its budget alone bounds it."""
    monkeypatch.setattr(budget, "SAFETY_SECONDS_PER_UNIT", 1e9)


class Overran(Exception):
    """More than MOST_CALLS calls: the computation did not stop (given up at once)."""


def calls_of(answer) -> tuple:
    """(Python and built-in calls made, what `answer()` gave or the error it raised);
    past MOST_CALLS, stopped there (Overran)."""
    calls = [0]

    def count(_frame, _event, _arg):
        calls[0] += 1
        if calls[0] > MOST_CALLS:
            sys.setprofile(None)
            raise Overran(calls[0])

    sys.setprofile(count)
    try:
        found = answer()
    except EvaluationError as error:  # no trial finished in time: the project's error
        found = error
    finally:
        sys.setprofile(None)
    return calls[0], found


@pytest.mark.parametrize("expression", LISTED + GENERATED)
def test_the_time_limit_is_kept(expression):
    calls, found = calls_of(lambda: expression_odds(expression, seconds=UP, budget=SMALL_BUDGET))
    assert calls <= MOST_CALLS, (calls, found)
    if isinstance(found, EvaluationError):
        assert "time limit" in str(found)


HEAVY = """sheet {
  attribute A in 1..10 default 3
}
action wide() {
  let a = 10d10x
  let b = 10d10x
  let c = 10d10x
  let d = 8d12x
  let f = 200d6
  result { a: a, b: b, c: c, d: d, f: f, g: a + b, h: c * d, j: a * f }
}
action loop(n: int = 40) {
  let acc = 0
  repeat n times {
    let r = 3d6
    if r > 10 {
      set acc to acc + r
    } else {
      set acc to acc - d6
    }
  }
  result { acc: acc }
}
action pairs() {
  let a = 200d6
  let b = 200d6
  result { c: a * b, d: a - b }
}
"""


@pytest.mark.parametrize(
    "action, field, params",
    [
        ("wide", None, {}),  # the whole result, field by field
        ("loop", None, {}),
        ("pairs", "c", {}),
        ("loop", None, {"n": 41}),
    ],
)
def test_the_time_limit_of_an_action_is_kept(action, field, params):
    engine = Engine(dsl.load_text(HEAVY, "heavy.rules"))
    sheet = engine.sheet({})
    calls, found = calls_of(
        lambda: engine.odds(action, sheet, params, field, seconds=UP, budget=SMALL_BUDGET)
    )
    assert calls <= MOST_CALLS, (calls, found)


def test_the_command_line_keeps_its_time_limit():
    """`--timeout` reaches sampling, and only sampling: the time up, an answer within the
    budget is exact all the same, and past the budget the answer is the error that no
    trial finished (exit 4, naming --timeout), never a traceback."""
    code = "import sys; from interpreter.cli import main; sys.exit(main())"
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    asked = [sys.executable, "-c", code, "odds", "9999d100kh1", "--timeout", "0.000001"]
    for budget_flags, returncode in (([], 0), (["--budget", "1"], 4)):
        done = subprocess.run(
            asked + budget_flags,
            capture_output=True,
            text=True,
            env=env,
            timeout=600,  # a hang guard, not a measure
        )
        assert done.returncode == returncode and "Traceback" not in done.stderr, done.stderr
        if returncode:
            assert "--timeout" in done.stdout + done.stderr
        else:
            assert "(exact)" in done.stdout
