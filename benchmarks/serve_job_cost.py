"""A worker's CPU for one cheap run's job, in this process: hot, and with its caches cold.

    python benchmarks/serve_job_cost.py                     # µs per job, seeded and unlike
    python benchmarks/serve_job_cost.py --cold 16           # 16 MB touched between jobs
    python benchmarks/serve_job_cost.py --profile unlike    # where one kind's time goes

The job is the one `benchmarks/serve_cost.py` makes the server send (`POST /api/run` of
Brujería's `asustarse` for `ana`, the table told), run by `interpreter.web.worker.one`
as a worker runs it: the shipped rulebooks preloaded, a socket and its held notice, the
folder and sheet older than the library's racy window (else each job lists the folder and
reads the sheet again, as the first seconds after a change do). `seeded` runs repeat
their dice (answers remembered, interpreter.web.kept_answers); `unlike` runs render every
answer anew.

A served job costs more than this loop's: between two jobs the event loop and the client
run, and the worker finds its caches cold. `--cold MB` touches that many megabytes between
jobs (outside the time counted) to show it: 4 MB put a seeded job from about 150 µs to
about 240 µs on the machine of issue 25, which `serve_cost.py` measured at about 410 µs.
Each line: the median of `--rounds` rounds and their range (the noise), CPU time
(`time.process_time`). A benchmark, not a test.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import socket
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_cost import body_of
from serving import campaign

#: what the server sends with a run's job (interpreter.web.worker_pool.Job.envelope)
ENVELOPE = {
    "job": "run",
    "lang": None,
    "stream_lang": None,
    "seconds": 21.0,
    "most": 32_000_000,
    "tell": {"kind": "run", "path": "/api/run", "page": None},
}
#: a worker's settings as `rulebook serve` gives them
SETTINGS = {"run_seconds": 10.0, "odds_seconds": 60.0, "language": None}


class Jobs:
    """A worker's side of one job after another, in this process."""

    def __init__(self):
        import interpreter.web.preload  # noqa: F401 (a worker starts with the shipped rulebooks)
        from interpreter.web import worker
        from interpreter.web.library import Library

        folder = campaign()
        aged = time.time() - 100  # (older than library.RACY_NS: listed and read once)
        for path in (folder / "ana.yaml", folder):
            os.utime(path, (aged, aged))
        self.worker = worker
        self.library = Library(folder)
        self.sock, self._other = socket.socketpair()
        self.notice = worker.Notice(self.sock)

    def one(self, kind: str, i: int) -> None:
        job = json.loads(json.dumps({**ENVELOPE, "args": {"body": body_of(kind, i)}}))
        worker = self.worker
        status, body = worker.one(
            self.sock, worker.JOBS, self.library, SETTINGS, job, [], self.notice
        )
        if status != 200:
            raise RuntimeError(body[:300])


def measure(jobs: Jobs, kind: str, requests: int, cold: int, start: int) -> float:
    """µs of CPU per job, `cold` MB touched between jobs (not counted)."""
    memory = bytearray(cold << 20)
    lines = len(memory[::64])
    spent = 0
    for i in range(start, start + requests):
        if cold:
            memory[::64] = b"\x01" * lines  # (every cache line of it)
        began = time.process_time_ns()
        jobs.one(kind, i)
        spent += time.process_time_ns() - began
    return spent / requests / 1000


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="counted, each round")
    parser.add_argument("--warm", type=int, default=300, help="run first, not counted")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", nargs="+", default=["seeded", "unlike"])
    parser.add_argument("--cold", type=int, default=0, help="MB touched between jobs")
    parser.add_argument("--profile", choices=["seeded", "unlike"], help="cProfile one kind")
    args = parser.parse_args(argv)
    jobs = Jobs()
    for kind in args.kinds:
        for i in range(args.warm):
            jobs.one(kind, 10**7 + i)
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        for i in range(args.requests):
            jobs.one(args.profile, i)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(40)
        return 0
    rows: dict[str, list[float]] = {kind: [] for kind in args.kinds}
    for turn in range(args.rounds):
        for kind in args.kinds:
            start = turn * args.requests  # (no run of a round repeats one of another's)
            rows[kind].append(measure(jobs, kind, args.requests, args.cold, start))
    for kind, values in rows.items():
        print(
            f"{kind:>6}: {statistics.median(values):.1f} µs/job "
            f"({min(values):.1f}–{max(values):.1f}), {args.cold} MB touched between jobs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
