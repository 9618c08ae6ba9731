"""The journal of runs with other characters and choices (tests/data/skirmish.rules): every
sheet before and after, every change by role, each choice with who made it and how; undo
puts every sheet back (all or none); replay, export/verify and `journal verify --rerun`
feed the recorded dice and choices back and see any divergence."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from postgres_backend import fresh_journal

import dsl
from interpreter import Engine, ForcedDice, SeededDice
from interpreter import safe_files as file_ops
from interpreter.cli import main
from interpreter.journal import (
    Journal,
    RecordMismatch,
    UndoRefused,
    export_record,
    holding,
    replay,
    save_run,
    schema,
    undo,
    verify_journal,
    verify_record,
)
from interpreter.journal.replay import CHOICES, DIFFERENT, SAME

DATA = Path(__file__).parent / "data"
RULES = DATA / "skirmish.rules"
#: the three characters of a run: (file, text); the ally's sheet is JSON
SHEETS = {
    "self": ("hero.yaml", "# the attacker\nFuerza: 5   # strong\n"),
    "objetivo": ("orc.yaml", "# the target\nFuerza: 1\nVida: 9\n"),
    "aliado": ("ally.json", '{\n    "Fuerza": 4,\n    "Aguante": 2\n}\n'),
}
ENGINE = Engine.of(dsl.load(RULES))
#: the choices of a run that changes the target and the ally (the hero is unchanged)
PARRY_HELPED = {"defensa": "parar", "fuerza": "no", "ayuda": "sí"}

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


def cast(folder: Path) -> dict[str, Path]:
    """The three sheets, fresh in `folder`, by role."""
    out = {}
    for role, (name, text) in SHEETS.items():
        out[role] = folder / name
        out[role].write_text(text, encoding="utf-8")
    return out


def texts(paths: dict) -> dict:
    return {role: path.read_bytes() for role, path in paths.items()}


def picker(picks):
    """A person at the table who takes, for the n-th question, open option picks[n]."""
    asked = iter(picks)
    return lambda question: question.options[next(asked, 0) % len(question.options)]


def saved_run(journal: Journal, paths: dict, dice, choices, engine: Engine = ENGINE):
    """Read, run and save the three sheets as one step, as `rulebook run --save` does."""
    with holding(journal, list(paths.values())):
        sheets = {role: engine.load_sheet(path) for role, path in paths.items()}
        targets = {role: s for role, s in sheets.items() if role != "self"}
        outcome = engine.run(
            "emboscada", sheets["self"], {}, dice, targets=targets, choices=choices
        )
        return save_run(journal, outcome, sheets, engine.rulebook, dice), outcome


@pytest.fixture
def folder(tmp_path):
    return tmp_path


def test_every_character_every_change_and_every_choice_is_recorded(folder):
    paths = cast(folder)
    before = texts(paths)
    choices = {"defensa": "parar", "fuerza": "sí", "ayuda": "sí"}
    with Journal.beside(paths["self"]) as journal:
        number, _ = saved_run(journal, paths, ForcedDice([15, 13]), choices)
        entry = journal.entry(number)
        states = {s.role: s for s in entry.sheets}
        assert set(states) == {"self", "objetivo", "aliado"}
        for role, state in states.items():
            assert journal.text(state.before).encode() == before[role]
            assert journal.text(state.after).encode() == paths[role].read_bytes()
        assert states["aliado"].text_format == "json"
    assert list(entry.changes) == [
        {"role": "self", "path": "Aguante", "before": 3, "after": 2},
        {"role": "objetivo", "path": "Vida", "before": 9, "after": 4},
        {"role": "aliado", "path": "Aguante", "before": 2, "after": 1},
    ]
    assert list(entry.choices) == [
        {"name": "defensa", "value": "parar", "chooser": "objetivo", "how": "given"},
        {"name": "fuerza", "value": "sí", "chooser": "self", "how": "given"},
        {"name": "ayuda", "value": "sí", "chooser": "aliado", "how": "given"},
    ]
    assert entry.dice == (15, 13) and entry.result == {"golpe": True, "vida": 4}
    # only the changed values were written, in each file's own style
    assert paths["self"].read_text() == "# the attacker\nFuerza: 5   # strong\nAguante: 2\n"
    assert paths["objetivo"].read_text() == "# the target\nFuerza: 1\nVida: 4\n"
    assert paths["aliado"].read_text() == '{\n    "Fuerza": 4,\n    "Aguante": 1\n}\n'


def test_a_choice_asked_at_the_table_and_the_only_open_one_keep_how(folder):
    paths = cast(folder)
    with Journal.beside(paths["self"]) as journal:
        # the first die misses: `fuerza` has one option open (no), nobody is asked
        number, _ = saved_run(journal, paths, ForcedDice([1]), picker([1, 0]))
        how = {c["name"]: c["how"] for c in journal.entry(number).choices}
    assert how == {"defensa": "asked", "fuerza": "only", "ayuda": "asked"}


def test_undo_puts_back_every_sheet_of_the_run(folder):
    paths = cast(folder)
    before = texts(paths)
    with Journal.beside(paths["self"]) as journal:
        saved_run(journal, paths, ForcedDice([15, 13]), PARRY_HELPED)
        assert texts(paths) != before
        number = undo(journal)
        assert texts(paths) == before
        entry = journal.entry(number)
    assert {s.role for s in entry.sheets} == {"objetivo", "aliado"}  # the hero was unchanged
    assert sorted((c["role"], c["path"], c["after"]) for c in entry.changes) == [
        ("aliado", "Aguante", 2),
        ("objetivo", "Vida", 9),
    ]


@pytest.mark.parametrize("failing", [1, 2, 3])
def test_a_save_the_file_system_refuses_writes_no_sheet_and_no_entry(folder, monkeypatch, failing):
    paths = cast(folder)
    before = texts(paths)
    real = file_ops.write_atomic
    calls = []

    def refusing(target, text, mode=None):
        calls.append(target)
        if len(calls) == failing:
            raise file_ops.SaveError("cannot be written (disk full)", path=str(target))
        real(target, text, mode)

    monkeypatch.setattr(file_ops, "write_atomic", refusing)
    with Journal.beside(paths["self"]) as journal:
        choices = {"defensa": "parar", "fuerza": "sí", "ayuda": "sí"}
        with pytest.raises(file_ops.SaveError) as caught:
            saved_run(journal, paths, ForcedDice([15, 13]), choices)
        assert "nothing was saved" in caught.value.hint
        assert journal.entries() == []
        assert verify_journal(journal).consistent
    assert texts(paths) == before
    assert list(file_ops.stray_temporaries(folder)) == []


def test_an_undo_the_file_system_refuses_changes_no_sheet(folder, monkeypatch):
    paths = cast(folder)
    with Journal.beside(paths["self"]) as journal:
        saved_run(journal, paths, ForcedDice([15, 13]), PARRY_HELPED)
        after = texts(paths)
        real = file_ops.write_atomic
        calls = []

        def refusing(target, text, mode=None):
            calls.append(target)
            if len(calls) == 2:
                raise file_ops.SaveError("cannot be written (read-only)", path=str(target))
            real(target, text, mode)

        monkeypatch.setattr(file_ops, "write_atomic", refusing)
        with pytest.raises(file_ops.SaveError):
            undo(journal)
        assert texts(paths) == after
        assert [e.kind for e in journal.entries()] == ["run"]
        monkeypatch.setattr(file_ops, "write_atomic", real)
        undo(journal)  # the run is still there to undo
    assert texts(paths) != after


def test_undo_refuses_when_a_later_run_changed_one_of_its_characters(folder):
    paths = cast(folder)
    with Journal.beside(paths["self"]) as journal:
        first = {"defensa": "parar", "fuerza": "sí", "ayuda": "no"}
        saved_run(journal, paths, ForcedDice([15]), first)
        after_first = texts(paths)
        # the second run changes only the orc (the hero and the ally it reads)
        saved_run(
            journal, paths, ForcedDice([15]), {"defensa": "parar", "fuerza": "no", "ayuda": "no"}
        )
        with pytest.raises(UndoRefused, match=r"a later run changed it too \(2\)"):
            undo(journal, 1)
        undo(journal, 2)
        assert texts(paths) == after_first
        # the orc's file edited by hand: an undo would throw the edit away
        paths["objetivo"].write_text("# the target\nFuerza: 1\nVida: 1\n", encoding="utf-8")
        with pytest.raises(UndoRefused, match=r"orc\.yaml: the file was edited"):
            undo(journal, 1)
        undo(journal, 1, force=True)
    assert texts(paths) == {role: text.encode() for role, (_, text) in SHEETS.items()}


def test_undo_leaves_a_character_the_run_only_read(folder):
    paths = cast(folder)
    with Journal.beside(paths["self"]) as journal:
        # nobody helps: the ally is read, never changed
        choices = {"defensa": "parar", "fuerza": "no", "ayuda": "no"}
        saved_run(journal, paths, ForcedDice([15]), choices)
        paths["aliado"].write_text('{"Fuerza": 6}\n', encoding="utf-8")  # edited since
        number = undo(journal)
        assert [s.role for s in journal.entry(number).sheets] == ["objetivo"]
    assert paths["aliado"].read_text(encoding="utf-8") == '{"Fuerza": 6}\n'
    assert paths["objetivo"].read_bytes() == SHEETS["objetivo"][1].encode()


def test_a_save_killed_between_its_files_is_completed_by_journal_verify(folder):
    paths = cast(folder)
    choices = {"defensa": "parar", "fuerza": "sí", "ayuda": "sí"}
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child, killed after the first of three files
        real, calls = file_ops.write_atomic, []

        def dying(target, text, mode=None):
            calls.append(target)
            if len(calls) == 2:
                os._exit(9)
            real(target, text, mode)

        file_ops.write_atomic = dying
        try:
            with Journal.beside(paths["self"]) as journal:
                saved_run(journal, paths, ForcedDice([15, 13]), choices)
        finally:
            os._exit(0)
    assert os.WEXITSTATUS(os.waitpid(pid, 0)[1]) == 9
    with Journal.beside(paths["self"]) as journal:
        (entry,) = journal.entries()
        written = [
            journal.file_of(s.path).read_text() == journal.text(s.after) for s in entry.sheets
        ]
        assert entry.state == "pending" and written.count(True) == 1
        assert verify_journal(journal).consistent
        entry = journal.entry(entry.id)
        assert entry.state == "applied"
        for state in entry.sheets:  # every sheet as the journal has it
            assert journal.file_of(state.path).read_text() == journal.text(state.after)


#: a session: for each run, the seed of its dice and the options picked at the table
sessions = st.lists(
    st.tuples(st.integers(0, 2**32), st.lists(st.integers(0, 1), min_size=3, max_size=3)),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(session=sessions)
def test_a_journaled_session_replays_and_verifies_exactly(tmp_path_factory, session):
    with fresh_journal():  # (on PostgreSQL: a schema of its own)
        paths = cast(tmp_path_factory.mktemp("session"))
        with Journal.beside(paths["self"]) as journal:
            outcomes = [
                saved_run(journal, paths, SeededDice(seed), picker(picks))[1]
                for seed, picks in session
            ]
            report = replay(journal, ENGINE.rulebook, chain=True)
            assert [run.status for run in report] == [SAME] * len(session)
            for run, outcome in zip(report, outcomes, strict=True):
                assert [c["value"] for c in run.choices] == [c.value for c in outcome.choices]
            for entry in journal.entries():
                verify_record(export_record(journal, entry.id))
            report = verify_journal(journal, rerun=True)
            assert report.consistent, report.findings


@settings(max_examples=15, deadline=None)
@given(session=sessions, data=st.data())
def test_undo_after_runs_gives_back_byte_identical_sheets(tmp_path_factory, session, data):
    with fresh_journal():  # (on PostgreSQL: a schema of its own)
        paths = cast(tmp_path_factory.mktemp("undo"))
        history = [texts(paths)]
        with Journal.beside(paths["self"]) as journal:
            for seed, picks in session:
                saved_run(journal, paths, SeededDice(seed), picker(picks))
                history.append(texts(paths))
            undoes = data.draw(st.integers(1, len(session)))
            for _ in range(undoes):  # the last standing run each time
                undo(journal)
        assert texts(paths) == history[len(session) - undoes]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32), picks=st.lists(st.integers(0, 1), min_size=3, max_size=3))
def test_a_run_that_fails_writes_nothing(tmp_path_factory, seed, picks):
    with fresh_journal():  # (on PostgreSQL: a schema of its own)
        # Aguante 0 on the hero: `fuerza sí` cannot be paid; an answer given in advance that
        # names it fails the run (a ChoiceNotOpen) and nothing is written or journaled.
        paths = cast(tmp_path_factory.mktemp("fails"))
        paths["self"].write_text("Fuerza: 5\nAguante: 0\n", encoding="utf-8")
        before = texts(paths)
        with Journal.beside(paths["self"]) as journal:
            answers = {"defensa": ["esquivar", "parar"][picks[0]], "fuerza": "sí"}
            with pytest.raises(dsl.RulebookError):
                saved_run(journal, paths, SeededDice(seed), answers)
            assert journal.entries() == []
        assert texts(paths) == before


def house(folder: Path, old: str, new: str) -> dsl.Rulebook:
    """An edited copy of the skirmish rules (the same game, one thing changed)."""
    text = RULES.read_text(encoding="utf-8")
    assert old in text
    path = folder / "house.rules"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return dsl.load(path)


def journaled(folder: Path, dice=(15, 13), choices=None) -> Journal:
    paths = cast(folder)
    journal = Journal.beside(paths["self"])
    choices = choices or {"defensa": "parar", "fuerza": "sí", "ayuda": "sí"}
    saved_run(journal, paths, ForcedDice(list(dice)), choices)
    return journal


def test_replay_sees_what_changes_on_the_other_characters(folder):
    with journaled(folder) as journal:
        other = house(folder, "lose 1 from objetivo.Vida", "lose 3 from objetivo.Vida")
        (run,) = replay(journal, other)
    assert run.status == DIFFERENT
    assert run.differences == ("result.vida", "objetivo.Vida")
    assert {"role": "objetivo", "path": "Vida", "before": 9, "after": 2} in run.changes


def test_replay_says_where_the_recorded_choices_do_not_fit(folder):
    with journaled(folder) as journal:
        renamed = house(folder, "option parar", "option bloquear")
        (run,) = replay(journal, renamed)
        assert run.status == CHOICES and "defensa=parar does not fit" in run.choices_note
        added = house(
            folder, 'choose fuerza "', 'choose grito { option a\n option b }\n  choose fuerza "'
        )
        (run,) = replay(journal, added)
        assert run.status == CHOICES and "grito is a choice the recorded run" in run.choices_note


def test_replay_notes_a_recorded_choice_no_longer_made(folder):
    with journaled(folder, dice=(15, 13)) as journal:
        text = RULES.read_text(encoding="utf-8")
        start = text.index("  choose ayuda")
        end = text.index("  result {")
        path = folder / "house.rules"
        path.write_text(text[:start] + text[end:], encoding="utf-8")
        (run,) = replay(journal, dsl.load(path))
    assert run.status in (DIFFERENT, CHOICES)
    assert run.choices_note == "does not make the recorded choices ayuda=sí"


def test_a_chained_replay_carries_every_character(folder):
    paths = cast(folder)
    with Journal.beside(paths["self"]) as journal:
        for _ in range(2):
            saved_run(
                journal,
                paths,
                ForcedDice([15, 13]),
                {"defensa": "parar", "fuerza": "no", "ayuda": "sí"},
            )
        other = house(folder, "lose 1 from objetivo.Vida", "lose 2 from objetivo.Vida")
        apart = replay(journal, other)
        chained = replay(journal, other, chain=True)
    # recorded: the orc 9 → 6 → 3; each run alone under the house rule: 9 → 5, 6 → 2;
    # chained, the second run starts where the first left the orc (5) and the ally
    assert [r.result["vida"] for r in apart] == [5, 2]
    assert [r.result["vida"] for r in chained] == [5, 1]


def test_verify_catches_a_record_whose_choice_or_other_sheet_was_changed(folder):
    with journaled(folder) as journal:
        record = export_record(journal, 1)
    verify_record(record)
    assert [c["role"] for c in record["changes"]] == ["self", "objetivo", "aliado"]
    assert {s["role"] for s in record["sheets"]} == {"self", "objetivo", "aliado"}
    altered = json.loads(json.dumps(record))
    altered["choices"][2]["value"] = "no"  # the ally did not help: the orc keeps a point
    with pytest.raises(RecordMismatch, match=r"the choices are|the changes are"):
        verify_record(altered)
    altered = json.loads(json.dumps(record))
    altered["changes"] = [c for c in altered["changes"] if c["role"] != "aliado"]
    with pytest.raises(RecordMismatch, match="the changes are"):
        verify_record(altered)
    altered = json.loads(json.dumps(record))
    altered["choices"].append({"name": "ayuda", "value": "sí"})
    with pytest.raises(RecordMismatch, match="not asked for"):
        verify_record(altered)


def test_journal_verify_rerun_catches_a_changed_entry_of_another_character(folder):
    with journaled(folder) as journal:
        assert verify_journal(journal, rerun=True).consistent
        journal.connection.execute("UPDATE changes SET after = '0' WHERE role = 'objetivo'")
        report = verify_journal(journal, rerun=True)
    assert not report.consistent
    assert any("does not reproduce its record" in f.text for f in report.findings)


@pytest.mark.sqlite_only
def test_a_version_1_journal_is_migrated_and_its_choices_read(folder):
    path = folder / "journal.sqlite"
    connection = sqlite3.connect(path)
    connection.executescript(schema.MIGRATIONS[0] + "PRAGMA user_version = 1;")
    connection.execute("INSERT INTO runs (id, at, kind, state) VALUES (1, 'x', 'run', 'applied')")
    connection.execute("INSERT INTO choices VALUES (1, 0, 'defensa', '\"parar\"', 'objetivo')")
    connection.commit()
    connection.close()
    with Journal(path) as journal:
        assert journal.connection.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
        (choice,) = journal.entry(1).choices
    assert choice == {"name": "defensa", "value": "parar", "chooser": "objetivo", "how": None}


def test_the_command_line_journals_the_whole_run(folder, capsys, monkeypatch):
    paths = cast(folder)
    monkeypatch.chdir(folder)
    argv = ["run", str(RULES), "emboscada", "--char", "hero.yaml"]
    argv += ["--target", "objetivo=orc.yaml", "--target", "aliado=ally.json"]
    argv += ["--choose", "defensa=parar", "--choose", "fuerza=sí", "--choose", "ayuda=sí"]
    assert main([*argv, "--dice", "15,13", "--save"]) == 0
    assert "saved hero.yaml, orc.yaml, ally.json" in capsys.readouterr().out
    assert main(["log"]) == 0
    line = capsys.readouterr().out
    assert "Aguante 3 → 2, objetivo.Vida 9 → 4, aliado.Aguante 2 → 1" in line
    assert main(["show", "1"]) == 0
    shown = capsys.readouterr().out
    assert "choices: defensa=parar (by objetivo, answered in advance), fuerza=sí" in shown
    assert "defensa: parar (orc, as chosen then)" in shown and "note:" not in shown
    assert main(["export", "1", "-o", "run.json"]) == 0
    assert main(["verify", "run.json"]) == 0
    record = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    record["choices"][0]["value"] = "esquivar"
    (folder / "bad.json").write_text(json.dumps(record), encoding="utf-8")
    assert main(["verify", "bad.json"]) == 4
    capsys.readouterr()
    assert main(["undo"]) == 0
    assert "objetivo.Vida 4 → 9" in capsys.readouterr().out
    assert texts(paths) == {role: text.encode() for role, (_, text) in SHEETS.items()}
