"""`rulebook run RULEBOOK ACTION`: run an action against a character, show the trace."""

from __future__ import annotations

from dsl.errors import RulebookError
from dsl.messages import Message, show_value, tr, translate
from interpreter.cli import options
from interpreter.engine import Engine
from interpreter.errors import ParameterError
from interpreter.json_data import dumps, run_data
from interpreter.trace import render_text


def cmd_run(args) -> int:
    book = options.load_rulebook(args.rulebook)
    language = options.language(args, book)
    engine = Engine.of(book)
    if args.save and args.char is None:
        raise ParameterError(tr("--save needs --char: the sheet to write back"))
    try:
        sheet = options.sheet_for(args, book, engine)
        params = options.params_of(args.set)
        outcome = engine.run(args.action, sheet, params, options.dice_source(args, language))
    except RulebookError as error:
        raise error.speak(language) from None
    if args.save:
        outcome.sheet.save(sheet.path)
    if args.json:
        print(dumps(run_data(outcome, language)))
        return 0
    print(f"{book.title} · {args.action}")
    print(render_text(outcome.trace, language))
    print(outcome_text(outcome, language))
    if args.save:
        print(tr("saved {path}", path=str(sheet.path)).render(language))
    return 0


def outcome_text(outcome, language: str) -> str:
    """The result, the changes and the dice of a run, after its trace."""
    lines = []
    if outcome.result is not None:
        if hasattr(outcome.result, "items"):
            shown = Message.joined(
                tr("{name} {value}", name=k, value=v) for k, v in outcome.result.items()
            )
        else:
            shown = outcome.result
        lines.append(tr("result: {result}", result=shown).render(language))
    if outcome.changes:
        lines.append(tr("changes:").render(language))
        for change in outcome.changes:
            before, after = show_value(change.before, language), show_value(change.after, language)
            lines.append(f"  {change.path}: {before} → {after}")
    else:
        lines.append(tr("changes: none").render(language))
    dice = ", ".join(map(str, outcome.dice)) or translate(tr("none"), language)
    lines.append(
        tr("dice: {dice}", dice=dice).render(language)
        + options.origin_note(outcome.origin, language)
    )
    return "\n".join(lines)
