"""A plain run's answer remembered by its engine, sheet, body and dice
(interpreter.web.kept_answers): the same bytes as rendered anew, never another sheet's,
and the rendering spared (a test that fails when the switch is off)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl.bounded import Bounded
from interpreter.web import kept_answers, play, worker
from interpreter.web.library import Library

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {"run_seconds": 10, "odds_seconds": 60, "language": None, "rss": 1 << 40}
TELL = {"kind": "run", "path": "/api/run", "page": None}


class _Socket:
    def sendall(self, data: bytes) -> None:
        pass


@pytest.fixture
def library(tmp_path, monkeypatch):
    monkeypatch.setattr(kept_answers, "_ANSWERS", Bounded(kept_answers.MOST_BYTES, 1_000))
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    return Library(tmp_path)


def _answer(library: Library, **body) -> tuple:
    """A run's status, bytes and the frames sent with it (the table's event), as a worker
    answers it."""
    body = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", **body}
    job = {"job": "run", "args": {"body": body}, "seconds": 10, "most": 1 << 30, "tell": TELL}
    before: list[bytes] = []
    status, answer = worker.one(_Socket(), worker.JOBS, library, SETTINGS, job, before)
    return status, answer, before


def _rendered(monkeypatch) -> list:
    """Each run's document rendered (play.run_data), noted."""
    rendered: list = []
    run_data = play.run_data

    def noted(outcome, language, **options):
        rendered.append(outcome)
        return run_data(outcome, language, **options)

    monkeypatch.setattr(play, "run_data", noted)
    return rendered


def test_remembered_answers_are_the_answers_rendered_anew(library, monkeypatch):
    bodies = [{"seed": seed % 60, **lang} for seed in range(120) for lang in ({}, {"lang": "en"})]
    monkeypatch.setattr(kept_answers, "REMEMBER", False)
    fresh = [_answer(library, **body) for body in bodies]
    monkeypatch.setattr(kept_answers, "REMEMBER", True)
    rendered = _rendered(monkeypatch)
    assert [_answer(library, **body) for body in bodies] == fresh
    assert len(rendered) < len(bodies) / 4  # (a few dozen ways the dice go)


def test_the_same_run_is_not_rendered_again(library, monkeypatch):
    rendered = _rendered(monkeypatch)
    first = _answer(library, seed=7)
    assert _answer(library, seed=7) == first
    assert len(rendered) == 1  # (fails if REMEMBER is off)


def test_a_sheet_written_since_is_not_answered_from_memory(library, monkeypatch):
    first = _answer(library, seed=7)
    path = library.folder / "ana.yaml"
    text = path.read_text(encoding="utf-8")
    assert "Voluntad: 3" in text
    path.write_text(text.replace("Voluntad: 3", "Voluntad: 1"), encoding="utf-8")
    second = _answer(library, seed=7)
    assert second != first
    monkeypatch.setattr(kept_answers, "REMEMBER", False)
    assert _answer(library, seed=7) == second


@pytest.mark.parametrize(
    "body",
    [
        {"dice": [3]},
        {"seed": 7, "choices": {}},
        {"seed": 7, "expect": {}},
    ],
)
def test_a_run_beyond_the_plain_fields_is_not_kept(library, body):
    assert _answer(library, **body)[0] == 200
    assert not kept_answers._ANSWERS._items
