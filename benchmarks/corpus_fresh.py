"""The expression corpus in fresh processes: first evaluations, rulebook against icepool, dyce.

    /tmp/venv/bin/python benchmarks/corpus_fresh.py               # 3 processes per side
    /tmp/venv/bin/python benchmarks/corpus_fresh.py --processes 5 --only d6

What a person or an app meets first is one expression, once, in a process that has just
started: no cache of that expression anywhere. For every expression of
benchmarks/corpus.py and each library (rulebook's `expression_odds(text)`: parse,
check, compile and count; icepool 2.1.3 and dyce: the corpus's builder of the same
distribution), a new Python process imports the library, evaluates a warm-up roll that
is not in the corpus (so that imports and one-time set-up are paid before timing; for
rulebook two, `d4+1` and `d4x`, since plain and small texts are counted without the
front end, which the others import when first used), then
times the first evaluation of the expression. The sides take turns, process after
process; each time is the median over the processes. The summary gives the geometric
means of the ratios over the expressions both sides can build (below 1: rulebook is
faster), and the worst ratio to the faster peer. Times are CPU times of the worker
(`time.process_time`), so that a busy machine does not count against a side. Targets
(issues 12 and 24): every expression at most 2x the faster of icepool
and dyce; geometric means at most 1x dyce and at most 0.5x icepool.

Each peer is given its best formulation of what the expression means (the term's total):
a sum `n @ die`, a pool's `highest`/`lowest` for keeps, `explode`/`reroll` with the depth
that leaves out less than 1e-12, and for success counting with failures subtracted
(`cs>=6df=1`) one die's successes less its failures as a number, summed: the joint
(successes, failures) Vectors it was given before (issue 24) cost icepool (n+1)(n+2)/2
outcomes for what is one number. Checked again (issue 24) against each library's own
documentation: dyce's keeps are `(n @ P(d)).at(...)`, its documented way to take sorted
positions; icepool's are `pool(n).highest(k)` / `.lowest(...)` and its success counts a
die's `map` summed with `@`; the small expressions use each library's own `//`, `abs`,
`highest`/`lowest` over dice, a die plus a number, a die compared with a number
(icepool's `>=`, dyce's `.ge`); `(2+1)d(3*2)` is given to both as `3 @ d6`, its value.

With `--split`, every expression above 2x the faster peer is timed again, phase by
phase, in fresh processes (`SPLIT`: the first call's phases in the order the first call
runs them): for plain dice and small expressions, read from the text (`read`) and counted
(`count`); for any other text parse, check, compile, explore (the count over worlds) and
answer (the Odds made).

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import CORPUS, SMALL, peers  # noqa: E402

#: every expression timed: the corpus's dice terms, then small expressions of a few terms
EXPRESSIONS = CORPUS + SMALL

TARGETS = {"dyce": 1.0, "icepool": 0.5}

# One process: the side, the corpus index; prints the first evaluation's time in seconds.
WORKER = r"""
import gc, sys, time, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
side, index = sys.argv[1], int(sys.argv[2])
from benchmarks.corpus import CORPUS, SMALL
text, build_icepool, build_dyce = (CORPUS + SMALL)[index]
import icepool, dyce
if side == "rulebook":
    from interpreter.odds import expression_odds
    expression_odds("d4+1")  # (read and counted straight from its text: odds.small)
    expression_odds("d4x")  # (the parser, checker and compiler: imported only when used)
    run = lambda: expression_odds(text)
elif side == "icepool":
    icepool.d4 + 1
    run = lambda: build_icepool(icepool, dyce)
else:
    dyce.H(4) + 1
    run = lambda: build_dyce(icepool, dyce)
gc.collect()
start = time.process_time()
run()
print(time.process_time() - start)
"""


# One process: rulebook's first call of the expression, phase by phase (as
# interpreter.odds.compute.expression_odds runs them); prints "phase seconds" lines.
SPLIT = r"""
import gc, sys, time, warnings
sys.path.insert(0, {root!r})
warnings.simplefilter("ignore")
from benchmarks.corpus import CORPUS, SMALL
text = (CORPUS + SMALL)[int(sys.argv[1])][0]
import icepool, dyce
from interpreter.odds import expression_odds
expression_odds("d4+1")
expression_odds("d4x")
from fractions import Fraction
from interpreter.limits import DEFAULT_LIMITS as limits
from interpreter.odds import compute, plain, small
from interpreter.odds.answer import Odds
from interpreter.odds.budget import Deadline
gc.collect()
clock, times = time.process_time, []
def timed(phase, run):
    start = clock()
    value = run()
    times.append((phase, clock() - start))
    return value
