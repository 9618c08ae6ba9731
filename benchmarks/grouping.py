"""Time most_sets' exact odds: the most sets of Nd10 adding up to 10 (7th Sea's Raises), and
to [10, 15] (rank 4: a set of 15 counts twice), for N = 1..10.

    python benchmarks/grouping.py [--max 10] [--repeat 3]

Two times per case: `count`, the answers counted over multisets alone
(interpreter.odds.pools.pool_answers, the search's memory new each time), and `odds`, a
check rolling the pool end to end through Engine.odds (a new Engine each time, so that
nothing is kept from the round before, and an odds time limit of a minute, so that a
loaded machine does not fall back to sampling). Times are this process's CPU seconds (a
machine shared with other work inflates the wall clock, not them); the best of --repeat
rounds is kept, and each answer is checked to be exact, to add up to 1, and to be the
same both ways.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dsl
from interpreter import Engine, Limits
from interpreter.dice import Die
from interpreter.odds.pools import pool_answers
from interpreter.pool import MostSets

BOOK = """
rulebook "Raises" { language "en" }
check risk(n: int, rank: int) "Risk" {
  let r = (n)d10
  roll most_sets(r, if rank >= 4 then [10, 15] else 10)
}
"""


def best_of(repeat: int, work) -> tuple:
    best, answer = None, None
    for _ in range(repeat):
        start = time.process_time()
        answer = work()
        took = time.process_time() - start
        best = took if best is None else min(best, took)
    return best, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    book = dsl.load_text(BOOK, "raises.rules")
    print(f"{'sets':>8} {'dice':>4} {'count s':>8} {'odds s':>8}  mean Raises")
    for thresholds, rank in (((10,), 0), ((10, 15), 4)):
        for n in range(1, args.max + 1):
            question = (MostSets(thresholds),)
            counted, dist = best_of(
                args.repeat, lambda n=n, q=question: pool_answers(Die.of(10), n, (), q)
            )

            def odds(n=n, rank=rank):
                engine = Engine(book, Limits(odds_seconds=60))
                params = {"n": n, "rank": rank}
                return engine.odds("risk", engine.empty_sheet("risk"), params, field="total")

            took, found = best_of(args.repeat, odds)
            assert found.exact and sum(found.probabilities.values()) == 1
            assert {k: Fraction(w, dist.total) for (k,), w in dist.weights.items()} == dict(
                found.probabilities
            )
            sizes = "/".join(map(str, thresholds))
            print(f"{sizes:>8} {n:>4} {counted:>8.3f} {took:>8.3f}  {float(found.mean):.4f}")


if __name__ == "__main__":
    main()
