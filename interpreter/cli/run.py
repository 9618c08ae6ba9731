"""`rulebook run RULEBOOK ACTION`: run an action against a character, show the trace."""

from __future__ import annotations

import sys
from contextlib import nullcontext
from pathlib import Path

from dsl.errors import RulebookError
from dsl.messages import Message, show_value, tr, translate
from interpreter.cli import options
from interpreter.cli.choosing import chooser_of
from interpreter.engine import Engine
from interpreter.errors import EvaluationError, ParameterError
from interpreter.journal import JOURNAL_NAME, Journal, holding, save_run
from interpreter.journal.store import place_below
from interpreter.json_data import dumps, run_data
from interpreter.safe_files import Inside
from interpreter.sheets.character import refuse_shipped
from interpreter.trace import render_text


def cmd_run(args) -> int:
    book = options.load_rulebook(args.rulebook)
    language = options.language(args, book)
    engine = Engine.of(book)
    saving = args.save or args.save_as is not None
    try:
        if saving:
            outcome, saved = _run_and_save(args, book, engine, language)
        else:
            sheet = options.sheet_for(args, book, engine, args.action)
            targets = options.targets_of(args, book, engine, args.action)
            params = options.params_of(args.set)
            dice = options.dice_source(args, language, symbols=bool(book.dice))
            choices = chooser_of(args, language)
            outcome = engine.run(args.action, sheet, params, dice, targets=targets, choices=choices)
            saved = None
    except EvaluationError as error:
        if error.trace is not None and not args.json:  # what happened, up to the failure
            print(f"{book.title} · {args.action}")
            print(render_text(error.trace, language))
        raise error.speak(language) from None
    except RulebookError as error:
        raise error.speak(language) from None
    for warning in outcome.warnings:
        print(translate(tr("warning: {warning}", warning=warning), language), file=sys.stderr)
    if args.json:
        data = run_data(outcome, language)
        if saved is not None:
            data["saved"] = saved
        print(dumps(data))
        return 0
    print(f"{book.title} · {args.action}")
    print(render_text(outcome.trace, language, args.verbose))
    print(outcome_text(outcome, language))
    if saved is not None:
        done = tr(
            "saved {path} (journal {journal}, run {entry})",
            path=", ".join([saved["path"], *saved.get("others", {}).values()]),
            journal=saved["journal"],
            entry=saved["entry"],
        )
        print(done.render(language))
    return 0


def outcome_text(outcome, language: str) -> str:
    """The result, the changes and the dice of a run, after its trace."""
    lines = []
    if outcome.result is not None:
        if hasattr(outcome.result, "items"):
            shown = Message.joined(
                (tr("{name} {value}", name=k, value=v) for k, v in outcome.result.items()), ", "
            )
        else:
            shown = outcome.result
        lines.append(tr("result: {result}", result=shown).render(language))
    if outcome.characters:  # one list per character: the acting one, then the others
        lines.extend(_changes(_label(outcome.sheet), outcome.changes, language))
        for other in outcome.characters:
            who = tr("{label} ({role})", label=other.label, role=other.role)
            lines.extend(_changes(who, other.changes, language))
    elif outcome.changes:
        lines.append(tr("changes:").render(language))
        lines.extend(_change_lines(outcome.changes, language))
    else:
        lines.append(tr("changes: none").render(language))
    dice = ", ".join(map(str, outcome.dice)) or translate(tr("none"), language)
    lines.append(
        tr("dice: {dice}", dice=dice).render(language)
        + options.origin_note(outcome.origin, language)
    )
    return "\n".join(lines)


def _changes(who, changes, language) -> list:
    """`changes of orc (objetivo):` and a line per change (or `changes of ...: none`)."""
    if not changes:
        return [tr("changes of {who}: none", who=who).render(language)]
    head = tr("changes of {who}:", who=who).render(language)
    return [head, *_change_lines(changes, language)]


def _change_lines(changes, language) -> list:
    out = []
    for change in changes:
        before, after = show_value(change.before, language), show_value(change.after, language)
        out.append(f"  {change.path}: {before} → {after}")
    return out


def _label(sheet) -> str:
    return Path(sheet.path).stem if sheet.path else "self"


def _run_and_save(args, book, engine, language):
    """Read, run and save as one step: the sheet file and its journal entry together."""
    if args.char is None:
        raise ParameterError(tr("--save needs --char: the sheet to write back"))
    if args.save and args.save_as is not None:
        raise ParameterError(tr("--save and --save-as: choose one"))
    source = options.resolve_character(args.char, book)
    target = Path(args.save_as) if args.save_as is not None else source
    refuse_shipped(target)  # before any die is rolled
    Inside.beside(target).refuse_link()  # a save never writes through a link
    if args.save_as is not None and target.exists():
        raise ParameterError(
            tr("--save-as {path}: the file exists", path=str(target)),
            None,
            tr(
                "save into it with --char {path} --save, or name a new file",
                path=str(target),
            ),
        )
    journal_path = Path(args.journal) if args.journal else target.resolve().parent / JOURNAL_NAME
    dice = options.dice_source(args, language, symbols=bool(book.dice))
    params = options.params_of(args.set)
    save_as = {"self": target} if args.save_as is not None else None
    others = options.target_files(args, book, args.action)
    for path in others.values():
        refuse_shipped(path)
    files = [target, *others.values()]
    if len({p.resolve() for p in files}) != len(files):  # two roles, one file: which wins?
        raise ParameterError(tr("--save: two characters of the run are the same file"))
    for path in files:  # each a file the journal may name, before the journal is made
        place_below(journal_path.parent, path)
    with Journal(journal_path) as journal:
        # Dice typed in at the table take a person's time: the folder is not held while
        # they are asked for (a save in between makes this one refuse, exit 4).
        held = holding(journal, files) if not (args.ask or _asks(args)) else nullcontext()
        with held:
            sheet = engine.load_sheet(source)
            targets = options.targets_of(args, book, engine, args.action)
            choices = chooser_of(args, language)
            outcome = engine.run(args.action, sheet, params, dice, targets=targets, choices=choices)
            # every changed sheet is written, or none: the journal entry holds them all
            before = {"self": sheet, **targets}
            number = save_run(journal, outcome, before, book, dice, save_as)
        saved = {"path": str(target), "journal": str(journal.path), "entry": number}
        changed = [c.role for c in outcome.characters if c.changes]
        if changed:
            saved["others"] = {role: str(others[role]) for role in changed}
        return outcome, saved


def _asks(args) -> bool:
    """Whether the run may ask a person at the table (a choice not answered with
    --choose): which choices an action makes is known only as it runs."""
    return sys.stdin.isatty()
