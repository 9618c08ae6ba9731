"""The `rulebook` command: its options, and the dispatch to one module per command."""

from __future__ import annotations

import argparse
import functools
import sys
import weakref

from dsl.errors import RulebookError
from dsl.messages import (
    Message,
    available_languages,
    language_for,
    normalize_language,
    tr,
    translate,
)
from interpreter.cli import export, journal, log, new, options, replay, show, undo, verify, words
from interpreter.cli import fmt as formatting
from interpreter.cli import lsp as language_server
from interpreter.cli import sweep as sweeping
from interpreter.cli.check import cmd_check
from interpreter.cli.choosing import choose_option
from interpreter.cli.describe import cmd_describe
from interpreter.cli.odds import cmd_odds
from interpreter.cli.roll import cmd_roll
from interpreter.cli.run import cmd_run
from interpreter.cli.terminal import Shown
from interpreter.errors import EvaluationError
from interpreter.json_data import dumps, error_data, usage_error_data
from interpreter.limits import DEFAULT_LIMITS

#: the journal's commands, each in its own module with `add_parser` and `cmd_<name>`
JOURNAL_COMMANDS = (new, log, show, undo, replay, export, verify, journal)
#: the commands for writing rules in an editor
EDITOR_COMMANDS = (formatting, language_server)

EXAMPLES = """\
  rulebook roll "4d6kh3"
  rulebook roll "10d10cs>=6df=1" --dice 6,7,1,1,2,3,10,9,5,1 --json
  rulebook run arcana_mundi usar_numina --char menecma --set "numina=Grito Báquico"
  rulebook check rulebooks/*.rules
  rulebook describe brujeria
  rulebook odds "3d6"
  rulebook sweep brujeria chequeo_sencillo --char brujeria_bruja --field éxito --vary Voluntad=1..6
  rulebook serve my_campaign/
  rulebook new brujeria_investigadora lucia.yaml
  rulebook run brujeria asustarse --char lucia.yaml --save
  rulebook log && rulebook undo
  rulebook replay --against brujeria_miedo_duro
  rulebook fmt my_rules/ && rulebook fmt --check rulebooks/
"""


class Parser(argparse.ArgumentParser):
    """argparse, whose usage errors are JSON on stdout when the command asked for JSON,
    and whose help texts (written with `tr`) are in the language `--lang` asked for."""

    def __init__(self, *args, json_errors: bool = False, language: str | None = None, **kwargs):
        for text in ("description", "epilog"):
            if kwargs.get(text) is not None:
                kwargs[text] = translate(kwargs[text], language)
        self.language = language  # before argparse adds its own --help
        with words.speaking(language):  # argparse names its sections and --help here
            super().__init__(*args, **kwargs)
        self.json_errors = json_errors
        self.register("action", "parsers", Commands)

    def parse_args(self, args=None, namespace=None):
        with words.speaking(self.language):
            return super().parse_args(args, namespace)

    def parse_known_args(self, args=None, namespace=None):
        with words.speaking(self.language):
            return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        with words.speaking(self.language):
            return super().format_usage()

    def format_help(self) -> str:
        with words.speaking(self.language):
            return super().format_help()

    def add_argument(self, *args, **kwargs):
        if kwargs.get("type") in (int, float):  # its refusal in words, not `invalid int value`
            kwargs["type"] = words.number(kwargs["type"])
        if isinstance(kwargs.get("help"), str):
            kwargs["help"] = translate(kwargs["help"], self.language)
        return super().add_argument(*args, **kwargs)

    def add_subparsers(self, **kwargs):
        kwargs.setdefault(
            "parser_class",
            functools.partial(Parser, json_errors=self.json_errors, language=self.language),
        )
        commands = super().add_subparsers(**kwargs)
        commands.language = self.language
        return commands

    def error(self, message: str):
        if self.json_errors:
            print(dumps(usage_error_data(message, self.language)))
            self.exit(2)
        with words.speaking(self.language):
            super().error(message)


class Commands(argparse._SubParsersAction):
    """The subcommands: each one's one-line help in the language of the parser."""

    language: str | None = None

    def add_parser(self, name: str, **kwargs):
        if isinstance(kwargs.get("help"), str):
            kwargs["help"] = translate(kwargs["help"], self.language)
        return super().add_parser(name, **kwargs)


