"""Saves that survive kill -9 anywhere, and two processes saving one sheet at once.

The processes are forked from the test (the rulebook is loaded and compiled once, so a
round costs a few milliseconds): a child saves in a loop and is killed with SIGKILL at a
random moment; then `journal verify` must leave the sheet and the journal consistent.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import time

import pytest
from journal_helpers import brujeria, character, journaled_run
from postgres_backend import fresh_journal

from interpreter import ForcedDice, SeededDice
from interpreter.journal import Journal, verify_journal
from interpreter.safe_files import stray_temporaries

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = [
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork (POSIX)"),
    pytest.mark.usefixtures("journal_backend"),
]

#: alternately hurt and heal: every run changes the sheet
LOOP = [("recibir_daño", {"daño": "3"}), ("recuperación_diaria", {})]


def in_child(work) -> int:
    """Fork; run `work()` in the child and leave it with os._exit (never back to pytest)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            work()
        except BaseException:
            code = 1
        os._exit(code)
    return pid


def saving_loop(path, signal_to: int, rounds: int = 10_000):
    def work():
        engine = brujeria()
        with Journal.beside(path) as journal:
            os.write(signal_to, b"r")  # ready: the kill is timed from here, not the fork
            for i in range(rounds):
                action, params = LOOP[i % 2]
                journaled_run(journal, engine, path, action, params, SeededDice(i))
                os.write(signal_to, b"s")  # one more save done

    return work


def save_time(folder) -> float:
    """How long one journaled save takes here (the median of five)."""
    folder.mkdir()
    path = character(folder)
    engine = brujeria()  # also: compiled before the first fork
    times = []
    with Journal.beside(path) as journal:
        for i in range(5):
            started = time.perf_counter()
            action, params = LOOP[i % 2]
            journaled_run(journal, engine, path, action, params, SeededDice(i))
            times.append(time.perf_counter() - started)
    return sorted(times)[2]


def assert_consistent(path, original: str) -> None:
    """The file is what the last entry wrote; entries follow one another; no leftovers."""
    with Journal.beside(path) as journal:
        entries = journal.entries()
        assert all(e.state == "applied" for e in entries)
        current = path.read_text(encoding="utf-8")
        expected = journal.text(entries[-1].sheets[0].after) if entries else original
        assert current == expected
        previous = journal.text(entries[0].sheets[0].before) if entries else original
        assert previous == original
        for entry in entries:
            state = entry.sheets[0]
            assert journal.text(state.before) == previous, f"entry {entry.id} does not follow"
            previous = journal.text(state.after)
        assert journal.integrity() == []
    assert stray_temporaries(path.parent) == []
    brujeria().load_sheet(path)  # and it reads


def test_kill_9_at_random_points_of_journaled_saves_200_rounds(tmp_path):
    pace = save_time(tmp_path / "scratch")  # then learnt from the children, under load too
    chooser = random.Random(20240515)
    repaired = 0
    with contextlib.ExitStack() as campaign:
        repaired = _kill_rounds(tmp_path, campaign, pace, chooser)
    # the kills did land inside saves (a pending entry or a temporary to repair)
    assert repaired > 0


def _kill_rounds(tmp_path, campaign: contextlib.ExitStack, pace: float, chooser) -> int:
    repaired = runs_before = 0
    for round_number in range(200):
        if round_number % 10 == 0:  # a fresh campaign now and then keeps each verify small
            campaign.close()
            campaign.enter_context(fresh_journal())  # (its own journal on PostgreSQL too)
            folder = tmp_path / f"campaign-{round_number // 10}"
            folder.mkdir()
            path = character(folder)
            original = path.read_text(encoding="utf-8")
            runs_before = 0
        signals, signal_to = os.pipe()
        pid = in_child(saving_loop(path, signal_to))
        os.read(signals, 1)
        if round_number % 4 == 0:  # one round in four lets a save finish first
            started = time.perf_counter()
            os.read(signals, 1)
            pace = 0.7 * pace + 0.3 * (time.perf_counter() - started)
        time.sleep(chooser.uniform(0.0, 1.5 * pace))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(signals)
        os.close(signal_to)
        with Journal.beside(path) as journal:
            report = verify_journal(journal)
            assert report.consistent, (round_number, report.findings)
            repaired += sum(f.level == "repaired" for f in report.findings)
            runs = len(journal.entries())
        assert_consistent(path, original)
        assert runs >= runs_before + (round_number % 4 == 0)  # nothing committed is lost
        runs_before = runs
    return repaired


