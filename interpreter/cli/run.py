"""`rulebook run RULEBOOK ACTION`: run an action against a character, show the trace."""

from __future__ import annotations

import json
import sys

from interpreter.cli import options
from interpreter.engine import Engine
from interpreter.errors import EvaluationError, ParameterError
from interpreter.trace import render_text
from interpreter.values import show, to_json


def cmd_run(args) -> int:
    book = options.load_rulebook(args.rulebook)
    engine = Engine.of(book)
    sheet = options.sheet_for(args, book, engine)
    if args.save and args.char is None:
        raise ParameterError("--save needs --char: the sheet to write back")
    words = engine.words
    try:
        outcome = engine.run(
            args.action, sheet, options.params_of(args.set), options.dice_source(args)
        )
    except EvaluationError as error:
        if error.trace is not None and not args.json:  # what happened, up to the failure
            print(f"{book.title} · {args.action}")
            print(render_text(error.trace, words))
        raise
    for warning in outcome.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if args.save:
        outcome.sheet.save(sheet.path)
    if args.json:
        print(json.dumps(outcome_json(outcome), ensure_ascii=False, indent=2))
        return 0
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


def outcome_json(outcome) -> dict:
    return {
        "action": outcome.action,
        "params": to_json(outcome.params),
        "result": to_json(outcome.result),
        "changes": [
            {"path": c.path, "before": to_json(c.before), "after": to_json(c.after)}
            for c in outcome.changes
        ],
        "sheet": to_json(outcome.sheet.to_data()),
        "trace": [step.to_json() for step in outcome.trace],
        "dice": list(outcome.dice),
        "origin": outcome.origin,
        "kind": outcome.kind,
        "warnings": list(outcome.warnings),
    }
