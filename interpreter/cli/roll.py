"""`rulebook roll EXPR`: roll a dice expression, with its faces and total."""

from __future__ import annotations

from interpreter.cli import options
from interpreter.expression import roll
from interpreter.json_data import dumps, roll_data


def cmd_roll(args) -> int:
    result = roll(args.expression, options.dice_source(args))
    language = options.language(args)
    if args.json:
        print(dumps(roll_data(result, language)))
    else:
        print(f"{result.detail}{options.origin_note(result.origin, language)}")
    return 0
