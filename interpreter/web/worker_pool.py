"""The server's worker processes: a quick and a heavy lane, turns by client, bounds kept.

Every job (a request's work: interpreter.web.worker) runs in a process of its own that
the server can stop at any moment, whatever it is doing. How the processes are shared:

- **Queued by client.** Jobs wait in one queue per client (its address); a free worker
  takes the next job round-robin over the clients that have one waiting, and a client
  has at most `per_client` jobs started at once (its others wait their turn).
- **Every job starts in the quick lane** (`quick` processes). One that has not finished
  after `slice` seconds (half a second) is heavy: its process leaves the quick lane, a
  fresh process takes its place, and it runs on in the heavy lane at a lower CPU
  priority (nice 10). So a quick job never waits behind a heavy one for more than a slice.
- **The heavy lane runs `heavy` jobs at once** (the machine's cores). The others are
  paused (SIGSTOP) until their turn: when a job waits, the running job of the client
  with the most running jobs whose turn has lasted `quantum` seconds is paused, and the
  waiting job of the client with the fewest running jobs resumes. A job that writes (a
  save, an undo) is never paused: it holds the folder's lock.
- **Bounds are kept by killing.** A job's inputs are checked within `load_seconds`; its
  work then within its own bound (a run's `run_seconds`, odds' `odds_seconds`), counting
  only the time it ran (not queued nor paused). Past a bound by `grace`, or when its
  client goes away, its process is killed (SIGKILL: no regular expression, big number
  or answer being built can hold it) and replaced; its client gets the project's limit
  error. A job that writes finishes even when its client has gone.
- **Memory**: a heavy job's process ends with its job (a fresh one costs a fork of the
  preloaded fork server: milliseconds); a quick one ends once it holds more than `rss`
  bytes; each has at most `memory` bytes of address space.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import multiprocessing
import multiprocessing.forkserver
import multiprocessing.spawn
import os
import signal
import socket
import time
from collections import Counter, deque
from typing import Any, cast

from dsl.errors import RulebookError
from dsl.messages import Number, tr
from interpreter.errors import LimitExceeded
from interpreter.web import frames
from interpreter.web.errors import ServerFailed, error_json, status_of
from interpreter.web.jobs import line
from interpreter.web.worker import compact
from interpreter.web.worker import main as worker_main

log = logging.getLogger("rulebook.web")

#: seconds a job runs in the quick lane before it is heavy
SLICE = 0.5
#: seconds a heavy job runs before another waiting may take its turn
QUANTUM = 1.0
#: seconds past a bound before a job's process is killed (its own bound stops it first,
#: with the rule it was at, when it can)
GRACE = 1.0
#: seconds a job may take to read and check its inputs (a text at `dsl.load.MAX_WORDS`
#: is loaded and checked in 1–1.5 s of CPU)
LOAD_SECONDS = 10.0
#: jobs of one client started at once
PER_CLIENT = 4
#: bytes of the largest answer a worker sends
MOST_ANSWER = 32_000_000
#: how much lower a heavy job's CPU priority is
HEAVY_NICE = 10
#: seconds between two looks at the jobs running
TICK = 0.05

FORK_SERVER = "forkserver" in multiprocessing.get_all_start_methods()  # POSIX
# (typed as the contexts that make processes: both of these do)
CONTEXT = cast(
    "multiprocessing.context.SpawnContext",
    multiprocessing.get_context("forkserver" if FORK_SERVER else "spawn"),
)
WORKER_NAME = "rulebook-worker"


def _preparation_data(name: str) -> dict:
    """What multiprocessing sends a new process, but for a worker, without the program's
    main module: a worker runs interpreter.web.worker.main only, so running `__main__`
    again in every worker (the command line's, a script's) is work for nothing, and
    warnings on the server's terminal each time one starts."""
    data = _PREPARATION_DATA(name)
    if name == WORKER_NAME:
        data.pop("init_main_from_path", None)
        data.pop("init_main_from_name", None)
    return data


_PREPARATION_DATA = multiprocessing.spawn.get_preparation_data
multiprocessing.spawn.get_preparation_data = _preparation_data


