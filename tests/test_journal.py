"""The journal: what a saved run records, undo, export and verify, the schema's version."""

from __future__ import annotations

import contextlib
import json
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st
from journal_helpers import brujeria, character, journaled_run, play_session

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, SeededDice
from interpreter.errors import SheetChanged
from interpreter.journal import (
    Journal,
    JournalError,
    RecordMismatch,
    UndoRefused,
    export_record,
    save_run,
    schema,
    undo,
    verify_journal,
    verify_record,
)

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture
def lucia(tmp_path):
    return character(tmp_path)


@pytest.fixture
def journal(lucia):
    with Journal.beside(lucia) as opened:
        yield opened


def test_a_saved_run_records_everything(journal, lucia):
    engine = brujeria()
    before = lucia.read_text(encoding="utf-8")
    number, outcome = journaled_run(
        journal, engine, lucia, "asustarse", {"fuente": "Criatura horrible"}, SeededDice(1)
    )
    entry = journal.entry(number)
    assert (entry.kind, entry.state, entry.action) == ("run", "applied", "asustarse")
    assert entry.params == {"fuente": "Criatura horrible", "modificador": 0}
    assert entry.dice == outcome.dice and entry.origin == "seeded" and entry.seed == 1
    assert entry.result["niveles_de_fallo"] == outcome.result["niveles_de_fallo"]
    assert entry.changes == tuple(
        {"role": "self", "path": c.path, "before": c.before, "after": c.after}
        for c in outcome.changes
    )
    assert [c["path"] for c in entry.changes] == ["Esencia", "Inconsciente"]
    (state,) = entry.sheets
    assert (state.role, state.path, state.text_format) == ("self", "lucia.yaml", "yaml")
    assert journal.text(state.before) == before
    assert journal.text(state.after) == lucia.read_text(encoding="utf-8")
    row = journal.rulebook_row(entry.rulebook)
    assert row["name"] == "brujeria" and row["title"].startswith("Brujería")
    (source,) = row["sources"]
    assert journal.text(source["text"]) == dsl.resolve("brujeria").read_text(encoding="utf-8")


def test_forced_and_typed_dice_keep_their_origin(journal, lucia):
    engine = brujeria()
    number, _ = journaled_run(journal, engine, lucia, "asustarse", {}, ForcedDice([7]))
    entry = journal.entry(number)
    assert entry.origin == "forced" and entry.dice == (7,) and entry.seed is None


def test_texts_are_stored_once_per_hash(journal, lucia):
    play_session(journal, lucia, 6)
    connection = journal.connection
    assert connection.execute("SELECT count(*) FROM rulebooks").fetchone()[0] == 1
    # the rulebook's text, and one text per distinct sheet state (each after is the
    # next run's before)
    texts = connection.execute("SELECT count(*) FROM texts").fetchone()[0]
    states = {s.after for e in journal.entries() for s in e.sheets} | {
        s.before for e in journal.entries() for s in e.sheets
    }
    assert texts == 1 + len(states)


def test_a_house_rule_keeps_every_file_it_stands_on(journal, lucia):
    engine = Engine.of(dsl.load("brujeria_miedo_duro"))
    number, _ = journaled_run(journal, engine, lucia, "asustarse", {}, ForcedDice([1, 1, 1, 3]))
    row = journal.rulebook_row(journal.entry(number).rulebook)
    assert [s["file"] for s in row["sources"]] == ["brujeria_miedo_duro.rules", "brujeria.rules"]
    assert row["sources"][0]["extends"] == "brujeria"


@pytest.mark.sqlite_only
def test_the_schema_has_a_version_and_refuses_a_newer_journal(tmp_path):
    path = tmp_path / "journal.sqlite"
    Journal(path).close()
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.execute(f"PRAGMA user_version = {schema.VERSION + 1}")
    connection.commit()
    connection.close()
    with pytest.raises(JournalError, match="newer than this rulebook understands"):
        Journal(path)


