"""`rulebook check RULEBOOK...`: every error and warning, as file:line:col with a caret."""

from __future__ import annotations

import sys

import dsl
from dsl.errors import RulebookError


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
