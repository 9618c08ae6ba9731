"""A sheet's warnings (a key that only looks like a field's name) in every server answer
that reads the sheet: the character, a run (saved or not), odds, a sheet given as data."""

from __future__ import annotations

import pytest
from web_client import page_client

from interpreter.web import create_app

BOOK = (
    "sheet {\n  attribute Fuerza in 1..10\n  skills in 0..10 default 0\n}\n"
    "action golpe() { let x = d6  result { total: x + Fuerza } }\n"
)
LOOKALIKE = "Pel\u0435a"  # a Cyrillic е beside the Latin Pelea
SHEET = f"rulebook: look\nFuerza: 3\nskills:\n  Pelea: 2\n  {LOOKALIKE}: 3\n"
RUN = {"rulebook": "look", "action": "golpe", "seed": 1}


@pytest.fixture
def client(tmp_path):
    (tmp_path / "look.rules").write_text(BOOK, encoding="utf-8")
    (tmp_path / "look.yaml").write_text(SHEET, encoding="utf-8")
    (tmp_path / "plain.yaml").write_text("rulebook: look\nFuerza: 3\n", encoding="utf-8")
    with page_client(create_app(tmp_path)) as client:
        yield client


def warned(warnings: list) -> bool:
    return len(warnings) == 1 and LOOKALIKE in warnings[0] and "U+0435" in warnings[0]


def test_every_answer_that_reads_the_sheet_warns(client):
    assert warned(client.get("/api/characters/look?rulebook=look").json()["warnings"])
    for extra in ({}, {"save": True}):
        answer = client.post("/api/run", json={**RUN, "character": "look", **extra})
        assert answer.status_code == 200 and warned(answer.json()["warnings"]), answer.text
    data = {"Fuerza": 3, "skills": {"Pelea": 2, LOOKALIKE: 1}}
    assert warned(client.post("/api/run", json={**RUN, "sheet": data}).json()["warnings"])
    odds = {"rulebook": "look", "action": "golpe", "character": "look", "field": "total"}
    assert warned(client.post("/api/odds", json=odds).json()["warnings"])
    compared = {**odds, "compare": {"params": {}}}
    assert warned(client.post("/api/odds", json=compared).json()["warnings"])


def test_a_sheet_with_nothing_to_say_has_no_warnings(client):
    assert client.get("/api/characters/plain?rulebook=look").json()["warnings"] == []
    answer = client.post("/api/run", json={**RUN, "character": "plain"}).json()
    assert answer["warnings"] == []
    odds = {"rulebook": "look", "action": "golpe", "character": "plain", "field": "total"}
    assert "warnings" not in client.post("/api/odds", json=odds).json()  # as `odds --json`
