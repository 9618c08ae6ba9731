"""Whole encounters: the exact chain's time, and sampled trials per second on 1, 2, N workers.

    python benchmarks/encounters.py                    # the shipped examples, 2000 trials
    python benchmarks/encounters.py --trials 4000 --workers 1 2 4

For each example encounter (docs/encounters.md): how it is answered (exact, or sampled
and why) and the CPU time of the exact chain where it counts (`time.process_time` of this
process: the odds of each turn and the chain); then the same encounter sampled with each
number of workers, its wall-clock time (the workers' CPU is not this process's), trials
per second, and whether every count of workers gave the same tally (they must: each trial
has its own seed). The rulebook's parse and the sheets' load are not counted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's packages, whatever is installed

import dsl  # noqa: E402
from interpreter.balance.encounters.answering import encounter_odds  # noqa: E402
from interpreter.balance.encounters.description import rulebook_reference  # noqa: E402
from interpreter.engine import Engine  # noqa: E402
from interpreter.sheets.character import parse_text, read_file  # noqa: E402

EXAMPLES = (
    "examples/games/encounters/duel.yaml",
    "examples/games/encounters/ogre.yaml",
    "examples/games/encounters/veterans_ogre.yaml",
    "examples/encounters/brujeria_pelea.yaml",
    "examples/encounters/mana_duel.yaml",  # both sheets carried, initiative rolled
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    for name in EXAMPLES:
        path = ROOT / name
        text, text_format = read_file(path)
        data = parse_text(text, text_format, str(path))
        engine = Engine.of(dsl.load(rulebook_reference(data, path.parent)))
        started = time.process_time()
        answer = encounter_odds(engine, data, folder=path.parent, trials=args.trials, workers=1)
        spent = time.process_time() - started
        how = "exact" if answer.exact else f"sampled ({answer.reason})"
        print(f"{name}: {how}; {spent:.2f} s CPU")
        tallies = []
        for workers in args.workers:
            started = time.perf_counter()
            sampled = encounter_odds(
                engine, data, folder=path.parent, method="sampled", trials=args.trials,
                workers=workers,
            )  # fmt: skip
            wall = time.perf_counter() - started
            tallies.append(sampled.tally)
            print(f"  {workers} worker(s): {wall:.2f} s wall, {args.trials / wall:,.0f} trials/s")
        print(f"  same tally on every count of workers: {all(t == tallies[0] for t in tallies)}")


if __name__ == "__main__":
    main()
