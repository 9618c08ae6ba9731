"""Read, run and save as one step (interpreter.journal.run_and_save), which both
`rulebook run --save` and the page's save go through."""

from __future__ import annotations

import threading

import pytest
from journal_helpers import brujeria, character

from interpreter import SeededDice
from interpreter.errors import SheetChanged
from interpreter.journal import JOURNAL_NAME, Journal, run_and_save
from interpreter.safe_files import FileBusy, FolderLock

ACTION, PARAMS = "asustarse", {"fuente": "Criatura horrible"}


def _load(role, path):
    return brujeria().load_sheet(path)


def _run(sheet, targets):
    return brujeria().run(ACTION, sheet, PARAMS, SeededDice(1), targets=targets)


def _lock_taken_elsewhere(folder) -> bool:
    """Whether another thread holds the folder's lock now (tried without waiting)."""
    taken = []

    def try_it():
        try:
            with FolderLock(folder, timeout=0):
                taken.append(False)
        except FileBusy:
            taken.append(True)

    thread = threading.Thread(target=try_it)
    thread.start()
    thread.join()
    return taken[0]


def test_a_run_saved_into_a_new_file_leaves_its_source_as_it_was(tmp_path):
    lucia = character(tmp_path)
    copy = tmp_path / "lucia_2.yaml"
    before = lucia.read_text(encoding="utf-8")
    outcome, saved = run_and_save(
        tmp_path / JOURNAL_NAME,
        {"self": lucia},
        {"self": copy},
        _run,
        brujeria().rulebook,
        SeededDice(1),
        load=_load,
    )
    assert outcome.changes, "the action changes the sheet (else this test shows nothing)"
    assert lucia.read_text(encoding="utf-8") == before
    assert copy.exists() and copy.read_text(encoding="utf-8") != before
    assert saved == {"path": str(copy), "journal": str(tmp_path / JOURNAL_NAME), "entry": 1}
    with Journal(tmp_path / JOURNAL_NAME) as journal:
        entry = journal.entry(1)
        assert (entry.kind, entry.state, entry.action) == ("run", "applied", ACTION)


def test_a_run_refused_writes_nothing(tmp_path):
    lucia = character(tmp_path)
    before = lucia.read_text(encoding="utf-8")

    def refused(sheet, targets):
        _run(sheet, targets)
        raise SheetChanged("not as it was shown")

    with pytest.raises(SheetChanged):
        run_and_save(
            tmp_path / JOURNAL_NAME,
            {"self": lucia},
            {"self": lucia},
            refused,
            brujeria().rulebook,
            SeededDice(1),
            load=_load,
        )
    assert lucia.read_text(encoding="utf-8") == before
    with Journal(tmp_path / JOURNAL_NAME) as journal:
        assert journal.entries() == []


@pytest.mark.parametrize("hold", [True, False])
def test_the_folder_is_held_while_the_run_reads_and_runs_unless_told(tmp_path, hold):
    lucia = character(tmp_path)
    seen = []

    def run(sheet, targets):
        seen.append(_lock_taken_elsewhere(tmp_path))
        return _run(sheet, targets)

    run_and_save(
        tmp_path / JOURNAL_NAME,
        {"self": lucia},
        {"self": lucia},
        run,
        brujeria().rulebook,
        SeededDice(1),
        load=_load,
        hold=hold,
    )
    assert seen == [hold]
    assert not _lock_taken_elsewhere(tmp_path)
