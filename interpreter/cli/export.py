"""`rulebook export N`: one journaled run as a self-contained JSON record."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from dsl.messages import tr
from interpreter.cli import options
from interpreter.errors import ParameterError
from interpreter.safe_files import write_atomic


def add_parser(commands) -> None:
    p = commands.add_parser(
        "export",
        help=tr("write one saved run as a self-contained JSON record"),
        description=tr(
            "Write run N as JSON: the rulebook's texts and hash, the "
            "action, its parameters, the sheets, the dice with their "
            "origin, the result. `rulebook verify FILE` runs it again "
            "anywhere."
        ),
    )
    p.add_argument("number", type=int, metavar="N")
    p.add_argument("-o", "--output", metavar="FILE", help=tr("write to FILE (default: print it)"))
    options.journal_option(p, here=True)


def cmd_export(args) -> int:
    from interpreter.journal import JournalError, export_record

    with options.open_journal(args) as journal:
        language = options.journal_language(args, journal)
        with contextlib.suppress(JournalError):  # (its own rulebook's language)
            language = options.journal_language(args, journal, [journal.entry(args.number)])
        record = export_record(journal, args.number)
    text = json.dumps(record, ensure_ascii=False, indent=2) + "\n"
    if args.output is None:
        print(text, end="")
        return 0
    try:
        write_atomic(Path(args.output), text)
    except OSError as error:
        raise ParameterError(
            tr(
                "{output}: cannot be written ({strerror})",
                output=args.output,
                strerror=error.strerror,
            )
        ) from None
    print(
        tr("run {number} written to {output}", number=args.number, output=args.output).render(
            language
        )
    )
    return 0
