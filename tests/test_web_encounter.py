"""`POST /api/encounter`: the document `rulebook encounter --json` prints (schema "encounter",
with the version), sheets only from the folder or as data, bad input a 4xx."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
from referencing import Registry, Resource
from web_client import page_client

from interpreter.cli import main
from interpreter.json_data import schema, schemas
from interpreter.version import VERSION, VERSION_FIELD
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"
BASE = "http://127.0.0.1:8000"
DUEL = {
    "rulebook": "dnd5e",
    "rounds": 10,
    "health": "Hit Points",
    "sides": {
        "hero": [{"sheet": "fighter", "action": "attack", "params": {"damage_die": 8},
                  "target": "target"}],
        "goblin": [{"sheet": "goblin", "action": "attack", "target": "target",
                    "params": {"damage_die": 6, "ability": "Dexterity"}}],
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    shutil.copy(GAMES / "dnd5e.rules", folder / "dnd5e.rules")
    for name in ("fighter", "goblin"):
        shutil.copy(GAMES / "characters" / f"{name}.yaml", folder / f"{name}.yaml")
    with page_client(create_app(folder), base_url=BASE) as client:
        yield client


def valid(document: dict) -> dict:
    registry = Registry().with_resources(
        (id_, Resource.from_contents(contents)) for id_, contents in schemas().items()
    )
    validator = jsonschema.Draft202012Validator(schema(document["kind"]), registry=registry)
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(document)]
    assert not errors, errors[:5]
    return document


def test_the_answer_is_the_command_lines_document(client, capsys):
    answer = client.post("/api/encounter", json=DUEL)
    assert answer.status_code == 200, answer.text
    data = valid(answer.json())
    assert data["kind"] == "encounter" and data[VERSION_FIELD] == VERSION
    assert main(["encounter", "examples/games/encounters/duel.yaml", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    for key in ("method", "winners", "rounds", "mean_rounds", "fractions", "left"):
        assert data[key] == printed[key], key


def test_a_sample_is_asked_for_and_said(client):
    body = {**DUEL, "method": "sampled", "trials": 300, "seed": 4}
    data = valid(client.post("/api/encounter", json=body).json())
    assert data["method"] == "sampled" and data["trials"] == 300
    again = client.post("/api/encounter", json=body).json()
    assert again["winners"] == data["winners"]  # the seed gives the same numbers


def test_a_sheet_given_as_data(client):
    body = json.loads(json.dumps(DUEL))
    body["sides"]["goblin"][0]["sheet"] = {"Hit Points": 1, "Armor Class": 5}
    unnamed = client.post("/api/encounter", json=body)
    assert unnamed.status_code == 400 and "needs a name" in unnamed.json()["error"]["message"]
    body["sides"]["goblin"][0]["name"] = "weak goblin"
    data = valid(client.post("/api/encounter", json=body).json())
    assert data["combatants"] == ["fighter", "weak goblin"]
    strong = valid(client.post("/api/encounter", json=DUEL).json())
    assert data["winners"][0]["probability"] > strong["winners"][0]["probability"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.update(speed=1), "speed"),
        (lambda b: b["sides"]["hero"][0].update(sheet="../../etc/passwd"), "passwd"),
        (lambda b: b["sides"]["hero"][0].update(sheet=3), "sheet"),
        (lambda b: b["sides"].update(hero="x"), "a list of combatants"),
        (lambda b: b.update(trials=10**9), "trials"),
        (lambda b: b.update(method="guess"), "method"),
        (lambda b: b["sides"].update(third=b["sides"]["hero"]), "two sides"),
    ],
)
def test_bad_requests_are_4xx_with_the_projects_errors(client, change, message):
    body = json.loads(json.dumps(DUEL))
    change(body)
    answer = client.post("/api/encounter", json=body)
    assert 400 <= answer.status_code < 500, answer.text
    assert message in answer.json()["error"]["message"]


def test_the_api_describes_it(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/encounter" in paths
