"""Jobs for the worker pool's tests (tests/test_web_pool.py): run in its worker processes,
which import this module by name (`settings["jobs"] = "pool_jobs:JOBS"`)."""

from __future__ import annotations

import os
import re
from pathlib import Path

_HELD: list = []


def pid(work, args) -> dict:
    """Which process ran it."""
    return {"pid": os.getpid()}


def mark(work, args) -> dict:
    """Leaves a file behind: proof that it ran."""
    Path(args["path"]).write_text(str(os.getpid()))
    return {"pid": os.getpid()}


def backtrack(work, args) -> dict:
    """Inside one call of `re` for longer than any test waits: only a kill stops it."""
    if "path" in args:
        Path(args["path"]).write_text(str(os.getpid()))
    re.fullmatch(r"(a|aa)+b", "a" * args.get("n", 80))
    return {"pid": os.getpid()}


def spin(work, args) -> dict:
    """Its inputs checked at once, then work that never ends (a Python loop)."""
    work.ready()
    if "path" in args:
        Path(args["path"]).write_text(str(os.getpid()))
    while True:
        pass


def count(work, args) -> dict:
    """A fixed amount of work: `n` additions."""
    total = 0
    for i in range(args["n"]):
        total += i
    return {"pid": os.getpid(), "total": total}


def writes(work, args) -> dict:
    """A job that writes (never paused nor cancelled): counts, then leaves its file."""
    count(work, args)
    return mark(work, args)


def grow(work, args) -> dict:
    """Keeps `mb` megabytes after it answers."""
    _HELD.append(bytearray(args["mb"] * 2**20))
    return {"pid": os.getpid()}


def allocate(work, args) -> dict:
    """Asks for more memory than the worker may take."""
    return {"size": len(bytearray(args["mb"] * 2**20))}


def crash(work, args) -> dict:
    """The process ends by itself, as a crash would."""
    os._exit(3)


JOBS = {
    "pid": pid,
    "mark": mark,
    "backtrack": backtrack,
    "spin": spin,
    "count": count,
    "writes": writes,
    "grow": grow,
    "allocate": allocate,
    "crash": crash,
}


def _serve_jobs() -> dict:
    """The server's own jobs, but odds of the expression "spin forever": work that only
    a kill ends (tests/test_web_server.py serves with these)."""
    from interpreter.web import play
    from interpreter.web.worker import JOBS as SERVED

    def odds(work, args) -> dict:
        if args["body"].get("expression") == SPIN:
            spin(work, {})
        return play.odds(work, args)

    return {**SERVED, "odds": odds}


SPIN = "spin forever"
SERVE_JOBS = _serve_jobs()
