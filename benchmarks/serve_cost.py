"""The server's CPU for one cheap run: its event loop's and its worker's, per request.

    python benchmarks/serve_cost.py                      # this code
    python benchmarks/serve_cost.py --before main        # and main's, sides in turns
    python benchmarks/serve_cost.py --requests 3000 --rounds 5

A real `rulebook serve --workers 1` (benchmarks/serving.py) on a folder with Brujería's
`ana`, one client on one keep-alive connection sending `POST /api/run` of `asustarse`
one after another, as the page sends it. Two kinds of run, each measured apart:

- `seeded`: a new seed each request (the page's Run button): the answers of runs whose
  dice went the same way are remembered (interpreter.web.kept_answers);
- `unlike`: a new seed and a new `modificador` each request: no two runs alike, every
  answer rendered anew (what a run costs when nothing is remembered).

After `--warm` requests, `--requests` are counted: the server's CPU (user and system, read
from /proc: its own process, the event loop, and every process below it, its worker)
divided by them. With `--before REV`, both sides are served, in turns `--rounds` times;
each line gives the median of its rounds and their range (the noise). CPU time, not wall
time: the machine's other load counts little in it. A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serving import PAGE_HEADERS, Server, campaign, checkout, descendants

RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "ana"}


def ticks(pid: int) -> tuple[int, int]:
    """A process's CPU so far, user and system, in clock ticks (0 for one that is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0, 0
    return int(fields[11]), int(fields[12])


def body_of(kind: str, i: int) -> dict:
    if kind == "unlike":  # (no two alike: nothing remembered)
        return {**RUN, "seed": i, "params": {"modificador": i % 100_000}}
    return {**RUN, "seed": i}


class Client:
    """One keep-alive connection sending runs and reading each whole answer."""

    def __init__(self, port: int):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.file = self.sock.makefile("rb")

    def run(self, body: dict) -> None:
        data = json.dumps(body).encode()
        headers = {
            "Host": f"127.0.0.1:{self.port}",
            "Content-Type": "application/json",
            "Content-Length": str(len(data)),
            **PAGE_HEADERS.get(self.port, {}),
        }
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self.sock.sendall(f"POST /api/run HTTP/1.1\r\n{head}\r\n".encode("latin-1") + data)
        status = self.file.readline()
        length = 0
        while (line := self.file.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        answer = self.file.read(length)
        if b" 200 " not in status:
            raise RuntimeError(f"{status!r}: {answer[:300]!r}")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def measure(code: Path | None, kind: str, args) -> dict:
    """ms of server CPU per request: the event loop's and the worker's, user and system."""
    with Server(campaign(), "--workers", "1", code=code) as server:
        client = Client(server.port)
        try:
            for i in range(args.warm):
                client.run(body_of(kind, 10**7 + i))
            below = descendants(server.pid)
            loop, workers = ticks(server.pid), [ticks(p) for p in below]
            for i in range(args.requests):
                client.run(body_of(kind, i))
            loop_after, workers_after = ticks(server.pid), [ticks(p) for p in below]
        finally:
            client.close()
        if descendants(server.pid) != below:
            print("(a worker was replaced meanwhile: its CPU is not all counted)", file=sys.stderr)
    per = 1000 / args.requests / _clock_ticks()
    out = {
        "loop_user": (loop_after[0] - loop[0]) * per,
        "loop_system": (loop_after[1] - loop[1]) * per,
        "worker_user": sum(a[0] - b[0] for a, b in zip(workers_after, workers)) * per,
        "worker_system": sum(a[1] - b[1] for a, b in zip(workers_after, workers)) * per,
    }
    out["loop"] = out["loop_user"] + out["loop_system"]
    out["worker"] = out["worker_user"] + out["worker_system"]
    out["total"] = out["loop"] + out["worker"]
    return out


def _clock_ticks() -> int:
    import os

    return os.sysconf("SC_CLK_TCK")


def line(name: str, kind: str, rows: list[dict]) -> str:
    def shown(key: str) -> str:
        values = [row[key] for row in rows]
        return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"

    return (
        f"{name:>8} {kind:>6}: server CPU {shown('total')} ms/request; "
        f"event loop {shown('loop')}, worker {shown('worker')}"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="counted, each round")
    parser.add_argument("--warm", type=int, default=300, help="sent first, not counted")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", default=["seeded", "unlike"])
    parser.add_argument("--before", help="another revision to compare (git), in turns")
    args = parser.parse_args(argv)
    sides: list[tuple[str, Path | None]] = [("this", None)]
    if args.before:
        sides.insert(0, (args.before, checkout(args.before)))
    rows: dict = {}
    for _ in range(args.rounds):
        for kind in args.kinds:
            for name, code in sides:
                rows.setdefault((name, kind), []).append(measure(code, kind, args))
    for kind in args.kinds:
        for name, _code in sides:
            print(line(name, kind, rows[name, kind]))
        if args.before:
            ours = statistics.median(r["total"] for r in rows["this", kind])
            theirs = statistics.median(r["total"] for r in rows[args.before, kind])
            print(f"{'':>8} {kind:>6}: this/{args.before} {ours / theirs:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
