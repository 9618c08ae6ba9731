"""`rulebook odds EXPR` or `rulebook odds RULEBOOK ACTION`: exact odds, drawn as bars."""

from __future__ import annotations

from pathlib import Path

import dsl
from dsl.errors import RulebookError
from dsl.messages import tr, translate
from interpreter.cli import arguments, options
from interpreter.cli.choosing import answers_of, choose_option
from interpreter.errors import ParameterError
from interpreter.json_data import comparison_data, dumps, odds_data
from interpreter.limits import DEFAULT_LIMITS


def add_parser(commands) -> None:
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
    arguments.run_options(p)
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
        type=arguments.positive(int),
        metavar="N",
        help=tr("exact work allowed before falling back to sampling"),
    )
    p.add_argument(
        "--trials", type=arguments.positive(int), metavar="N", help=tr("trials when sampling")
    )
    p.add_argument(
        "--timeout",
        type=arguments.positive(float),
        metavar="SECONDS",
        help=tr(
            "seconds of computing for sampling; --budget bounds the exact count "
            "(default {seconds:g})",
            seconds=DEFAULT_LIMITS.odds_seconds,
        ),
    )
    arguments.output_options(p)


def _is_rulebook(reference: str) -> bool:
    if reference.endswith(".rules") or Path(reference).is_file():
        return True
    return reference in dsl.shipped_rulebooks()


def cmd_odds(args) -> int:
    from interpreter.cli.render import compare_text, progress_bar, to_text
    from interpreter.engine import Engine
    from interpreter.odds import BUDGET, TRIALS, expression_odds

    args.target = args.target.strip()  # ` -2d4`: see options.expressions_with_a_minus
    budget = args.budget or BUDGET
    if args.action is None and not _is_rulebook(args.target):
        if args.compare or args.char or args.set or args.field:
            raise ParameterError(
                tr("--char, --set, --field and --compare go with `rulebook odds RULEBOOK ACTION`")
            )
        odds = expression_odds(
            args.target,
            budget=budget,
            trials=args.trials or TRIALS,
            progress=progress_bar(language=options.language(args)),
            seconds=args.timeout,
        )
        options.print_warnings(args.target, options.language(args))
        _print(odds, args)
        return 0
    if args.action is None:
        raise ParameterError(
            tr(
                "which action of {target}? write `rulebook odds {target2} ACTION`",
                target=args.target,
                target2=args.target,
            ),
            None,
            tr("`rulebook describe {target}` lists them", target=args.target),
        )
    book = dsl.load(args.target)
    engine = Engine.of(book)
    sheet = options.sheet_for(args, book, engine, args.action)
    params = options.params_of(args.set)
    params.update(options.targets_of(args, book, engine, args.action))
    seconds = args.timeout or engine.limits.odds_seconds
    extra = {
        "trials": args.trials or TRIALS,
        "progress": progress_bar(language=options.language(args, book)),
        "budget": budget,
        # the time allowed in all: two answers compared share it
        "seconds": seconds / 2 if args.compare else seconds,
        "choices": answers_of(args.choose),
        "best": args.best,
    }
    odds = engine.odds(args.action, sheet, params, args.field, **extra)
    refused = odds.refused()
    if refused is not None and not args.compare:  # as `rulebook run` would: exit 4
        if odds.size == 1 and refused.error is not None:
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
    for letter, name, each in (("A", names[0], odds), ("B", names[1], other)):
        print(f"{letter}: {translate(name, language)}")  # (both tables have one title)
        print(to_text(each, args.fractions, language))
        print()
    print(compare_text(odds, other, names, language))
    return 0


def _other(args, book, engine, sheet, params, extra):
    """The distribution to compare with: another rulebook, or other parameters."""
    from interpreter.engine import Engine

    compare = args.compare
    if "=" in compare and not _is_rulebook(compare):
        changed = dict(params)
        for pair in compare.split(","):
            name, equals, value = pair.partition("=")
            if not equals:
                raise ParameterError(
                    tr(
                        "--compare {compare}: write NAME=VALUE,... or a rulebook",
                        compare=repr(compare),
                    )
                )
            changed[name.strip()] = value.strip()
        other = engine.odds(args.action, sheet, changed, args.field, **extra)
        return other, (tr("as given"), compare)
    other_book = dsl.load(compare)
    other_engine = Engine.of(other_book)
    try:
        other_sheet = other_engine.sheet(sheet.to_data(), sheet.path)
    except RulebookError as error:
        raise ParameterError(
            tr(
                "--compare {compare}: the sheet does not fit it ({message})",
                compare=compare,
                message=error.message,
            )
        ) from None
    other = other_engine.odds(args.action, other_sheet, params, args.field, **extra)
    return other, (book.title, other_book.title)


def _print(odds, args, book=None) -> None:
    from interpreter.cli.render import to_text

    if args.json:
        print(dumps(odds_data(odds, options.language(args, book))))
    else:
        print(to_text(odds, args.fractions, options.language(args, book)))