def build_parser(json_errors: bool = False, language: str | None = None) -> argparse.ArgumentParser:
    """The `rulebook` command's parser; its help in `language` (English by default)."""
    parser = Parser(
        language=language,
        json_errors=json_errors,
        prog="rulebook",
        description=tr("Run tabletop role-playing rules written in the rulebook language."),
        epilog=Message.joined([tr("examples:"), "\n", EXAMPLES]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _language_option(parser, dest="lang_of_all")  # `rulebook --lang es COMMAND ...`
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
    )

    p = commands.add_parser(
        "roll",
        help=tr("roll a dice expression"),
        description=tr("Roll a dice expression such as 4d6kh3 + 2."),
    )
    p.add_argument("expression", metavar="EXPR")
    _dice_options(p, ask=False)
    _output_options(p)

    p = commands.add_parser(
        "run",
        help=tr("run an action (or a check, or a named roll) against a character"),
        description=tr(
            "Run an action of a rulebook against a character; or one of "
            "its checks, or one of its named rolls."
        ),
    )
    p.add_argument("rulebook", metavar="RULEBOOK", help=tr("a .rules file or a shipped rulebook"))
    p.add_argument("action", metavar="ACTION", help=tr("an action, a check or a named roll"))
    _run_options(p)
    choose_option(p)
    _dice_options(p, ask=True)
    _output_options(p)
    p.add_argument(
        "--verbose",
        action="store_true",
        help=tr(
            "the whole trace (every lookup and value), and where in the "
            "rulebook a refusal comes from"
        ),
    )
    p.add_argument(
        "--save",
        action="store_true",
        help=tr("write the changed values back into --char and journal the run"),
    )
    p.add_argument(
        "--save-as",
        metavar="FILE",
        help=tr(
            "write the changed sheet to a new FILE (a copy of a shipped character) and journal it"
        ),
    )
    options.journal_option(p)

    p = commands.add_parser(
        "check",
        help=tr("check rulebooks and print their diagnostics"),
        description=tr("Check rulebooks: every error and warning."),
    )
    p.add_argument("rulebooks", metavar="RULEBOOK", nargs="+")
    _language_option(p)

    p = commands.add_parser(
        "describe",
        help=tr("list a rulebook's actions, checks, tables, sheet"),
        description=tr(
            "What a rulebook offers: actions and their parameters, checks, tables and the sheet."
        ),
    )
    p.add_argument("rulebook", metavar="RULEBOOK")
    _output_options(p)

    p = commands.add_parser(
        "odds",
        help=tr("exact odds of a dice expression or of an action's result"),
        description=tr(
            "The exact probability of each outcome: `rulebook odds EXPR` "
            "or `rulebook odds RULEBOOK ACTION --field NAME`."
        ),
    )
    p.add_argument("target", metavar="EXPR | RULEBOOK")
    p.add_argument("action", metavar="ACTION", nargs="?")
    _run_options(p)
    choose_option(p)
    p.add_argument(
        "--best",
        metavar="GOAL",
        help=tr(
            "answer every other choice with the best one for GOAL, exactly: a yes/no field "
            "(`success`), FIELD=VALUE (`degree=critical`), or `mean FIELD`"
        ),
    )
    p.add_argument("--field", metavar="NAME", help=tr("the result field (or sheet path) to study"))
    p.add_argument(
        "--compare",
        metavar="OTHER",
        help=tr(
            "another rulebook (such as a house rule), or NAME=VALUE,... parameters, to compare with"
        ),
    )
    p.add_argument("--fractions", action="store_true", help=tr("show exact fractions"))
    p.add_argument(
        "--budget",
        type=positive(int),
        metavar="N",
        help=tr("exact work allowed before falling back to sampling"),
    )
    p.add_argument("--trials", type=positive(int), metavar="N", help=tr("trials when sampling"))
    p.add_argument(
        "--timeout",
        type=positive(float),
        metavar="SECONDS",
        help=tr(
            "time allowed in all, exact and sampled (default {seconds:g})",
            seconds=DEFAULT_LIMITS.odds_seconds,
        ),
    )
    _output_options(p)

    p = commands.add_parser(
        "serve",
        help=tr("the page in a browser, and the HTTP API"),
        description=tr(
            "Serve a page to run actions, see odds and edit rules in a "
            "browser, and the HTTP API under /api (described at "
            "/openapi.json). FOLDER holds your rulebooks (.rules) and "
            "characters (.yaml, .json); the shipped ones are always "
            "there."
        ),
    )
    p.add_argument("folder", metavar="FOLDER", nargs="?", default=".", help=tr("default: here"))
    p.add_argument("--port", type=int, default=8000, metavar="N", help=tr("default: 8000"))
    p.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="H",
        help=tr(
            "the address to listen on (default: 127.0.0.1, this machine only); any other "
            "asks every request for a token"
        ),
    )
    p.add_argument(
        "--token",
        metavar="TOKEN",
        help=tr(
            "the token the server asks for (default: $RULEBOOK_TOKEN, else one made and "
            "printed when --host is not loopback)"
        ),
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help=tr(
            "a name the browser may use for this server besides its addresses and this "
            "machine's names (repeatable)"
        ),
    )
    p.add_argument("--no-browser", action="store_true", help=tr("do not open the browser"))
    p.add_argument(
        "--workers",
        type=positive(int),
        default=2,
        metavar="N",
        help=tr("processes for quick requests (default: 2)"),
    )
    p.add_argument(
        "--heavy",
        type=positive(int),
        default=None,
        metavar="N",
        help=tr("long computations run at once, the others wait their turn (default: the cores)"),
    )
    p.add_argument(
        "--run-timeout",
        type=positive(float),
        default=10.0,
        metavar="SECONDS",
        help=tr("seconds one run may take, its answer included (default: 10)"),
    )
    p.add_argument(
        "--odds-timeout",
        type=positive(float),
        default=60.0,
        metavar="SECONDS",
        help=tr("seconds one odds computation may take, its answer included (default: 60)"),
    )
    p.add_argument(
        "--request-timeout",
        type=positive(float),
        default=5.0,
        metavar="SECONDS",
        help=tr("seconds a request's headers, then its body, may take to arrive (default: 5)"),
    )
    for module in (sweeping, *JOURNAL_COMMANDS, *EDITOR_COMMANDS):
        module.add_parser(commands)
    for command in commands.choices.values():  # every command speaks a language
        if command not in SPEAKING:
            _language_option(command)
    return parser


