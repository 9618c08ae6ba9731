"""What the server writes into its folder, and only that: a run is saved only with the
folder's own rules and sheets; a rulebook is overwritten only naming the version it
replaces (If-Match), the old text kept in the journal and the save undone like a run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web_client import page_client

from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
ANA = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 3}
# An edit of Brujería that empties a character's life: run as text, never saved.
LETHAL = 'rulebook "Letal" extends brujeria {\n}\naction matar() {\n  lose Vida from Vida\n}\n'


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    return tmp_path


@pytest.fixture
def client(folder):
    with page_client(create_app(folder)) as client:
        yield client


def files_of(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ─── a run is saved with the folder's rules and sheets only ────────────────


def test_a_run_of_rules_given_as_text_is_never_saved(client, folder):
    before = files_of(folder)
    body = {"text": LETHAL, "action": "matar", "character": "ana", "save": True}
    answer = client.post("/api/run", json=body)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert "save the rulebook first" in error["message"]
    assert "PUT /api/rulebooks/NAME" in error["hint"]
    assert files_of(folder) == before  # no sheet written, no journal made
    # run (not saved), it shows what it would do; saved as a rulebook, it runs by name
    shown = client.post("/api/run", json={**body, "save": False}).json()
    assert shown["changes"][0]["path"] == "Vida" and shown["changes"][0]["after"] == 0
    assert client.put("/api/rulebooks/letal", json={"text": LETHAL}).status_code == 200
    saved = client.post(
        "/api/run", json={"rulebook": "letal", "action": "matar", "character": "ana", "save": True}
    )
    assert saved.status_code == 200 and "Vida: 0" in (folder / "ana.yaml").read_text()


def test_a_sheet_given_as_data_is_never_saved(client, folder):
    before = files_of(folder)
    body = {**ANA, "sheet": {"Vida": 1}, "save": True}
    answer = client.post("/api/run", json=body)
    assert answer.status_code == 400 and "sheet given as data" in answer.json()["error"]["message"]
    assert files_of(folder) == before
