"""Runs one function over many tasks: in process, in a local process pool, or on Dask."""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from dsl.messages import tr
from interpreter import surface
from interpreter.errors import ParameterError

#: seconds of work a chunk of tasks aims at in a local process pool: long enough that
#: pickling a chunk and its answers is a small part of it, short enough to balance
POOL_CHUNK_SECONDS = 0.25
#: the same for a Dask cluster, whose scheduler costs about a millisecond per task
#: and whose workers may be on other machines
CLUSTER_CHUNK_SECONDS = 1.0
#: chunks per worker at least (when there are tasks enough): a slow chunk at the end
#: then leaves the other workers idle for a small part of the whole
CHUNKS_PER_WORKER = 4
#: a chunk never holds more tasks than this, however quick each is
MAX_CHUNK = 10_000
#: seconds to wait for a Dask scheduler to answer before saying it does not
CONNECT_SECONDS = 10

Progress = Callable[[int, int], None]


def task_seed(root: int | str, index: int | str) -> int:
    """The seed of task `index` of a sampled study whose seed is `root`: a hash of both,
    so a task draws the same dice whichever worker runs it, and however many there are."""
    digest = hashlib.sha256(f"rulebook-task:{root}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def map_tasks(
    function: Callable,
    tasks: Iterable,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    on_progress: Progress | None = None,
    on_answer: Callable[[int, object], None] | None = None,
) -> list:
    """`[function(task) for task in tasks]`, in the order of `tasks`, computed in parallel.

    `function` must be a top-level function (pickled by name) and its answers picklable;
    they come back as they are (Fractions stay Fractions) for the caller to merge.
    `workers=1` runs everything in this process; by default a local process pool of
    `os.cpu_count()` workers; `scheduler="tcp://host:port"` sends the work to that Dask
    distributed cluster. The first task runs here, and its time sets how many tasks go in
    each chunk sent to a worker. `on_progress(done, total)` is called as tasks finish, and
    `on_answer(index, answer)` with each task's answer as it arrives (to keep it).
    An exception raised by `function` is raised here (the remaining work is cancelled)."""
    tasks = list(tasks)
    total = len(tasks)
    progress = on_progress or (lambda done, total: None)
    keep = on_answer or (lambda index, answer: None)

    def report(done: int, total: int, start: int = 0, answers: Sequence = ()) -> None:
        for offset, answer in enumerate(answers):
            keep(start + offset, answer)
        progress(done, total)

    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if total == 0:
        return []
    if scheduler is None and (workers == 1 or total == 1):
        return _in_process(function, tasks, report)
    started = time.perf_counter()
    first = function(tasks[0])
    seconds = time.perf_counter() - started
    report(1, total, 0, [first])
    rest = tasks[1:]
    if not rest:
        return [first]
    if scheduler is not None:
        answers = _on_cluster(function, rest, scheduler, seconds, report)
    else:
        answers = _in_pool(function, rest, workers or os.cpu_count() or 1, seconds, report)
    return [first, *answers]


def chunk_size(tasks: int, workers: int, seconds_per_task: float, aim: float) -> int:
    """How many tasks go in one chunk: about `aim` seconds of work, but at least
    CHUNKS_PER_WORKER chunks for each worker when the tasks are enough."""
    by_time = int(aim / seconds_per_task) if seconds_per_task > 0 else MAX_CHUNK
    by_balance = math.ceil(tasks / (workers * CHUNKS_PER_WORKER))
    return max(1, min(by_time, by_balance, MAX_CHUNK))


def run_chunk(function: Callable, chunk: Sequence, spelled: str = surface.PYTHON) -> list:
    """A worker's job: the function over a chunk of tasks, answers in order (its messages
    naming options as the caller's surface does)."""
    with surface.spelled_for(spelled):
        return [function(task) for task in chunk]


def _chunks(tasks: list, size: int) -> list[list]:
    return [tasks[i : i + size] for i in range(0, len(tasks), size)]


def _in_process(function: Callable, tasks: list, report: Callable) -> list:
    answers = []
    for task in tasks:
        answers.append(function(task))
        report(len(answers), len(tasks), len(answers) - 1, answers[-1:])
    return answers


def _in_pool(
    function: Callable, tasks: list, workers: int, seconds: float, report: Callable
) -> list:
    size = chunk_size(len(tasks), workers, seconds, POOL_CHUNK_SECONDS)
    chunks = _chunks(tasks, size)  # of the tasks after the first: task i + 1 of all
    answers: list = [None] * len(chunks)
    done = 1  # the first task, run here
    total = len(tasks) + 1
    with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
        pending = {
            pool.submit(run_chunk, function, chunk, surface.current()): i
            for i, chunk in enumerate(chunks)
        }
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    index = pending.pop(future)
                    answers[index] = future.result()
                    done += len(chunks[index])
                    report(done, total, 1 + index * size, answers[index])
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return [answer for chunk in answers for answer in chunk]


def _on_cluster(
    function: Callable, tasks: list, address: str, seconds: float, report: Callable
) -> list:
    try:
        from distributed import Client, as_completed  # only a cluster's user needs Dask
    except ImportError:
        raise ParameterError(
            tr("a Dask cluster needs Dask distributed: pip install 'rulebook[balance]'")
        ) from None
    try:
        client = Client(address, timeout=CONNECT_SECONDS)
    except (OSError, ValueError, TypeError) as error:
        raise ParameterError(
            tr(
                "no Dask scheduler answers at {address} ({reason})",
                address=repr(address),
                reason=str(error),
            )
        ) from None
    with client:
        workers = max(1, sum(client.nthreads().values()))
        size = chunk_size(len(tasks), workers, seconds, CLUSTER_CHUNK_SECONDS)
        chunks = _chunks(tasks, size)
        futures = [
            client.submit(run_chunk, function, chunk, surface.current(), pure=False)
            for chunk in chunks
        ]
        index_of = {future.key: i for i, future in enumerate(futures)}
        answers: list = [None] * len(chunks)
        done = 1
        try:
            for future in as_completed(futures):
                index = index_of[future.key]
                answers[index] = future.result()
                done += len(chunks[index])
                report(done, len(tasks) + 1, 1 + index * size, answers[index])
        except BaseException:
            client.cancel(futures)
            raise
    return [answer for chunk in answers for answer in chunk]
