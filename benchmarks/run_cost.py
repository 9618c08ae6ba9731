"""What a run costs: every shipped action (each parameter variant), the example games' and
the recipes', run with seeds; the most steps one takes (`Outcome.steps`) and its CPU time.

    python benchmarks/run_cost.py                    # the cases, the most steps, µs per run
    python benchmarks/run_cost.py --against /tmp/old # the same runs with the code in another
                                                     # tree, taking turns: the ratio of times
    python benchmarks/run_cost.py --only brujeria --seeds 50
    python benchmarks/run_cost.py --against /tmp/old --warm 5   # the steady state: 5
                                                     # untimed runs of each case first

The cases are those of `benchmarks/all_actions.py` (the shipped rulebooks with each of
their characters, the example games with theirs and an empty sheet), each once more with
each value of each parameter that has a list of values (an enumeration, a group, a table's
keys, yes/no; the others as the case gives them), and every action and check of the
recipes of `docs/recipes.md` with an empty sheet. A case is run with `--seeds` seeds; its
line shows the most steps a run took (errors included: a `require` that fails has counted
the steps up to it) and the mean CPU time of a run (`time.process_time`, so that a busy
machine taking the CPU away does not count). The summary: the most steps of any run, which
the default `Limits.steps_per_run` must leave ample room above.

With `--against DIR`, the times of the same runs are measured in a subprocess with `DIR`
first on the path (a checkout of another commit: `git archive HEAD | tar -x -C DIR`),
both sides taking turns `--rounds` times; the ratio of the best rounds' totals says what
the change costs. Steps are not compared (the other tree may not count them).

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if os.environ.get("RUN_COST_ROOT"):  # the other tree, when measured --against it
    sys.path.insert(0, os.environ["RUN_COST_ROOT"])
else:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import all_actions  # noqa: E402

import dsl  # noqa: E402
from dsl import nodes as n  # noqa: E402
from dsl.errors import RulebookError  # noqa: E402
from interpreter import Engine, SeededDice  # noqa: E402


def variants(book, name: str, params: dict):
    """The parameters as given, then each listed value of each parameter in turn."""
    yield "", params
    for param in book.definition(name).params:
        kind = param.type
        if isinstance(kind, n.EnumType):
            values = list(kind.choices)
        elif getattr(kind, "name", None) == "bool":
            values = [True, False]
        else:
            values = book.choices_of(getattr(kind, "name", "")) or []
        for value in values[:12]:
            if params.get(param.name) != value:
                yield f" {param.name}={value}", {**params, param.name: value}


def recipes():
    """(label, engine, name) of every action and check of docs/recipes.md."""
    page = (ROOT / "docs" / "recipes.md").read_text(encoding="utf-8")
    for part in page.split("\n## ")[1:]:
        title = part.partition("\n")[0].strip()
        # (fences read in order, each block from its opening fence to its closing one)
        for language, block in re.findall(r"^```(\w*)\n(.*?)^```$", part, flags=re.S | re.M):
            if language not in ("", "rulebook") or block.startswith("$ "):
                continue
            try:
                book = dsl.load_text(block, "recipe.rules")
            except RulebookError:  # a block of the page that is not a whole rulebook
                continue
            engine = Engine(book)
            for name in [*book.actions, *book.checks]:
                yield f"recipe {title}: {name}", engine, name


def cases(only: list[str]):
    """(label, engine, name, sheet, params, choices) of every case."""
    sheets: dict = {}

    def sheet_of(engine, path):
        if (id(engine), path) not in sheets:
            sheets[id(engine), path] = engine.load_sheet(path)
        return sheets[id(engine), path]

    for name, engine, action, character, params in all_actions.cases(only):
        sheet = sheet_of(engine, character)
        params = all_actions.fitted(engine, action, sheet, params)
        for said, given in variants(engine.rulebook, action, params):
            yield f"{name} {action} ({character.stem}){said}", engine, action, sheet, given, None
    for label, engine, name, character, params, others, ask in all_actions.example_cases(only):
        if "best" in label.split():
            continue
        if character is not None:
            sheet = sheet_of(engine, character)
        else:
            sheet = all_actions.empty(engine, name)
            if sheet is None:
                continue
        params = all_actions.with_characters(
            engine, name, params, others, lambda path, e=engine: sheet_of(e, path)
        )
        params = all_actions.fitted(engine, name, sheet, params)
        for said, given in variants(engine.rulebook, name, params):
            yield label + said, engine, name, sheet, given, ask.get("choices")
    for label, engine, name in recipes():
        if only and not all_actions.chosen(label, only):
            continue
        try:
            sheet = engine.sheet({})
        except RulebookError:
            continue
        params = all_actions.derived(engine.rulebook, name, {})
        yield label, engine, name, sheet, params, None


def run_case(engine, name, sheet, params, choices, seeds: int, warm: int = 0) -> tuple:
    """(the most steps of a run, CPU seconds of all runs, runs that ended in an error)."""
    for seed in range(warm):  # untimed runs first: the steady state (generated code made)
        with contextlib.suppress(RulebookError):
            engine.run(name, sheet, params, SeededDice(seed), choices=choices)
    most, failed = 0, 0
    started = time.process_time()
    for seed in range(seeds):
        try:
            out = engine.run(name, sheet, params, SeededDice(seed), choices=choices)
            steps = getattr(out, "steps", 0)
        except RulebookError as error:
            failed += 1
            steps = getattr(error, "steps", None) or 0
        most = max(most, steps)
    return most, time.process_time() - started, failed


def measure(args) -> dict:
    """{label: (most steps, seconds, failures)} of every case that can run."""
    out = {}
    for label, engine, name, sheet, params, choices in cases(args.only):
        try:
            engine.runnable(name).binder(sheet, params)
        except RulebookError:
            continue  # a case that cannot be asked (a parameter it lacks)
        out[label] = run_case(engine, name, sheet, params, choices, args.seeds, args.warm)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="a word every case has")
    parser.add_argument("--seeds", type=int, default=20, help="runs of each case")
    parser.add_argument("--against", help="another tree: compare the times")
    parser.add_argument("--rounds", type=int, default=3, help="turns each side takes")
    parser.add_argument(
        "--warm", type=int, default=0, help="untimed runs of each case first (steady state)"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.json:  # one side's measurement, for --against
        print(json.dumps(measure(args)))
        return 0
    if args.against:
        return compare(args)
    found = measure(args)
    for label, (steps, seconds, failed) in found.items():
        note = f"  ({failed} of {args.seeds} stopped)" if failed else ""
        print(f"{steps:8} steps {seconds / args.seeds * 1e6:9.0f} µs  {label}{note}")
    worst = max(found.items(), key=lambda item: item[1][0])
    total = sum(seconds for _, seconds, _ in found.values())
    print(f"\n{len(found)} cases, {args.seeds} runs each, {total:.2f} s of CPU in all")
    print(f"the most steps of one run: {worst[1][0]}  ({worst[0]})")
    return 0


def compare(args) -> int:
    """Both trees' times, taking turns; the best round of each."""
    argv = [sys.executable, __file__, "--json", "--seeds", str(args.seeds)]
    argv += ["--warm", str(args.warm)]
    for word in args.only:
        argv += ["--only", word]
    best: dict = {"this": None, "other": None}
    for _ in range(args.rounds):
        for side, root in (("other", args.against), ("this", "")):
            env = dict(os.environ, RUN_COST_ROOT=root, PYTHONPATH=root or str(ROOT))
            done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
            found = json.loads(done.stdout)
            if best[side] is None:
                best[side] = found
            else:
                for label, row in found.items():
                    if label not in best[side] or row[1] < best[side][label][1]:
                        best[side][label] = row
    this, other = best["this"], best["other"]
    common = [label for label in this if label in other]
    mine = sum(this[label][1] for label in common)
    theirs = sum(other[label][1] for label in common)
    ratios = sorted((this[label][1] / max(other[label][1], 1e-9), label) for label in common)
    print(f"{len(common)} cases, {args.seeds} runs each, best of {args.rounds} rounds")
    print(f"this tree {mine:.3f} s, the other {theirs:.3f} s: ratio {mine / theirs:.3f}")
    median = ratios[len(ratios) // 2][0]
    print(f"per case: median ratio {median:.3f}, the dearest {ratios[-1][0]:.3f} ({ratios[-1][1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
