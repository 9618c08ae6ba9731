"""What the server benchmarks share: a real `rulebook serve` process, requests from chosen
client addresses, the memory of the server and its workers, percentiles.

    with Server(folder, "--workers", "2") as server:
        status, body, seconds = call(server.port, "POST", "/api/odds", {"expression": "3d6"})
        server.memory()            # (the server's RSS, [each worker's RSS]) in MB

`Server(..., code=checkout("main"))` serves another revision's code (git archive into a
temporary folder), to compare before and after. Clients are told apart by their address:
`call(..., source="127.0.0.2")` connects from another address of 127.0.0.0/8.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: port → the headers the server's own page sends (its CSRF token; none before it had one)
PAGE_HEADERS: dict[int, dict] = {}


class Server:
    """A `rulebook serve FOLDER` process on a free port, stopped on exit."""

    def __init__(self, folder: Path, *options: str, code: Path | None = None):
        self.folder, self.options, self.code = folder, options, code or ROOT
        self.port = 0
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> Server:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        # (`python -m interpreter.cli`; a tree older than its __main__.py: the module itself)
        cli = "interpreter.cli"
        if not (self.code / "interpreter/cli/__main__.py").is_file():
            cli = "interpreter.cli.main"
        command = [sys.executable, "-m", cli, "serve", str(self.folder)]
        command += ["--port", str(self.port), "--no-browser", *self.options]
        env = {**os.environ, "PYTHONPATH": str(self.code)}
        # Its messages to a file: a pipe nobody reads would fill and stop the server.
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command, env=env, cwd=self.code, stdout=subprocess.DEVNULL, stderr=self.log
        )
        deadline = time.monotonic() + 120  # (a loaded machine starts slowly)
        if "--token" in self.options:  # asked of every request, as the page's cookie is
            token = self.options[self.options.index("--token") + 1]
            PAGE_HEADERS[self.port] = {"Authorization": f"Bearer {token}"}
        while True:
            try:
                if call(self.port, "GET", "/api/language", timeout=5)[0] == 200:
                    status, session, _ = call(self.port, "GET", "/api/session", timeout=5)
                    if status == 200:  # the page's CSRF token, sent as the page sends it
                        PAGE_HEADERS[self.port] = {
                            **PAGE_HEADERS.get(self.port, {}),
                            "X-CSRF-Token": json.loads(session)["csrf_token"],
                        }
                    return self
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                self.__exit__()
                raise RuntimeError("the server did not start")
            time.sleep(0.1)

    def __exit__(self, *exc) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.seek(0)
        said = self.log.read().decode("utf-8", "replace").strip()
        if said:
            print(f"(the server said: {said[:2000]})", file=sys.stderr)
        self.log.close()

    @property
    def pid(self) -> int:
        return self.process.pid

    def busy(self, seconds: float = 1.0) -> int:
        """How many processes below the server use more than half a core over `seconds`
        (a worker still computing for a client that went away counts)."""
        below = descendants(self.pid)
        before = {p: cpu_seconds(p) for p in below}
        time.sleep(seconds)
        return sum(cpu_seconds(p) - before[p] > seconds / 2 for p in below)

    def memory(self) -> tuple[float, list[float]]:
        """MB resident: the server's own, and each process below it (its workers; the
        fork server they start from, included, is the first)."""
        return rss_mb(self.pid), [rss_mb(p) for p in descendants(self.pid)]


def call(port: int, method: str, path: str, body=None, source="127.0.0.1", timeout=300.0):
    """(status, body bytes, seconds) of one request on a connection of its own."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    try:
        headers = {"Host": f"127.0.0.1:{port}", **PAGE_HEADERS.get(port, {})}
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read(), time.perf_counter() - started
    finally:
        connection.close()


def error_code(body: bytes) -> str:
    """The project's error code of an answer, or what it is."""
    try:
        document = json.loads(body)
    except ValueError:
        return f"{len(body)} bytes, not JSON"
    if isinstance(document, dict) and "error" in document:
        return document["error"].get("code", "?")
    return "answer"


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, oldest first."""
    found, parents, changed = [], {pid}, True
    while changed:
        changed = False
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            child, parent = int(stat.parent.name), int(fields[1])
            if parent in parents and child not in parents:
                parents.add(child)
                found.append(child)
                changed = True
    return sorted(found)


def cpu_seconds(pid: int) -> float:
    """CPU seconds a process has used (user and system); 0 for one that is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def checkout(revision: str) -> Path:
    """Another revision's code in a temporary folder (removed at exit)."""
    folder = Path(tempfile.mkdtemp(prefix="rulebook-"))
    archive = subprocess.run(
        ["git", "archive", revision], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    import atexit

    atexit.register(shutil.rmtree, folder, True)
    return folder


def campaign() -> Path:
    """A folder with one character of Brujería's, `ana` (removed at exit)."""
    import atexit

    folder = Path(tempfile.mkdtemp(prefix="campaign-"))
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    atexit.register(shutil.rmtree, folder, True)
    return folder
