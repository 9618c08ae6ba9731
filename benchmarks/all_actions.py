"""Exact odds of every action of every shipped rulebook, with each shipped character of its game.

    python benchmarks/all_actions.py                 # every case, one line each
    python benchmarks/all_actions.py --only brujeria --only pulso
    python benchmarks/all_actions.py --budget 20000 --slowest 10

The rulebooks (`rulebooks/*.rules`, house rules included) and the characters
(`rulebooks/characters/*`, each naming its game with `rulebook:`) are read from the tree
as they are when this runs: a house rule's game is the rulebook it extends. A required
parameter takes the value the every-action tests give it (the module-level tables
`CLI_*` of tests/test_rulebook_*.py, which the project keeps as the sensible parameters of
each action), else one derived from its declaration (a choice list's first value, a
table's first key, 1, no, an empty list).

Each case is timed twice over: `Engine.odds(action, sheet, params)`, the distribution of
the whole result record (every field at once: for an action reporting several
independent rolls, a joint of many outcomes), and the distribution of each result field
on its own (`Engine.odds(..., field)`, as `rulebook odds --field` gives it). Times are
CPU time (`time.process_time`, so that a busy machine taking the CPU
away does not count), the rulebook's parse, compile and the sheet's load not counted.
A parameter naming an entry of the character's catalog that this character lacks takes
the first entry the character has; without one, the case cannot be asked (`n/a`).
A line per case: the whole result's time, `exact` or `SAMPLED` (the exact computation
went over its budget and the engine sampled) or the error, and how many outcomes (or, for
a joint of more than interpreter.odds.marginals.JOINT_OUTCOMES, `N fields`: the whole
result answered field by field, each field's exact distribution on its own); then
the slowest field's time, and whether every field was exact. The summaries: how many
are exact, the median and the worst time, and how many took 1 s or more.
Targets (issue 12): all exact, each under 1 s, the median under 50 ms.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

import dsl  # noqa: E402
from dsl import nodes as n  # noqa: E402
from dsl.errors import RulebookError  # noqa: E402
from interpreter import Engine  # noqa: E402
from interpreter.errors import ParameterError  # noqa: E402
from interpreter.odds import BUDGET, TRIALS  # noqa: E402

CHARACTERS = ROOT / "rulebooks" / "characters"
TESTS = ROOT / "tests"


def game_of(book) -> str:
    """The shipped rulebook a (house) rulebook stands on, by its file's name."""
    while book.base is not None:
        book = book.base
    return Path(book.path).stem


def characters() -> dict[str, list[Path]]:
    """Shipped characters by the game their sheet names."""
    out: dict[str, list[Path]] = {}
    for path in sorted(CHARACTERS.iterdir()):
        if path.suffix not in (".yaml", ".yml", ".json"):
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out.setdefault(str(data.get("rulebook", "")), []).append(path)
    return out


def tested_parameters() -> dict[str, dict[str, list[str]]]:
    """`NAME=VALUE` settings per action from the every-action tests, by the game's name.

    Read as literals from the test modules (not imported): a table `CLI_...` maps an
    action to its settings, or to (character, settings)."""
    out: dict[str, dict[str, list[str]]] = {}
    for path in sorted(TESTS.glob("test_rulebook_*.py")):
        game = path.stem.removeprefix("test_rulebook_")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for statement in tree.body:
            if not (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id.startswith("CLI_")
                and isinstance(statement.value, ast.Dict)
            ):
                continue
            for key, value in zip(statement.value.keys, statement.value.values):
                if not isinstance(key, ast.Constant):
                    continue
                if isinstance(value, ast.Tuple) and len(value.elts) == 2:
                    value = value.elts[1]
                try:
                    settings = ast.literal_eval(value)
                except ValueError:
                    continue
                if isinstance(settings, list):
                    out.setdefault(game, {})[key.value] = settings
    return out


def derived_value(book, param: n.Param):
    """A value for a required parameter, from its declared type."""
    kind = param.type
    if isinstance(kind, n.EnumType):
        return kind.choices[0]
    if isinstance(kind, n.ListType):
        return []
    name = getattr(kind, "name", "")
    if name == "bool":
        return False
    if name in ("int", "number"):
        return 1
    choices = book.choices_of(name)
    if choices:
        return choices[0]
    return ""


def parameters(book, action: str, tested: dict) -> dict:
    params = dict(s.partition("=")[::2] for s in tested.get(action, []))
    for param in book.actions[action].params:
        if param.default is None and param.name not in params:
            params[param.name] = derived_value(book, param)
    return params


