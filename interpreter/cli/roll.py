"""`rulebook roll EXPR`: roll a dice expression, with its faces and total."""

from __future__ import annotations

from dsl.messages import tr
from interpreter.cli import arguments, options


def add_parser(commands) -> None:
    p = commands.add_parser(
        "roll",
        help=tr("roll a dice expression"),
        description=tr("Roll a dice expression such as 4d6kh3 + 2."),
    )
    p.add_argument("expression", metavar="EXPR")
    arguments.dice_options(p, ask=False)
    arguments.output_options(p)


def cmd_roll(args) -> int:
    from interpreter.expression import roll

    args.expression = args.expression.strip()  # ` -1d6`: see options.expressions_with_a_minus
    result = roll(args.expression, options.dice_source(args))
    language = options.language(args)
    options.print_warnings(args.expression, language)
    if args.json:
        from interpreter.json_data import dumps, roll_data

        print(dumps(roll_data(result, language)))
    else:
        print(f"{result.detail}{options.origin_note(result.origin, language, args.seed)}")
    return 0
