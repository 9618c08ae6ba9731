"""The `rulebook` command: its options, and the dispatch to one module per command."""

from __future__ import annotations

import argparse
import functools
import importlib
import shlex
import sys
from pathlib import Path

from dsl.errors import RulebookError, did_you_mean
from dsl.messages import (
    Message,
    language_for,
    tr,
    translate,
)
from interpreter import surface
from interpreter.cli import arguments, options, words
from interpreter.cli.terminal import Shown
from interpreter.errors import EvaluationError

# Each command is `rulebook NAME`, in interpreter/cli/NAME.py with `add_parser` and
# `cmd_NAME`; a module is imported when its command is asked for (or when `--help` lists
# them all), and imports what its command runs only when it runs.
#: the commands for a game
PLAY_COMMANDS = ("roll", "run", "check", "describe", "odds", "serve")
#: the journal's commands
JOURNAL_COMMANDS = ("new", "log", "show", "undo", "replay", "export", "verify", "journal")
#: the commands for writing rules in an editor
EDITOR_COMMANDS = ("fmt", "lsp")
#: the commands of balance studies
BALANCE_COMMANDS = ("sweep", "encounter")
#: every command, in the order `rulebook --help` lists them
COMMAND_NAMES = PLAY_COMMANDS + JOURNAL_COMMANDS + EDITOR_COMMANDS + BALANCE_COMMANDS
#: the commands whose first argument is a rulebook: their help speaks its language
RULEBOOK_COMMANDS = ("run", "check", "describe", "odds", "sweep")


def command_module(name: str):
    """The module of `rulebook NAME`: interpreter/cli/NAME.py."""
    if name not in COMMAND_NAMES:
        raise ValueError(name)  # (argparse offers only COMMAND_NAMES: a caller's mistake)
    return importlib.import_module("interpreter.cli." + name)


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
        self.command_hint: str | None = None  # (a Message: dsl.errors.did_you_mean's)
        self.stray: list[str] = []  # the words of the command line argparse did not take
        self.register("action", "parsers", Commands)

    def parse_args(self, args=None, namespace=None):
        with words.speaking(self.language):
            parsed, stray = self.parse_known_args(args, namespace)
            if not stray:
                return parsed
            # (said by the command's own parser, with its usage and the option meant)
            command = self.command_parser(getattr(parsed, "command", None)) or self
            command.stray = stray
            unknown = tr("unrecognized arguments: %s")  # (argparse's own words: `words`)
            message = translate(unknown, self.language) % " ".join(stray)
            known = [o for a in command._actions for o in a.option_strings]
            import difflib  # (only for a command line that has gone wrong)

            for word in stray:  # (an option misspelt: the options close to it, if any)
                option = word.partition("=")[0]
                close = difflib.get_close_matches(option, known, 3, 0.75)
                hint = did_you_mean(option, close) if close and word[:2] == "--" else None
                if hint is not None:
                    message += "\n" + translate(hint, self.language)
            command.error(message)

    def command_parser(self, name: str | None) -> Parser | None:
        """The parser of the command `name`, if this parser has it."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and name in action.choices:
                found: Parser = action.choices[name]
                return found
        return None

    def parse_known_args(self, args=None, namespace=None):
        with words.speaking(self.language):
            parsed, stray = super().parse_known_args(args, namespace)
        self.stray = stray  # (parse_args refuses them: `error` reads them for its hint)
        return parsed, stray

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
        commands.language = self.language  # type: ignore[attr-defined]  # (the commands' language, on argparse's action)
        return commands

    def error(self, message: str):
        if self.command_hint is not None:  # `rulebook rol d20`: the command it is close to
            message += "\n" + translate(self.command_hint, self.language)
        sheets = [w for w in message.split() if w.lower().endswith((".yaml", ".yml", ".json"))]
        if sheets:  # `rulebook run book.rules act hero.yaml`: a first run often reads so
            hint = tr("a character sheet is given with --char: --char {file}", file=sheets[0])
            message += "\n" + translate(hint, self.language)
        settings = [shlex.quote(w) for w in self.stray if _reads_as_setting(w)]
        if settings:  # `rulebook run book.rules act stat=REF`
            hint = tr(
                "an action's parameter is given with --set: {settings}",
                settings=" ".join("--set " + w for w in settings),
            )
            message += "\n" + translate(hint, self.language)
        if self.json_errors:
            from interpreter.json_data import dumps, usage_error_data

            print(dumps(usage_error_data(message, self.language)))
            self.exit(2)
        with words.speaking(self.language):
            super().error(message)


def _reads_as_setting(word: str) -> bool:
    """Whether a stray word of a command line reads as NAME=VALUE (a parameter)."""
    name, equals, _ = word.partition("=")
    return bool(equals and name.replace("_", "").isalnum())


class Commands(argparse._SubParsersAction):
    """The subcommands: each one's one-line help in the language of the parser."""

    language: str | None = None

    def add_parser(self, name: str, **kwargs):
        if isinstance(kwargs.get("help"), str):
            kwargs["help"] = translate(kwargs["help"], self.language)
        return super().add_parser(name, **kwargs)


