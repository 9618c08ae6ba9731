"""The `rulebook` command: its options, and the dispatch to one module per command."""

from __future__ import annotations

import argparse
import functools
import sys

from dsl.errors import RulebookError
from dsl.messages import available_languages, normalize_language
from interpreter.cli import export, journal, log, new, options, replay, show, undo, verify
from interpreter.cli.check import cmd_check
from interpreter.cli.describe import cmd_describe
from interpreter.cli.odds import cmd_odds
from interpreter.cli.roll import cmd_roll
from interpreter.cli.run import cmd_run
from interpreter.errors import EvaluationError
from interpreter.json_data import dumps, error_data, usage_error_data

#: the journal's commands, each in its own module with `add_parser` and `cmd_<name>`
JOURNAL_COMMANDS = (new, log, show, undo, replay, export, verify, journal)

EXAMPLES = """\
examples:
  rulebook roll "4d6kh3"
  rulebook roll "10d10cs>=6df=1" --dice 6,7,1,1,2,3,10,9,5,1 --json
  rulebook run arcana_mundi usar_numina --char menecma --set "numina=Grito Báquico"
  rulebook check rulebooks/*.rules
  rulebook describe brujeria
  rulebook odds "3d6"
  rulebook new brujeria_investigadora lucia.yaml
  rulebook run brujeria asustarse --char lucia.yaml --save
  rulebook log && rulebook undo
  rulebook replay --against brujeria_miedo_duro
"""


class Parser(argparse.ArgumentParser):
    """argparse, whose usage errors are JSON on stdout when the command asked for JSON."""

    def __init__(self, *args, json_errors: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.json_errors = json_errors

    def error(self, message: str):
        if self.json_errors:
            print(dumps(usage_error_data(message)))
            self.exit(2)
        super().error(message)


def build_parser(json_errors: bool = False) -> argparse.ArgumentParser:
    parser = Parser(
        json_errors=json_errors,
        prog="rulebook",
        description="Run tabletop role-playing rules written in the rulebook language.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        parser_class=functools.partial(Parser, json_errors=json_errors),
    )

    p = commands.add_parser(
        "roll",
        help="roll a dice expression",
        description="Roll a dice expression such as 4d6kh3 + 2.",
    )
    p.add_argument("expression", metavar="EXPR")
    _dice_options(p, ask=False)
    _output_options(p)

    p = commands.add_parser(
        "run",
        help="run an action (or a check, or a named roll) against a character",
        description="Run an action of a rulebook against a character; or one of its "
        "checks, or one of its named rolls.",
    )
    p.add_argument("rulebook", metavar="RULEBOOK", help="a .rules file or a shipped rulebook")
    p.add_argument("action", metavar="ACTION", help="an action, a check or a named roll")
    _run_options(p)
    _dice_options(p, ask=True)
    _output_options(p)
    p.add_argument(
        "--verbose",
        action="store_true",
        help="the whole trace (every lookup and value), and where in the rulebook a "
        "refusal comes from",
    )
    p.add_argument(
        "--save",
        action="store_true",
        help="write the changed values back into --char and journal the run",
    )
    p.add_argument(
        "--save-as",
        metavar="FILE",
        help="write the changed sheet to a new FILE (a copy of a shipped character) and journal it",
    )
    options.journal_option(p)

    p = commands.add_parser(
        "check",
        help="check rulebooks and print their diagnostics",
        description="Check rulebooks: every error and warning.",
    )
    p.add_argument("rulebooks", metavar="RULEBOOK", nargs="+")
    _language_option(p)

    p = commands.add_parser(
        "describe",
        help="list a rulebook's actions, checks, tables, sheet",
        description="What a rulebook offers: actions and their "
        "parameters, checks, tables and the sheet.",
    )
    p.add_argument("rulebook", metavar="RULEBOOK")
    _output_options(p)

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
    _output_options(p)
    for module in JOURNAL_COMMANDS:
        module.add_parser(commands)
    return parser


def _output_options(p) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON (errors too, on stdout, with a stable code); "
        "the schemas are in interpreter/schemas/",
    )
    _language_option(p)


def _language_option(p) -> None:
    p.add_argument(
        "--lang",
        metavar="LANG",
        type=_language,
        help="the language of the output: "
        + ", ".join(available_languages())
        + " (by default the rulebook's own `language`)",
    )


def _language(text: str) -> str:
    code = normalize_language(text)
    if code not in available_languages():
        raise argparse.ArgumentTypeError(
            f"{text!r}: the languages are {', '.join(available_languages())}"
        )
    return code


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
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(json_errors="--json" in argv)
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except RulebookError as error:
        language = getattr(args, "lang", None)
        if getattr(args, "json", False):
            print(dumps(error_data(error, language)))
        elif isinstance(error, EvaluationError) and args.command in ("run", "odds"):
            print(error.refusal(language, getattr(args, "verbose", False)), file=sys.stderr)
        else:
            print(error.render(language), file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


COMMANDS = {
    "roll": cmd_roll,
    "run": cmd_run,
    "check": cmd_check,
    "describe": cmd_describe,
    "odds": cmd_odds,
    "new": new.cmd_new,
    "log": log.cmd_log,
    "show": show.cmd_show,
    "undo": undo.cmd_undo,
    "replay": replay.cmd_replay,
    "export": export.cmd_export,
    "verify": verify.cmd_verify,
    "journal": journal.cmd_journal,
}


if __name__ == "__main__":
    sys.exit(main())