def positive(kind):
    """An argparse type: a number of `kind` above zero (`--trials 0` means nothing)."""
    return words.number(kind, above_zero=True)


def _output_options(p) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help=tr(
            "print JSON (errors too, on stdout, with a stable code); the "
            "schemas are in interpreter/schemas/"
        ),
    )
    _language_option(p)


#: the parsers given --lang so far (the journal's commands get it afterwards)
SPEAKING: weakref.WeakSet = weakref.WeakSet()


def _language_option(p, dest: str = "lang") -> None:
    SPEAKING.add(p)
    p.add_argument(
        "--lang",
        dest=dest,
        metavar="LANG",
        type=_language,
        help=tr(
            "the language of the output: {languages} (by default the rulebook's own `language`)",
            languages=", ".join(available_languages()),
        ),
    )


def _language(text: str) -> str:
    code = normalize_language(text)
    if code not in available_languages():
        raise argparse.ArgumentTypeError(
            words.said(
                tr(
                    "{text}: the languages are {join}",
                    text=repr(text),
                    join=", ".join(available_languages()),
                )
            )
        )
    return code


def _run_options(p) -> None:
    p.add_argument(
        "--char",
        metavar="FILE",
        help=tr("the character sheet (YAML or JSON), or a shipped character's name"),
    )
    p.add_argument(
        "--set",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help=tr("an action parameter (repeat for several)"),
    )
    p.add_argument(
        "--target",
        dest="targets",
        metavar="NAME=FILE",
        action="append",
        default=[],
        help=tr(
            "another character of the action (its parameter NAME): a "
            "sheet file or a shipped character (repeat for several)"
        ),
    )


def _dice_options(p, ask: bool) -> None:
    group = p.add_mutually_exclusive_group()
    say = p.language
    group.add_argument(
        "--seed",
        type=words.number(int),
        metavar="N",
        help=tr("reproducible random dice").render(say),
    )
    group.add_argument(
        "--dice",
        metavar="LIST",
        help=tr("the faces to use, in draw order: 6,5,3,1").render(say),
    )
    if ask:
        group.add_argument(
            "--ask",
            action="store_true",
            help=tr("ask for each die as it is needed (physical dice)").render(say),
        )


def _language_asked(argv: list[str]) -> str | None:
    """The `--lang` of a command line, read before parsing it (its help is in it)."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return language_for(argv[i + 1])
        if arg.startswith("--lang="):
            return language_for(arg.partition("=")[2])
    return None


def main(argv: list[str] | None = None) -> int:
    argv = options.expressions_with_a_minus(sys.argv[1:] if argv is None else list(argv))
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Shown(out), Shown(err)  # control characters shown, not obeyed
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str]) -> int:
    parser = build_parser(json_errors="--json" in argv, language=_language_asked(argv))
    args = parser.parse_args(argv)
    if getattr(args, "lang", None) is None:  # a command's own --lang, else the one before it
        args.lang = args.lang_of_all
    language = args.lang
    try:
        return COMMANDS[args.command](args)
    except RulebookError as error:
        if getattr(args, "json", False):
            print(dumps(error_data(error, language)))
        elif isinstance(error, EvaluationError) and args.command in ("run", "odds"):
            print(error.refusal(language, getattr(args, "verbose", False)), file=sys.stderr)
        else:
            print(error.render(language), file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print(tr("interrupted").render(language), file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def cmd_serve(args) -> int:
    """`rulebook serve`: the web app (Starlette) is imported only by the command that needs it."""
    from interpreter.cli import serve

    return serve.cmd_serve(args)


COMMANDS = {
    "roll": cmd_roll,
    "run": cmd_run,
    "check": cmd_check,
    "describe": cmd_describe,
    "odds": cmd_odds,
    "serve": cmd_serve,
    "new": new.cmd_new,
    "log": log.cmd_log,
    "show": show.cmd_show,
    "undo": undo.cmd_undo,
    "replay": replay.cmd_replay,
    "export": export.cmd_export,
    "verify": verify.cmd_verify,
    "journal": journal.cmd_journal,
    "fmt": formatting.cmd_fmt,
    "lsp": language_server.cmd_lsp,
    "sweep": sweeping.cmd_sweep,
}


if __name__ == "__main__":
    sys.exit(main())
