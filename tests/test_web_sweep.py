"""`POST /api/sweep`: the rows of `Engine.sweep` as JSON (fractions as exact text), its
picture as SVG, bounded in cases (interpreter.limits.WEB_SWEEP_CASES), bad input a 4xx."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from web_client import page_client

import dsl
import interpreter
from interpreter.limits import WEB_SWEEP_CASES
from interpreter.sheets.character import parse_text
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:8000"
SWEEP = {
    "rulebook": "brujeria",
    "action": "chequeo_sencillo",
    "character": "brujeria_bruja",
    "field": "éxito",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("campaign")
    with page_client(create_app(folder), base_url=BASE) as client:
        yield client


def test_the_rows_are_the_engines_exact_odds(client):
    body = {**SWEEP, "params": {"dificultad": ["Normal", "Heroico"]}, "vary": {"Voluntad": "2..3"}}
    answer = client.post("/api/sweep", json={**body, "compare": ["brujeria_miedo_duro"]})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["columns"][:4] == ["rulebook", "character", "Voluntad", "dificultad"]
    assert len(data["rows"]) == 2 * 2 * 2
    engine = interpreter.Engine.of(dsl.load("brujeria"))
    witch = (ROOT / "rulebooks" / "characters" / "brujeria_bruja.yaml").read_text(encoding="utf-8")
    for row in data["rows"][:4]:
        sheet = engine.sheet({**parse_text(witch, "yaml"), "Voluntad": row["Voluntad"]})
        odds = engine.odds("chequeo_sencillo", sheet, {"dificultad": row["dificultad"]}, "éxito")
        assert Fraction(row["P(éxito=sí)"]) == odds.probability(True)
        assert row["P(éxito=sí) float"] == float(odds.probability(True))
    assert "svg" not in data


def test_the_picture_comes_as_svg(client):
    body = {**SWEEP, "vary": {"Voluntad": [1, 2, 3]}, "picture": {"x": "Voluntad"}}
    data = client.post("/api/sweep", json=body).json()
    assert data["svg"].lstrip().startswith("<?xml") and "<svg" in data["svg"]
    nothing = client.post("/api/sweep", json={**SWEEP, "picture": {}})
    assert nothing.status_code == 400 and "varies" in nothing.json()["error"]["message"]


def test_a_sweep_is_bounded_in_cases(client):
    body = {**SWEEP, "params": {"modificador": f"1..{WEB_SWEEP_CASES + 1}"}}
    answer = client.post("/api/sweep", json=body)
    assert answer.status_code == 400
    assert str(WEB_SWEEP_CASES) in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ({"vary": {"Voluntat": [1, 2]}}, "Voluntad"),
        ({"params": {"dificultad": ["Facil"]}}, "Fácil"),
        ({"params": {"modificador": "all"}}, "modificador"),
        ({"compare": [7]}, "compare"),
        ({"characters": ["brujeria_bruja"]}, "not both"),
        ({"field": None, "params": {"modificador": [0]}}, "as `field`"),
        ({"picture": {"colour": "red"}}, "colour"),
    ],
)
def test_bad_input_is_a_400_that_says_what_would_do(client, extra, said):
    answer = client.post("/api/sweep", json={**SWEEP, **extra})
    assert answer.status_code == 400, answer.text
    assert said in answer.text and "Traceback" not in answer.text