class Crash(Exception):
    pass


CRASH_POINTS = [
    # (where the child dies, is the run in the journal and the sheet once verified?)
    ("before the entry is written", False),
    ("after the entry is written", True),
    ("with the temporary file written, before the rename", True),
    ("after the rename, before the folder fsync", True),
    ("before the entry is marked applied", True),
]


@pytest.mark.parametrize("point, kept", CRASH_POINTS, ids=[p for p, _ in CRASH_POINTS])
def test_a_crash_at_each_step_of_a_save_is_repaired(tmp_path, point, kept):
    path = character(tmp_path)
    original = path.read_text(encoding="utf-8")
    engine = brujeria()

    def die(*args, **kwargs):
        os._exit(137)

    def work():  # pragma: no cover - the child
        import interpreter.safe_files as safe_files
        from interpreter.journal.store import Journal as Store

        real_add = Store.add_entry
        if point == "before the entry is written":
            Store.add_entry = die
        elif point == "after the entry is written":
            Store.add_entry = lambda self, **kw: (real_add(self, **kw), die())[0]
        elif point.startswith("with the temporary"):
            os.replace = die
        elif point.startswith("after the rename"):
            safe_files.fsync_folder = die
        else:
            Store.mark_applied = die
        with Journal.beside(path) as journal:
            journaled_run(journal, engine, path, "asustarse", {}, ForcedDice([1, 1, 1, 3]))

    pid = in_child(work)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 137
    with Journal.beside(path) as journal:
        report = verify_journal(journal)
        assert report.consistent, report.findings
        entries = journal.entries()
    assert len(entries) == (1 if kept else 0)
    assert_consistent(path, original)
    assert (path.read_text(encoding="utf-8") != original) == kept
    # and the next save goes on from there
    with Journal.beside(path) as journal:
        journaled_run(journal, engine, path, "asustarse", {}, ForcedDice([1, 1, 1, 3]))
    assert_consistent(path, original)


def test_a_pending_save_is_completed_by_the_next_save_of_the_sheet(tmp_path):
    path = character(tmp_path)
    original = path.read_text(encoding="utf-8")
    engine = brujeria()

    def work():  # pragma: no cover - the child
        os.replace = lambda *a, **k: os._exit(137)
        with Journal.beside(path) as journal:
            journaled_run(journal, engine, path, "asustarse", {}, ForcedDice([1, 1, 1, 3]))

    os.waitpid(in_child(work), 0)
    assert path.read_text(encoding="utf-8") == original and stray_temporaries(tmp_path)
    with Journal.beside(path) as journal:  # no verify: the next save finishes the first
        journaled_run(journal, engine, path, "recuperar_esencia", {}, ForcedDice([]))
        assert [e.state for e in journal.entries()] == ["applied", "applied"]
    assert_consistent(path, original)


def test_two_processes_saving_at_once_lose_nothing(tmp_path):
    path = character(tmp_path)
    original = path.read_text(encoding="utf-8")
    engine = brujeria()
    start = engine.load_sheet(path)["Vida"]
    per_process = 12
    ready_read, ready_write = os.pipe()

    def work():  # pragma: no cover - the child
        os.read(ready_read, 1)  # both start together
        with Journal.beside(path) as journal:
            for i in range(per_process):
                journaled_run(journal, engine, path, "recibir_daño", {"daño": "1"}, SeededDice(i))

    children = [in_child(work) for _ in range(2)]
    os.write(ready_write, b"go")
    codes = [os.WEXITSTATUS(os.waitpid(pid, 0)[1]) for pid in children]
    assert codes == [0, 0]
    assert engine.load_sheet(path)["Vida"] == start - 2 * per_process
    with Journal.beside(path) as journal:
        assert len(journal.entries()) == 2 * per_process
    assert_consistent(path, original)
