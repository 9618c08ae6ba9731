"""Time exact odds of pool questions: rulebook against icepool 2.1.3, side by side, at every size.

    /tmp/venv/bin/python benchmarks/pools.py [--repeat 5] [--only blades] [--max 20]

The questions of the example games (examples/*.rules), each at every pool size:

- blades N: the highest die and the number of 6s of Nd6 (N = 1..20);
- ore N: the largest set of Nd10 (its width and height; N = 2..10);
- shadowrun N: hits (5-6) and 1s of Nd6, for the glitch (N = 1..20);
- year zero N: N base dice, pushed: successes and attribute damage (N = 1..12).

Three times per case: `count`, the joint answers counted over multisets alone
(interpreter.odds.pools.pool_answers; year zero has none); `odds`, the example's action
end to end through `Engine.odds`; and icepool's, with a multiset_function over a Pool.
Year zero gives icepool its two best formulations, each timed as a side of its own and
the faster kept per size (`icepool`): a multiset_function over a pool of the pushed die
(each die alone a 6, a 1 or neither, rolled again), and the same die with its two counts
packed into one number, summed with `n @`. (A die of Vectors summed with `n @`, the
formulation before, was 1.5-4.5x slower than either from 4 dice up: 12.3 ms at 12 dice,
against 2.9 and 2.2.)
Each is the first evaluation in a fresh process (icepool keeps every evaluation in caches
its clear_cache does not empty, and a second call would time a lookup), after a warm-up
on the smallest pool of the same game (imports, parsers, the rulebook loaded; the next
size when the smallest is the one timed, so that neither side times its own warm-up); the time
is taken inside that process, in CPU time (time.process_time: on a loaded machine the
wall clock counts the waits for a core, and every system call may be one). The three
take turns, round after round; the best of --repeat rounds is kept. Below 1, rulebook
is faster.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import gc
import math
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dsl
from interpreter import Engine
from interpreter.dice import Die
from interpreter.odds.pools import pool_answers
from interpreter.pool import Count, Highest, LargestSet, face_test
from interpreter.values import Range

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
INSTALL = "/tmp/venv/bin/pip install icepool==2.1.3"


def _icepool():
    try:
        import icepool
    except ImportError:
        print(f"icepool is needed for the comparison: {INSTALL}\n")
        return None
    if icepool.__version__ != "2.1.3":
        print(f"note: icepool {icepool.__version__} (written for 2.1.3)\n")
    return icepool


def _cases(i, largest: int):
    """(name, size, rulebook count, rulebook odds, icepool, [icepool again]) for every
    case and size: where icepool has two formulations, the faster is kept."""
    d6, d10 = Die.of(6), Die.of(10)
    books = {name: dsl.load(EXAMPLES / f"{name}.rules") for name in ("blades", "one_roll")}
    books.update({name: dsl.load(EXAMPLES / f"{name}.rules") for name in ("shadowrun",)})
    books["year_zero"] = dsl.load(EXAMPLES / "year_zero.rules")

    def odds(book, action, **params):
        def run():
            engine = Engine(books[book])
            return engine.odds(action, engine.sheet({}), params)

        return run

    blades = ore = shadowrun = None
    if i is not None:

        @i.multiset_function
        def blades(pool):
            return pool.highest(1).sum(), pool.keep_outcomes([6]).size()

        @i.multiset_function
        def shadowrun(pool):
            return pool.keep_outcomes([5, 6]).size(), pool.keep_outcomes([1]).size()

        def ore(n):
            return i.d10.pool(n).largest_count_and_outcome()

    def icepool_run(make):
        if i is None:
            return None

        def run():
            i.Pool.clear_cache()
            return make()

        return run

    questions = (Highest(), Count(face_test(6)))
    for n in range(1, min(largest, 20) + 1):
        yield (
            "blades",
            n,
            lambda n=n: pool_answers(d6, n, (), questions),
            odds("blades", "act", dots=n),
            icepool_run(lambda n=n: blades(i.d6.pool(n))),
        )
    for n in range(2, min(largest, 10) + 1):
        yield (
            "ore",
            n,
            lambda n=n: pool_answers(d10, n, (), (LargestSet(),)),
            odds("one_roll", "act", dice=n),
            icepool_run(lambda n=n: ore(n)),
        )
    hits = (Count(face_test(Range(5, 6))), Count(face_test(1)))
    for n in range(1, min(largest, 20) + 1):
        yield (
            "shadowrun",
            n,
            lambda n=n: pool_answers(d6, n, (), hits),
            odds("shadowrun", "act", pool=n, threshold=max(1, n // 3)),
            icepool_run(lambda n=n: shadowrun(i.d6.pool(n))),
        )
    for n in range(1, min(largest, 12) + 1):
        yield (
            "year zero",
            n,
            None,
            odds("year_zero", "roll_dice", base=n, push=True),
            icepool_run(lambda n=n: year_zero_counted(i, n)),
            icepool_run(lambda n=n: year_zero_packed(i, n)),
        )


def _pushed_die(i, six, one):
    """icepool: one base die pushed, as `six` (a 6), `one` (a 1) or 0 (neither: the die
    is rolled again, once)."""
    die = i.d6.map(lambda f: six if f == 6 else one if f == 1 else 0)
    return die.map(lambda v: v if v else die)


def year_zero_counted(i, n: int):
    """icepool: n base dice pushed, (successes, attribute damage), counted over the pool
    by one multiset evaluation."""

    @i.multiset_function
    def counts(pool):
        return pool.keep_outcomes([1]).size(), pool.keep_outcomes([2]).size()

    return counts(_pushed_die(i, 1, 2).pool(n))


def year_zero_packed(i, n: int):
    """icepool: the same, each die's two counts packed into one number (a 1 counts
    1000), the n dice summed, the number unpacked."""
    return (n @ _pushed_die(i, 1, 1000)).map(lambda v: (v % 1000, v // 1000))


def _time(function) -> float:
    gc.collect()
    start = time.process_time()
    function()
    return time.process_time() - start


def child(name: str, n: int, side: str) -> None:
    """In a fresh process: warm up on the game's smallest pool, then time one run."""
    i = _icepool() if side.startswith("icepool") else None
    cases = [c for c in _cases(i, 20) if c[0] == name]
    index = {"count": 2, "odds": 3, "icepool": 4, "icepool 2": 5}[side]
    # imports, parsers, the rulebook: not what is timed; on another size than the one
    # timed, so that no side answers it from what the warm-up left in its caches
    warm = cases[1] if cases[0][1] == n and len(cases) > 1 else cases[0]
    warm[index]()
    run = next(c for c in cases if c[1] == n)[index]
    print(_time(run))


