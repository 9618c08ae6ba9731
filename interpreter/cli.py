"""The `rulebook` command: a thin shell over the public API.

Exit codes: 0 ok (an action that runs and fails its roll is ok), 2 usage (a bad option
or parameter), 3 a rulebook, expression or sheet that is not valid, 4 an evaluation
that could not finish (a limit, forced dice, a failed `require`, a short resource).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import dsl
from dsl.errors import RulebookError
from interpreter.dice import ForcedDice, SeededDice, TypedDice
from interpreter.engine import Engine, roll
from interpreter.errors import DiceError, ParameterError, SheetError
from interpreter.sheet import Sheet
from interpreter.trace import WORDS, render_text
from interpreter.values import show, to_json

EXAMPLES = """\
examples:
  rulebook roll "4d6kh3"
  rulebook roll "10d10cs>=6df=1" --dice 6,7,1,1,2,3,10,9,5,1 --json
  rulebook run arcana_mundi usar_numina --char menecma --set "numina=Grito Báquico"
  rulebook check rulebooks/*.rules
  rulebook describe brujeria
  rulebook odds "3d6"
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rulebook",
        description="Run tabletop role-playing rules written in the rulebook language.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = commands.add_parser(
        "roll",
        help="roll a dice expression",
        description="Roll a dice expression such as 4d6kh3 + 2.",
    )
    p.add_argument("expression", metavar="EXPR")
    _dice_options(p, ask=False)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = commands.add_parser(
        "run",
        help="run an action of a rulebook against a character",
        description="Run an action of a rulebook against a character.",
    )
    p.add_argument("rulebook", metavar="RULEBOOK", help="a .rules file or a shipped rulebook")
    p.add_argument("action", metavar="ACTION")
    _run_options(p)
    _dice_options(p, ask=True)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--save", action="store_true", help="write the changed sheet back to --char (atomically)"
    )

    p = commands.add_parser(
        "check",
        help="check rulebooks and print their diagnostics",
        description="Check rulebooks: every error and warning.",
    )
    p.add_argument("rulebooks", metavar="RULEBOOK", nargs="+")

    p = commands.add_parser(
        "describe",
        help="list a rulebook's actions, checks, tables, sheet",
        description="What a rulebook offers: actions and their "
        "parameters, checks, tables and the sheet.",
    )
    p.add_argument("rulebook", metavar="RULEBOOK")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = commands.add_parser(
        "odds",
        help="exact odds of a dice expression or of an action's result",
        description="The exact probability of each outcome: `rulebook odds EXPR` or "
        "`rulebook odds RULEBOOK ACTION --field NAME`.",
    )
    p.add_argument("target", metavar="EXPR | RULEBOOK")
    p.add_argument("action", metavar="ACTION", nargs="?")
    _run_options(p)
    p.add_argument("--field", metavar="NAME", help="the result field (or sheet path) to study")
    p.add_argument(
        "--compare",
        metavar="OTHER",
        help="another rulebook (such as a house rule), or NAME=VALUE,... "
        "parameters, to compare with",
    )
    p.add_argument("--fractions", action="store_true", help="show exact fractions")
    p.add_argument(
        "--budget", type=int, metavar="N", help="exact work allowed before falling back to sampling"
    )
    p.add_argument("--trials", type=int, metavar="N", help="trials when sampling")
    p.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _run_options(p) -> None:
    p.add_argument(
        "--char",
        metavar="FILE",
        help="the character sheet (YAML or JSON), or a shipped character's name",
    )
    p.add_argument(
        "--set",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help="an action parameter (repeat for several)",
    )


def _dice_options(p, ask: bool) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--seed", type=int, metavar="N", help="reproducible random dice")
    group.add_argument("--dice", metavar="LIST", help="the faces to use, in draw order: 6,5,3,1")
    if ask:
        group.add_argument(
            "--ask", action="store_true", help="ask for each die as it is needed (physical dice)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except RulebookError as error:
        print(error.render(), file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


# ─── roll ───────────────────────────────────────────────────────────────────


def dice_source(args):
    if getattr(args, "ask", False):
        return TypedDice(_ask)
    if args.dice is not None:
        return ForcedDice(_faces(args.dice))
    return SeededDice(args.seed)


def _faces(text: str) -> list[int]:
    faces = []
    for position, part in enumerate(text.replace(" ", "").split(","), 1):
        if not part:
            continue
        try:
            faces.append(int(part))
        except ValueError:
            raise ParameterError(
                f"--dice: value {position} ({part!r}) is not a whole number",
                None,
                "write the faces as 6,5,3,1",
            ) from None
    return faces


def _ask(die, position: int) -> int:
    """Ask the person at the table what a physical die showed."""
    while True:
        sys.stderr.write(f"die {position} ({die.label}, {die.low}..{die.high})? ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line:
            raise DiceError(f"no face typed for die {position} ({die.label})")
        text = line.strip()
        try:
            value = int(text)
        except ValueError:
            sys.stderr.write(f"  {text!r} is not a number; type the face the die shows\n")
            continue
        if die.low <= value <= die.high:
            return value
        sys.stderr.write(f"  {value} is not a face of {die.label}\n")


def _origin_note(origin: str, words: dict) -> str:
    if origin == "forced":
        return f"  ({words['forced']})"
    if origin == "typed":
        return f"  ({words['typed']})"
    return ""


def cmd_roll(args) -> int:
    result = roll(args.expression, dice_source(args))
    if args.json:
        print(
            json.dumps(
                {
                    "expression": result.expression,
                    "total": to_json(result.total),
                    "dice": list(result.dice),
                    "detail": result.detail,
                    "origin": result.origin,
                },
                ensure_ascii=False,
            )
        )
    else:
        print(f"{result.detail}{_origin_note(result.origin, WORDS['en'])}")
    return 0


# ─── run ────────────────────────────────────────────────────────────────────


def load_rulebook(reference: str) -> dsl.Rulebook:
    return dsl.load(reference)


def resolve_character(reference: str, book) -> Path:
    path = Path(reference)
    if path.is_file():
        return path
    folder = _characters_folder()
    for suffix in (".yaml", ".yml", ".json"):
        candidate = folder / f"{reference}{suffix}"
        if candidate.exists():
            return candidate
    known = sorted(p.stem for p in folder.glob("*.yaml")) + sorted(
        p.stem for p in folder.glob("*.json")
    )
    from dsl.errors import did_you_mean

    hint = did_you_mean(reference, known) or "shipped characters: " + ", ".join(known)
    raise ParameterError(f"--char: no file or shipped character named {reference!r}", None, hint)


def _characters_folder() -> Path:
    from importlib import resources

    return Path(str(resources.files("rulebooks.characters")))


def _params(pairs: list[str]) -> dict:
    params = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ParameterError(f"--set {pair!r}: write NAME=VALUE")
        params[name.strip()] = value
    return params


def _sheet(args, book, engine) -> Sheet:
    if args.char is None:
        try:
            return engine.sheet({})  # a rulebook whose sheet needs nothing given
        except SheetError as error:
            shipped = sorted(p.stem for p in _characters_folder().glob("*.y*ml"))
            raise ParameterError(
                f"{book.title} needs a character: {error.message}",
                None,
                "pass --char FILE, or a shipped character: " + ", ".join(shipped),
            ) from None
    return engine.load_sheet(resolve_character(args.char, book))


def cmd_run(args) -> int:
    book = load_rulebook(args.rulebook)
    engine = Engine.of(book)
    sheet = _sheet(args, book, engine)
    if args.save and args.char is None:
        raise ParameterError("--save needs --char: the sheet to write back")
    outcome = engine.run(args.action, sheet, _params(args.set), dice_source(args))
    if args.save:
        outcome.sheet.save(sheet.path)
    if args.json:
        print(json.dumps(outcome_json(outcome), ensure_ascii=False, indent=2))
        return 0
    words = engine.words
    print(f"{book.title} · {args.action}")
    print(render_text(outcome.trace, words))
    if outcome.result is not None:
        print("result: " + ", ".join(f"{k} {show(v)}" for k, v in outcome.result.items()))
    if outcome.changes:
        print("changes:")
        for change in outcome.changes:
            print(f"  {change.path}: {show(change.before)} → {show(change.after)}")
    else:
        print("changes: none")
    dice = ", ".join(map(str, outcome.dice)) or "none"
    print(f"dice: {dice}{_origin_note(outcome.origin, words)}")
    if args.save:
        print(f"saved {sheet.path}")
    return 0


def outcome_json(outcome) -> dict:
    return {
        "action": outcome.action,
        "params": to_json(outcome.params),
        "result": to_json(outcome.result),
        "changes": [
            {"path": c.path, "before": to_json(c.before), "after": to_json(c.after)}
            for c in outcome.changes
        ],
        "sheet": to_json(outcome.sheet.to_data()),
        "trace": [step.to_json() for step in outcome.trace],
        "dice": list(outcome.dice),
        "origin": outcome.origin,
    }


# ─── check, describe, odds ──────────────────────────────────────────────────


def cmd_check(args) -> int:
    worst = 0
    for reference in args.rulebooks:
        try:
            book = dsl.load(reference)
        except RulebookError as error:
            print(error.render(), file=sys.stderr)
            worst = max(worst, error.exit_code)
            continue
        for warning in book.warnings:
            print(warning.render())
        count = len(book.warnings)
        print(f"{book.path}: ok" + (f" ({count} warning{'s' * (count != 1)})" if count else ""))
    return worst


def cmd_describe(args) -> int:
    from interpreter.describe import describe, describe_text

    book = load_rulebook(args.rulebook)
    info = describe(book)
    if args.json:
        print(json.dumps(to_json(info), ensure_ascii=False, indent=2))
    else:
        print(describe_text(info))
    return 0


def cmd_odds(args) -> int:
    from interpreter.odds_cli import run_odds

    return run_odds(args)


COMMANDS = {
    "roll": cmd_roll,
    "run": cmd_run,
    "check": cmd_check,
    "describe": cmd_describe,
    "odds": cmd_odds,
}


if __name__ == "__main__":
    sys.exit(main())
