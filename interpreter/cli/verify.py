"""`rulebook verify FILE`: run an exported record again and confirm its result."""

from __future__ import annotations

from dsl.messages import language_for, tr
from dsl.reading import TooLarge, read_regular
from interpreter.cli import history, options
from interpreter.errors import ParameterError


def add_parser(commands) -> None:
    p = commands.add_parser(
        "verify",
        help=tr("re-run an exported run record and confirm its result"),
        description=tr(
            "Check a record written by `rulebook export`: its texts "
            "against their hashes, then the run again with its dice; exit "
            "0 when it gives the recorded result, changes and sheet, 4 "
            "when it does not, 3 when the record was altered."
        ),
    )
    p.add_argument("file", metavar="FILE")


def cmd_verify(args) -> int:
    from interpreter.journal import JournalError, read_record, verify_record
    from interpreter.journal.bundle import written_language
    from interpreter.journal.entries import MAX_SOURCES
    from interpreter.journal.export import MAX_RECORD_SIZE

    language = options.language(args)
    try:  # (a record past the bound is not read; a named pipe is never waited on)
        data = read_regular(args.file, MAX_RECORD_SIZE)
    except TooLarge:
        raise JournalError(
            tr("the record is larger than {max_record_size} bytes", max_record_size=MAX_RECORD_SIZE)
        ) from None
    except OSError as error:
        raise ParameterError(
            tr("{file}: cannot be read ({error})", file=args.file, error=error.strerror)
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise JournalError(tr("{file}: not a record (not UTF-8 text)", file=args.file)) from None
    record = read_record(text)
    sources = (record.get("rulebook") or {}).get("sources")
    if isinstance(sources, list):  # (the record's own rulebook's language, as `run` speaks)
        texts = (s.get("text") for s in sources[:MAX_SOURCES] if isinstance(s, dict))
        language = language_for(args.lang, written_language(texts))
        args.spoken = language
    verified = verify_record(record)
    print(
        tr("verified: {action} gives the recorded result", action=verified.action).render(language)
    )
    print(
        tr(
            "  result: {result_text}",
            result_text=history.result_text(verified.result, None, language),
        ).render(language)
    )
    print(
        tr(
            "  changes: {changes_text}",
            changes_text=history.changes_text(
                [dict(c) for c in verified.changes], language=language
            ),
        ).render(language)
    )
    print(tr("  rulebook {value}", value=verified.rulebook[:12]).render(language))
    return 0
