"""`rulebook serve --workers N`: N worker processes for quick requests, the same answers
whatever N is (a seeded run comes out the same from any worker, asked one at a time or
many at once), and the table told of each run."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: seconds a server may take to start, or a request to be answered (a bound, not a measure)
BOUND = 120.0
SEEDS = range(12)


def _processes_below(pid: int) -> list[int]:
    """The live processes descended from `pid` (a zombie, ended but not yet reaped, is not)."""
    found, parents, changed = [], {pid}, True
    while changed:
        changed = False
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
            except (OSError, IndexError, ValueError):
                continue
            child = int(stat.parent.name)
            if parent.isdigit() and int(parent) in parents and child not in parents:
                parents.add(child)
                if state not in ("Z", "X"):
                    found.append(child)
                changed = True
    return found


def _settled_count(pid: int, expected: int | None = None) -> int:
    """How many live processes stand below `pid` once they stop changing: a job that
    outlasted its slice on a busy machine moved to the heavy lane, whose process ends
    with its job a moment later (the count is waited for, within BOUND, not measured)."""
    deadline = time.monotonic() + BOUND
    last = len(_processes_below(pid))
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = len(_processes_below(pid))
        if now == last and (expected is None or now == expected):
            return now
        last = now
    return last


class Served:
    """A real `rulebook serve FOLDER --workers N` on a free port."""

    def __init__(self, folder: Path, workers: int):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        command = [sys.executable, "-m", "interpreter.cli", "serve", str(folder)]
        command += ["--port", str(self.port), "--no-browser", "--workers", str(workers)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + BOUND
        while True:
            try:
                self.csrf = json.loads(self.get("/api/session"))["csrf_token"]
                break
            except OSError:
                assert self.process.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as answer:
            return answer.read()

    def run(self, seed: int) -> dict:
        body = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": seed}
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/run",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-CSRF-Token": self.csrf},
        )
        with urllib.request.urlopen(request, timeout=BOUND) as answer:
            return json.loads(answer.read())

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(BOUND)


def test_several_workers_answer_as_one_does(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    one = Served(tmp_path, 1)
    try:
        alone = [one.run(seed) for seed in SEEDS]
        quick = _settled_count(one.process.pid)
    finally:
        one.close()
    several = Served(tmp_path, 3)
    try:
        with ThreadPoolExecutor(6) as clients:  # many at once: every worker answers some
            at_once = list(clients.map(several.run, SEEDS))
        in_turn = [several.run(seed) for seed in SEEDS]
        # two more worker processes than with one (beside the process they are forked from)
        assert _settled_count(several.process.pid, quick + 2) == quick + 2
        log = json.loads(several.get("/api/table/log"))["events"]
    finally:
        several.close()
    assert at_once == alone and in_turn == alone
    assert len({json.dumps(a["dice"]) for a in alone}) > 1  # the seeds do differ
    # every run told to the folder's table, the one server's and the other's
    runs = [e for e in log if e["kind"] == "run"]
    assert sorted(json.dumps(e["dice"]) for e in runs) == sorted(
        json.dumps(a["dice"]) for a in alone * 3
    )
