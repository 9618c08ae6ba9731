"""`rulebook run RULEBOOK ACTION`: run an action against a character, show the trace."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

from interpreter.cli import options
from interpreter.engine import Engine
from interpreter.errors import ParameterError
from interpreter.journal import JOURNAL_NAME, Journal, holding, save_run
from interpreter.sheet import refuse_shipped
from interpreter.trace import render_text
from interpreter.values import show


def cmd_run(args) -> int:
    book = options.load_rulebook(args.rulebook)
    engine = Engine.of(book)
    saving = args.save or args.save_as is not None
    if saving:
        outcome, saved = _run_and_save(args, book, engine)
    else:
        sheet = options.sheet_for(args, book, engine)
        outcome, saved = (
            engine.run(args.action, sheet, options.params_of(args.set), options.dice_source(args)),
            None,
        )
    if args.json:
        data = outcome.to_json()
        if saved is not None:
            data["saved"] = saved
        print(json.dumps(data, ensure_ascii=False, indent=2))
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
    if saved is not None:
        print(f"saved {saved['path']} (journal {saved['journal']}, run {saved['entry']})")
    return 0


def _run_and_save(args, book, engine):
    """Read, run and save as one step: the sheet file and its journal entry together."""
    if args.char is None:
        raise ParameterError("--save needs --char: the sheet to write back")
    if args.save and args.save_as is not None:
        raise ParameterError("--save and --save-as: choose one")
    source = options.resolve_character(args.char, book)
    target = Path(args.save_as) if args.save_as is not None else source
    refuse_shipped(target)  # before any die is rolled
    if args.save_as is not None and target.exists():
        raise ParameterError(
            f"--save-as {target}: the file exists",
            None,
            f"save into it with --char {target} --save, or name a new file",
        )
    journal_path = Path(args.journal) if args.journal else target.resolve().parent / JOURNAL_NAME
    dice = options.dice_source(args)
    params = options.params_of(args.set)
    save_as = {"self": target} if args.save_as is not None else None
    with Journal(journal_path) as journal:
        # Dice typed in at the table take a person's time: the folder is not held while
        # they are asked for (a save in between makes this one refuse, exit 4).
        held = holding(journal, [target]) if not args.ask else nullcontext()
        with held:
            sheet = engine.load_sheet(source)
            outcome = engine.run(args.action, sheet, params, dice)
            number = save_run(journal, outcome, sheet, book, dice, save_as)
        return outcome, {"path": str(target), "journal": str(journal.path), "entry": number}
