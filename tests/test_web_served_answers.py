"""A served run's answer is the same bytes whatever fast paths make it: every switch of the
worker's rendering on (as served) and off (the plain paths), for shipped actions of
several games, characters, seeds and languages; the table's event with it alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dsl import messages
from dsl.bounded import Bounded
from interpreter import json_data, shown, steps_json, values
from interpreter.compile import check_terms
from interpreter.dice import SeededDice
from interpreter.engine import Engine
from interpreter.web import frames, kept_answers, play, worker
from interpreter.web.library import Library

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = {"run_seconds": 10, "odds_seconds": 60, "language": None, "rss": 1 << 40}
TELL = {"kind": "run", "path": "/api/run", "page": None}

#: (rulebook, character file, action, params): shipped actions that trace checks, lookups,
#: rolls that go on, records, lasting effects and changes of the sheet
RUNS = [
    ("brujeria", "brujeria_investigadora", "asustarse", {"modificador": 3}),
    ("brujeria", "brujeria_investigadora", "asustarse", {"modificador": 40}),
    ("brujeria", "brujeria_malherido", "ataque_cuerpo_a_cuerpo", {}),
    ("brujeria", "brujeria_bruja", "chequeo_complicado", {}),
    ("arcana_mundi", "menecma", "usar_numina", {"numina": "Grito Báquico"}),
    ("pentagrama", "jorge", "recibir_daño", {"daño": 27, "zona": "Brazo derecho"}),
    ("mago", "mago_ignacio", "efecto", {"esfera_mayor": "Fuerzas", "vulgar": True}),
]

#: (object, attribute, value off): the fast paths of a served run's rendering
SWITCHES = [
    (json_data.SWITCH, "direct", False),
    (json_data.SWITCH, "sheets", False),
    (steps_json.SWITCH, "flat", False),
    (steps_json.SWITCH, "joined", False),
    (steps_json.SWITCH, "data_once", False),
    (steps_json.SWITCH, "kept", False),
    (values, "SET_KEPT", False),
    (check_terms, "FLAT_TAIL", False),
    (messages.SHOWN, "kept", False),
    (messages.SHOWN, "english_once", False),
    (shown.SWITCH, "kept", False),
    (kept_answers, "REMEMBER", False),
]


class _Socket:
    def sendall(self, data: bytes) -> None:
        pass


def _answers(folder: Path) -> list:
    """Each run's status, bytes and the frames sent with it (but the notice that the work
    started, which says when), as a worker answers it, in a worker of its own caches."""
    library = Library(folder)
    out = []
    for rulebook, character, action, params in RUNS:
        for seed in range(4):
            for lang in (None, "en", "es"):
                body = {"rulebook": rulebook, "action": action, "character": character}
                body.update(seed=seed, params=params, **({"lang": lang} if lang else {}))
                job = {"job": "run", "args": {"body": body}, "seconds": 10, "most": 1 << 30}
                before: list[bytes] = []
                job["tell"] = TELL
                status, answer = worker.one(_Socket(), worker.JOBS, library, SETTINGS, job, before)
                told = [f for f in before if f[:1] != frames.READY]
                out.append((status, answer, told))
    return out


@pytest.fixture
def folder(tmp_path):
    for character in {run[1] for run in RUNS}:
        shutil.copy(ROOT / f"rulebooks/characters/{character}.yaml", tmp_path)
    return tmp_path


def test_served_answers_are_the_same_bytes_with_every_fast_path_off(folder, monkeypatch):
    monkeypatch.setattr(kept_answers, "_ANSWERS", Bounded(kept_answers.MOST_BYTES, 1_000))
    fast = _answers(folder)
    assert sum(status == 200 for status, _, _ in fast) == len(fast)
    again = _answers(folder)  # (the records and answers kept from the first time)
    for switch, name, off in SWITCHES:
        monkeypatch.setattr(switch, name, off)
    monkeypatch.setattr(kept_answers, "_ANSWERS", Bounded(kept_answers.MOST_BYTES, 1_000))
    plain = _answers(folder)
    assert fast == plain
    assert again == plain


def test_a_sheet_read_again_is_written_once(folder, monkeypatch):
    """Fails with json_data.SWITCH.sheets off: each run's sheet is then written anew."""
    monkeypatch.setattr(json_data, "_SHEETS", {})
    library = Library(folder)
    engine = play.bounded_engine(Engine.of(library.rulebook("brujeria")), 10)
    sheet = library.sheet(engine, library.character_path("brujeria_investigadora"))
    easy = {"modificador": 40}  # (a fright passed: the sheet as it was)
    documents = [
        json_data.run_data(engine.run("asustarse", sheet, easy, SeededDice(seed)), language)
        for seed in range(3)
        for language in ("es", "es", None)
    ]
    sheets = [document["sheet"] for document in documents]
    assert sheets[0] is sheets[1] and sheets[3] is sheets[4]  # (each seed: es, es, None)
    assert sheets[2] is not sheets[1]  # (kept by language)
    assert all(d["sheet"] == documents[0]["sheet"] for d in documents)