def in_a_fresh_process(name: str, n: int, side: str) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--child", name, str(n), side],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default=None, help="cases whose name contains this")
    parser.add_argument("--max", type=int, default=20, help="the largest pool size")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    i = _icepool()
    print("CPU times in ms; best of", args.repeat, "rounds; ratio = rulebook odds / icepool\n")
    print(f"{'case':14s} {'count':>8s} {'odds':>9s} {'icepool':>9s} {'ratio':>7s}")
    ratios: dict = {}
    worst: dict = {}
    for name, n, count, odds, *theirs in _cases(i, args.max):
        if args.only and args.only not in name:
            continue
        runs = (("count", count), ("odds", odds), ("icepool", theirs[0]))
        runs += (("icepool 2", theirs[1]),) if len(theirs) > 1 else ()
        sides = [side for side, run in runs if run is not None]
        best: dict = {}
        for _ in range(args.repeat):
            for side in sides:
                elapsed = in_a_fresh_process(name, n, side)
                best[side] = min(best.get(side, elapsed), elapsed)
        if "icepool 2" in best:  # (icepool's faster formulation)
            best["icepool"] = min(best["icepool"], best.pop("icepool 2"))
        ratio = best["odds"] / best["icepool"] if "icepool" in best else None
        if ratio is not None:
            ratios.setdefault(name, []).append(ratio)
        worst[name] = max(worst.get(name, 0), best["odds"])

        def ms(key, best=best):
            return f"{best[key] * 1e3:9.2f}" if key in best else f"{'-':>9s}"

        shown = f"{ratio:7.2f}" if ratio is not None else f"{'-':>7s}"
        print(f"{name + ' ' + str(n):14s} {ms('count')[1:]} {ms('odds')} {ms('icepool')} {shown}")
    print("\nper game: geometric mean of the ratios; the slowest rulebook odds of any size")
    for name, values in ratios.items():
        mean = math.exp(sum(math.log(r) for r in values) / len(values))
        print(
            f"  {name:12s} {mean:6.3f} over {len(values)} sizes; slowest {worst[name] * 1e3:.1f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
