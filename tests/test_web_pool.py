"""The server's worker processes (interpreter.web.worker_pool): a job stuck where no thread could
stop it is killed at its bound and its process replaced; a client gone cancels its job;
quick jobs never wait behind heavy ones; heavy jobs take turns by client; memory bounded.

The jobs are tests/pool_jobs.py's, run in real worker processes. Nothing here measures
time: a job that never ends shows a bound kept by ending, a turn given by finishing."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from interpreter.errors import LimitExceeded
from interpreter.web import worker_pool
from interpreter.web.worker_pool import Job, Pool, Worker

#: seconds a test waits for something that must happen, before it fails (not a measure)
WAIT = 120.0
SETTINGS = {
    "run_seconds": 10.0,
    "odds_seconds": 60.0,
    "language": None,
    "memory": 2 * 2**30,
    "rss": 2**40,
    "jobs": "pool_jobs:JOBS",
}


def scenario(folder: Path, story, settings=None, **options):
    """Run `story(pool)` with a pool of its own, stopped afterwards."""

    async def go():
        pool = Pool(str(folder), {**SETTINGS, **(settings or {})}, **options)
        await pool.start()
        try:
            await until(lambda: len(pool.idle) == pool.quick_size)
            return await story(pool)
        finally:
            await pool.close()

    return asyncio.run(go())


async def until(condition) -> None:
    async def poll():
        while not condition():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), WAIT)


def submit(pool: Pool, name: str, args=None, client="a", **options) -> Job:
    return pool.submit(Job(name, args or {}, client=client, **options))


async def answer(job: Job) -> tuple[int, dict | None]:
    status, body = await asyncio.wait_for(asyncio.shield(job.done), WAIT)
    return status, json.loads(body) if body else None


def alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting to be reaped does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def pid_in(path: Path) -> int:
    return int(path.read_text())


# ─── bounds kept by killing ────────────────────────────────────────────────


def test_a_job_stuck_inside_one_regular_expression_is_killed_and_replaced(tmp_path):
    marked = tmp_path / "pid"

    async def story(pool):
        spawned = pool.spawned
        stuck = submit(pool, "backtrack", {"path": str(marked)})
        status, body = await answer(stuck)
        assert status == 422 and body["error"]["code"] == "limit_exceeded"
        assert "0.5 seconds" in body["error"]["message"]
        await until(lambda: not alive(pid_in(marked)))  # the process itself is gone
        status, body = await answer(submit(pool, "pid"))  # and the pool answers on
        assert status == 200 and body["pid"] != pid_in(marked)
        assert pool.spawned > spawned

    scenario(tmp_path, story, load_seconds=0.5, grace=0.2)


def test_work_past_its_own_bound_is_killed_with_the_jobs_error(tmp_path):
    def too_long():
        return LimitExceeded("the spin took longer than 0.3 seconds")

    async def story(pool):
        job = submit(pool, "spin", {"path": str(tmp_path / "pid")}, seconds=0.3)
        job.too_long = too_long
        status, body = await answer(job)
        assert status == 422 and body["error"]["message"] == "the spin took longer than 0.3 seconds"
        await until(lambda: not alive(pid_in(tmp_path / "pid")))

    scenario(tmp_path, story, grace=0.2)


def test_a_process_that_dies_by_itself_is_a_500_and_replaced(tmp_path):
    async def story(pool):
        status, body = await answer(submit(pool, "crash"))
        assert status == 500 and "stopped by itself" in body["error"]["message"]
        status, _ = await answer(submit(pool, "pid"))
        assert status == 200
        status, body = await answer(submit(pool, "no_such_job"))  # a bug, said plainly
        assert status == 500 and body["error"]["code"] == "internal_error"

    scenario(tmp_path, story)


# ─── a client gone ─────────────────────────────────────────────────────────


def test_a_client_gone_stops_its_running_job_and_drops_its_waiting_one(tmp_path):
    running, waiting = tmp_path / "running", tmp_path / "waiting"

    async def story(pool):
        first = submit(pool, "spin", {"path": str(running)})
        second = submit(pool, "mark", {"path": str(waiting)})  # waits: one job per client
        await until(running.exists)
        pool.cancel(second)
        assert not pool.queues  # dropped before it started
        pool.cancel(first)
        await until(lambda: not alive(pid_in(running)))
        status, _ = await answer(submit(pool, "pid"))  # the pool went on
        assert status == 200 and not waiting.exists()

    scenario(tmp_path, story, per_client=1)


def test_a_job_that_writes_finishes_though_its_client_is_gone(tmp_path):
    written = tmp_path / "written"

    async def story(pool):
        job = submit(pool, "writes", {"n": 3_000_000, "path": str(written)}, writes=True)
        await until(lambda: job.worker is not None)
        pool.cancel(job)
        status, body = await answer(job)
        assert status == 200 and written.exists() and body["pid"] == pid_in(written)

    scenario(tmp_path, story)


# ─── fairness ──────────────────────────────────────────────────────────────


def test_quick_jobs_never_wait_behind_heavy_ones(tmp_path):
    async def story(pool):
        heavy = [submit(pool, "spin", client=c) for c in ("a", "b") for _ in range(3)]
        for _ in range(5):  # each answered while six jobs that never end hold the heavy lane
            status, _ = await answer(submit(pool, "pid", client="c"))
            assert status == 200
        assert not any(job.done.done() for job in heavy)
        assert len(pool.heavy) == 6 and sum(job.turn is not None for job in pool.heavy) == 1

    scenario(tmp_path, story, quick=1, heavy=1, slice_seconds=0.2)


def test_heavy_jobs_take_turns_by_client(tmp_path):
    async def story(pool):
        endless = [submit(pool, "spin", client="a") for _ in range(2)]
        await until(lambda: len(pool.heavy) == 2)
        finite = submit(pool, "count", {"n": 20_000_000}, client="b")
        status, body = await answer(finite)  # its turns came, though "a" never finishes
        assert status == 200 and body["total"] == sum(range(20_000_000))
        assert not any(job.done.done() for job in endless)

    scenario(tmp_path, story, quick=1, heavy=1, slice_seconds=0.2, quantum=0.2)


def test_waiting_jobs_start_round_robin_over_the_clients(tmp_path):
    async def story(pool):
        finished: list[str] = []
        jobs = [("a1", "a"), ("a2", "a"), ("a3", "a"), ("b1", "b")]
        for name, client in jobs:
            job = submit(pool, "count", {"n": 100_000}, client=client)
            job.done.add_done_callback(lambda _, name=name: finished.append(name))
        await until(lambda: len(finished) == 4)
        assert finished == ["a1", "a2", "b1", "a3"]  # b's waited behind one of a's, not two

    scenario(tmp_path, story, quick=1, slice_seconds=60.0)


# ─── memory ────────────────────────────────────────────────────────────────


def test_a_worker_holding_too_much_after_a_job_is_replaced(tmp_path):
    async def story(pool):
        status, grown = await answer(submit(pool, "grow", {"mb": 150}))
        assert status == 200
        await until(lambda: not alive(grown["pid"]))
        status, fresh = await answer(submit(pool, "pid"))
        assert status == 200 and fresh["pid"] != grown["pid"]

    scenario(tmp_path, story, settings={"rss": 100 * 2**20}, quick=1)


def test_a_job_past_the_memory_bound_is_the_limit_error(tmp_path):
    async def story(pool):
        status, body = await answer(submit(pool, "allocate", {"mb": 4096}))
        assert status == 422 and body["error"]["code"] == "limit_exceeded"
        assert "1024 MB" in body["error"]["message"]

    scenario(tmp_path, story, settings={"memory": 2**30})


# ─── starting ──────────────────────────────────────────────────────────────


def test_a_start_cancelled_midway_keeps_the_workers_socket_until_it_is_sent(tmp_path, monkeypatch):
    """The server stopping while a worker starts (its `_spawn` cancelled) must not close the
    socket the start is about to send: its number would go to the next connection."""
    inside, release, seen = threading.Event(), threading.Event(), []

    class SlowStart:  # a process whose start is still sending when the stop comes
        def __init__(self, target, args, name, daemon):
            self.theirs = args[0]

        def start(self):
            inside.set()
            release.wait(WAIT)
            seen.append(self.theirs.fileno())  # -1 once closed

    monkeypatch.setattr(worker_pool, "CONTEXT", SimpleNamespace(Process=SlowStart))

    async def go():
        loop = asyncio.get_running_loop()
        spawning = loop.create_task(Pool(str(tmp_path), SETTINGS)._spawn(Worker()))
        await loop.run_in_executor(None, inside.wait, WAIT)
        spawning.cancel()
        with pytest.raises(asyncio.CancelledError):
            await spawning
        release.set()

    asyncio.run(go())
    assert len(seen) == 1 and seen[0] != -1


@pytest.fixture(autouse=True)
def _linux_only():
    if not Path("/proc/self/stat").exists():
        pytest.skip("reads /proc")
