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

#: run in a fresh process: for each budget, the answer, its counted work, and the order
#: of every world made (each world's names, in their order)
ASK = """
import hashlib, json, sys
import dsl
from interpreter import Engine
from interpreter.odds import worlds

made = [hashlib.sha1()]
init = worlds.World.__init__

def recorded(self, env, *args, **kwargs):
    made[0].update(repr(list(env) if isinstance(env, dict) else env).encode())
    init(self, env, *args, **kwargs)

worlds.World.__init__ = recorded
engine = Engine(dsl.load_text(sys.argv[1], "seeds.rules"))
out = []
for budget in sys.argv[2:]:
    made[0] = hashlib.sha1()
    odds = engine.odds("act", engine.sheet({}), {}, None, budget=int(budget), trials=20)
    fields = getattr(odds, "fields", None) or {None: odds}  # (a joint too large: each field)
    out.append({
        "exact": odds.exact,
        "probabilities": {
            str(name): sorted((repr(k), str(v)) for k, v in one.probabilities.items())
            for name, one in fields.items()
        },
        "work": odds.work,
        "worlds": made[0].hexdigest(),
    })
print(json.dumps(out))
"""

#: the budgets asked for, and whether the answer is exact within each
BUDGETS = (
    (100_000, True),  # the whole result (296 units)
    (400, True),  # field by field, past the whole result's share of the budget (385)
    (60, False),  # sampled (seeded: the same estimates)
)


def asked(*seeds: int) -> list:
    """The answers under each hash seed, the processes run side by side."""
    command = [sys.executable, "-c", ASK, RULES, *(str(budget) for budget, _ in BUDGETS)]
    running = [
        subprocess.Popen(
            command,
            env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for seed in seeds
    ]
    out = []
    for process in running:
        stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        out.append(json.loads(stdout))
    return out


def test_the_answer_and_its_work_are_the_same_under_any_hash_seed():
    first, second = asked(0, 1)  # (seeds whose sets of these names differ in order)
    for (budget, exact), answer in zip(BUDGETS, first):
        assert answer["exact"] is exact and 0 < answer["work"] <= budget
    assert first == second
