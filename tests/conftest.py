"""Shared test setup: hypothesis profiles, golden-file updating, loaded rulebooks."""

from __future__ import annotations

import os
from pathlib import Path

import postgres_backend
import pytest
from hypothesis import HealthCheck, settings

import dsl

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"

# "dev" explores more, new examples every run; "ci" keeps the whole suite within a few
# minutes on two cores, and is the gate: the same examples every run (derandomized), so a
# red CI is about the change, never about the draw. "dev" and "hunt" go looking.
settings.register_profile("dev", max_examples=150, deadline=None)
settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# "hunt" looks for what the others have not met yet: many examples, every health check off
# but the ones that say a strategy is broken (run it by hand, for an hour, on a quiet machine).
settings.register_profile(
    "hunt",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "sqlite_only: a journal test that reads journal.sqlite itself (one backend)"
    )
    config.addinivalue_line(
        "markers", "postgres_only: a journal test of what only PostgreSQL has (one backend)"
    )


def pytest_generate_tests(metafunc):
    """A test that asks for `journal_backend` runs on SQLite and on PostgreSQL (one
    marked sqlite_only or postgres_only: on that one)."""
    if "journal_backend" in metafunc.fixturenames:
        backends = list(postgres_backend.BACKENDS)
        if metafunc.definition.get_closest_marker("sqlite_only") is not None:
            backends = ["sqlite"]
        if metafunc.definition.get_closest_marker("postgres_only") is not None:
            backends = ["postgres"]
        metafunc.parametrize("journal_backend", backends, indirect=True)


@pytest.fixture
def journal_backend(request, monkeypatch):
    """The journal's database for this test: "sqlite" (the folder's file), or "postgres"
    (a schema of its own in $RULEBOOK_TEST_POSTGRES, named by $RULEBOOK_DATABASE)."""
    from interpreter.journal.postgres import DATABASE_ENV

    monkeypatch.delenv(DATABASE_ENV, raising=False)
    if request.param == "sqlite":
        yield "sqlite"
        return
    url = postgres_backend.server_url()
    if url is None:
        said = (
            f"no PostgreSQL to test against: ${postgres_backend.URL_ENV} is not set "
            "(`.ci/postgres start` starts one and prints its URL)"
        )
        if postgres_backend.in_ci():
            pytest.fail(said + "; CI runs every test on PostgreSQL too")
        pytest.skip(said)
    with postgres_backend.own_schema(url) as own:
        monkeypatch.setenv(DATABASE_ENV, own)
        yield "postgres"


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the expected outputs of golden tests from what runs now",
    )


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


class CountedClock:
    """A clock that moves `step` seconds at each look and never otherwise: a time limit
    driven by it stops after a counted number of looks, the same under any load."""

    def __init__(self, step: float):
        self.step, self.now, self.looks = step, 0.0, 0

    def __call__(self) -> float:
        self.looks += 1
        self.now += self.step
        return self.now


@pytest.fixture
def counted_clock(monkeypatch):
    """Make every clock a time limit reads a CountedClock (`.step` to be set): the odds
    engine's (interpreter.odds.budget's `clock` and `wall`) and a run's (time.monotonic)."""
    import time

    from interpreter.odds import budget

    fake = CountedClock(0.0)
    monkeypatch.setattr(budget, "clock", fake)
    monkeypatch.setattr(budget, "wall", fake)
    monkeypatch.setattr(time, "monotonic", fake)
    return fake


@pytest.fixture(scope="session")
def showcase():
    return dsl.load(DATA / "showcase.rules")


@pytest.fixture(scope="session")
def exhaustive():
    """The oracle: {outcome: probability} of run(dice) over every way the dice fall."""
    from oracle import every_roll

    return every_roll


@pytest.fixture(scope="session")
def every_draw(exhaustive):
    """every_draw(text or run, limits): the outcomes of a dice expression (or of
    run(roller)) over every sequence of draws; a die that goes past the limit
    (ChainTooLong) is an outcome, `fails: ...`, as the odds engine reports it."""
    from interpreter.errors import ChainTooLong
    from interpreter.expression import compile_expression
    from interpreter.odds import Failure
    from interpreter.runtime import Context, Roller

    def outcomes(run, limits) -> dict:
        if isinstance(run, str):
            _node, value = compile_expression(run)

            def run(roller, value=value):
                return value(Context(roller, limits))

        def outcome(source):
            try:
                return run(Roller(source, limits))
            except ChainTooLong as error:
                return Failure(error.message)

        return exhaustive(outcome)

    return outcomes
