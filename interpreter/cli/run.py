"""`rulebook run RULEBOOK ACTION`: run an action against a character, show the trace."""

from __future__ import annotations

import json

from interpreter.cli import options
from interpreter.engine import Engine
from interpreter.errors import ParameterError
from interpreter.trace import render_text
from interpreter.values import show


def cmd_run(args) -> int:
    book = options.load_rulebook(args.rulebook)
    engine = Engine.of(book)
    sheet = options.sheet_for(args, book, engine)
    if args.save and args.char is None:
        raise ParameterError("--save needs --char: the sheet to write back")
    outcome = engine.run(args.action, sheet, options.params_of(args.set), options.dice_source(args))
    if args.save:
        outcome.sheet.save(sheet.path)
    if args.json:
        print(json.dumps(outcome.to_json(), ensure_ascii=False, indent=2))
        return 0
    words = engine.words
    print(f"{book.title} · {args.action}")
    print(render_text(outcome.trace, words))
    if outcome.result is not None:
        print("result: " + ", ".join(f"{k} {show(v)}" for k, v in outcome.result.items()))
    if outcome.changes:
        print("changes:")
        for change in outcome.changes:
            print(f"  {change.path}: {show(change.before)} → {show(change.after)}")
    else:
        print("changes: none")
    dice = ", ".join(map(str, outcome.dice)) or "none"
    print(f"dice: {dice}{options.origin_note(outcome.origin, words)}")
    if args.save:
        print(f"saved {sheet.path}")
    return 0
