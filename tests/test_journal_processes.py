"""A journal opened by several processes at once (a server's workers saving in one folder
for the first time): each opens it, none finds it "locked" while another sets it up."""

from __future__ import annotations

import multiprocessing

import pytest

from interpreter.journal import Journal

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


def _open(path: str, start, results) -> None:
    start.wait()
    try:
        with Journal(path) as journal:
            results.put(("ok", len(journal.entries())))
    except Exception as error:  # what a worker would have answered
        results.put(("failed", str(error)))


def test_a_new_journal_opened_by_processes_at_once(tmp_path):
    context = multiprocessing.get_context("fork")
    for trial in range(60):
        path = str(tmp_path / f"journal{trial}.sqlite")
        start, results = context.Barrier(6), context.Queue()
        processes = [context.Process(target=_open, args=(path, start, results)) for _ in range(6)]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=120) for _ in processes]
        for process in processes:
            process.join(120)
        assert outcomes == [("ok", 0)] * 6
