"""Files that are not regular files (named pipes, folders) where a rulebook, a sheet or a
record is expected: refused with the project's error naming the file, never waited on."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from web_client import page_client

import dsl
from dsl.errors import RulebookError
from dsl.reading import NotRegular, TooLarge, read_regular, read_text
from interpreter.errors import SheetError
from interpreter.sheets.character import Sheet, read_current, read_file, rulebook_named_in
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
#: seconds a call may take before the test calls it blocked (a hang guard, not a timing)
BLOCKED = 60


def finished(call, fifo: Path):
    """What `call()` returns or raises; a call still waiting after BLOCKED seconds fails
    the test (a writer is then opened and closed on the pipe, so the call ends)."""
    out: dict = {}

    def target():
        try:
            out["value"] = call()
        except BaseException as error:
            out["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(BLOCKED)
    if thread.is_alive():
        with contextlib.suppress(OSError):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(BLOCKED)
        pytest.fail(f"waited on the named pipe {fifo.name}")
    return out


@pytest.fixture
def pipes(tmp_path):
    for name in ("x.rules", "hero.yaml", "record.json", "sheet"):
        os.mkfifo(tmp_path / name)
    (tmp_path / "folder.rules").mkdir()
    return tmp_path


@pytest.mark.parametrize("name", ["x.rules", "folder.rules"])
def test_a_rulebook_that_is_a_pipe_or_a_folder_is_refused_naming_it(pipes, name):
    out = finished(lambda: dsl.load(pipes / name), pipes / name)
    error = out.get("error")
    assert isinstance(error, RulebookError), out
    assert name in str(error) and "not a regular file" in str(error)


def test_a_sheet_that_is_a_pipe_is_refused_by_every_reader(pipes):
    book = dsl.load("brujeria")
    fifo = pipes / "hero.yaml"
    for call in (
        lambda: Sheet.load(fifo, book),
        lambda: read_file(fifo),
        lambda: read_current(fifo),
    ):
        out = finished(call, fifo)
        assert isinstance(out.get("error"), SheetError), out
        assert "a named pipe, not a regular file" in str(out["error"])
    assert finished(lambda: rulebook_named_in(fifo), fifo) == {"value": rulebook_named_in(fifo)}


def test_reading_takes_regular_files_up_to_the_bound(tmp_path):
    path = tmp_path / "a.rules"
    path.write_bytes(b"one\r\ntwo\rthree\n")
    assert read_text(path, 100) == "one\ntwo\nthree\n"  # as Python's text files read it
    with pytest.raises(TooLarge):
        read_regular(path, 5)
    os.symlink(path, tmp_path / "link.rules")
    assert read_regular(tmp_path / "link.rules", 100) == path.read_bytes()
    with pytest.raises(OSError):
        read_regular(tmp_path / "link.rules", 100, follow=False)
    with pytest.raises(NotRegular):
        read_regular(tmp_path, 100)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "x.rules"],
        ["describe", "x.rules"],
        ["odds", "x.rules", "3d6"],
        ["fmt", "x.rules"],
        ["verify", "record.json"],
        ["run", "brujeria", "asustarse", "--char", "hero.yaml", "--lang", "en"],
        # a path with no sheet suffix, as `--char <(...)` gives: the pipe, not "no file"
        ["odds", "brujeria", "asustarse", "--char", "./sheet", "--lang", "en"],
        ["new", "hero.yaml", "copy.yaml"],
    ],
)
def test_the_command_line_refuses_a_pipe_naming_it(pipes, argv):
    program = "import sys; from interpreter.cli import main; sys.exit(main(sys.argv[1:]))"
    try:
        done = subprocess.run(
            [sys.executable, "-c", program, *argv],
            cwd=pipes,
            env={**os.environ, "PYTHONPATH": str(ROOT), "RULEBOOK_LANG": "en"},
            capture_output=True,
            text=True,
            timeout=BLOCKED,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`rulebook {' '.join(argv)}` waited on a named pipe")
    named = next(a for a in argv[1:] if a in ("x.rules", "hero.yaml", "record.json", "./sheet"))
    assert done.returncode not in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    assert named.removeprefix("./") in done.stderr, done.stderr
    assert "not a regular file" in done.stderr, done.stderr
    assert not (pipes / "copy.yaml").exists()


def test_the_server_lists_around_pipes_and_answers(pipes):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", pipes / "ana.yaml")

    def ask():
        with page_client(create_app(pipes)) as client:
            books = client.get("/api/rulebooks").json()["rulebooks"]
            people = client.get("/api/characters").json()["characters"]
            source = client.get("/api/rulebooks/x/source")
            return {b["name"] for b in books}, {p["name"] for p in people}, source.status_code

    out = finished(ask, pipes / "x.rules")
    books, people, status = out["value"]
    assert "x" not in books and "hero" not in people and "ana" in people
    assert status == 404
