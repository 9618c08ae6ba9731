"""What keeps a cheap run cheap for the server, each shown to be taken (and to fail if it
is switched off) and to answer as the longer way does:

- a run's body whose text alone shows it within the nesting bound is not walked
  (interpreter.web.body._plain); one that may be deeper, or holds a `\\u` escape, is;
- a worker names the trace's files as the client knows them (worker.public_files), so
  that the server's pass over the answer's bytes (interpreter.web.paths) finds none;
  it writes what that pass would have written;
- the rulebook a run names is listed once per job, its folder looked at once for every
  kind of character file (interpreter.web.library);
- what the workers start with is frozen for the garbage collector, in the process they
  are forked from, and stays so in a process forked after it (interpreter.web.preload).
"""

from __future__ import annotations

import asyncio
import gc
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import dsl
from interpreter.web import body as body_module
from interpreter.web import library as library_module
from interpreter.web import worker
from interpreter.web.body import MAX_DEPTH, _plain, json_body
from interpreter.web.library import Library
from interpreter.web.paths import Names

ROOT = Path(__file__).resolve().parent.parent
RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 7}


class _Request:
    """What json_body reads of a request: its body, and its state."""

    def __init__(self, raw: bytes):
        self.raw = raw
        self.state = type("State", (), {})()

    async def body(self) -> bytes:
        return self.raw


def _walked(monkeypatch) -> list:
    """Each body json_body walks (interpreter.web.body._depth), noted."""
    walked: list = []
    depth = body_module._depth

    def noted(value):
        walked.append(value)
        return depth(value)

    monkeypatch.setattr(body_module, "_depth", noted)
    return walked


def test_a_runs_body_is_not_walked(monkeypatch):
    walked = _walked(monkeypatch)
    read = asyncio.run(json_body(_Request(json.dumps(RUN).encode())))
    assert read == RUN
    assert walked == []  # (fails if the plain body's way is switched off)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": "\\u00e9"}',  # an escape: it may be half a surrogate pair
        # as many braces and brackets as MAX_DEPTH: it may be deeper
        b'{"a": ' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b"}",
    ],
)
def test_a_body_that_may_be_deep_or_escaped_is_walked(monkeypatch, raw):
    walked = _walked(monkeypatch)
    asyncio.run(json_body(_Request(raw)))
    assert len(walked) == 1


def test_plain_bodies_are_within_the_bound_the_walk_keeps():
    # The deepest body with fewer braces and brackets than MAX_DEPTH: its depth is within.
    deepest = b'{"a": ' + b"[" * (MAX_DEPTH - 2) + b"1" + b"]" * (MAX_DEPTH - 2) + b"}"
    assert _plain(deepest)
    assert body_module._depth(json.loads(deepest)) <= MAX_DEPTH
    one_more = b'{"a": ' + b"[" * (MAX_DEPTH - 1) + b"1" + b"]" * (MAX_DEPTH - 1) + b"}"
    assert not _plain(one_more)
    assert body_module._depth(json.loads(one_more)) > MAX_DEPTH
    assert not _plain(b'{"a": "\\ud800"}')


def test_what_the_worker_names_is_what_the_servers_pass_writes(tmp_path):
    names = Names(tmp_path)
    assert names.exact  # the shipped rulebooks at least
    for path, public in names.exact.items():
        text = json.dumps({"file": path}, ensure_ascii=False).encode()
        assert names.rewrite(text) == json.dumps({"file": public}, ensure_ascii=False).encode()


def test_a_workers_run_answer_names_its_files_as_the_client_knows_them(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    settings = {"run_seconds": 10.0, "odds_seconds": 60.0, "language": None}
    job = {"job": "run", "args": {"body": dict(RUN)}, "seconds": 30}
    ours, theirs = socket.socketpair()  # (the notice that the work started goes there)
    with ours, theirs:
        status, body = worker.one(ours, worker.JOBS, Library(tmp_path), settings, job, [])
    assert status == 200
    answer = json.loads(body)
    files = {step["file"] for step in answer["trace"]}
    assert files == {"brujeria"}  # (fails if the worker leaves it to the server's pass)
    names = Names(tmp_path)
    assert not any(anchor in body for anchor in names.anchors)
    assert names.rewrite(body) == body


def test_a_path_that_is_not_a_name_is_left_to_the_servers_pass(tmp_path):
    inside = str(tmp_path / "casa.rules")
    answer = {"trace": [{"file": inside}, {"file": None}, "not a step"]}
    worker.public_files(answer, Library(tmp_path))
    assert answer["trace"][0]["file"] == inside
    assert (
        Names(tmp_path).rewrite(json.dumps(answer).encode())
        == json.dumps({"trace": [{"file": "casa.rules"}, {"file": None}, "not a step"]}).encode()
    )


def test_a_run_looks_at_its_folders_few_times(tmp_path, monkeypatch):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    library = Library(tmp_path)
    library.rulebook("brujeria")
    library.character_path("ana")
    looked: list = []
    stamp = library_module._folder_stamp

    def noted(folder):
        looked.append(folder)
        return stamp(folder)

    monkeypatch.setattr(library_module, "_folder_stamp", noted)
    book = library.rulebook("brujeria")
    assert book is library.rulebook("brujeria")
    assert book.path == str(dsl.shipped_rulebooks()["brujeria"])
    assert len(looked) == 4  # the folder and the shipped one, each time
    looked.clear()
    library.character_path("ana")
    assert len(looked) == 2  # the shipped characters' folder, the folder (every suffix)


def test_a_folders_rulebook_named_as_a_shipped_one_is_the_folders(tmp_path):
    text = 'rulebook "Mía" extends brujeria {\n}\n'
    (tmp_path / "brujeria.rules").write_text(text, encoding="utf-8")
    library = Library(tmp_path)
    book = library.rulebook("brujeria")
    assert book.title == "Mía"
    assert book.path == str(tmp_path / "brujeria.rules")


def test_a_worker_under_its_memory_bound_does_not_read_proc(monkeypatch):
    def read():
        raise AssertionError("/proc read")

    assert worker._holds_more_than(0) == (worker._resident() > 0)
    monkeypatch.setattr(worker, "_resident", read)
    assert not worker._holds_more_than(1 << 50)  # its peak is under: nothing else read


@pytest.mark.parametrize("freeze", [True, False])
def test_what_the_workers_start_with_is_frozen(monkeypatch, freeze):
    from interpreter.web import preload

    monkeypatch.setattr(preload, "FREEZE", freeze)
    gc.unfreeze()
    try:
        preload.settle()
        assert (gc.get_freeze_count() > 1000) is freeze
    finally:
        gc.unfreeze()


def test_a_worker_forked_after_the_preload_inherits_it_frozen():
    code = (
        "import gc, os, interpreter.web.preload\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os._exit(0 if gc.get_freeze_count() > 10000 else 1)\n"
        "print(os.waitpid(pid, 0)[1])\n"
    )
    said = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert said.stdout.strip() == "0", said.stderr