@pytest.mark.sqlite_only
def test_a_migration_brings_an_old_journal_up(tmp_path, monkeypatch):
    path = tmp_path / "journal.sqlite"
    Journal(path).close()
    step = "ALTER TABLE runs ADD COLUMN note TEXT"
    monkeypatch.setattr(schema, "VERSION", schema.VERSION + 1)
    monkeypatch.setitem(schema.MIGRATIONS, schema.VERSION - 1, step)
    with Journal(path) as journal:
        columns = [r[1] for r in journal.connection.execute("PRAGMA table_info(runs)")]
        assert "note" in columns
        assert journal.connection.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION


@pytest.mark.sqlite_only
def test_not_a_journal_is_said_so(tmp_path):
    path = tmp_path / "journal.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(JournalError, match="not a readable journal"):
        Journal(path)


def test_a_sheet_changed_since_it_was_read_is_neither_saved_nor_journaled(journal, lucia):
    engine = brujeria()
    sheet = engine.load_sheet(lucia)
    outcome = engine.run("asustarse", sheet, {}, ForcedDice([1, 1, 1, 3]))
    journaled_run(journal, engine, lucia, "asustarse", {}, ForcedDice([1, 1, 1, 3]))  # another
    text = lucia.read_text(encoding="utf-8")
    with pytest.raises(SheetChanged):
        save_run(journal, outcome, sheet, engine.rulebook, None)
    assert lucia.read_text(encoding="utf-8") == text
    assert len(journal.entries()) == 1


# ─── undo ───────────────────────────────────────────────────────────────────


def test_undo_round_trips_byte_for_byte(journal, lucia):
    texts = [lucia.read_text(encoding="utf-8")]
    for seed in range(5):
        play_session(journal, lucia, 1, seed=seed)
        texts.append(lucia.read_text(encoding="utf-8"))
    assert len(set(texts)) == 6  # every fright cost Essence
    for expected in reversed(texts[:-1]):
        undo(journal)
        assert lucia.read_text(encoding="utf-8") == expected
    with pytest.raises(UndoRefused, match="no run to undo"):
        undo(journal)
    # undoing the last undo brings the first run back
    last = journal.entries()[-1]
    assert last.kind == "undo" and last.undoes == 1
    undo(journal, last.id)
    assert lucia.read_text(encoding="utf-8") == texts[1]


def test_undo_is_recorded_with_its_changes(journal, lucia):
    engine = brujeria()
    number, _ = journaled_run(journal, engine, lucia, "asustarse", {}, ForcedDice([1, 1, 1, 3]))
    undone_by = undo(journal)
    entry = journal.entry(undone_by)
    assert (entry.kind, entry.undoes, entry.state) == ("undo", number, "applied")
    original = journal.entry(number).changes
    assert [(c["path"], c["before"], c["after"]) for c in entry.changes] == [
        (c["path"], c["after"], c["before"]) for c in original
    ]


def test_undo_refuses_when_a_later_run_changed_the_sheet(journal, lucia):
    engine = brujeria()
    first, _ = journaled_run(journal, engine, lucia, "recibir_daño", {"daño": "2"}, SeededDice(1))
    params = {"atributo": "Percepción", "habilidad": "Notar"}
    reading, _ = journaled_run(journal, engine, lucia, "chequeo_sencillo", params, SeededDice(2))
    assert not journal.entry(reading).changes  # a check reads the sheet, changes nothing
    third, _ = journaled_run(journal, engine, lucia, "recibir_daño", {"daño": "3"}, SeededDice(3))
    text = lucia.read_text(encoding="utf-8")
    # only the run that changed the sheet stands in the way, not the one that read it
    with pytest.raises(UndoRefused, match=f"later run changed it too \\({third}\\)") as caught:
        undo(journal, first)
    assert caught.value.exit_code == 4
    assert lucia.read_text(encoding="utf-8") == text and len(journal.entries()) == 3
    undo(journal, first, force=True)
    before_first = journal.text(journal.entry(first).sheets[0].before)
    assert lucia.read_text(encoding="utf-8") == before_first