def build_parser(
    json_errors: bool = False, language: str | None = None, only: str | None = None
) -> Parser:
    """The `rulebook` command's parser; its help in `language` (English by default).
    With `only`, the parser of that one command alone (what a command line naming it
    needs: the others' modules are not imported)."""
    parser = Parser(
        language=language,
        json_errors=json_errors,
        prog="rulebook",
        description=tr("Run tabletop role-playing rules written in the rulebook language."),
        epilog=Message.joined([tr("examples:"), "\n", EXAMPLES]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    arguments.language_option(parser, dest="lang_of_all")  # `rulebook --lang es COMMAND ...`
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
    )

    for name in COMMAND_NAMES if only is None else (only,):
        command_module(name).add_parser(commands)
    for command in commands.choices.values():  # every command speaks a language
        if command not in arguments.SPEAKING:
            arguments.language_option(command)
    return parser


def _language_asked(argv: list[str]) -> str | None:
    """The `--lang` of a command line, read before parsing it (its help is in it)."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return language_for(argv[i + 1])
        if arg.startswith("--lang="):
            return language_for(arg.partition("=")[2])
    return None


def _rulebook_language(argv: list[str]) -> str | None:
    """The language of the rulebook a command line names (a shipped name or a `.rules`
    file, the first argument that is one), read from its header without loading it: its
    help and usage errors speak it, as the command's answer will."""
    from dsl.load import language_written_in, read

    shipped = None
    for arg in argv:
        if arg.startswith("-"):
            continue
        path = None
        if arg.endswith(".rules"):
            path = Path(arg)
        elif arg.isidentifier():
            if shipped is None:
                import dsl

                shipped = dsl.shipped_rulebooks()
            path = shipped.get(arg)
        if path is not None:
            try:
                return language_for(language_written_in(read(path)))
            except RulebookError:  # (a file that does not read: its command says so)
                return None
    return None


def _only_language(argv: list[str]) -> bool:
    """Whether a command line holds nothing but `--lang` (or nothing at all)."""
    return all(
        arg == "--lang" or arg.startswith("--lang=") or (at and argv[at - 1] == "--lang")
        for at, arg in enumerate(argv)
    )


def _first_word(argv: list[str]) -> str | None:
    """What a command line holds first past `--lang` and its language."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--lang":
            skip = True
        elif not arg.startswith("--lang="):
            return arg
    return None


def _command_asked(argv: list[str]) -> str | None:
    """The command a command line names first, if nothing but `--lang` comes before it
    (`rulebook --help roll` asks for the whole list)."""
    first = _first_word(argv)
    return first if first in COMMAND_NAMES else None


def _command_hint(argv: list[str]) -> str | None:
    """`did you mean roll?` for a command line whose command is misspelled."""
    first = _first_word(argv)
    if first is None or first.startswith("-") or first in COMMAND_NAMES:
        return None
    return did_you_mean(first, COMMAND_NAMES)


def main(argv: list[str] | None = None) -> int:
    argv = options.expressions_with_a_minus(sys.argv[1:] if argv is None else list(argv))
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Shown(out), Shown(err)  # control characters shown, not obeyed
    try:
        with surface.spelled_for(surface.COMMAND_LINE):  # messages name --options
            return _main(argv)
    except BrokenPipeError:  # (`rulebook ... | head`: a usage error's lines cut short too)
        return 0
    finally:
        sys.stdout, sys.stderr = out, err


def _main(argv: list[str]) -> int:
    only = _command_asked(argv)
    language = _language_asked(argv)
    if language is None and only in RULEBOOK_COMMANDS:
        language = _rulebook_language(argv[1:])
    parser = build_parser(json_errors="--json" in argv, language=language, only=only)
    if _only_language(argv):  # `rulebook` alone: what it does and its commands, not an error
        parser.print_help(sys.stderr)
        return 2
    parser.command_hint = _command_hint(argv)
    args = parser.parse_args(argv)
    if getattr(args, "lang", None) is None:  # a command's own --lang, else the one before it
        args.lang = args.lang_of_all
    language = args.lang
    try:
        with options.database_of(args):
            return getattr(command_module(args.command), "cmd_" + args.command)(args)
    except RulebookError as error:
        error.speak(getattr(args, "spoken", None))  # (a journal command's, once it knows)
        if getattr(args, "json", False):
            from interpreter.json_data import dumps, error_data

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


if __name__ == "__main__":
    sys.exit(main())
