"""`rulebook odds EXPR` or `rulebook odds RULEBOOK ACTION`: exact odds, drawn as bars."""

from __future__ import annotations

from pathlib import Path

import dsl
from dsl.errors import RulebookError
from interpreter.cli import options
from interpreter.cli.render import compare_text, progress_bar, to_text
from interpreter.engine import Engine
from interpreter.errors import ParameterError
from interpreter.json_data import comparison_data, dumps, odds_data
from interpreter.odds import BUDGET, TRIALS, action_odds, expression_odds


def _is_rulebook(reference: str) -> bool:
    if reference.endswith(".rules") or Path(reference).is_file():
        return True
    return reference in dsl.shipped_rulebooks()


def cmd_odds(args) -> int:
    budget = args.budget or BUDGET
    if args.action is None and not _is_rulebook(args.target):
        if args.compare or args.char or args.set or args.field:
            raise ParameterError(
                "--char, --set, --field and --compare go with `rulebook odds RULEBOOK ACTION`"
            )
        odds = expression_odds(
            args.target,
            budget=budget,
            trials=args.trials or TRIALS,
            progress=progress_bar(),
        )
        _print(odds, args)
        return 0
    if args.action is None:
        raise ParameterError(
            f"which action of {args.target}? write `rulebook odds {args.target} ACTION`",
            None,
            "`rulebook describe " + args.target + "` lists them",
        )
    book = dsl.load(args.target)
    engine = Engine.of(book)
    sheet = options.sheet_for(args, book, engine, args.action)
    params = options.params_of(args.set)
    extra = {"trials": args.trials or TRIALS, "progress": progress_bar(), "budget": budget}
    odds = action_odds(engine, args.action, sheet, params, args.field, **extra)
    refused = odds.refused()
    if refused is not None and not args.compare:  # as `rulebook run` would: exit 4
        if len(odds.probabilities) == 1 and refused.error is not None:
            raise refused.error.speak(engine.language)
        _print(odds, args, book)
        return refused.error.exit_code if refused.error is not None else 4
    if not args.compare:
        _print(odds, args, book)
        return 0
    other, names = _other(args, book, engine, sheet, params, extra)
    if args.json:
        print(dumps(comparison_data(odds, other, names, options.language(args, book))))
        return 0
    language = options.language(args, book)
    print(to_text(odds, args.fractions, language))
    print()
    print(to_text(other, args.fractions, language))
    print()
    print(compare_text(odds, other, names, language))
    return 0


def _other(args, book, engine, sheet, params, extra):
    """The distribution to compare with: another rulebook, or other parameters."""
    compare = args.compare
    if "=" in compare and not _is_rulebook(compare):
        changed = dict(params)
        for pair in compare.split(","):
            name, equals, value = pair.partition("=")
            if not equals:
                raise ParameterError(f"--compare {compare!r}: write NAME=VALUE,... or a rulebook")
            changed[name.strip()] = value.strip()
        other = action_odds(engine, args.action, sheet, changed, args.field, **extra)
        return other, ("as given", compare)
    other_book = dsl.load(compare)
    other_engine = Engine.of(other_book)
    try:
        other_sheet = other_engine.sheet(sheet.to_data(), sheet.path)
    except RulebookError as error:
        raise ParameterError(
            f"--compare {compare}: the sheet does not fit it ({error.message})"
        ) from None
    other = action_odds(other_engine, args.action, other_sheet, params, args.field, **extra)
    return other, (book.title, other_book.title)


def _print(odds, args, book=None) -> None:
    if args.json:
        print(dumps(odds_data(odds, options.language(args, book))))
    else:
        print(to_text(odds, args.fractions, options.language(args, book)))
