"""A rulebook file saved over is journaled like a run (interpreter.journal.save_file): its
text before kept, put back by `undo` (a file that did not exist taken away again), a save
a crash interrupted completed, older journals migrated; and the commands say so."""

from __future__ import annotations

import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from postgres_backend import fresh_journal

from interpreter.cli.main import main
from interpreter.journal import (
    Journal,
    JournalError,
    UndoRefused,
    export_record,
    lines_as_read,
    save_file,
    schema,
    undo,
    verify_journal,
)
from interpreter.journal.recovery import complete_pending
from interpreter.sheets.character import text_digest

OLD = 'rulebook "Casa" extends brujeria {\n}\n'
NEW = 'rulebook "Casa" extends brujeria {\n}\ntable Nueva { a: 1 }\n'

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "journal.sqlite") as journal:
        yield journal


def test_a_save_over_keeps_the_old_text_and_undo_puts_it_back(journal, tmp_path):
    target = tmp_path / "casa.rules"
    target.write_text(OLD, encoding="utf-8")
    number = save_file(journal, target, NEW, "casa")
    assert target.read_text(encoding="utf-8") == NEW
    entry = journal.entry(number)
    assert (entry.kind, entry.state, entry.action) == ("rulebook", "applied", "casa")
    [state] = entry.sheets
    assert (state.path, state.text_format) == ("casa.rules", "rules")
    assert journal.text(state.before) == OLD and journal.text(state.after) == NEW
    back = undo(journal, number)
    assert target.read_text(encoding="utf-8") == OLD
    assert journal.entry(back).undoes == number
    undo(journal, back)  # the undo undone: the save stands again
    assert target.read_text(encoding="utf-8") == NEW


def test_the_save_that_made_a_file_is_undone_by_taking_it_away(journal, tmp_path):
    target = tmp_path / "nueva.rules"
    number = save_file(journal, target, NEW, "nueva")
    assert journal.entry(number).sheets[0].before is None
    back = undo(journal, number)
    assert not target.exists()
    assert journal.entry(back).sheets[0].after is None
    undo(journal, back)
    assert target.read_text(encoding="utf-8") == NEW
    assert verify_journal(journal).consistent


def test_undo_is_refused_over_a_later_edit_and_a_later_save(journal, tmp_path):
    target = tmp_path / "casa.rules"
    target.write_text(OLD, encoding="utf-8")
    first = save_file(journal, target, NEW, "casa")
    target.write_text(NEW + "# a hand edit\n", encoding="utf-8")
    with pytest.raises(UndoRefused, match="edited since"):
        undo(journal, first)
    second = save_file(journal, target, OLD, "casa")
    with pytest.raises(UndoRefused, match="later run changed it too"):
        undo(journal, first)
    undo(journal)  # by default the last standing entry: the second save
    assert target.read_text(encoding="utf-8") == NEW + "# a hand edit\n"
    assert second == first + 1


def test_a_refusal_under_the_lock_writes_nothing(journal, tmp_path):
    target = tmp_path / "casa.rules"
    target.write_text(OLD, encoding="utf-8")

    def refuse(current):
        assert current == OLD  # the file as it is under the lock
        raise JournalError("no")

    with pytest.raises(JournalError):
        save_file(journal, target, NEW, "casa", refuse)
    assert target.read_text(encoding="utf-8") == OLD and journal.entries() == []
    assert save_file(journal, target, OLD, "casa") is None  # the same text: nothing to keep


@pytest.mark.parametrize("before", [OLD, None])
def test_a_save_a_crash_interrupted_is_completed(journal, tmp_path, before):
    target = tmp_path / "casa.rules"
    if before is not None:
        target.write_text(before, encoding="utf-8")
    # the entry written, the file not yet: as a kill between the two leaves it
    sheets = [("rulebook", target, "rules", before, NEW)]
    number = journal.add_entry(kind="rulebook", sheets=sheets, changes=[], action="casa")
    [repair] = complete_pending(journal)
    assert repair.what == "completed" and journal.entry(number).state == "applied"
    assert target.read_text(encoding="utf-8") == NEW
    # an undo of a file's making, interrupted: the file is taken away on completion
    sheets = [("rulebook", target, "rules", NEW, None)]
    journal.add_entry(kind="undo", sheets=sheets, changes=[], action="casa", undoes=number)
    complete_pending(journal)
    assert not target.exists()


