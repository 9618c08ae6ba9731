"""Errors of the journal: missing or damaged, a refused undo, a bad record, misfit choices."""

from __future__ import annotations

from dsl.errors import RulebookError


class JournalError(RulebookError):
    """A journal that is missing, not a journal, or damaged. Exit code 3."""

    code = "journal_error"

    exit_code = 3


class NoJournal(JournalError):
    """No journal where one was looked for. Exit code 2 (a usage error)."""

    code = "no_journal"

    exit_code = 2


class UndoRefused(JournalError):
    """An undo that would throw away a later change; `force` overrides. Exit code 4."""

    code = "undo_refused"

    exit_code = 4


class RecordMismatch(JournalError):
    """A record that does not come out again as it was recorded. Exit code 4."""

    code = "record_mismatch"

    exit_code = 4


class ChoicesDoNotFit(JournalError):
    """A recorded run's choices that the rules it runs again with do not take: a choice
    it did not make, or an answer that is not an open option now. Exit code 4."""

    code = "choices_do_not_fit"

    exit_code = 4
