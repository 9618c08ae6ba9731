"""The journal on PostgreSQL (interpreter.journal.postgres): what only that backend has, and
what the command line says of a database (the rest runs on both: conftest.journal_backend)."""

from __future__ import annotations

import os

import pytest
from journal_helpers import brujeria, character, journaled_run

from interpreter import SeededDice
from interpreter.cli.main import main
from interpreter.journal import Journal, JournalError, NoJournal, schema
from interpreter.journal.postgres import DATABASE_ENV, shown

pytestmark = [pytest.mark.postgres_only, pytest.mark.usefixtures("journal_backend")]


def database() -> str:
    return os.environ[DATABASE_ENV]


def test_an_empty_database_is_no_journal_until_the_first_save(tmp_path):
    with pytest.raises(NoJournal, match="no journal at postgresql://"):
        Journal(tmp_path / "journal.sqlite", create=False)
    path = character(tmp_path)
    with Journal.beside(path) as journal:
        number, _ = journaled_run(journal, brujeria(), path, "asustarse", {}, SeededDice(1))
        assert number == 1 and journal.on_postgres
        assert journal.connection.version() == schema.VERSION
    assert not (tmp_path / "journal.sqlite").exists()  # the database holds it, not a file
    with Journal(tmp_path / "journal.sqlite", create=False) as journal:
        assert [e.id for e in journal.entries()] == [1]


def test_a_newer_journal_is_refused_rather_than_misread(tmp_path):
    with Journal(tmp_path / "journal.sqlite") as journal:
        journal.connection.execute("UPDATE journal_schema SET version = ?", (schema.VERSION + 1,))
    with pytest.raises(JournalError, match="newer than this rulebook understands"):
        Journal(tmp_path / "journal.sqlite")


def test_a_discarded_entry_gives_its_number_back_as_on_sqlite(tmp_path):
    path = character(tmp_path)
    with Journal.beside(path) as journal:
        first = journal.add_entry(kind="run", sheets=[], changes=[], action="x")
        journal.discard(first)
        again = journal.add_entry(kind="run", sheets=[], changes=[], action="y")
    assert first == again == 1  # the largest number and one, as SQLite numbers a row


def test_a_text_with_a_nul_character_is_kept_as_it_is(tmp_path):
    with Journal(tmp_path / "journal.sqlite") as journal, journal.transaction():
        digest = journal.put_text("a\x00b")
    with Journal(tmp_path / "journal.sqlite") as journal:
        assert journal.text(digest) == "a\x00b"


def test_the_command_line_names_the_database_and_never_its_password(tmp_path, capsys, monkeypatch):
    url = "postgresql://someone:hunter2@/nowhere?host=" + str(tmp_path)
    assert shown(url) == "postgresql://someone:***@/nowhere?host=" + str(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["--lang", "en", "log", "--database", url]) == 3
    err = capsys.readouterr().err
    assert "cannot be reached" in err and "hunter2" not in err and "someone:***@" in err
    assert main(["--lang", "en", "log", "--database", "sqlite:///x.db"]) == 2
    assert "--database takes a PostgreSQL URL" in capsys.readouterr().err
    assert main(["--lang", "en", "log", "--database", database()]) == 2  # none yet
    assert "no journal at postgresql://" in capsys.readouterr().err