def fitted(engine, action: str, sheet, params: dict) -> dict:
    """The parameters, with a catalog entry the character lacks replaced by one it has."""
    book = engine.rulebook
    for param in book.actions[action].params:
        name = getattr(param.type, "name", None)
        entries = sheet.get(name) if name in book.fields else None
        if isinstance(entries, dict) and params.get(param.name) not in entries and entries:
            params = {**params, param.name: next(iter(entries))}
    return params


def cases(only: list[str]):
    """(rulebook name, book, engine, action, character path, params) for every case."""
    people = characters()
    tested = tested_parameters()
    for name, path in sorted(dsl.shipped_rulebooks().items()):
        book = dsl.load(path)
        engine = Engine(book)
        game = game_of(book)
        for action in book.actions:
            for character in people.get(game, []):
                label = f"{name} {action} {character.stem}"
                if only and not all(word in label.split() for word in only):
                    continue
                yield (
                    name,
                    engine,
                    action,
                    character,
                    parameters(book, action, tested.get(game, {})),
                )


def timed(engine, action, sheet, params, field, args) -> tuple:
    """(CPU seconds, status, outcomes) of one odds computation."""
    started = time.process_time()
    outcomes = 0
    try:
        odds = engine.odds(action, sheet, params, field, budget=args.budget, trials=args.trials)
        status = "exact" if odds.exact else "SAMPLED"
        fields = getattr(odds, "fields", None)  # a joint too large: each field on its own
        outcomes = len(odds.probabilities) if fields is None else f"{len(fields)} fields"
    except ParameterError as error:
        status = f"n/a: {error.message}"
    except RulebookError as error:
        status = f"error: {error.message}"
    return time.process_time() - started, status, outcomes


def result_fields(engine, action: str) -> list[str]:
    body = engine.rulebook.actions[action].body
    return [name for name, _ in body[-1].fields] if body and isinstance(body[-1], n.Result) else []


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="a word every case shown has")
    parser.add_argument("--budget", type=int, default=BUDGET, help="the exact computation's budget")
    parser.add_argument("--trials", type=int, default=TRIALS, help="trials when sampled")
    parser.add_argument("--slowest", type=int, default=5, help="list the N slowest at the end")
    parser.add_argument("--no-fields", action="store_true", help="the whole result only")
    args = parser.parse_args(argv)
    wholes, fields = [], []
    sheets: dict = {}
    print(f"{'whole result':>34}   {'each field':>22}")
    for name, engine, action, character, params in cases(args.only):
        key = (name, character)
        if key not in sheets:
            sheets[key] = engine.load_sheet(character)
        sheet = sheets[key]
        params = fitted(engine, action, sheet, params)
        label = f"{name} {action} ({character.stem})"
        elapsed, status, outcomes = timed(engine, action, sheet, params, None, args)
        wholes.append((elapsed, status, label))
        line = f"{elapsed * 1000:9.1f} ms {status:8} {outcomes!s:>9} out."
        if not args.no_fields and not status.startswith(("n/a", "error")):
            each = [
                timed(engine, action, sheet, params, f, args) for f in result_fields(engine, action)
            ]
            if each:
                worst = max(t for t, _, _ in each)
                all_exact = all(s == "exact" for _, s, _ in each)
                fields.extend(
                    (t, s, f"{label} · {f}")
                    for (t, s, _), f in zip(each, result_fields(engine, action))
                )
                line += f"   {worst * 1000:9.1f} ms {'exact' if all_exact else 'SAMPLED':8}"
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"{line}  {label}" + (f"  [{shown}]" if shown else ""), flush=True)
    if not wholes:
        print("no case matches")
        return 1
    print()
    summary("whole result (Engine.odds with no field)", wholes, args.slowest)
    if fields:
        summary("each result field on its own (--field)", fields, args.slowest)
    return 0


def summary(what: str, rows: list, slowest: int) -> None:
    asked = [r for r in rows if not r[1].startswith("n/a")]
    times = [r[0] for r in asked]
    exact = sum(1 for r in asked if r[1] == "exact")
    slow = sum(1 for t in times if t >= 1)
    print(
        f"{what}: {len(rows)} cases, {len(asked)} that can be asked: {exact} exact, "
        f"{len(asked) - exact} not; median {statistics.median(times) * 1000:.1f} ms, "
        f"worst {max(times) * 1000:.1f} ms, {slow} at 1 s or more"
    )
    for elapsed, status, label in sorted(asked, reverse=True)[:slowest]:
        print(f"  {elapsed * 1000:9.1f} ms  {status:8}  {label}")
    print()


if __name__ == "__main__":
    sys.exit(main())
