"""The HTTP API with the rules real games are made of: choices answered after the roll
(in advance, or asked one by one with the trace so far), other characters of a run (by
name or as sheets, saved together), the page's words in the rulebook's language, and a
run's wall-clock bound."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web_client import page_client

import dsl
from interpreter import Engine, Limits, SeededDice
from interpreter.errors import LimitExceeded
from interpreter.web import create_app
from interpreter.web.words import PAGE_WORDS

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "examples/games"
BASE = "http://127.0.0.1:8000"
ATTACK = {
    "rulebook": "fate",
    "action": "attack",
    "character": "hero",
    "targets": {"target": "thug"},
    "params": {"skill": "Fight"},
}
# A rulebook that keeps a worker busy within every count limit: 90 000 statements, each
# building a text of 92 160 characters (minutes of work).
SLOW = """rulebook "Slow" {
}

action slow() {
  let s = "%s"
  repeat 9 times { set s to "{s}{s}" }
  repeat 1000 times {
    repeat 90 times { let t = "{s}{s}" }
  }
  result { n: 1 }
}
""" % ("x" * 90)


@pytest.fixture
def folder(tmp_path):
    for game in ("fate.rules", "pbta.rules"):
        shutil.copy(GAMES / game, tmp_path / game)
    for character in ("hero", "thug", "driver", "gang_boss"):
        shutil.copy(GAMES / "characters" / f"{character}.yaml", tmp_path / f"{character}.yaml")
    return tmp_path


@pytest.fixture
def client(folder):
    with page_client(create_app(folder), base_url=BASE) as client:
        yield client


def asking_seed(client, body: dict) -> tuple[int, dict]:
    """A seed whose run stops at a choice of several options, and that answer."""
    for seed in range(200):
        answer = client.post("/api/run", json={**body, "seed": seed, "answers": []}).json()
        if "need" in answer:
            return seed, answer
    raise AssertionError("no seed of 200 asks the choice")


# ─── choices ───────────────────────────────────────────────────────────────


def test_a_choice_is_asked_with_the_trace_so_far_then_answered(client, folder):
    seed, asked = asking_seed(client, ATTACK)
    need = asked["need"]
    assert need["kind"] == "choice" and need["position"] == 1 and need["name"] == "invoke"
    assert need["label"] == "Invoke an aspect for +2 (a fate point)?"
    assert need["options"] == [{"value": "no", "text": "no"}, {"value": "yes", "text": "yes"}]
    assert need["closed"] == [] and need["by"] is None
    assert need["file"].endswith("fate.rules") and need["line"] == 59
    texts = [step["text"] for step in asked["trace"]]
    assert texts[0].startswith("Attack(") and any(t.startswith("Roll: 4dF") for t in texts)
    assert not any(t.startswith("invoke") for t in texts)  # the trace stops before it
    before = (folder / "hero.yaml").read_text(encoding="utf-8")
    done = client.post("/api/run", json={**ATTACK, "seed": seed, "answers": ["yes"]}).json()
    assert done["choices"] == [{"name": "invoke", "value": "yes", "by": None, "how": "asked"}]
    assert done["changes"] == [{"path": "Fate Points", "before": 3, "after": 2}]
    assert "invoke: yes (chosen at the table)" in [step["text"] for step in done["trace"]]
    # Answered in advance, the same run; nothing written by any of it.
    given = {**ATTACK, "seed": seed, "choices": {"invoke": "yes"}}
    ahead = client.post("/api/run", json=given).json()
    assert ahead["choices"][0]["how"] == "given" and ahead["result"] == done["result"]
    assert (folder / "hero.yaml").read_text(encoding="utf-8") == before


def test_choices_unanswered_extra_or_closed_are_refused(client):
    seed, _ = asking_seed(client, ATTACK)
    unanswered = client.post("/api/run", json={**ATTACK, "seed": seed})
    assert unanswered.status_code == 400
    assert "answer it in advance" in unanswered.json()["error"]["message"]
    extra = client.post("/api/run", json={**ATTACK, "seed": seed, "answers": ["yes", "no"]})
    assert extra.status_code == 400
    assert "1 answer given beyond the choices the run asked" in extra.json()["error"]["message"]
    wrong = client.post("/api/run", json={**ATTACK, "seed": seed, "answers": ["maybe"]})
    assert wrong.status_code == 400 and "not one of its options" in wrong.json()["error"]["message"]
    # Without a fate point, invoking is closed: never asked, and refused if answered.
    broke = {k: v for k, v in ATTACK.items() if k != "character"}
    broke["sheet"] = {"skills": {"Fight": 4}, "Fate Points": 0}
    only = client.post("/api/run", json={**broke, "seed": seed, "answers": []}).json()
    assert only["choices"] == [{"name": "invoke", "value": "no", "by": None, "how": "only"}]
    closed = client.post("/api/run", json={**broke, "seed": seed, "choices": {"invoke": "yes"}})
    assert closed.status_code == 422 and closed.json()["error"]["code"] == "choice_not_open"


def test_the_other_character_decides(client):
    body = {"rulebook": "pbta", "action": "go_aggro", "character": "driver"}
    body["targets"] = {"target": "gang_boss"}
    seed, asked = asking_seed(client, body)
    need = asked["need"]
    assert (need["by"], need["who"]) == ("target", "gang_boss")
    assert [o["text"] for o in need["options"]][:2] == ["suck it up", "cave"]
    done = client.post("/api/run", json={**body, "seed": seed, "answers": ["suck it up"]}).json()
    assert done["choices"] == [
        {"name": "answer", "value": "suck it up", "by": "target", "how": "asked"}
    ]
    (harmed,) = done["characters"]
    assert harmed["role"] == "target" and harmed["changes"][0]["path"] == "Harm"


# ─── other characters ──────────────────────────────────────────────────────


def test_targets_by_name_or_sheet_give_every_characters_changes(client):
    seed, _ = asking_seed(client, ATTACK)
    by_name = client.post("/api/run", json={**ATTACK, "seed": seed, "answers": ["no"]}).json()
    (thug,) = by_name["characters"]
    assert thug["role"] == "target" and thug["label"] == "thug"
    assert {"path": "Stress", "before": 1, "after": 0} in thug["changes"]
    sheet = {"skills": {"Fight": 1, "Athletics": 1}, "Fate Points": 0, "Stress": 1}
    as_sheet = {**ATTACK, "targets": {"target": sheet}, "seed": seed, "answers": ["no"]}
    given = client.post("/api/run", json=as_sheet).json()
    assert given["result"] == by_name["result"]
    assert given["characters"][0]["changes"] == thug["changes"]
    for bad, words in (
        ({"target": 3}, "a character's name or a sheet"),
        ({"target": "nobody"}, ""),
    ):
        refused = client.post("/api/run", json={**ATTACK, "targets": bad, "seed": 1})
        assert refused.status_code in (400, 404) and words in refused.json()["error"]["message"]


def test_a_save_writes_every_changed_sheet_or_none(client, folder):
    seed, _ = asking_seed(client, ATTACK)
    body = {**ATTACK, "seed": seed, "answers": ["yes"]}
    shown = client.post("/api/run", json=body).json()
    expect = {k: shown[k] for k in ("result", "changes")}
    expect["characters"] = [
        {"role": c["role"], "changes": c["changes"]} for c in shown["characters"]
    ]
    # The target was hurt since the run was shown: nothing is written.
    thug_file = folder / "thug.yaml"
    hurt = thug_file.read_text(encoding="utf-8").replace("Stress: 1", "Stress: 0")
    thug_file.write_text(hurt, encoding="utf-8")
    refused = client.post("/api/run", json={**body, "save": True, "expect": expect})
    assert refused.status_code == 409
    assert thug_file.read_text(encoding="utf-8") == hurt
    assert "Fate Points: 3" in (folder / "hero.yaml").read_text(encoding="utf-8")
    thug_file.write_text(hurt.replace("Stress: 0", "Stress: 1"), encoding="utf-8")
    saved = client.post("/api/run", json={**body, "save": True, "expect": expect}).json()
    assert saved["saved"]["others"] == {"target": "thug.yaml"}  # as the folder names it
    assert "Fate Points: 2" in (folder / "hero.yaml").read_text(encoding="utf-8")
    assert "Stress: 0" in thug_file.read_text(encoding="utf-8")
    entry = client.get("/api/characters/hero/history").json()["entries"][0]
    assert entry["action"] == "attack"
    same = client.post(
        "/api/run", json={**body, "targets": {"target": "hero"}, "save": True, "expect": expect}
    )
    assert same.status_code == 400 and "same file" in same.json()["error"]["message"]


def test_odds_with_a_target_and_the_best_choice(client):
    # (light questions, so that a loaded machine stays within the engine's odds time)
    target = client.post("/api/odds", json={**ATTACK, "field": "hit", "choices": {"invoke": "no"}})
    assert target.status_code == 200, target.json()
    assert target.json()["exact"] and target.json()["mean"] > 0
    body = {"rulebook": "fate", "action": "overcome", "character": "hero", "field": "shifts"}
    body["params"] = {"skill": "Fight"}
    plain = client.post("/api/odds", json={**body, "choices": {"invoke": "no"}})
    best = client.post("/api/odds", json={**body, "best": "mean shifts"})
    assert plain.status_code == best.status_code == 200, (plain.json(), best.json())
    assert best.json()["mean"] > plain.json()["mean"]  # invoking when it helps: more shifts


# ─── the page's words ──────────────────────────────────────────────────────


def test_the_pages_words_follow_the_rulebook_then_lang(client):
    spanish = client.get("/api/words?rulebook=brujeria").json()
    assert spanish["language"] == "es" and spanish["words"]["Run"] == "Tirar"
    assert spanish["words"]["Roll die {position}: {die} ({low}–{high})"].startswith("Tira el dado")
    english = client.get("/api/words?rulebook=fate").json()
    assert english["language"] == "en" and english["words"]["Run"] == "Run"
    asked = client.get("/api/words?rulebook=brujeria&lang=en").json()
    assert asked["language"] == "en"
    assert len(spanish["words"]) == len(PAGE_WORDS)
    # how each writes numbers, for the page's scripts: 8,33 % and 8.33%
    assert spanish["numbers"] == {"decimal": ",", "percent": " %"}
    assert english["numbers"] == asked["numbers"] == {"decimal": ".", "percent": "%"}


def test_serve_lang_chooses_the_pages_language(folder):
    with page_client(create_app(folder, language="es"), base_url=BASE) as client:
        assert client.get("/api/words?rulebook=fate").json()["language"] == "es"
        assert client.get("/api/words?rulebook=fate&lang=en").json()["language"] == "en"


def test_every_text_of_the_page_is_in_its_words():
    # The page's English texts (data-tr in index.html, t("...") and tn() in its scripts)
    # are all in PAGE_WORDS, so that the catalogue translates each one.
    import re

    static = ROOT / "interpreter/web/static"
    used = set()
    for script in (static / "js").glob("*.js"):
        text = script.read_text(encoding="utf-8")
        for call in re.finditer(
            r'\btn?\(\s*"((?:[^"\\]|\\.)*)"(?:\s*,\s*"((?:[^"\\]|\\.)*)")?', text
        ):
            used.add(call.group(1))
            if call.group(0).startswith("tn"):
                used.add(call.group(2))
    html = (static / "index.html").read_text(encoding="utf-8")
    marked = re.findall(r"<\w+[^>]*\bdata-tr(?:\s[^>]*)?>([^<]*)<", html)
    used |= {text.strip() for text in marked}
    used |= set(re.findall(r'data-tr-(?:placeholder|label)="([^"]*)"', html))
    assert len(marked) > 30 and "Take back the last answer" in used
    assert used - {str(word) for word in PAGE_WORDS} == set()
    # and no label of the page is left unmarked: every text between tags is marked
    bare = re.findall(r">\s*([A-Za-z][^<>{}]*?)\s*<", html)
    assert [t for t in bare if t not in used and t != "rulebook"] == []


# ─── a run's wall-clock bound ──────────────────────────────────────────────


def test_a_hostile_runs_time_is_bounded_and_nothing_is_held(folder):
    (folder / "slow.rules").write_text(SLOW, encoding="utf-8")
    with page_client(create_app(folder, run_seconds=0.3), base_url=BASE) as client:
        answer = client.post("/api/run", json={"rulebook": "slow", "action": "slow"})
        assert answer.status_code == 422
        error = answer.json()["error"]
        # every step counted: it stops at the limit on them, wherever the machine runs
        assert error["code"] == "limit_exceeded" and "steps_per_run" in error["message"]
        assert error["location"]["line"] == 8  # the loop it was in when the steps ran out
        # the worker is free again: a quick run answers at once
        quick = client.post(
            "/api/run",
            json={
                "rulebook": "fate",
                "action": "overcome",
                "character": "hero",
                "params": {"skill": "Fight"},
                "choices": {"invoke": "no"},
                "seed": 1,
            },
        )
        assert quick.status_code == 200


def test_the_engine_bounds_a_runs_time_only_when_asked():
    book = dsl.load_text(SLOW.replace("repeat 1000", "repeat 1"), "slow.rules")
    engine = Engine(book)
    assert engine.run("slow", engine.sheet({}), {}, SeededDice(1)).result == {"n": 1}
    # (the steps are counted first: without a bound on them, the time's is reached)
    limits = Limits(run_seconds=0.2, steps_per_run=10**12)
    bounded = Engine(dsl.load_text(SLOW, "slow.rules"), limits)
    with pytest.raises(LimitExceeded, match="run_seconds"):
        bounded.run("slow", bounded.sheet({}), {}, SeededDice(1))
    with pytest.raises(ValueError):
        Limits(run_seconds=0)


def test_the_editors_diagnostics_speak_the_rulebooks_language(client):
    text = (ROOT / "rulebooks/brujeria.rules").read_text(encoding="utf-8")
    broken = text + "\naction roto() {\n  let x = Voluntat\n}\n"
    (finding,) = [
        d
        for d in client.post("/api/check", json={"text": broken}).json()["diagnostics"]
        if d["severity"] == "error"
    ]
    assert finding["hint"] == "¿querías decir Voluntad?"
    english = broken.replace('language "es"', 'language "en"', 1)
    assert 'language "es"' in text
    (finding,) = [
        d
        for d in client.post("/api/check", json={"text": english}).json()["diagnostics"]
        if d["severity"] == "error"
    ]
    assert finding["hint"] == "did you mean Voluntad?"


def test_a_skill_of_an_open_list_is_any_name_in_describe(client):
    # Fate's skills are an open list: describe offers no (empty) enum that would refuse
    # every skill; the page offers the character's own skills instead.
    attack = next(
        a for a in client.get("/api/rulebooks/fate").json()["actions"] if a["name"] == "attack"
    )
    skill = next(p for p in attack["params"] if p["name"] == "skill")
    assert skill["choices"] is None and "enum" not in skill["schema"]
    assert attack["choices"] == [
        {
            "name": "invoke",
            "label": "Invoke an aspect for +2 (a fate point)?",
            "options": ["no", "yes"],
            "by": None,
            "line": 59,
        }
    ]