stop = Deadline.answering(limits.odds_seconds).exact_stop(compute.BUDGET)
epsilon, budget = compute.EPSILON, compute.BUDGET
dist = timed("lone", lambda: plain.lone_die(text, limits))
if dist is None:
    match = timed("read", lambda: plain.PLAIN.fullmatch(text))
    if match is not None:
        dist = timed("count", lambda: plain.term_distribution(
            match, text, epsilon, limits, stop, budget))
    else:
        node = timed("read", lambda: small.read(text, plain.term_node, plain.term_end))
        dist = None
        if node is not None:
            term = lambda t: plain.term_distribution(
                plain.PLAIN.fullmatch(t), t, epsilon, limits, stop, budget)
            counting = small._Counting(text, term, limits, budget)
            dist = timed("count", lambda: counting.value(node))
    if dist is None:
        from dsl.build import parse_expression
        from dsl.check import Checker, Scope, check_definitions
        from interpreter.compile import Compiler
        from interpreter.compile.costs import charged
        node = timed("parse", lambda: parse_expression(text))
        def check():
            empty = check_definitions(None, [], "<expression>")
            checker = Checker([])
            checker.expr(node, Scope())
            return empty, checker
        empty, checker = timed("check", check)
        def compiled():
            compiler = Compiler(empty)
            compiler.bindings, compiler.types = checker.bindings, checker.types
            return charged(compiler.expr(node), compiler.cost(node), node.span)
        value = timed("compile", compiled)
        def explore():
            found = compute.at_once(value, epsilon, budget, limits, stop)
            if found is None:
                found = compute.by_worlds(value, epsilon, budget, limits, stop)
            return found
        dist = timed("explore", explore)
timed("answer", lambda: Odds({{"expression": text}}, None, dist, True, dist.omitted))
for phase, seconds in times:
    print(phase, seconds)
"""


def split_times(index: int) -> dict:
    """{phase: seconds} of rulebook's first call of the expression in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", SPLIT.format(root=str(ROOT)), str(index)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = (line.split() for line in done.stdout.strip().splitlines())
    return {phase: float(seconds) for phase, seconds in lines}


def first_time(side: str, index: int) -> float:
    done = subprocess.run(
        [sys.executable, "-c", WORKER.format(root=str(ROOT)), side, str(index)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def split_line(index: int, processes: int) -> str:
    """The phases of rulebook's first call, each the median over `processes` processes."""
    runs = [split_times(index) for _ in range(processes)]
    return (
        "  ".join(
            f"{phase} {statistics.median(run.get(phase, 0.0) for run in runs) * 1e3:.3f}"
            for phase in runs[0]
        )
        + " ms"
    )


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=3, help="processes per side")
    parser.add_argument("--only", default=None, help="expressions containing this text")
    parser.add_argument(
        "--split", action="store_true", help="phase by phase, each expression above 2x"
    )
    args = parser.parse_args(argv)
    found = peers()
    if found is None:
        return 1
    icepool, dyce = found

    print(f"first evaluation in a fresh process, ms (median of {args.processes} processes)")
    print(f"{'expression':20s} {'rulebook':>9s} {'icepool':>9s} {'dyce':>9s} {'/faster':>8s}")
    ratios: dict = {"icepool": [], "dyce": []}
    worst = (0.0, "")  # the largest ratio to the faster of the peers
    for index, (text, _build_icepool, build_dyce) in enumerate(EXPRESSIONS):
        if args.only and args.only not in text:
            continue
        sides = ["rulebook", "icepool"]
        if build_dyce(icepool, dyce) is not None:
            sides.append("dyce")
        times: dict = {side: [] for side in sides}
        for _ in range(args.processes):
            for side in sides:
                times[side].append(first_time(side, index))
        median = {side: statistics.median(values) for side, values in times.items()}
        for other in ("icepool", "dyce"):
            if other in median:
                ratios[other].append(median["rulebook"] / median[other])
        faster = min(median[s] for s in sides if s != "rulebook")
        worst = max(worst, (median["rulebook"] / faster, text))
        shown = [f"{median[s] * 1e3:9.2f}" if s in median else f"{'-':>9s}" for s in
                 ("rulebook", "icepool", "dyce")]  # fmt: skip
        shown.append(f"{median['rulebook'] / faster:8.2f}")  # to the faster peer
        print(f"{text:20s} " + " ".join(shown), flush=True)
        if args.split and median["rulebook"] / faster > 2:
            print("    " + split_line(index, args.processes), flush=True)
    print(f"\nworst ratio to the faster peer: {worst[0]:.2f} ({worst[1]}; target <= 2)")
    print("geometric mean of time ratios (below 1: rulebook faster)")
    for other, values in ratios.items():
        mean = geomean(values)
        if mean is not None:
            print(
                f"  rulebook/{other:8s} {mean:6.3f} over {len(values)} expressions "
                f"(target <= {TARGETS[other]})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