@settings(max_examples=15, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=["Cs"]), max_size=40), max_size=6))
def test_saves_undone_in_turn_give_back_every_text(tmp_path_factory, texts):
    folder = tmp_path_factory.mktemp("campaign")
    target = folder / "casa.rules"
    with fresh_journal(), Journal(folder / "journal.sqlite") as journal:
        seen, numbers = [None], []
        for text in texts:
            number = save_file(journal, target, text, "casa")
            if number is not None:
                numbers.append(number)
                seen.append(lines_as_read(text))  # line ends as the file reads back
        for number in reversed(numbers):
            undo(journal, number)
            seen.pop()
            now = target.read_text(encoding="utf-8") if target.exists() else None
            assert now == seen[-1]
        assert not target.exists() and verify_journal(journal).consistent


@pytest.mark.sqlite_only
def test_a_version_3_journal_is_migrated_with_its_entries(tmp_path):
    path = tmp_path / "journal.sqlite"
    connection = sqlite3.connect(path)
    script = schema.MIGRATIONS[0] + schema.MIGRATIONS[1] + schema.MIGRATIONS[2]
    connection.executescript(script + "PRAGMA user_version = 3;")
    a, b = text_digest("x: 1"), text_digest("x: 2")  # (a text is checked against its hash)
    connection.execute("INSERT INTO texts VALUES (?, 'x: 1'), (?, 'x: 2')", (a, b))
    connection.execute(
        "INSERT INTO runs (id, at, kind, state, action) VALUES (1, 't', 'run', 'applied', 'act')"
    )
    connection.execute(
        "INSERT INTO runs (id, at, kind, state, undoes) VALUES (2, 't', 'undo', 'applied', 1)"
    )
    connection.execute("INSERT INTO run_sheets VALUES (1, 'self', 'a.yaml', 'yaml', ?, ?)", (a, b))
    connection.commit()
    connection.close()
    with Journal(path) as journal:
        version = journal.connection.execute("PRAGMA user_version").fetchone()[0]
        assert version == schema.VERSION  # (migrated through every version since 3)
        first, second = journal.entries()
        assert (first.kind, first.action, second.undoes) == ("run", "act", 1)
        assert journal.text(first.sheets[0].after) == "x: 2"
        assert journal.integrity() == []
        # the foreign keys still hold after the tables were made anew
        with pytest.raises(sqlite3.IntegrityError):
            journal.connection.execute(
                "INSERT INTO run_sheets VALUES (9, 'self', 'b.yaml', 'yaml', ?, ?)", (a, b)
            )
        save_file(journal, tmp_path / "casa.rules", NEW, "casa")  # and takes the new kind


def test_the_commands_say_what_a_rulebook_save_is(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "casa.rules"
    target.write_text(OLD, encoding="utf-8")
    with Journal(tmp_path / "journal.sqlite") as journal:
        number = save_file(journal, target, NEW, "casa")
        with pytest.raises(JournalError, match="not a run"):
            export_record(journal, number)
    assert main(["log"]) == 0
    assert "casa.rules" in (out := capsys.readouterr().out) and "rulebook casa saved" in out
    assert main(["log", "--json"]) == 0
    [logged] = json.loads(capsys.readouterr().out)["entries"]
    assert (logged["kind"], logged["sheets"], logged["action"]) == (
        "rulebook",
        ["casa.rules"],
        "casa",
    )
    assert main(["show", str(number)]) == 0
    assert "its text before is kept" in capsys.readouterr().out
    assert main(["show", str(number), "--json"]) == 0
    capsys.readouterr()
    assert main(["undo"]) == 0  # the last entry: this save
    assert "the save of rulebook casa" in capsys.readouterr().out
    assert target.read_text(encoding="utf-8") == OLD
    assert main(["journal", "verify"]) == 0
