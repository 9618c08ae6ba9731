"""`rulebook undo [N]`: the sheets as they were before run N, journaled as its own entry."""

from __future__ import annotations

import contextlib

from dsl.messages import tr
from interpreter.cli import history, options


def add_parser(commands) -> None:
    p = commands.add_parser(
        "undo",
        help=tr("put the sheets back as they were before a run"),
        description=tr(
            "Put every sheet a run changed back as it was before the run "
            "(by default the last run that still stands). The undo is an "
            "entry of its own: undo it to bring the run back. Refused "
            "when a later run changed the same sheet, or the file was "
            "edited since, unless --force."
        ),
    )
    p.add_argument(
        "number", type=int, metavar="N", nargs="?", help=tr("the run (default: the last)")
    )
    p.add_argument("--force", action="store_true", help=tr("undo even over later changes"))
    options.journal_option(p, here=True)


def cmd_undo(args) -> int:
    from interpreter.journal import JournalError, undo

    with options.open_journal(args) as journal:
        language = options.journal_language(args, journal)
        if args.number is not None:  # (its refusals in its own rulebook's language)
            with contextlib.suppress(JournalError):
                language = options.journal_language(args, journal, [journal.entry(args.number)])
        number = undo(journal, args.number, force=args.force)
        entry = journal.entry(number)
        undone = journal.entry(entry.undoes)
        language = options.journal_language(args, journal, [undone])
    if undone.kind == "rulebook":
        target = tr("the save of rulebook {name} ({number})", name=entry.action, number=undone.id)
    elif undone.kind == "sheet":
        target = tr("the sheet written by hand ({number})", number=undone.id)
    elif entry.action:
        target = tr("run {number} ({action})", number=entry.undoes, action=entry.action)
    else:
        target = tr("run {number}", number=entry.undoes)
    print(
        tr(
            "undid {target}: {changes_text}",
            target=target,
            changes_text=history.changes_text(entry.changes, language=language),
        ).render(language)
    )
    print(
        tr(
            "  recorded as entry {number}; `rulebook undo {number2}` brings it back",
            number=number,
            number2=number,
        ).render(language)
    )
    return 0
