"""The odds engine's answer does not depend on the process's hash seed (issue 24).

Python orders a set of strings by their hashes, and a process's hashes by its seed
(PYTHONHASHSEED, random unless set): what the explorer does in turn over names taken
from a set (the names a merge keys its worlds by, the worlds a `let` makes) would
follow the seed, and with it the exploration's order, and whatever depends on that
order: where a `let` run once for worlds alike gives up, which world a budget stops at.
The same question is asked here in processes of two seeds: the same answer form, the
same probabilities, the same counted work (`Odds.work`), and the worlds made in the same
order, each holding its names in the same order (interpreter.odds.keys.ordered).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: five names read after the worlds branch, so that a set of them comes out in another
#: order under almost any other seed
RULES = """rulebook "Seeds" { language "en" }
action act() {
  let alfa = d6
  let bravo = d4
  let charlie = d4
  let delta = if alfa > bravo then charlie else alfa + bravo
  let echo = if delta > 3 then d4 else d6
  result { t: alfa + bravo * charlie + delta * echo, u: alfa * echo - bravo + charlie }
}
"""

#: run in a fresh process: the answer, its counted work, and the order of every world
#: made (each world's names, in their order)
ASK = """
import hashlib, json, sys
import dsl
from interpreter import Engine
from interpreter.odds import worlds

made = hashlib.sha1()
init = worlds.World.__init__

def recorded(self, env, *args, **kwargs):
    made.update(repr(list(env) if isinstance(env, dict) else env).encode())
    init(self, env, *args, **kwargs)

worlds.World.__init__ = recorded
engine = Engine(dsl.load_text(sys.argv[1], "seeds.rules"))
odds = engine.odds("act", engine.sheet({}), {}, None, budget=int(sys.argv[2]), trials=20)
print(json.dumps({
    "exact": odds.exact,
    "probabilities": sorted((repr(k), str(v)) for k, v in odds.probabilities.items())
    if odds.exact else None,
    "work": odds.work,
    "worlds": made.hexdigest(),
}))
"""


def asked(seed: int, budget: int) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", ASK, RULES, str(budget)],
        env=env, capture_output=True, text=True, timeout=120, check=True, cwd=ROOT,
    )  # fmt: skip
    return json.loads(done.stdout)


def test_the_answer_and_its_work_are_the_same_under_any_hash_seed():
    first, second = asked(0, 100_000), asked(1, 100_000)
    assert first["exact"] and first["work"] > 0
    assert first == second
