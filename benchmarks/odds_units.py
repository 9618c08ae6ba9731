"""What a unit of the odds budget costs: CPU per unit of counted work, generated expressions.

    python benchmarks/odds_units.py                    # 150 generated, --budget 2000
    python benchmarks/odds_units.py 300 --budget 20000 --seed 2
    python benchmarks/odds_units.py --only '{999d6+3d8}k4' --budget 100000

Whether an answer is exact is decided by counted work (issue 24), and the exact phase
meets a clock only as a safety stop at interpreter.odds.budget.SAFETY_SECONDS_PER_UNIT
per unit of its budget. So the promise is that no work costs more than that a unit: a
loop that counts its work too cheaply shows here as a high ratio. Each expression
(benchmarks/odds_timeout.py's generator, and the overruns issue 23 listed) is answered
in a child forked from this process (imports done), with the safety stop switched off
and a time limit of 10 ms (sampling's); the child's CPU (user + system, os.wait4) over
the budget is the cost of a unit, fixed costs included (small budgets overstate it).
The table lists the dearest; a child is killed past --kill seconds of CPU.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from odds_timeout import LISTED, expression

from interpreter.odds import budget, expression_odds


def cost(text: str, units: int, kill: int) -> tuple[float, bool]:
    """(CPU seconds the child took, whether it was killed)."""
    pid = os.fork()
    if pid == 0:  # the child: the answer, its output thrown away
        budget.SAFETY_SECONDS_PER_UNIT = 1e9
        resource.setrlimit(resource.RLIMIT_CPU, (kill, kill + 1))
        with contextlib.suppress(Exception), contextlib.redirect_stderr(io.StringIO()):
            expression_odds(text, budget=units, seconds=0.01)
        os._exit(0)
    _, status, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime, status != 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", nargs="?", type=int, default=150)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", help="one expression")
    parser.add_argument("--kill", type=int, default=60, help="CPU seconds before a kill")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    expression_odds("3d6 + 1d4kh1", seconds=1)  # (everything imported before forking)
    rng = random.Random(args.seed)
    texts = [args.only] if args.only else LISTED + [expression(rng) for _ in range(args.count)]
    rows = []
    for done, text in enumerate(texts, 1):
        seconds, killed = cost(text, args.budget, args.kill)
        rows.append((seconds, killed, text))
        print(f"\r{done}/{len(texts)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    rows.sort(reverse=True)
    limit = budget.SAFETY_SECONDS_PER_UNIT * 1e6
    print(f"budget {args.budget} units; the safety stop: {limit:.0f} µs a unit")
    print("   CPU s   µs/unit  expression")
    for seconds, killed, text in rows[: args.top]:
        mark = " KILLED" if killed else ""
        print(f"{seconds:8.3f} {seconds / args.budget * 1e6:9.1f}  {text}{mark}")
    middle = sorted(seconds for seconds, _, _ in rows)[len(rows) // 2]
    print(f"median {middle / args.budget * 1e6:.1f} µs a unit over {len(rows)} expressions")


if __name__ == "__main__":
    main()
