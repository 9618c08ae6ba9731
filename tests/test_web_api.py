"""The HTTP API through Starlette's test client: the same JSON as `--json`, typed dice
replayed, odds streamed with progress, diagnostics, saves inside the folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from web_client import page_client

from interpreter.cli.main import main
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent

NUMINA = {"numina": "Grito Báquico"}
# a question of several thousand units of work (progress is reported every 2,000)
LONG_ODDS = {**NUMINA, "sacrificium": True}
USAR = {"rulebook": "arcana_mundi", "action": "usar_numina", "character": "menecma"}
BASE = "http://127.0.0.1:8000"


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    (tmp_path / "notes.json").write_text("[1, 2, 3]")  # another program's file: not listed
    return tmp_path


@pytest.fixture
def client(folder):
    with page_client(create_app(folder), base_url=BASE) as client:
        yield client


def cli_json(capsys, *argv) -> dict:
    """What the command prints with --json, its files named as the server names them:
    a shipped rulebook by its name (the command line gives its path on this machine)."""
    assert main([*argv, "--json"]) == 0
    text = capsys.readouterr().out
    for name in ("arcana_mundi", "brujeria", "brujeria_miedo_duro"):
        text = text.replace(json.dumps(str(ROOT / f"rulebooks/{name}.rules"))[1:-1], name)
    return json.loads(text)


# ─── the same JSON as the command line ─────────────────────────────────────


def test_rulebooks_lists_the_shipped_ones_and_the_folders(client, folder):
    (folder / "mine.rules").write_text('rulebook "Mine" extends brujeria {\n}\n')
    (folder / "broken.rules").write_text('rulebook "Broken" {\n}\naction a() { let x = y }\n')
    books = {b["name"]: b for b in client.get("/api/rulebooks").json()["rulebooks"]}
    assert books["brujeria"]["source"] == "shipped" and books["brujeria"]["title"] == "Brujería"
    assert books["brujeria_miedo_duro"]["extends"] == "brujeria"
    assert books["mine"] == {
        **books["mine"],
        "source": "folder",
        "title": "Mine",
        "extends": "brujeria",
    }
    assert set(books["mine"]["files"].values()) == {"mine", "brujeria"}
    assert books["broken"]["title"] is None and "error" in books["broken"]["error"].lower()


def test_describe_is_what_describe_json_prints(client, capsys):
    answer = client.get("/api/rulebooks/brujeria")
    assert answer.status_code == 200
    assert answer.json() == cli_json(capsys, "describe", "brujeria")


def test_a_seeded_run_is_what_run_json_prints(client, capsys):
    body = {**USAR, "params": NUMINA, "seed": 11}
    answer = client.post("/api/run", json=body)
    assert answer.status_code == 200
    expected = cli_json(
        capsys, "run", "arcana_mundi", "usar_numina", "--char", "menecma",
        "--set", "numina=Grito Báquico", "--seed", "11",
    )  # fmt: skip
    assert answer.json() == expected


def lines_of(client, rulebook: str) -> dict:
    """Where the rulebook defines each action, check and roll (it moves as it is edited)."""
    info = client.get(f"/api/rulebooks/{rulebook}").json()
    return {
        item["name"]: item["line"] for kind in ("actions", "checks", "rolls") for item in info[kind]
    }


def test_forced_dice_reproduce_the_worked_example(client):
    # README: Grito Báquico with the capicúa showing 3 and 4: 20 against 15, 3 Virtus spent.
    out = client.post("/api/run", json={**USAR, "params": NUMINA, "dice": [3, 4]}).json()
    assert out["result"]["total"] == 20 and out["result"]["dificultad"] == 15
    assert out["result"]["éxito"] is True
    assert out["changes"] == [{"path": "dinamis.Virtus", "before": 5, "after": 2}]
    assert out["origin"] == "forced" and out["dice"] == [3, 4]
    assert out["trace"][0]["line"] == lines_of(client, "arcana_mundi")["usar_numina"]
    assert out["trace"][0]["file"] == "arcana_mundi"  # a shipped rulebook: by its name


def test_odds_are_what_odds_json_prints(client, capsys):
    assert client.post("/api/odds", json={"expression": "4d6kh3"}).json() == cli_json(
        capsys, "odds", "4d6kh3"
    )
    body = {**USAR, "params": NUMINA, "field": "éxito"}
    expected = cli_json(
        capsys, "odds", "arcana_mundi", "usar_numina", "--char", "menecma",
        "--set", "numina=Grito Báquico", "--field", "éxito",
    )  # fmt: skip
    assert client.post("/api/odds", json=body).json() == expected


def test_checks_opposed_checks_and_rolls_run_and_have_odds_as_on_the_command_line(client, capsys):
    who = {"rulebook": "brujeria", "character": "brujeria_investigadora"}
    resisted = {**who, "action": "resistido", "params": {"atributo": "Fuerza"}, "field": "won"}
    expected = cli_json(
        capsys, "odds", "brujeria", "resistido", "--char", "brujeria_investigadora",
        "--set", "atributo=Fuerza", "--field", "won",
    )  # fmt: skip
    assert client.post("/api/odds", json=resisted).json() == expected
    del resisted["field"]
    ran = client.post("/api/run", json={**resisted, "seed": 4}).json()
    assert ran == cli_json(
        capsys, "run", "brujeria", "resistido", "--char", "brujeria_investigadora",
        "--set", "atributo=Fuerza", "--seed", "4",
    )  # fmt: skip
    # Brujería's open d10 reads no sheet: no character needed, as on the command line.
    roll = {"rulebook": "brujeria", "action": "abierta"}
    assert client.post("/api/odds", json=roll).json() == cli_json(
        capsys, "odds", "brujeria", "abierta"
    )
    assert client.post("/api/run", json={**roll, "seed": 2}).json() == cli_json(
        capsys, "run", "brujeria", "abierta", "--seed", "2"
    )
    # A check that reads the sheet still needs one, and an unknown name is said so.
    check = {"rulebook": "brujeria", "action": "sencillo", "params": {"atributo": "Fuerza"}}
    refused = client.post("/api/odds", json=check)
    assert refused.status_code == 400 and "needs a character" in refused.json()["error"]["message"]
    unknown = client.post("/api/odds", json={**who, "action": "resistid"})
    assert unknown.status_code == 400
    assert "resistido" in unknown.json()["error"]["hint"]  # did you mean …?


def test_odds_compared_with_a_house_rule_are_what_compare_prints(client, capsys):
    body = {
        "rulebook": "brujeria",
        "action": "asustarse",
        "character": "brujeria_investigadora",
        "field": "Esencia",
        "compare": {"rulebook": "brujeria_miedo_duro"},
    }
    answer = client.post("/api/odds", json=body).json()
    expected = cli_json(
        capsys, "odds", "brujeria", "asustarse", "--char", "brujeria_investigadora",
        "--field", "Esencia", "--compare", "brujeria_miedo_duro",
    )  # fmt: skip
    assert answer == expected
    assert answer["a"]["outcomes"] != answer["b"]["outcomes"]


def test_odds_of_an_edited_text_against_the_rulebook(client):
    house = (ROOT / "rulebooks/brujeria_miedo_duro.rules").read_text(encoding="utf-8")
    body = {
        "rulebook": "brujeria",
        "action": "asustarse",
        "character": "brujeria_investigadora",
        "field": "Esencia",
    }
    by_name = client.post(
        "/api/odds", json={**body, "compare": {"rulebook": "brujeria_miedo_duro"}}
    )
    by_text = client.post("/api/odds", json={**body, "compare": {"text": house}})
    assert by_text.status_code == 200
    assert by_text.json()["b"]["outcomes"] == by_name.json()["b"]["outcomes"]
    assert by_text.json()["names"][1] == "Brujería: miedo duro (editado)"  # in the game's words


# ─── dice typed in, one by one ─────────────────────────────────────────────


def test_typed_dice_are_asked_for_one_by_one(client):
    body = {**USAR, "params": NUMINA, "ask": True}
    need = client.post("/api/run", json={**body, "dice": []}).json()["need"]
    assert need["kind"] == "die" and need["position"] == 1
    assert (need["die"], need["low"], need["high"]) == ("d10", 1, 10)
    assert need["line"] == lines_of(client, "arcana_mundi")["capicua"] and need["roll"] == "2d10"
    assert need["file"] == "arcana_mundi"
    assert client.post("/api/run", json={**body, "dice": [3]}).json()["need"]["position"] == 2
    done = client.post("/api/run", json={**body, "dice": [3, 4]}).json()
    forced = client.post("/api/run", json={**USAR, "params": NUMINA, "dice": [3, 4]}).json()
    assert done["origin"] == "typed"
    assert (done["result"], done["changes"]) == (forced["result"], forced["changes"])
    assert "a mano" in " ".join(step["text"] for step in done["trace"])


def test_a_typed_die_of_a_pool_written_with_an_expression_names_the_dice_rolled(client, folder):
    # `(n)d6` is asked for as the dice the person rolls (`3d6`); a term written plainly
    # after it, as written (what the pool told is not left over for it)
    (folder / "pools.rules").write_text(
        'rulebook "Pools" {\n}\n\ncheck c(n: int) {\n  let p = (n + 1)d6kh(n)\n'
        "  let q = d8\n  roll p + q\n  success = true\n}\n"
    )
    body = {"rulebook": "pools", "action": "c", "params": {"n": 2}, "ask": True}
    rolls = [
        client.post("/api/run", json={**body, "dice": [1] * k}).json()["need"]["roll"]
        for k in (0, 2, 3)
    ]
    assert rolls == ["3d6kh2", "3d6kh2", "d8"]


def test_typed_dice_that_do_not_fit_are_refused(client):
    body = {**USAR, "params": NUMINA, "ask": True}
    wrong = client.post("/api/run", json={**body, "dice": [11]})
    assert wrong.status_code == 422 and wrong.json()["error"]["code"] == "dice_error"
    assert "no es una cara de d10" in wrong.json()["error"]["message"]  # the game's language
    english = client.post("/api/run", json={**body, "dice": [11], "lang": "en"})
    assert "not a face of d10" in english.json()["error"]["message"]
    extra = client.post("/api/run", json={**body, "dice": [3, 4, 5]})
    assert extra.status_code == 422 and "1 cara escrita de más" in extra.json()["error"]["message"]


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32))
def test_typing_a_seeded_runs_dice_replays_it(seed):
    # The replay invariant: asked die by die, the faces of any seeded run lead to that run.
    with page_client(create_app(ROOT / "rulebooks"), base_url=BASE) as client:
        body = {
            "rulebook": "brujeria",
            "action": "asustarse",
            "character": "brujeria_investigadora",
        }
        seeded = client.post("/api/run", json={**body, "seed": seed}).json()
        typed: list[int] = []
        while True:
            answer = client.post("/api/run", json={**body, "ask": True, "dice": typed}).json()
            if "need" not in answer:
                break
            typed.append(seeded["dice"][len(typed)])
        assert typed == seeded["dice"]
        assert (answer["result"], answer["changes"]) == (seeded["result"], seeded["changes"])


# ─── odds: progress and the time bound ─────────────────────────────────────


def test_odds_stream_progress_then_the_answer(client):
    body = {**USAR, "params": LONG_ODDS, "field": "éxito"}
    streamed = client.post("/api/odds", json={**body, "progress": True})
    assert streamed.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in streamed.text.splitlines()]
    progress = [line["progress"] for line in lines[:-1]]
    assert progress and all(p["phase"] == "exact" and p["total"] == 100_000 for p in progress)
    assert [p["done"] for p in progress] == sorted(p["done"] for p in progress)
    assert lines[-1] == {"result": client.post("/api/odds", json=body).json()}


def test_sampling_reports_its_trials(client):
    body = {**USAR, "params": NUMINA, "field": "éxito", "budget": 10, "trials": 600}
    lines = [
        json.loads(x)
        for x in client.post("/api/odds", json={**body, "progress": True}).text.splitlines()
    ]
    assert any(line.get("progress", {}).get("phase") == "sampling" for line in lines)
    assert lines[-1]["result"]["exact"] is False and lines[-1]["result"]["trials"] == 600


def test_odds_past_the_time_limit_stop_with_the_projects_error(folder):
    with page_client(create_app(folder, odds_seconds=0), base_url=BASE) as client:
        body = {**USAR, "params": LONG_ODDS, "field": "éxito"}
        answer = client.post("/api/odds", json=body)
        assert answer.status_code == 422 and answer.json()["error"]["code"] == "limit_exceeded"
        assert "tardaron más de 0 segundos" in answer.json()["error"]["message"]
        body["lang"] = "en"
        lines = client.post("/api/odds", json={**body, "progress": True}).text.splitlines()
        assert "longer than 0 seconds" in json.loads(lines[-1])["error"]["message"]


def test_odds_budget_and_trials_are_bounded(client):
    for name in ("budget", "trials"):
        answer = client.post("/api/odds", json={"expression": "3d6", name: 10**9})
        assert answer.status_code == 400 and name in answer.json()["error"]["message"]


# ─── checking ──────────────────────────────────────────────────────────────


def test_check_points_at_line_and_column_with_did_you_mean(client):
    text = (
        'rulebook "T" {\n}\nsheet {\n  attribute Fuerza in 1..5\n}\n'
        "action a() {\n  let x = Fuerzo\n}\n"
    )
    answer = client.post("/api/check", json={"text": text, "name": "t.rules"}).json()
    assert answer["ok"] is False
    [finding] = [d for d in answer["diagnostics"] if d["severity"] == "error"]
    where = finding["location"]
    assert (where["file"], where["line"], where["column"]) == ("t.rules", 7, 11)
    assert where["end_column"] == 17 and "Fuerza" in finding["hint"]
    assert finding["code"] == "check_error"
    syntax = client.post("/api/check", json={"text": 'rulebook "T" {\n}\naction a( {\n}'}).json()
    assert syntax["ok"] is False and syntax["diagnostics"][0]["location"]["line"] == 3
    assert syntax["diagnostics"][0]["code"] == "syntax_error"


def test_check_of_a_good_house_rule_is_ok(client):
    text = (ROOT / "rulebooks/brujeria_miedo_duro.rules").read_text(encoding="utf-8")
    answer = client.post("/api/check", json={"text": text}).json()
    assert answer["ok"] is True and answer["title"] == "Brujería: miedo duro"


# ─── characters and saving, inside the folder ──────────────────────────────


def test_characters_for_a_rulebook_with_resources_bounded(client):
    names = {
        c["name"]: c for c in client.get("/api/characters?rulebook=brujeria").json()["characters"]
    }
    assert names["ana"]["source"] == "folder" and names["brujeria_bruja"]["source"] == "shipped"
    assert "menecma" not in names and "notes" not in names
    sheet = client.get("/api/characters/menecma?rulebook=arcana_mundi").json()
    assert {"path": "dinamis.Virtus", "value": 5, "min": 0, "max": 5} in sheet["resources"]
    assert sheet["source"] == "shipped" and sheet["saves_to"] == "menecma.yaml"


def test_saving_a_shipped_character_writes_a_copy_in_the_folder(client, folder):
    shipped = (ROOT / "rulebooks/characters/menecma.yaml").read_text(encoding="utf-8")
    out = client.post("/api/run", json={**USAR, "params": NUMINA, "dice": [3, 4], "save": True})
    assert out.json()["saved"] == {"path": "menecma.yaml", "journal": "journal.sqlite", "entry": 1}
    assert (ROOT / "rulebooks/characters/menecma.yaml").read_text(encoding="utf-8") == shipped
    sheet = client.get("/api/characters/menecma?rulebook=arcana_mundi").json()
    assert sheet["source"] == "folder" and sheet["sheet"]["dinamis"]["Virtus"] == 2


def test_a_run_that_fails_saves_nothing(client, folder):
    before = (folder / "ana.yaml").read_bytes()
    body = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "save": True}
    answer = client.post("/api/run", json={**body, "dice": [1]})  # too few dice
    assert answer.status_code == 422 and (folder / "ana.yaml").read_bytes() == before
    assert client.post("/api/run", json={**body, "seed": 3}).status_code == 200


def test_a_rulebook_is_saved_in_the_folder_only_if_it_checks(client, folder):
    good = 'rulebook "Casa" extends brujeria {\n}\n'
    assert client.put("/api/rulebooks/casa", json={"text": good}).json()["file"] == "casa.rules"
    assert (folder / "casa.rules").read_text() == good
    bad = client.put("/api/rulebooks/casa2", json={"text": good + "action a() { let x = y }\n"})
    assert bad.status_code == 422 and bad.json()["error"]["diagnostics"]
    assert not (folder / "casa2.rules").exists()
    shipped = client.put("/api/rulebooks/brujeria", json={"text": good})
    assert shipped.status_code == 400 and "shipped" in shipped.json()["error"]["message"]


def test_saves_are_journaled_with_history_and_undo(client, folder, capsys, monkeypatch):
    body = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "save": True}
    before = (folder / "ana.yaml").read_text(encoding="utf-8")
    first = client.post("/api/run", json={**body, "dice": [2]})
    assert first.status_code == 200, first.text
    assert first.json()["saved"]["entry"] == 1 and first.json()["changes"]
    assert (folder / "ana.yaml").read_text(encoding="utf-8") != before
    history = client.get("/api/characters/ana/history").json()["entries"]
    monkeypatch.chdir(folder)
    assert history == cli_json(capsys, "log", "ana")["entries"]  # as `rulebook log --json`
    assert history[0]["action"] == "asustarse" and history[0]["undone_by"] is None
    undone = client.post("/api/undo", json={"entry": 1}).json()
    assert undone["kind"] == "undo" and undone["undoes"] == 1
    assert (folder / "ana.yaml").read_text(encoding="utf-8") == before
    again = client.post("/api/undo", json={"entry": 1})
    assert again.status_code == 409 and "ya está deshecha" in again.json()["error"]["message"]
    assert client.get("/api/characters/ana/history").json()["entries"][1]["undone_by"] == 2


def test_a_save_that_would_differ_from_what_was_shown_writes_nothing(client, folder):
    body = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "dice": [2]}
    shown = client.post("/api/run", json=body).json()
    text = (folder / "ana.yaml").read_text(encoding="utf-8")
    (folder / "ana.yaml").write_text(text + "Esencia: 12\n", encoding="utf-8")  # hurt since
    edited = (folder / "ana.yaml").read_text(encoding="utf-8")
    expect = {"result": shown["result"], "changes": shown["changes"]}
    answer = client.post("/api/run", json={**body, "save": True, "expect": expect})
    assert answer.status_code == 409 and "nothing was written" in answer.json()["error"]["message"]
    assert (folder / "ana.yaml").read_text(encoding="utf-8") == edited
    assert client.get("/api/characters/ana/history").json()["entries"] == []


def test_every_answer_follows_the_shipped_json_schemas(client):
    # The API writes the documents of interpreter/schemas/, as --json does.
    valid = _schema_validator()
    valid(client.get("/api/rulebooks/arcana_mundi").json())
    saved = client.post(
        "/api/run", json={**USAR, "params": NUMINA, "dice": [3, 4], "save": True}
    ).json()
    valid(saved)  # `saved` included
    valid(client.post("/api/odds", json={"expression": "4d6kh3"}).json())
    body = {"rulebook": "brujeria", "action": "asustarse", "character": "brujeria_investigadora"}
    compared = {**body, "field": "Esencia", "compare": {"rulebook": "brujeria_miedo_duro"}}
    valid(client.post("/api/odds", json=compared).json())
    for bad in ({**body, "dice": [11]}, {**body, "action": "nope"}, {"rulebook": 3}):
        valid(client.post("/api/run", json=bad).json())
    valid(client.get("/api/nothing").json())
    valid(client.get("/api/rulebooks", headers={"host": "evil.example"}).json())


def _schema_validator():
    import jsonschema
    from referencing import Registry, Resource

    from interpreter.json_data import schema, schemas

    registry = Registry().with_resources(
        (id_, Resource.from_contents(contents)) for id_, contents in schemas().items()
    )

    def valid(document: dict) -> None:
        validator = jsonschema.Draft202012Validator(schema(document["kind"]), registry=registry)
        errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(document)]
        assert errors == [], errors[:5]

    return valid