def test_a_later_run_that_only_read_the_sheet_does_not_stop_an_undo(journal, lucia):
    engine = brujeria()
    before = lucia.read_text(encoding="utf-8")
    first, _ = journaled_run(journal, engine, lucia, "recibir_daño", {"daño": "2"}, SeededDice(1))
    params = {"atributo": "Percepción", "habilidad": "Notar"}
    journaled_run(journal, engine, lucia, "chequeo_sencillo", params, SeededDice(2))
    undo(journal, first)
    assert lucia.read_text(encoding="utf-8") == before


def test_undo_refuses_to_throw_away_a_hand_edit(journal, lucia):
    play_session(journal, lucia, 1)
    edited = lucia.read_text(encoding="utf-8") + "# a note by hand\n"
    lucia.write_text(edited, encoding="utf-8")
    with pytest.raises(UndoRefused, match="edited since"):
        undo(journal)
    assert lucia.read_text(encoding="utf-8") == edited


def test_a_run_and_its_undo_do_not_block_undoing_an_earlier_run(journal, lucia):
    original = lucia.read_text(encoding="utf-8")
    play_session(journal, lucia, 2)
    undo(journal)  # the second
    undo(journal)  # the first: the second and its undo cancel out
    assert lucia.read_text(encoding="utf-8") == original


# ─── export and verify ──────────────────────────────────────────────────────


def test_an_exported_run_verifies_anywhere(journal, lucia, tmp_path, monkeypatch):
    (number,) = play_session(journal, lucia, 1)
    record = export_record(journal, number)
    text = json.dumps(record, ensure_ascii=False)
    lucia.unlink()
    journal.close()
    (tmp_path / "journal.sqlite").unlink(missing_ok=True)  # (on PostgreSQL: none)
    monkeypatch.delenv("RULEBOOK_DATABASE", raising=False)  # (nor the database)
    verified = verify_record(json.loads(text))
    assert verified.action == "asustarse" and verified.result == record["result"]


@pytest.mark.parametrize(
    "tamper, error",
    [
        (lambda r: r.__setitem__("dice", [10]), RecordMismatch),
        (lambda r: r["result"].__setitem__("total", 99), RecordMismatch),
        (lambda r: r["rulebook"]["sources"][0].__setitem__("text", "x"), JournalError),
        (lambda r: r["sheets"][0].__setitem__("after", "Fuerza: 9\n"), JournalError),
        (lambda r: r.pop("action"), JournalError),
    ],
)
def test_a_tampered_record_does_not_verify(journal, lucia, tamper, error):
    engine = brujeria()
    number, _ = journaled_run(journal, engine, lucia, "asustarse", {}, ForcedDice([1, 1, 1, 3]))
    record = export_record(journal, number)
    tamper(record)
    with pytest.raises(error):
        verify_record(record)


def test_journal_verify_finds_a_consistent_journal(journal, lucia):
    play_session(journal, lucia, 4)
    report = verify_journal(journal, rerun=True)
    assert report.consistent
    assert [f.level for f in report.findings] == ["ok"]


def test_journal_verify_notes_hand_edits_without_undoing_them(journal, lucia):
    play_session(journal, lucia, 1)
    edited = lucia.read_text(encoding="utf-8").replace("Fuerza: 2", "Fuerza: 3")
    lucia.write_text(edited, encoding="utf-8")
    report = verify_journal(journal)
    assert report.consistent
    assert any("edited since entry 1" in f.text for f in report.findings)
    assert lucia.read_text(encoding="utf-8") == edited


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(
    mutation=st.dictionaries(
        st.sampled_from(["rulebook", "action", "params", "sheets", "dice", "origin", "result"]),
        json_values,
        max_size=3,
    )
)
def test_any_record_gives_only_the_projects_own_errors(mutation, recorded):
    record = {**recorded, **mutation}
    with contextlib.suppress(RulebookError):  # and nothing else
        verify_record(record)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recorded")
    path = character(folder)
    with Journal.beside(path) as journal:
        number, _ = journaled_run(journal, brujeria(), path, "asustarse", {}, ForcedDice([7]))
        return export_record(journal, number)
