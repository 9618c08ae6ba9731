"""Guessing a table's join code (interpreter.web.tabletop.tries): after too many wrong codes
from one client within the window, 429 with Retry-After; counted on a clock the test
moves, never waited for."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from interpreter.web import create_app
from interpreter.web.tabletop.tries import WINDOW_SECONDS, WRONG_CODES, JoinTries

ROOT = Path(__file__).resolve().parent.parent
CODE = "ABCD-EFGH"
BASE = "http://127.0.0.1:8000"


class Clock:
    """A clock that moves only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_client_waits_after_too_many_wrong_codes_and_only_that_client():
    clock = Clock()
    tries = JoinTries(clock=clock)
    for _ in range(WRONG_CODES - 1):
        tries.wrong("10.0.0.9")
        clock.now += 1
    assert tries.wait("10.0.0.9") == 0  # one try left
    tries.wrong("10.0.0.9")
    assert tries.wait("10.0.0.9") == WINDOW_SECONDS - (WRONG_CODES - 1)  # the oldest's age
    assert tries.wait("10.0.0.8") == 0  # another client is not held up
    clock.now += WINDOW_SECONDS - WRONG_CODES  # one second before the oldest is forgotten
    assert tries.wait("10.0.0.9") == 1
    clock.now += 1
    assert tries.wait("10.0.0.9") == 0  # the oldest wrong code no longer counts
    tries.wrong("10.0.0.9")
    assert tries.wait("10.0.0.9") > 0  # ... but the nine others still do


def test_what_is_kept_is_bounded():
    clock = Clock()
    tries = JoinTries(clock=clock, most=2, kept=3)
    for client in ("a", "b", "c", "d"):
        for _ in range(5):
            tries.wrong(client)
    assert len(tries._wrong) == 3 and "a" not in tries._wrong  # the least recent forgotten
    assert all(len(times) == 2 for times in tries._wrong.values())
    assert tries.wait("a") == 0 and tries.wait("d") > 0
    clock.now += WINDOW_SECONDS
    assert tries.wait("d") == 0 and "d" not in tries._wrong  # and forgotten once old


@pytest.fixture
def app(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    return create_app(
        tmp_path, token="the-game-masters-token", table={"name": "martes", "code": CODE}
    )


def test_the_join_answers_429_with_retry_after_once_a_client_guessed_too_often(app):
    clock = Clock()
    app.table.tries = JoinTries(clock=clock, most=3, window=60)
    csrf = {"x-csrf-token": app.access.csrf}
    guesser = TestClient(app, base_url=BASE, headers=csrf, client=("10.0.0.9", 5000))
    neighbour = TestClient(app, base_url=BASE, headers=csrf, client=("10.0.0.7", 5000))
    with guesser, neighbour:
        for guess in ("AAAA-AAAA", "AAAA-AAAB", "AAAA-AAAC"):
            wrong = guesser.post("/api/table/join", json={"code": guess, "player": "Lu"})
            assert wrong.status_code == 403, wrong.text
            clock.now += 5
        for guess in ("AAAA-AAAD", CODE):  # now even the right code waits
            held = guesser.post("/api/table/join", json={"code": guess, "player": "Lu"})
            assert held.status_code == 429, held.text
            assert held.headers["retry-after"] == "45"  # the first wrong code, 60 s after
            assert held.json()["error"]["code"] == "usage_error"
            assert "too many wrong codes" in held.json()["error"]["message"]
        assert "rulebook_seat_" not in "".join(guesser.cookies.keys())  # no seat was given
        fine = neighbour.post("/api/table/join", json={"code": CODE, "player": "Bea"})
        assert fine.status_code == 200, fine.text  # another client is not held up
        clock.now += 45
        late = guesser.post("/api/table/join", json={"code": CODE, "player": "Lu"})
        assert late.status_code == 200, late.text  # the window passed: the code seats
