"""A request's work handed to the worker processes, and its answer written back.

The event loop only reads a request, gives its job to the pool (interpreter.web.worker_pool:
lanes, turns by client, bounds kept by killing the process) and writes the bytes the
worker rendered; while it waits it listens for the client going away, which cancels
the job. An odds request with `progress` streams lines of JSON once its inputs are
checked: `{"progress": ...}` as the work goes, then `{"result": ...}` or `{"error": ...}`.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import deque
from typing import Any, cast

from starlette.responses import Response, StreamingResponse

from dsl.messages import Number, language_for, tr
from interpreter.errors import LimitExceeded
from interpreter.journal import postgres
from interpreter.limits import WEB_SWEEP_ODDS_TIMES
from interpreter.web.jobs import odds_too_long
from interpreter.web.worker_pool import Job, Pool

#: seconds an odds computation may take before it is stopped
ODDS_SECONDS = 60.0
#: seconds a run may take (an untrusted rulebook's run must not hold a worker)
RUN_SECONDS = 10.0
#: bytes of address space a worker process may take
WORKER_MEMORY = 2 * 2**30
#: bytes a worker may hold after a job and still take the next one
WORKER_RSS = 300 * 2**20
#: seconds a job runs before its client is watched for going away (which stops it)
WATCH_AFTER = 0.05
#: whether the jobs awaited have their watches started by one timer of the event loop's
#: (`Watches`: set again only when it rings), not each by a timer made and cancelled (off:
#: a timer per request, as it was)
ONE_WATCH_TIMER = True
#: seconds a timer may ring before its time (the event loop's clock resolution, and more)
EARLY = 0.001


class Workers:
    """The worker processes of one server, as its handlers use them."""

    def __init__(
        self,
        folder,
        odds_seconds: float = ODDS_SECONDS,
        run_seconds: float = RUN_SECONDS,
        language: str | None = None,
        quick: int = 2,
        heavy: int | None = None,
        memory: int = WORKER_MEMORY,
        jobs: str = "interpreter.web.worker:JOBS",
    ):
        self.odds_seconds = odds_seconds
        self.run_seconds = run_seconds
        settings = {
            "run_seconds": run_seconds,
            "odds_seconds": odds_seconds,
            "language": language,
            "memory": memory,
            "rss": WORKER_RSS,
            "jobs": jobs,
            # the journal's database as the app was made with it (None: journal.sqlite):
            # a worker saves there whatever the environment it was forked from says
            "database": postgres.from_environment(),
        }
        options: dict[str, Any] = {"quick": quick, "heavy": heavy}
        self._made = (folder, settings, options)
        # One pool per event loop: an app served by two loops at once (two test clients)
        # must not wait in one loop for what another loop's pool is told.
        self._pools: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._watches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # (by loop)

    @property
    def pool(self) -> Pool:
        """The pool of the running event loop, made on first use."""
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is None:
            folder, settings, options = self._made
            pool = self._pools[loop] = Pool(folder, settings, **options)
        return pool

    async def start(self) -> None:
        await self.pool.start()

    async def stop(self) -> None:
        pool = self._pools.pop(asyncio.get_running_loop(), None)
        if pool is not None:
            await pool.close()

    async def answer(self, request, name: str, args: dict, writes: bool = False) -> Response:
        """The job's answer, as the worker rendered it."""
        job = self._job(request, name, args, writes=writes)
        self.pool.submit(job)
        if not await self._awaited(request, job, job.done):
            return _gone()
        status, body = job.done.result()
        if job.told is not None and status == 200:  # for the table's doors to tell
            request.scope.setdefault("state", {})["told"] = job.told
        return _response(status, body, job.headers)

    async def odds(self, request, body: dict) -> Response:
        """Odds: the answer, or with `progress`, a stream once the inputs are checked."""
        streams = body.get("progress") is True
        job = self._job(request, "odds", {"body": body}, streams=streams)
        self.pool.submit(job)
        if not await self._awaited(request, job, job.ready if streams else job.done):
            return _gone()
        if not job.stream:  # the answer, or an error found in the inputs
            if not await self._awaited(request, job, job.done):
                return _gone()
            return _response(*job.done.result())
        return StreamingResponse(self._lines(job), media_type="application/x-ndjson")

    def _job(self, request, name: str, args: dict, writes=False, streams=False) -> Job:
        # Errors speak the request's language (`lang`), as app.project_error says them.
        # (`request.state`'s dict read as it is: its `State` made and a missing name's
        # AttributeError raised, and `request.client`'s tuple, cost every request)
        state = request.scope.get("state") or {}
        asked = state.get("lang")
        lang = asked or (
            request.query_params.get("lang") if request.scope.get("query_string") else None
        )
        seconds, too_long = self.run_seconds, None
        if name == "run":
            too_long = self._run_too_long
        elif name == "odds":
            seconds, too_long = self.odds_seconds, self._odds_too_long
        elif name == "sweep":
            seconds = self.odds_seconds * WEB_SWEEP_ODDS_TIMES
            too_long = self._sweep_too_long
        elif name == "encounter":  # (as long as a sweep: many turns' odds, or a sample)
            seconds = self.odds_seconds * WEB_SWEEP_ODDS_TIMES
            too_long = self._encounter_too_long
        address = request.scope.get("client")
        client = address[0] if address is not None else ""
        return Job(
            name,
            args,
            client=client,
            seconds=seconds,
            too_long=too_long,
            lang=language_for(lang) if lang else None,
            stream_lang=asked,
            writes=writes,
            streams=streams,
            # what the table's doors (interpreter.web.tabletop.doors) will tell of it
            tell=state.get("tell"),
        )

    def _run_too_long(self) -> LimitExceeded:
        return LimitExceeded(
            tr(
                "the run took longer than {seconds} seconds (limit run_seconds)",
                seconds=Number(self.run_seconds, "g"),
            )
        )

    def _odds_too_long(self) -> LimitExceeded:
        return odds_too_long(self.odds_seconds)

    def _sweep_too_long(self) -> LimitExceeded:
        return LimitExceeded(
            tr(
                "the sweep took longer than {seconds} seconds (the server's time limit)",
                seconds=Number(self.odds_seconds * WEB_SWEEP_ODDS_TIMES, "g"),
            ),
            None,
            tr("sweep fewer cases"),
        )

    def _encounter_too_long(self) -> LimitExceeded:
        return LimitExceeded(
            tr(
                "the encounter took longer than {seconds} seconds (the server's time limit)",
                seconds=Number(self.odds_seconds * WEB_SWEEP_ODDS_TIMES, "g"),
            ),
            None,
            tr("ask for fewer trials, or fewer rounds"),
        )

    async def _awaited(self, request, job: Job, future: asyncio.Future) -> bool:
        """Wait for `future`; False (and the job cancelled) if the client goes first.
        The future is awaited itself (its answer wakes this wait, nothing between). The
        client is watched from WATCH_AFTER seconds on (a quick answer costs no watch);
        the watch, seeing it go, cancels the job, which wakes the wait (a job that writes
        finishes all the same: not waited for). Once cancelled, the watch ends on its
        own: nothing waits for it."""
        loop = asyncio.get_running_loop()
        watch: asyncio.Task | None = None
        left = False

        def leave(_) -> None:
            nonlocal left
            if future.done() or watch is None or watch.cancelled():
                return
            left = True
            self.pool.cancel(job)
            if not future.done():
                future.cancel()

        def watching() -> None:
            nonlocal watch
            watch = loop.create_task(_disconnected(request.receive))
            watch.add_done_callback(leave)

        if ONE_WATCH_TIMER:
            watches = self._watches.get(loop)
            if watches is None:
                watches = self._watches[loop] = Watches(loop)
            later: Any = watches.add(WATCH_AFTER, watching)
        else:
            later = loop.call_later(WATCH_AFTER, watching)
        try:
            await future
        except asyncio.CancelledError:
            if not left:  # (this request's own task cancelled)
                raise
        finally:
            if ONE_WATCH_TIMER:
                later[1] = None  # (its watch, not started yet, never is)
            else:
                later.cancel()
            if watch is not None:
                watch.remove_done_callback(leave)
                watch.cancel()
        return not left

    async def _lines(self, job: Job):
        """A stream's lines: progress as it comes, then the last line."""
        lines = cast(asyncio.Queue, job.lines)  # (a job that streams has its queue)
        try:
            while True:
                getter = asyncio.ensure_future(lines.get())
                await asyncio.wait({getter, job.done}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                    continue
                getter.cancel()
                while not lines.empty():
                    yield lines.get_nowait()
                break
            yield job.done.result()[1]
        finally:
            self.pool.cancel(job)  # the client went away: its work stops


class Watches:
    """When each job awaited starts watching its client: `add(after, start)` calls
    `start()` `after` seconds from now, unless the entry it gives is let go first
    (`entry[1] = None`). One timer of the event loop for them all, set again only when it
    rings (for the first entry still due): a request answered quickly makes no timer, nor
    leaves a cancelled one in the loop's heap; the entries let go are dropped as it rings."""

    __slots__ = ("due", "loop", "timer")

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.due: deque[list] = deque()  # [when, start or None], in the order added
        self.timer: asyncio.TimerHandle | None = None

    def add(self, after: float, start) -> list:
        entry = [self.loop.time() + after, start]
        self.due.append(entry)
        timer = self.timer
        if timer is None or timer.when() > entry[0] + EARLY:  # (none, or set for later)
            if timer is not None:
                timer.cancel()
            self.timer = self.loop.call_at(entry[0], self._ring)
        return entry

    def _ring(self) -> None:
        now, first = self.loop.time(), None
        starts: list = []
        kept: deque[list] = deque()
        for entry in self.due:
            start = entry[1]
            if start is None:  # (let go: dropped)
                continue
            if entry[0] - now <= EARLY:
                entry[1] = None
                starts.append(start)
            else:
                kept.append(entry)
                first = entry[0] if first is None else min(first, entry[0])
        self.due = kept
        self.timer = None if first is None else self.loop.call_at(first, self._ring)
        for start in starts:
            start()


async def _disconnected(receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _response(status: int, body: bytes, headers: dict | None = None) -> Response:
    # As app.project_error and app.unexpected_error answer (a 500 is not marked no-store).
    if 400 <= status < 500:
        headers = {"cache-control": "no-store"}
    elif status != 200:
        headers = None
    return Response(body, status, headers=headers or None, media_type="application/json")


def _gone() -> Response:
    return Response(b"", 400)
