"""The engine's work off the event loop: worker threads, a time bound, progress as it goes.

Runs, checks and odds are CPU work, so they go to a small pool of threads (as many as
the machine has cores, at most two at once for odds) and the server keeps answering.
A run has a time bound too (`run_seconds`, read by the engine between statements), so
that a hostile rulebook's run cannot hold a worker.
An odds computation reports progress (the exact phase's work against its budget, then
the samples drawn); the same callback enforces the time bound and stops the work when
the client has gone, by raising the project's own LimitExceeded.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import weakref
from concurrent.futures import ThreadPoolExecutor

import attrs

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter.engine import Engine
from interpreter.errors import LimitExceeded
from interpreter.web.errors import error_json

#: seconds an odds computation may take before it is stopped
ODDS_SECONDS = 60.0
#: seconds a run may take (an untrusted rulebook's run must not hold a worker)
RUN_SECONDS = 10.0
#: seconds between two progress reports sent to the page
PROGRESS_EVERY = 0.1


class Workers:
    """The worker threads of one server: one pool for runs and checks, one for odds."""

    def __init__(self, odds_seconds: float = ODDS_SECONDS, run_seconds: float = RUN_SECONDS):
        cores = os.cpu_count() or 2
        self.runs = ThreadPoolExecutor(max_workers=max(1, min(cores, 4)), thread_name_prefix="run")
        self.odds = ThreadPoolExecutor(max_workers=min(cores, 2), thread_name_prefix="odds")
        self.odds_seconds = odds_seconds
        self.run_seconds = run_seconds
        self.stopping = False
        self._bounded: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def bounded(self, engine: Engine) -> Engine:
        """The rulebook's engine with the server's time bound on each run (`run_seconds`,
        read between statements: a run stops with LimitExceeded, nothing changed)."""
        book = engine.rulebook
        found = self._bounded.get(book)
        if found is None:
            limits = attrs.evolve(engine.limits, run_seconds=self.run_seconds)
            found = self._bounded[book] = Engine(book, limits)  # the compiled code is shared
        return found

    async def run(self, job, *args):
        """`job(*args)` in a worker thread; its result, or the error it raised."""
        return await asyncio.get_running_loop().run_in_executor(self.runs, job, *args)

    def clock(self, report=None) -> Clock:
        return Clock(self, report)

    async def odds_json(self, job) -> dict:
        """`job(progress)` (an odds computation) in an odds thread, its answer as JSON."""
        clock = self.clock()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.odds, job, clock.progress)
        finally:
            clock.cancelled = True

    async def odds_stream(self, job, language: str | None = None):
        """Lines of JSON: `{"progress": ...}` as the work goes, then `{"result": ...}` or
        `{"error": ...}` (the status line has gone out before the work can fail)."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        def report(message: dict) -> None:
            loop.call_soon_threadsafe(queue.put_nowait, message)

        clock = self.clock(report)
        future = loop.run_in_executor(self.odds, job, clock.progress)
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({getter, future}, return_when="FIRST_COMPLETED")
                if getter in done:
                    yield _line(getter.result())
                    continue
                getter.cancel()
                while not queue.empty():
                    yield _line(queue.get_nowait())
                break
            try:
                yield _line({"result": future.result()})
            except RulebookError as error:
                yield _line(error_json(error, language))
        finally:
            clock.cancelled = True  # the client went away: the thread stops at its next report

    def shutdown(self) -> None:
        self.stopping = True
        self.runs.shutdown(wait=False, cancel_futures=True)
        self.odds.shutdown(wait=False, cancel_futures=True)


class Clock:
    """One computation's time bound, and where its progress goes."""

    def __init__(self, workers: Workers, report=None):
        self.workers = workers
        self.report = report
        self.started = time.monotonic()
        self.last = 0.0
        self.cancelled = False

    def progress(self, done: int, total: int, elapsed: float, what: str = "sampling") -> None:
        now = time.monotonic()
        if self.cancelled or self.workers.stopping:
            raise LimitExceeded(tr("the odds computation was stopped: its request is gone"))
        seconds = self.workers.odds_seconds
        if now - self.started > seconds:
            raise LimitExceeded(
                tr(
                    "the odds took longer than {seconds} seconds (the server's time limit)",
                    seconds=f"{seconds:g}",
                ),
                None,
                tr("ask for fewer trials or a smaller budget, or simplify the question"),
            )
        if self.report is not None and (now - self.last >= PROGRESS_EVERY or done >= total):
            self.last = now
            phase = "exact" if what == "exact" else "sampling"
            self.report({"progress": {"phase": phase, "done": done, "total": total}})


def _line(message: dict) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")
