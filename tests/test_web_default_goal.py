"""The odds of an action that makes choices, asked with no goal: the best play for the
action's own goal (its first yes/no field, else its first number's mean), never an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web_client import page_client

from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"


@pytest.fixture
def client(tmp_path):
    for game in ("fate", "pbta"):
        shutil.copy(GAMES / f"{game}.rules", tmp_path / f"{game}.rules")
    for name in ("hero", "driver"):
        shutil.copy(GAMES / "characters" / f"{name}.yaml", tmp_path / f"{name}.yaml")
    with page_client(create_app(tmp_path)) as client:
        yield client


def odds(client, **body) -> dict:
    answer = client.post("/api/odds", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_fates_overcome_is_played_for_its_shifts(client):
    overcome = {"rulebook": "fate", "action": "overcome", "character": "hero"}
    overcome["params"] = {"skill": "Fight"}
    got = odds(client, **overcome)
    assert (got["goal"]["field"], got["goal"]["mean"]) == ("shifts", True)
    said = odds(client, **overcome, best="mean shifts")
    assert got["outcomes"] == said["outcomes"] and got["goal"] == said["goal"]
    # a goal given is the goal: another one plays otherwise
    other = odds(client, **overcome, best="mean shifts - spent('Fate Points') * 3")
    assert other["goal"]["expression"] is not None


def test_pbta_is_played_for_its_yes_or_no(client):
    got = odds(client, rulebook="pbta", action="act_under_fire", character="driver")
    assert (got["goal"]["field"], got["goal"]["value"]) == ("did_it", True)


def test_an_action_without_a_choice_has_no_best_play(client):
    got = odds(
        client, rulebook="fate", action="defend", character="hero", params={"skill": "Fight"}
    )
    assert "goal" not in got or got["goal"] is None