class Job:
    """One request's work: its name and arguments, whose it is, its bounds, its answer."""

    def __init__(
        self,
        name: str,
        args: dict,
        client: str = "",
        seconds: float = LOAD_SECONDS,
        too_long=None,
        lang: str | None = None,
        stream_lang: str | None = None,
        writes: bool = False,
        streams: bool = False,
        tell: dict | None = None,
    ):
        self.name, self.args, self.client = name, args, client
        self.tell = tell  # the table's event the worker makes of its answer (told.told_frame)
        self.told: bytes | None = None  # that event, as the worker sent it
        self.streams = streams  # its answer streams once its inputs are checked
        self.seconds = seconds  # the bound of its work, once its inputs are checked
        self.too_long = too_long  # () → the error a job past `seconds` answers
        self.lang, self.stream_lang = lang, stream_lang
        self.writes = writes
        self.stream = False  # True once its inputs are checked, if it streams
        loop = asyncio.get_running_loop()
        self.done: asyncio.Future = loop.create_future()  # (status, body)
        self.ready: asyncio.Future = loop.create_future()  # True: inputs checked
        # progress lines, for a job that may stream (made only for one)
        self.lines: asyncio.Queue | None = asyncio.Queue() if streams else None
        self.worker: Worker | None = None
        self.ran = 0.0  # seconds run in the turns before this one
        self.turn: float | None = None  # when its running turn began (None: not running)
        self.ready_at: float | None = None  # seconds it had run when its inputs were checked
        self.paused_at = 0.0
        self.headers: dict[str, str] = {}  # of its answer, when the job gives some

    def running(self, now: float) -> float:
        """Seconds it has run, in every turn."""
        return self.ran + (now - self.turn if self.turn is not None else 0.0)

    def envelope(self, most: int) -> bytes:
        return frames.job_frame(
            {
                "job": self.name,
                "args": self.args,
                "lang": self.lang,
                "stream_lang": self.stream_lang,
                "seconds": LOAD_SECONDS + self.seconds + GRACE,
                "most": most,
                "tell": self.tell,
            }
        )

    def finish(self, status: int, body: bytes) -> None:
        if not self.done.done():
            self.done.set_result((status, body))
        if not self.ready.done():
            self.ready.set_result(False)

    def fail(self, error: RulebookError) -> None:
        """Answer with an error of the server's: a document, or a stream's last line."""
        if self.stream:
            self.finish(200, line(error_json(error, self.stream_lang)))
        else:
            self.finish(status_of(error), compact(error_json(error, self.lang)))


class Worker:
    """A worker process, and the server's end of its socket."""

    def __init__(self):
        self.process = None
        self.writer: asyncio.Transport | None = None  # (its socket's, as it listens)
        self.job: Job | None = None
        self.lane = "quick"
        self.retiring = False
        self.gone = False


