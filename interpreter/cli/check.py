"""`rulebook check RULEBOOK...`: every error and warning, as file:line:col with a caret."""

from __future__ import annotations

import sys

import dsl
from dsl.errors import RulebookError
from dsl.messages import tr, tr_n
from interpreter.cli import arguments, options


def add_parser(commands) -> None:
    p = commands.add_parser(
        "check",
        help=tr("check rulebooks and print their diagnostics"),
        description=tr("Check rulebooks: every error and warning."),
    )
    p.add_argument("rulebooks", metavar="RULEBOOK", nargs="+")
    arguments.language_option(p)


def cmd_check(args) -> int:
    worst = 0
    for reference in args.rulebooks:
        try:
            book = dsl.load(reference)
        except RulebookError as error:
            print(error.render(args.lang), file=sys.stderr)
            worst = max(worst, error.exit_code)
            continue
        language = options.language(args, book)
        for warning in book.warnings:
            print(warning.render(language))
        count = len(book.warnings)
        if count:
            done = tr_n(
                "{path}: ok ({n} warning)", "{path}: ok ({n} warnings)", count, path=book.path
            )
        else:
            done = tr("{path}: ok", path=book.path)
        print(done.render(language))
    return worst
