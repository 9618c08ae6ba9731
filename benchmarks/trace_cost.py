"""What a run's trace costs against the run: recorded as the run goes, replayed when read,
and shown (every step written, as the server's JSON has it).

    python benchmarks/trace_cost.py                  # every shipped rulebook's actions
    python benchmarks/trace_cost.py --only brujeria --seeds 50
    python benchmarks/trace_cost.py --only brujeria --rounds 3   # each way's best of 3
    python benchmarks/trace_cost.py --worst 20       # and the 20 dearest cases, listed
    python benchmarks/trace_cost.py --warm 5         # the steady state: generated code made
    python benchmarks/trace_cost.py --warm 5 --confirm 5   # cases above 1.5x timed again

The cases are `benchmarks/run_cost.py`'s shipped and example ones (each action with each
character, each listed value of each parameter). For each, `--seeds` runs are timed four
ways, taking turns, in CPU time (`time.process_time`), after `--warm` untimed runs each
way (the default 1: a case's generated code, made after `codegen.AFTER` runs, and a traced
run's whole function, made the run after, are made while timed, and counted; 5: the
steady state):

- **run**: `Engine.run` (the trace neither recorded nor read);
- **recorded**: `Engine.run(..., trace=True)`, the trace recorded as the run goes (what
  `rulebook run` and the server ask for), its steps' texts not written yet;
- **replayed**: reading `Outcome.trace` of a run that did not record it (the Python API's
  default: the run again, with its own dice);
- **shown**: a recorded run, then every step as JSON (`Step.to_json`, in the rulebook's
  language): what the server's answer costs.

Printed: the totals over every case and the ratios to the run (recorded/run: what a
traced run costs against a plain one; replayed/run: what reading the trace afterwards
costs), the median, the 90th percentile and the dearest case of recorded/run. The target
(issue 25): the trace ≤ 1.5× the run.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import inspect
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# another tree's code (a checkout of an older commit: `git archive REV | tar -x -C DIR`),
# measured with this script: TRACE_COST_ROOT=DIR (its runs replayed only, if its
# Engine.run cannot record a trace)
if os.environ.get("TRACE_COST_ROOT"):
    os.environ["RUN_COST_ROOT"] = os.environ["TRACE_COST_ROOT"]  # (run_cost.py's cases too)
sys.path.insert(0, os.environ.get("TRACE_COST_ROOT") or str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
# The tree asked for, imported first, whatever the cases' modules put on the path after.
importlib.import_module("dsl")
importlib.import_module("interpreter")

import run_cost  # noqa: E402

import interpreter  # noqa: E402
from dsl.errors import RulebookError  # noqa: E402
from interpreter import SeededDice  # noqa: E402


def runs(engine, name, sheet, params, choices, seeds: int, trace: bool) -> list:
    asked = {"trace": True} if trace else {}
    out = []
    for seed in range(seeds):
        with contextlib.suppress(RulebookError):  # (a run that fails: not timed)
            out.append(engine.run(name, sheet, params, SeededDice(seed), choices=choices, **asked))
    return out


def timed(work) -> float:
    started = time.process_time()
    work()
    return time.process_time() - started


def case_times(
    engine, name, sheet, params, choices, seeds: int, records: bool, rounds=1, warm=1
) -> dict:
    for trace in (False, records):  # warm: what a first run compiles or reads is not counted
        [o.trace for o in runs(engine, name, sheet, params, choices, warm, trace)]
    language = engine.language

    def show():
        for o in runs(engine, name, sheet, params, choices, seeds, records):
            [step.to_json(language) for step in o.trace]

    best: dict = {}
    for _ in range(rounds):  # the ways in turns, each its best round (a busy machine's noise)
        plain = timed(lambda: runs(engine, name, sheet, params, choices, seeds, False))
        recorded = timed(lambda: runs(engine, name, sheet, params, choices, seeds, records))
        outs = runs(engine, name, sheet, params, choices, seeds, False)
        replayed = timed(lambda outs=outs: [o.trace for o in outs])
        shown = timed(show)
        if not records:  # (a tree whose runs cannot record: its trace replayed, then shown)
            recorded, shown = plain + replayed, shown + replayed
        times = {"run": plain, "recorded": recorded, "replayed": replayed, "shown": shown}
        best = {way: min(best.get(way, seconds), seconds) for way, seconds in times.items()}
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="a word every case has")
    parser.add_argument("--seeds", type=int, default=20, help="runs of each case, each way")
    parser.add_argument(
        "--rounds", type=int, default=1, help="rounds of each case, the ways in turns: the best"
    )
    parser.add_argument(
        "--warm", type=int, default=1, help="untimed runs of each case first, each way"
    )
    parser.add_argument(
        "--no-gc", action="store_true", help="the cyclic garbage collector off while timing"
    )
    parser.add_argument(
        "--worst", type=int, default=0, help="the N dearest cases' recorded/run, listed"
    )
    parser.add_argument(
        "--confirm",
        type=int,
        default=0,
        help="each case above 1.5x timed again, N rounds (each way's best): how many stay",
    )
    args = parser.parse_args(argv)
    run_cost.recipes = lambda: iter(())  # (the recipes' cases: run_cost.py's own)
    from interpreter import Engine

    records = "trace" in inspect.signature(Engine.run).parameters
    print(f"the code of {Path(interpreter.__file__).parent.parent}")
    if not records:
        print("(this tree's runs cannot record their trace: recorded is run + replayed)")
    totals = {"run": 0.0, "recorded": 0.0, "replayed": 0.0, "shown": 0.0}
    ratios = []
    dear: list = []  # the cases above 1.5x, for --confirm
    for label, engine, name, sheet, params, choices in run_cost.cases(args.only):
        try:
            engine.runnable(name).binder(sheet, params)
        except RulebookError:
            continue
        if args.no_gc:
            gc.disable()
        times = case_times(
            engine, name, sheet, params, choices, args.seeds, records, args.rounds, args.warm
        )
        gc.enable()
        for way, seconds in times.items():
            totals[way] += seconds
        ratios.append((times["recorded"] / max(times["run"], 1e-9), label, times["run"]))
        if args.confirm and ratios[-1][0] > 1.5:
            dear.append((label, engine, name, sheet, params, choices))
    if not ratios:
        print(f"no case has every word of --only {' '.join(args.only)}", file=sys.stderr)
        return 2
    ratios.sort()
    run = totals["run"]
    print(f"{len(ratios)} cases, {args.seeds} runs each way, {args.warm} untimed (CPU seconds)")
    print(f"run       {run:8.3f} s")
    for way in ("recorded", "replayed", "shown"):
        print(f"{way:9} {totals[way]:8.3f} s   {totals[way] / run:5.2f}x the run")
    median, dearest = ratios[len(ratios) // 2][0], ratios[-1]
    p90 = ratios[len(ratios) * 9 // 10][0]
    print(
        f"recorded/run per case: median {median:.2f}x, p90 {p90:.2f}x, "
        f"dearest {dearest[0]:.2f}x ({dearest[1]})"
    )
    if args.worst:
        over = sum(ratio > 1.5 for ratio, _, _ in ratios)
        print(f"{over} cases above 1.5x; the {min(args.worst, len(ratios))} dearest (a run's µs):")
        for ratio, label, plain in reversed(ratios[-args.worst :]):
            print(f"  {ratio:6.2f}x {plain / args.seeds * 1e6:8.1f} µs  {label}")
    if args.confirm:
        confirm(dear, args)
    return 0


def confirm(dear: list, args) -> None:
    """The cases above 1.5x timed again, `--confirm` rounds each, the ways in turns and
    each way's best taken: on a shared machine one round's noise alone puts hundreds of
    cases above 1.5x; those that stay are the ones to look at."""
    stay = []
    for label, engine, name, sheet, params, choices in dear:
        if args.no_gc:
            gc.disable()
        times = case_times(engine, name, sheet, params, choices, args.seeds, True, args.confirm)
        gc.enable()
        ratio = times["recorded"] / max(times["run"], 1e-9)
        if ratio > 1.5:
            stay.append((ratio, label, times["run"]))
    print(f"{len(dear)} cases above 1.5x; timed again, best of {args.confirm}: {len(stay)} stay")
    for ratio, label, plain in sorted(stay, reverse=True)[: args.worst or 20]:
        print(f"  {ratio:6.2f}x {plain / args.seeds * 1e6:8.1f} µs  {label}")


if __name__ == "__main__":
    sys.exit(main())
