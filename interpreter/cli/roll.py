"""`rulebook roll EXPR`: roll a dice expression, with its faces and total."""

from __future__ import annotations

import json

from interpreter.cli import options
from interpreter.expression import roll
from interpreter.trace import WORDS
from interpreter.values import to_json


def cmd_roll(args) -> int:
    result = roll(args.expression, options.dice_source(args))
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
        print(f"{result.detail}{options.origin_note(result.origin, WORDS['en'])}")
    return 0