class Pool:
    """The worker processes of one server (one folder), and the jobs given to them."""

    def __init__(
        self,
        folder: str,
        settings: dict,
        quick: int = 2,
        heavy: int | None = None,
        per_client: int = PER_CLIENT,
        slice_seconds: float = SLICE,
        quantum: float = QUANTUM,
        grace: float = GRACE,
        load_seconds: float = LOAD_SECONDS,
        most: int = MOST_ANSWER,
    ):
        self.folder, self.settings = str(folder), settings
        self.quick_size = max(1, quick)
        self.heavy_size = max(1, heavy or os.cpu_count() or 1)
        self.per_client, self.slice, self.quantum = per_client, slice_seconds, quantum
        self.grace, self.load_seconds, self.most = grace, load_seconds, most
        self.queues: dict[str, deque] = {}  # client → its jobs waiting
        self.order: deque = deque()  # the clients with jobs waiting, next served first
        self.started_by: Counter = Counter()  # client → its jobs started
        self.quick: set[Worker] = set()  # the quick lane's processes (starting, idle, busy)
        self.idle: list[Worker] = []  # of those, the ones waiting for a job
        self.heavy: list[Job] = []  # the heavy lane's jobs, running or paused
        self.workers: set[Worker] = set()  # every process alive
        self.ticking: asyncio.Task | None = None
        self.closed = False
        self.spawned = 0  # processes started, for the tests and benchmarks

    # ─── the pool's life ────────────────────────────────────────────────────

    async def start(self) -> None:
        if self.ticking is not None or self.closed:
            return
        loop = asyncio.get_running_loop()
        self.ticking = loop.create_task(self._ticking())
        await loop.run_in_executor(None, start_fork_server)
        self._fill()

    async def close(self) -> None:
        """Stop every process; a job not finished answers that the server is stopping."""
        self.closed = True
        if self.ticking is not None:
            self.ticking.cancel()
        stopping = RulebookError(tr("the server is stopping"))
        for queue in self.queues.values():
            for job in queue:
                job.finish(503, compact(error_json(stopping, job.lang)))
        self.queues.clear()
        self.order.clear()
        for worker in list(self.workers):
            if worker.job is not None:
                worker.job.finish(503, compact(error_json(stopping, worker.job.lang)))
            self._end(worker, kill=True)

    def submit(self, job: Job) -> Job:
        """Queue a job; its answer comes in `job.done`."""
        if self.closed:
            job.fail(RulebookError(tr("the server is stopping")))
            return job
        if self.ticking is None:
            asyncio.get_running_loop().create_task(self.start())
        if job.client not in self.queues:
            self.queues[job.client] = deque()
            self.order.append(job.client)
        self.queues[job.client].append(job)
        self._dispatch()
        return job

    def cancel(self, job: Job) -> None:
        """Its client went away: a job not started is dropped, one started is stopped
        (its process killed), unless it writes: that one finishes."""
        if job.done.done():
            return
        if job.worker is None:
            queue = self.queues.get(job.client)
            if queue is not None and job in queue:
                queue.remove(job)
                if not queue:
                    del self.queues[job.client]
                    self.order.remove(job.client)
            job.finish(499, b"")
            return
        if job.writes:
            return
        job.finish(499, b"")
        self._kill(job.worker)

    # ─── processes ──────────────────────────────────────────────────────────

    def _fill(self) -> None:
        """Start processes until the quick lane has its number."""
        while len(self.quick) < self.quick_size and not self.closed:
            worker = Worker()
            self.quick.add(worker)
            self.workers.add(worker)
            asyncio.get_running_loop().create_task(self._spawn(worker))

    async def _spawn(self, worker: Worker) -> None:
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        process = CONTEXT.Process(
            target=worker_main,
            args=(theirs, self.folder, self.settings),
            name=WORKER_NAME,
            daemon=True,
        )
        try:
            await loop.run_in_executor(None, _started, process, theirs)
        except asyncio.CancelledError:  # the server stops: a worker that starts reads the end
            ours.close()
            raise
        except Exception:  # the fork server could not start one: try again later
            log.exception("a worker process could not start")
            ours.close()
            self.quick.discard(worker)
            self.workers.discard(worker)
            await asyncio.sleep(1.0)
            self._fill()
            return
        self.spawned += 1
        worker.process = process
        transport, _ = await loop.create_unix_connection(
            lambda: frames.Listener(
                lambda *frame: self._heard(worker, *frame),
                lambda: self._gone(worker),
                self.most + 1024,
            ),
            sock=ours,
        )
        worker.writer = transport
        if worker.gone or self.closed:  # ended while it started
            _signal(process, signal.SIGKILL)
            worker.writer.close()
            loop.run_in_executor(None, _reap, process)
            return
        self.idle.append(worker)
        self._dispatch()

    def _heard(self, worker: Worker, kind: bytes, status: int, payload: bytes) -> None:
        """A frame a worker sent (interpreter.web.frames)."""
        job = worker.job
        if kind == frames.RETIRING:
            worker.retiring = True
        elif job is None:
            return
        elif kind == frames.PROGRESS:
            if job.lines is not None:
                job.lines.put_nowait(payload)
        elif kind == frames.HEADERS:
            job.headers = _headers(payload)
        elif kind == frames.TOLD:
            job.told = payload
        elif kind == frames.READY:  # (its payload: how long ago, when held back)
            ran = job.running(time.monotonic())
            job.ready_at = max(0.0, ran - _seconds_ago(payload))
            job.stream = job.streams
            if not job.ready.done():
                job.ready.set_result(True)
        elif kind == frames.DONE:
            self._finished(worker, job, status, payload)

    def _gone(self, worker: Worker) -> None:
        """A worker's socket closed, or it sent what is not a frame: it is gone."""
        job = worker.job
        if job is not None and not job.done.done():
            # It died by itself (a crash, the kernel's memory killer), not by our hand.
            code = worker.process.exitcode if worker.process is not None else None
            job.fail(_died(code))
        self._detach(worker)
        self._end(worker, kill=True)

    def _finished(self, worker: Worker, job: Job, status: int, body: bytes) -> None:
        job.finish(status, body)
        self._detach(worker)
        if worker.lane == "quick" and not worker.retiring and not self.closed:
            self.idle.append(worker)
        else:  # a heavy job's process (niced, maybe large) ends with its job
            self._end(worker)
        self._dispatch()

    def _detach(self, worker: Worker) -> None:
        job, worker.job = worker.job, None
        if job is None:
            return
        job.worker = None
        self.started_by[job.client] -= 1
        if self.started_by[job.client] <= 0:
            del self.started_by[job.client]
        if job in self.heavy:
            self.heavy.remove(job)

    def _kill(self, worker: Worker) -> None:
        self._detach(worker)
        self._end(worker, kill=True)
        self._dispatch()

    def _end(self, worker: Worker, kill: bool = False) -> None:
        """The process leaves the pool: killed, or told to stop (its socket closed)."""
        if worker.gone:
            return
        worker.gone = True
        self.workers.discard(worker)
        if worker in self.idle:
            self.idle.remove(worker)
        if worker in self.quick:
            self.quick.discard(worker)
            self._fill()
        process = worker.process
        if process is not None and kill:
            _signal(process, signal.SIGKILL)
        if worker.writer is not None:
            worker.writer.close()
        if process is not None:
            asyncio.get_running_loop().run_in_executor(None, _reap, process)

    # ─── jobs to processes ──────────────────────────────────────────────────

    def _dispatch(self) -> None:
        """Give the idle quick processes the next jobs, round-robin over the clients."""
        while self.idle and not self.closed:
            job = self._next()
            if job is None:
                return
            worker = self.idle.pop()  # the one used last: its caches are warm
            worker.job, job.worker = job, worker
            job.turn = time.monotonic()
            self.started_by[job.client] += 1
            cast(asyncio.Transport, worker.writer).write(job.envelope(self.most))  # (idle: made)

    def _next(self) -> Job | None:
        for _ in range(len(self.order)):
            client = self.order.popleft()
            queue = self.queues[client]
            if self.started_by[client] >= self.per_client:
                self.order.append(client)
                continue
            job = queue.popleft()
            if queue:
                self.order.append(client)
            else:
                del self.queues[client]
            return job
        return None

    async def _ticking(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            try:
                self._tick(time.monotonic())
            except Exception:  # a bug here must not stop every bound being kept
                log.exception("the worker pool's tick failed")

    def _tick(self, now: float) -> None:
        for worker in list(self.quick):
            job = worker.job
            if job is not None and now - cast(float, job.turn) >= self.slice:  # (running)
                self._to_heavy(worker, job)
        for worker in list(self.workers):
            job = worker.job
            if job is not None and job.turn is not None:
                self._bounded(job, now)
        self._turns(now)

    def _bounded(self, job: Job, now: float) -> None:
        """Kill a job past its bound (with a grace: its own bounds speak first)."""
        ran = job.running(now)
        if job.ready_at is None:
            if ran <= self.load_seconds + self.grace:
                return
            error = work_too_long(self.load_seconds)
        else:
            if ran - job.ready_at <= job.seconds + self.grace:
                return
            too_long = job.too_long or (lambda: work_too_long(job.seconds))
            error = too_long()
        job.fail(error)
        self._kill(cast(Worker, job.worker))  # (a running job has its worker)

    def _to_heavy(self, worker: Worker, job: Job) -> None:
        """A job past its slice: its process leaves the quick lane, at a lower priority."""
        self.quick.discard(worker)
        worker.lane = "heavy"
        self.heavy.append(job)
        with contextlib.suppress(OSError, AttributeError):  # gone, or no priorities here
            os.setpriority(os.PRIO_PROCESS, cast(Any, worker.process).pid, HEAVY_NICE)
        self._fill()

    def _turns(self, now: float) -> None:
        """The heavy lane: at most `heavy` jobs run; those waiting take turns, by client."""
        running = [job for job in self.heavy if job.turn is not None]
        waiting = [job for job in self.heavy if job.turn is None]
        while len(running) > self.heavy_size:
            victim = self._victim(running, now, 0.0)
            if victim is None:
                break
            self._pause(victim, now, running, waiting)
        while len(running) < self.heavy_size and waiting:
            self._resume(self._chosen(waiting, running), now, running, waiting)
        if waiting:
            victim = self._victim(running, now, self.quantum)
            if victim is not None:
                chosen = self._chosen(waiting, running)
                self._pause(victim, now, running, waiting)
                self._resume(chosen, now, running, waiting)

    def _victim(self, running: list, now: float, turn: float) -> Job | None:
        """The job to pause: of the client running most, the longest turn (of `turn`
        seconds at least); never one that writes."""
        held = Counter(job.client for job in running)
        candidates = [j for j in running if not j.writes and now - j.turn >= turn]
        if not candidates:
            return None
        return max(candidates, key=lambda j: (held[j.client], now - j.turn))

    @staticmethod
    def _chosen(waiting: list, running: list) -> Job:
        """The job to resume: of the client running least, the one waiting longest."""
        held = Counter(job.client for job in running)
        return min(waiting, key=lambda j: (held[j.client], j.paused_at))

    def _pause(self, job: Job, now: float, running: list, waiting: list) -> None:
        _signal(cast(Worker, job.worker).process, signal.SIGSTOP)  # (running: its worker)
        job.ran += now - cast(float, job.turn)
        job.turn, job.paused_at = None, now
        running.remove(job)
        waiting.append(job)

    def _resume(self, job: Job, now: float, running: list, waiting: list) -> None:
        _signal(cast(Worker, job.worker).process, signal.SIGCONT)  # (paused: its worker)
        job.turn = now
        waiting.remove(job)
        running.append(job)


def work_too_long(seconds: float) -> LimitExceeded:
    return LimitExceeded(
        tr(
            "this request's work took longer than {seconds} seconds (the server's time limit)",
            seconds=Number(seconds, "g"),
        )
    )


def start_fork_server() -> None:
    """The process workers are forked from, with the engine loaded and the shipped
    rulebooks checked (interpreter.web.preload): a worker starts in milliseconds."""
    if FORK_SERVER:
        CONTEXT.set_forkserver_preload(["interpreter.web.preload"])
        multiprocessing.forkserver.ensure_running()


def _seconds_ago(payload: bytes) -> float:
    """How long before it was sent a worker's notice (frames.READY) happened: 0 unless
    it says (interpreter.web.worker.Notice), at most a minute."""
    try:
        ago = float(payload) if payload else 0.0
    except ValueError:
        return 0.0
    return min(max(ago, 0.0), 60.0) if ago == ago else 0.0


def _headers(payload: bytes) -> dict[str, str]:
    """Headers a worker gives its answer: names and values that are texts, else none."""
    try:
        given = json.loads(payload)
    except ValueError:
        return {}
    if not isinstance(given, dict):
        return {}
    return {k: v for k, v in given.items() if isinstance(k, str) and isinstance(v, str)}


def _started(process, theirs: socket.socket) -> None:
    """Start a worker, then close this process's copy of its end of the socket pair: in
    the starting thread, once the start has sent it. (Closed by a cancelled `_spawn` while
    the start was still under way, its number was taken by the next start's connection to
    the fork server, which then sent that connection in its place: both starts hung.)"""
    try:
        process.start()
    finally:
        theirs.close()


def _signal(process, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, TypeError):
        os.kill(process.pid, number)


def _reap(process) -> None:
    process.join(5)
    if process.exitcode is None:
        _signal(process, signal.SIGKILL)
        process.join(5)
    if process.exitcode is not None:
        process.close()


def _died(code) -> ServerFailed:
    return ServerFailed(
        tr(
            "the worker process doing this request stopped by itself ({code}); this is a "
            "bug in rulebook or a lack of memory: the server's log may say more",
            code=str(code),
        ),
        status=500,
    )
