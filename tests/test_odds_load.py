"""The same odds command gives the same answer under any load (issue 24): exact or sampled
is decided by counted work (the budget), never by the clock, so a machine kept busy by
other processes changes nothing, neither the form nor a number.

The case sits on the edge: a loop of five rolls whose exact count takes 4,050 units of
work (its `if` reads the running total: the loop carries no counter,
interpreter.odds.carried; `let acc = 0`, a literal, costs no run; each pass's `let r =
3d6` runs once for all the totals, interpreter.odds.alike). With `--budget 4050` it is
exact, with one unit less it is sampled (300 trials, seed 0, all of them finished well
within the time limit, so the sampled numbers are the
same too). Each command runs alone and then beside HOGS processes that only spin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dsl
from interpreter import Engine

ROOT = Path(__file__).resolve().parent.parent
#: processes spinning beside the command: more than the cores of a small machine
HOGS = 3
#: the work the exact count of `loop` with n = 5 takes (units: interpreter.odds.roller)
EDGE = 4_050

BOOK = """sheet {
  attribute A in 1..10 default 3
}
action loop(n: int = 5) {
  let acc = 0
  repeat n times {
    let r = 3d6
    if r > 10 or acc < -30 {
      set acc to acc + r
    } else {
      set acc to acc - d6
    }
  }
  result { acc: acc }
}
"""


def odds(book: Path, budget: int) -> str:
    """The JSON `rulebook odds BOOK loop --budget N` prints."""
    code = "import sys; from interpreter.cli import main; sys.exit(main())"
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    args = ["odds", str(book), "loop", "--budget", str(budget), "--trials", "300"]
    done = subprocess.run(
        [sys.executable, "-c", code, *args, "--timeout", "60", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,  # a hang guard, not a measure
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def hogs() -> list:
    spin = "while True:\n    pass"
    return [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(HOGS)]


@pytest.mark.parametrize("budget, exact", [(EDGE, True), (EDGE - 1, False)])
def test_the_same_answer_under_load(tmp_path, budget, exact):
    book = tmp_path / "edge.rules"
    book.write_text(BOOK, encoding="utf-8")
    alone = odds(book, budget)
    spinning = hogs()
    try:
        loaded = odds(book, budget)
    finally:
        for hog in spinning:
            hog.kill()
            hog.wait()
    assert json.loads(alone)["exact"] is exact
    assert loaded == alone


#: a time limit the exact count of a shipped action takes a hundred times over (seconds)
SHORT = 0.003


def test_neither_the_load_nor_the_time_limit_decides_whether_it_is_exact():
    # brujeria's melee attack (some 17,000 units of work, tenths of a second): exact on a
    # quiet machine, and exact with every core busy and a time limit far below what its
    # exact phase takes (the time limit bounds sampling, not the count); one unit of
    # budget less than it takes, not exact under either
    engine = Engine.of(dsl.load("brujeria"))
    sheet = engine.load_sheet(ROOT / "rulebooks" / "characters" / "brujeria_bruja.yaml")

    def answer(**options):
        return engine.odds("ataque_cuerpo_a_cuerpo", sheet, {}, None, **options)

    quiet = answer()
    spinning = hogs()
    try:
        loaded = answer(seconds=SHORT)
        short = answer(budget=quiet.work - 1)
    finally:
        for hog in spinning:
            hog.kill()
            hog.wait()
    assert quiet.exact and loaded.exact and not short.exact
    assert loaded.work == quiet.work
    assert loaded.probabilities == quiet.probabilities
