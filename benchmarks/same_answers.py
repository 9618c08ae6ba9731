"""Whether two revisions answer every run with the same bytes: a check for a change that
must leave answers as they are (a faster way of writing a trace, say). Not a benchmark.

    python benchmarks/same_answers.py --before main        # this tree against main
    python benchmarks/same_answers.py --before main --seeds 2 --only brujeria

Every case of benchmarks/all_actions.py (each shipped rulebook's actions with each of its
characters; each example game's actions, checks and opposed checks, choices answered as
its tests answer them), each run with `--seeds` seeds, in English (asked as none and as
`en`) and Spanish, under the default limits and three others (values cut to 3 and 12
characters, a trace of 6 steps: the bounded trace's cuts and counts): the run's JSON as
the server writes it (`run_data`, its steps kept where the tree keeps them: `kept`;
`worker.compact`), and for the first two seeds its trace as text too (`render_text`,
plain and verbose), or its error. Each side runs in a process of its own, with its own
tree's code; the trees' paths are written alike in both.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import os
import pickle
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: (shown_length, trace_steps) besides the default limits
LIMITS = [(12, 1000), (40, 6), (3, 1000)]


def answers(tree: str, seeds: int, only: list[str]) -> dict:
    """Every case's answers, by (case, limits, seed, language), with `tree`'s code."""
    import all_actions
    import attrs

    from interpreter.dice import SeededDice
    from interpreter.engine import Engine
    from interpreter.json_data import run_data
    from interpreter.trace import render_text
    from interpreter.web.worker import compact

    roots = {str(all_actions.ROOT), tree}
    out: dict = {}
    # (as a server's worker asks for it, where the tree has it: its steps kept and given
    # again, interpreter.steps_json)
    served = {"kept": True} if "kept" in inspect.signature(run_data).parameters else {}

    def alike(text: str) -> str:  # (the trees' paths written alike)
        for root in roots:
            text = text.replace(root, "<tree>")
        return text

    def run(label, engine, action, sheet, params, ask) -> None:
        engines = [("default", engine)]
        for length, steps in LIMITS:
            limits = attrs.evolve(engine.limits, shown_length=length, trace_steps=steps)
            engines.append((f"{length},{steps}", Engine(engine.rulebook, limits)))
        for name, e in engines:
            for seed in range(seeds):
                for language in (None, "en", "es"):
                    try:
                        o = e.run(action, sheet, params, SeededDice(seed), trace=True, **ask)
                        said = compact(run_data(o, language, **served)).decode()
                        if seed < 2:
                            o = e.run(action, sheet, params, SeededDice(seed), trace=True, **ask)
                            said += render_text(o.trace, language, verbose=True)
                            said += render_text(o.trace, language)
                    except Exception as error:  # (an error is an answer too)
                        said = f"{type(error).__name__}: {error}"
                    out[label, name, seed, language] = alike(said)

    sheets: dict = {}

    def sheet_of(engine, path):
        if (id(engine), path) not in sheets:
            sheets[id(engine), path] = engine.load_sheet(path)
        return sheets[id(engine), path]

    for name, engine, action, character, params in all_actions.cases(only):
        sheet = sheet_of(engine, character)
        with contextlib.suppress(Exception):  # (else its own parameters: its error answers)
            params = all_actions.fitted(engine, action, sheet, params)
        run(f"{name} {action} {character.stem}", engine, action, sheet, params, {})
    for label, engine, name, character, params, others, ask in all_actions.example_cases(only):
        if "best" in ask:
            continue
        try:
            sheet = sheet_of(engine, character) if character else all_actions.empty(engine, name)
            if sheet is None:
                continue
            given = partial(sheet_of, engine)
            params = all_actions.with_characters(engine, name, params, others, given)
        except Exception:
            continue
        run(label, engine, name, sheet, params, {"choices": ask["choices"]} if ask else {})
    return out


def side(tree: Path, args) -> dict:
    """`answers` of a tree, in a process of its own."""
    with tempfile.NamedTemporaryFile(suffix=".pickle") as file:
        env = {**os.environ, "PYTHONPATH": str(tree), "RUN_COST_ROOT": str(tree)}
        command = [sys.executable, __file__, "--write", file.name, "--seeds", str(args.seeds)]
        command += [f"--only={word}" for word in args.only]
        subprocess.run(command, env=env, check=True)
        return pickle.loads(Path(file.name).read_bytes())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", help="the revision to compare (git)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--only", action="append", default=[], help="a word every case has")
    parser.add_argument("--write", help=argparse.SUPPRESS)  # (a side's process)
    args = parser.parse_args(argv)
    if args.write:
        tree = os.environ.get("PYTHONPATH", "")
        Path(args.write).write_bytes(pickle.dumps(answers(tree, args.seeds, args.only)))
        return 0
    from serving import ROOT, checkout

    if not args.before:
        parser.error("--before REV: the revision to compare with")
    before, this = side(checkout(args.before), args), side(ROOT, args)
    differ = [key for key in this if before.get(key) != this[key]]
    errors = sum(1 for text in this.values() if not text.startswith("{"))
    print(f"{len(this)} answers ({errors} of them errors); {len(differ)} differ", end="")
    missing = len(before.keys() - this.keys())
    print(f"; {missing} only before" if before.keys() != this.keys() else "")
    for key in differ[:5]:
        print(f"  {key}:\n    before {before.get(key, '')[:300]!r}\n    this   {this[key][:300]!r}")
    return 1 if differ or before.keys() != this.keys() else 0


if __name__ == "__main__":
    sys.exit(main())
