"""The parallel runner (interpreter.balance.parallel): the same answers, in the same order,
in process, in a local process pool and on a real Dask distributed cluster."""

from __future__ import annotations

from fractions import Fraction

import pytest
from balance_jobs import exact_success, fails_on, sampled_total

from interpreter.balance import map_tasks, task_seed
from interpreter.balance.parallel import CHUNKS_PER_WORKER, chunk_size

EXACT = [(attribute, modifier) for attribute in ("Voluntad", "Fuerza") for modifier in (-2, 0, 3)]
SAMPLED = [(2026, index) for index in range(12)]


@pytest.fixture(scope="module")
def alone():
    return map_tasks(exact_success, EXACT, workers=1), map_tasks(sampled_total, SAMPLED, workers=1)


def test_one_worker_is_the_plain_loop(alone):
    exact, sampled = alone
    assert exact == [exact_success(task) for task in EXACT]
    assert all(isinstance(p, Fraction) for answer in exact for p in answer.values())
    assert sampled == [sampled_total(task) for task in SAMPLED]
    assert len(set(sampled)) > 1  # the tasks' seeds differ


def test_a_process_pool_gives_the_same_answers_in_order(alone):
    seen = []
    exact = map_tasks(exact_success, EXACT, workers=2, on_progress=lambda *p: seen.append(p))
    assert exact == alone[0]
    assert seen[-1] == (len(EXACT), len(EXACT))
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert map_tasks(sampled_total, SAMPLED, workers=2) == alone[1]


def test_a_dask_cluster_gives_the_same_answers(alone):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        seen = []
        exact = map_tasks(
            exact_success,
            EXACT,
            scheduler=cluster.scheduler_address,
            on_progress=lambda *p: seen.append(p),
        )
        sampled = map_tasks(sampled_total, SAMPLED, scheduler=cluster.scheduler_address)
        with pytest.raises(ValueError, match="task 3 fails"):
            map_tasks(fails_on, range(8), scheduler=cluster.scheduler_address)
    assert exact == alone[0]
    assert sampled == alone[1]
    assert seen[-1] == (len(EXACT), len(EXACT))


def test_an_error_in_a_task_reaches_the_caller():
    with pytest.raises(ValueError, match="task 3 fails"):
        map_tasks(fails_on, range(8), workers=2)
    with pytest.raises(ValueError, match="task 3 fails"):
        map_tasks(fails_on, range(8), workers=1)
    with pytest.raises(ValueError, match="at least 1"):
        map_tasks(fails_on, range(8), workers=0)


def test_nothing_to_do_and_one_task():
    assert map_tasks(fails_on, [], workers=4) == []
    assert map_tasks(fails_on, [5]) == [5]


def test_seeds_are_split_by_root_and_index():
    seeds = {task_seed(root, index) for root in (1, 2) for index in range(100)}
    assert len(seeds) == 200
    assert task_seed(1, 5) == task_seed(1, 5)
    assert all(0 <= seed < 2**64 for seed in seeds)


def test_chunks_follow_the_measured_time_and_leave_every_worker_several():
    assert chunk_size(1000, 2, 0.01, 0.25) == 25  # a quarter second of work
    assert chunk_size(1000, 2, 0.0, 0.25) == 1000 // (2 * CHUNKS_PER_WORKER)
    assert chunk_size(10, 4, 0.0001, 0.25) == 1
    assert chunk_size(1000, 2, 5.0, 0.25) == 1


def test_a_scheduler_that_does_not_answer_is_the_projects_error():
    from interpreter.errors import ParameterError

    with pytest.raises(ParameterError, match="no Dask scheduler answers at 'nonsense'"):
        map_tasks(fails_on, range(3), scheduler="nonsense")
