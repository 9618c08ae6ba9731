"""`rulebook log [CHARACTER]`: the journal's history, newest first, one line a run."""

from __future__ import annotations

from pathlib import Path

from dsl.messages import tr
from interpreter.cli import history, options
from interpreter.json_data import dumps, log_data


def add_parser(commands) -> None:
    p = commands.add_parser(
        "log",
        help=tr("the history of saved runs, newest first"),
        description=tr(
            "The journal's runs, newest first: when, which sheet, the "
            "action, its result and what it changed."
        ),
    )
    p.add_argument("character", metavar="CHARACTER", nargs="?", help=tr("only this sheet's runs"))
    p.add_argument("--limit", type=int, metavar="N", help=tr("only the last N entries"))
    p.add_argument("--json", action="store_true", help=tr("print JSON"))
    options.journal_option(p, here=True)


def cmd_log(args) -> int:
    from interpreter.journal import undone_by

    with options.open_journal(args) as journal:
        language = options.journal_language(args, journal)
        sheet = stored_name(journal, args.character) if args.character else None
        entries = journal.entries(sheet=sheet, newest_first=True, limit=args.limit)
        all_entries = journal.entries()
        languages = options.entry_languages(args, journal, entries)
    by = undone_by(all_entries)
    if args.json:
        print(dumps(log_data(entries, by, language)))
        return 0
    if not entries:
        if args.character:
            print(tr("no saved runs of {name}", name=args.character).render(language))
        else:
            print(tr("no saved runs").render(language))
        return 0
    for entry in entries:  # (each in its own rulebook's language)
        print(history.log_line(entry, by, languages[entry.id]))
    return 0


def stored_name(journal, character: str) -> str:
    """A sheet as the journal names it: a file path, or a name (its file's stem)."""
    known = journal.sheet_paths()
    if character in known:
        return character
    by_stem = [p for p in known if Path(p).stem == character]
    if by_stem:
        return by_stem[0]
    return journal.stored_path(character)
