"""Typed-in dice say whose die it is, what it is rolled for and why (an explosion, a reroll,
a roll procedure's rule): in the page's question (POST /api/run with `ask`) and in
`rulebook run --ask`."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from web_client import page_client

import dsl
from interpreter.cli.main import main
from interpreter.dice import Asked, AskingDice
from interpreter.engine import Engine
from interpreter.web import create_app
from interpreter.web.typed_answers import DieNeeded, TypedSoFar

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"
ATTACK = {
    "rulebook": "fate",
    "action": "attack",
    "character": "hero",
    "targets": {"target": "thug"},
    "ask": True,
    "answers": [],
}
EXPLODING = """rulebook "T" {
  language "en"
}

roll blast = 2d6x + 1d4rr1
"""


@pytest.fixture
def folder(tmp_path):
    shutil.copy(GAMES / "fate.rules", tmp_path / "fate.rules")
    for name in ("hero", "thug"):
        shutil.copy(GAMES / "characters" / f"{name}.yaml", tmp_path / f"{name}.yaml")
    (tmp_path / "t.rules").write_text(EXPLODING, encoding="utf-8")
    return tmp_path


def need_after(client, body: dict, faces: list) -> dict:
    answer = client.post("/api/run", json={**body, "dice": faces}).json()
    assert "need" in answer, answer
    return answer["need"]


def test_the_page_is_told_whose_die_and_what_for(folder):
    app = create_app(folder)
    with page_client(app) as client:
        first = need_after(client, ATTACK, [])
        # Fate's attack: the target defends first, on its own sheet (fate.rules, line 54)
        assert (first["who"], first["for"], first["why"]) == ("thug", "Defend", None)
        assert (first["line"], first["roll"]) == (54, "4dF")
        hero = need_after(client, ATTACK, [0, 0, 0, 0])
        assert (hero["who"], hero["for"], hero["why"]) == (None, "Roll", None)


def test_the_page_is_told_why_a_die_is_rolled(folder):
    app = create_app(folder)
    blast = {"rulebook": "t", "action": "blast", "ask": True, "answers": []}
    with page_client(app) as client:
        assert need_after(client, blast, [])["why"] is None
        assert need_after(client, blast, [6])["why"] is None  # the second die of 2d6
        assert need_after(client, blast, [6, 2])["why"] == "the 6 exploded"
        assert need_after(client, blast, [6, 2, 6])["why"] == "the 6 exploded"
        assert need_after(client, blast, [6, 2, 3])["why"] is None  # the d4
        assert need_after(client, blast, [6, 2, 3, 1])["why"] == "the 1 is rolled again"
        done = client.post("/api/run", json={**blast, "dice": [6, 2, 3, 4]}).json()
        assert done["result"] == 15
        # Brujería's open roll: the 10 adds a d6, in Spanish (the rulebook's language)
        open_roll = {"rulebook": "brujeria", "action": "abierta", "ask": True, "answers": []}
        open_roll["character"] = "brujeria_investigadora"
        need = need_after(client, open_roll, [10])
        assert (need["die"], need["why"]) == ("d6", "abierta: el dado sacó 10 (die = 10)")
        again = need_after(client, open_roll, [10, 6])
        assert again["why"] == "abierta: el dado sacó 6 (die = 6)"


def test_a_source_that_asks_is_told_and_others_are_not():
    book = dsl.load(ROOT / "examples/games/fate.rules")
    engine = Engine(book)
    hero = engine.load_sheet(GAMES / "characters/hero.yaml")
    thug = engine.load_sheet(GAMES / "characters/thug.yaml")
    typed = TypedSoFar([1, 0, -1, 0])
    with pytest.raises(DieNeeded) as needed:
        engine.run("attack", hero, {"target": thug}, typed)
    assert isinstance(typed, AskingDice) and isinstance(needed.value.asked, Asked)
    assert needed.value.asked.who is None and needed.value.asked.span.line == 27
    assert typed.asking is needed.value.asked


def test_the_command_line_says_whose_die_and_why(capsys, monkeypatch, folder):
    fate = str(folder / "fate.rules")
    hero, thug = str(folder / "hero.yaml"), str(folder / "thug.yaml")
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n0\n-1\n0\n0\n0\n0\n0\nno\n"))
    main(["run", fate, "attack", "--char", hero, "--target", f"target={thug}", "--ask"])
    err = capsys.readouterr().err
    assert "die 1 (dF, -1..1), Defend for thug? 1\n" in err
    assert "die 5 (dF, -1..1)? 0\n" in err  # the hero's own: nothing more to say
    monkeypatch.setattr("sys.stdin", io.StringIO("6\n2\n3\n4\n"))
    assert main(["run", str(folder / "t.rules"), "blast", "--ask"]) == 0
    err = capsys.readouterr().err
    assert "die 2 (d6, 1..6)? 2\ndie 3 (d6, 1..6), the 6 exploded? 3\n" in err
