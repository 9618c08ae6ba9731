"""Time exact dice distributions: rulebook against icepool 2.1.3 and dyce, in one run.

    /tmp/venv/bin/python benchmarks/odds.py [--repeat 5] [--only 4d6] [--skip-dyce]

Every expression of benchmarks/corpus.py goes through the three libraries in turn
(rulebook, icepool, dyce, then again), so machine noise falls on all of them alike.
Two times per library and expression:

- first: the first evaluation of that expression in this process, after one warm-up
  roll per library (each library's caches hold only what earlier expressions left
  there; rulebook's time includes parsing and compiling the text);
- again: the best of --repeat further evaluations (icepool and dyce keep caches of
  dice and of evaluations between calls; rulebook keeps only its parsed and compiled
  expressions, and computes every distribution again).

The rulebook side is `interpreter.odds.expression_odds(text)` (parse, compile, the
term's distribution, exact probabilities); the `term` column is the term's distribution
alone (`interpreter.odds.pool_distribution`, best of the repeats). The summary
gives geometric means of the per-expression ratios (below 1: rulebook is faster) over the
expressions both sides can build (dyce: not pools that explosions grow, nor explosions on
more than one face, which its expand() follows path by path: k faces cost k^depth).
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpus import CORPUS, compile_term
from interpreter.odds import pools

INSTALL = "/tmp/venv/bin/pip install icepool==2.1.3 dyce"
EPSILON = Fraction(1, 10**12)


def _libraries(skip_dyce: bool):
    try:
        import icepool
    except ImportError:
        icepool = None
    try:
        import dyce
    except ImportError:
        dyce = None
    if icepool is None or (dyce is None and not skip_dyce):
        print(f"icepool and dyce are needed for the comparison: {INSTALL}\n")
    if icepool is not None and icepool.__version__ != "2.1.3":
        print(f"note: icepool {icepool.__version__} (the corpus is written for 2.1.3)\n")
    return icepool, (None if skip_dyce else dyce)


def _rulebook():
    """expression_odds when the odds module has it; otherwise the term alone."""
    try:
        from interpreter.odds import expression_odds
    except ImportError:
        expression_odds = None
    if expression_odds is not None:
        return "expression_odds", lambda text: expression_odds(text, epsilon=EPSILON)

    def adapter(text):
        die, count, steps = compile_term(text)
        return pools.pool_distribution(die, count, steps, EPSILON)

    return "pool_distribution (interpreter.odds.expression_odds not found)", adapter


def _term(text):
    die, count, steps = compile_term(text)
    return lambda: pools.pool_distribution(die, count, steps, EPSILON)


def _time(function) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _geomean(ratios):
    ratios = [r for r in ratios if r is not None and r > 0]
    if not ratios:
        return None, 0
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios)), len(ratios)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="further evaluations (best kept)")
    parser.add_argument("--only", default=None, help="expressions containing this text")
    parser.add_argument("--skip-dyce", action="store_true")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")

    icepool, dyce = _libraries(args.skip_dyce)
    label, ours = _rulebook()
    print(f"rulebook side: {label}; epsilon {float(EPSILON):g}")
    print(
        "times in ms; 'first' = first evaluation in this process, "
        f"'again' = best of {args.repeat} more\n"
    )
    header = (
        f"{'expression':18s} {'term':>8s} | {'rulebook':>9s} {'icepool':>9s} {'dyce':>9s}"
        f" | {'rulebook':>9s} {'icepool':>9s} {'dyce':>9s}"
    )
    print(f"{'':18s} {'':>8s} | {'first':^29s} | {'again':^29s}")
    print(header)
    print("-" * len(header))
    ratios = {
        ("icepool", "first"): [],
        ("icepool", "again"): [],
        ("dyce", "first"): [],
        ("dyce", "again"): [],
        ("term/icepool", "again"): [],
    }
    # warm up each library once (imports, parser tables) on a roll not in the corpus
    ours("d4+1")
    if icepool is not None:
        icepool.d4 + 1
    if dyce is not None:
        dyce.H(4) + 1
    for text, build_icepool, build_dyce in CORPUS:
        if args.only and args.only not in text:
            continue
        runs = {"rulebook": lambda text=text: ours(text)}
        if icepool is not None:
            runs["icepool"] = lambda b=build_icepool: b(icepool, dyce)
        if dyce is not None and build_dyce(icepool, dyce) is not None:
            runs["dyce"] = lambda b=build_dyce: b(icepool, dyce)
        first = {}
        best = {}
        for name, run in runs.items():  # the first call of each (rulebook: parse included)
            gc.collect()
            first[name] = _time(run)
        runs["term"] = _term(text)
        for _ in range(args.repeat):
            for name, run in runs.items():
                gc.collect()
                elapsed = _time(run)
                best[name] = min(best.get(name, elapsed), elapsed)

        def show(table, name):
            return f"{table[name] * 1e3:9.2f}" if name in table else f"{'-':>9s}"

        print(
            f"{text:18s} {show(best, 'term')[1:]} | {show(first, 'rulebook')} "
            f"{show(first, 'icepool')} {show(first, 'dyce')} | {show(best, 'rulebook')} "
            f"{show(best, 'icepool')} {show(best, 'dyce')}"
        )
        for when, table in (("first", first), ("again", best)):
            for other in ("icepool", "dyce"):
                if other in table:
                    ratios[(other, when)].append(table["rulebook"] / table[other])
            if "icepool" in table and "term" in table:
                ratios[("term/icepool", when)].append(table["term"] / table["icepool"])

    print("\ngeometric mean of time ratios (below 1: rulebook faster)")
    for (other, when), values in ratios.items():
        mean, n = _geomean(values)
        if mean is None:
            continue
        what = other if "/" in other else f"rulebook/{other}"
        print(f"  {what:22s} {when:6s} {mean:7.3f}   over {n} expressions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
