"""`rulebook odds EXPR --timeout T` keeps its time: the CPU time of the whole command stays
within T × 1.1 plus what starting it costs (issue 23).

Each case runs as a subprocess, its CPU time (user + system) read from
`resource.getrusage(RUSAGE_CHILDREN)` before and after: the machine's other load does
not count. Start-up is measured in the same test, as the CPU time of `odds 3d6`. The
overruns issue 23 measured with `--timeout 2` (42 s, 57 s, over 60 s, 14 s) are here
with a shorter one, and so are expressions benchmarks/odds_timeout.py generated that
overran before the counting looked at its clock everywhere.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the time limit given, in seconds of CPU
TIMEOUT = 0.6
#: what the command may take past T × 1.1 and start-up: the noise of one measure
MARGIN = 0.25

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


def cpu_seconds(*args: str) -> tuple:
    """(CPU seconds, exit code, stdout, stderr) of `rulebook ARGS` in a subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = "import sys; from interpreter.cli import main; sys.exit(main())"
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return spent, done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize("expression", LISTED + GENERATED)
def test_the_time_limit_is_kept(expression):
    # One measure of CPU time on a shared machine varies by half (seen: the same command
    # 1.33 to 2.04 s at a commit of this session's start): an overrun must show twice,
    # each against its own start-up, to be the command's and not the machine's
    seen = []
    for _attempt in range(2):
        start, code, _, _ = cpu_seconds("odds", "3d6", "--timeout", str(TIMEOUT))
        assert code == 0
        spent, code, out, err = cpu_seconds("odds", expression, "--timeout", str(TIMEOUT))
        assert "Traceback" not in err
        assert code in (0, 4), err  # an answer, or the error that no trial finished in time
        if spent <= TIMEOUT * 1.1 + start + MARGIN:
            return
        seen.append((spent, start, out[:300], err[-300:]))
    pytest.fail(f"over T x 1.1 + start-up + {MARGIN} twice: {seen}")


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
    "args",
    [
        ["wide"],  # the whole result, field by field, each sampled in its share
        ["loop"],
        ["pairs", "--field", "c"],
        ["loop", "--compare", "n=41"],  # two answers share the time
        ["wide", "--json"],
    ],
)
def test_the_time_limit_of_an_action_is_kept(tmp_path, args):
    book = tmp_path / "heavy.rules"
    book.write_text(HEAVY, encoding="utf-8")
    start, code, _, _ = cpu_seconds("odds", "3d6", "--timeout", str(TIMEOUT))
    assert code == 0
    spent, code, out, err = cpu_seconds("odds", str(book), *args, "--timeout", str(TIMEOUT))
    assert code == 0, err
    assert spent <= TIMEOUT * 1.1 + start + MARGIN, (spent, start, out[:300], err[-300:])
