"""Characters made and edited in the page (interpreter.web.by_hand): every value read
as a sheet file is, the first one wrong named by its field in the rulebook's language;
the file written into the folder only, journaled and undone like a run; at a shared
table a player edits only their own character."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from starlette.testclient import TestClient
from test_json_data import valid
from web_client import page_client

from interpreter.journal import JOURNAL_NAME, Journal
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent

# every test on both journals: SQLite (the folder's file) and PostgreSQL (conftest.py)
pytestmark = pytest.mark.usefixtures("journal_backend")
#: a witch's values, as the page's form sends them (Vida and the other resources left out)
NEW = {
    "Fuerza": 2,
    "Destreza": 3,
    "Constitución": 3,
    "Inteligencia": 4,
    "Percepción": 3,
    "Voluntad": 5,
    "Pelea": 1,
}
#: the maxima with those values: 4 × (Constitución + Fuerza) + 10, and with Fuerza at 3
VIDA, VIDA_AT_3 = 30, 34


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    return tmp_path


@pytest.fixture
def client(folder):
    with page_client(create_app(folder)) as client:
        yield client


def files_of(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def resource(answer: dict, path: str) -> dict:
    return next(r for r in answer["resources"] if r["path"] == path)


def test_a_character_made_from_the_form_is_a_new_file_journaled_and_undone(client, folder):
    body = {"rulebook": "brujeria", "name": "eva", "sheet": NEW}
    answer = client.post("/api/characters", json=body)
    assert answer.status_code == 200, answer.text
    made = answer.json()
    assert (made["created"], made["file"]) == ("eva", "eva.yaml")
    assert resource(made, "Vida")["value"] == VIDA  # left out: full
    data = yaml.safe_load((folder / "eva.yaml").read_text(encoding="utf-8"))
    assert data == {"rulebook": "brujeria", **NEW}
    listed = client.get("/api/characters?rulebook=brujeria").json()["characters"]
    assert {"name": "eva", "rulebook": "brujeria", "source": "folder"} in listed
    history = client.get("/api/characters/eva/history").json()["entries"]
    assert [(e["kind"], e["action"]) for e in history] == [("sheet", "create")]
    changes = [(c["path"], c["before"], c["after"]) for c in history[0]["changes"]]
    assert changes == [(k, None, v) for k, v in NEW.items()]
    undone = client.post("/api/undo", json={"entry": made["entry"]})
    assert undone.status_code == 200, undone.text
    assert not (folder / "eva.yaml").exists()


@pytest.mark.parametrize(
    ("sheet", "field", "words"),
    [
        ({**NEW, "Fuerza": 11}, "Fuerza", "11"),  # above the attribute's range 1..10
        ({**NEW, "Fuerza": "mucha"}, "Fuerza", "mucha"),
        ({**NEW, "Mundano": "quizá"}, "Mundano", "quizá"),
        ({**NEW, "Fuersa": 3}, "Fuersa", "Fuerza"),  # an unknown field: did you mean
        ({k: v for k, v in NEW.items() if k != "Voluntad"}, "Voluntad", "Voluntad"),
    ],
)
def test_a_value_wrong_is_named_by_its_field_in_the_rulebooks_language(
    client, folder, sheet, field, words
):
    before = files_of(folder)
    answer = client.post(
        "/api/characters", json={"rulebook": "brujeria", "name": "eva", "sheet": sheet}
    )
    assert answer.status_code == 422, answer.text
    error = valid(answer.json())["error"]
    assert error["field"] == field and words in error["message"] + (error["hint"] or "")
    assert answer.json()["language"] == "es"
    assert files_of(folder) == before  # nothing written, no journal made


def test_every_value_wrong_is_named_at_once_each_by_its_field(client, folder):
    sheet = {**NEW, "Fuerza": 0, "Destreza": "x", "Mundano": "quizá", "Fuersa": 3}
    answer = client.post(
        "/api/characters", json={"rulebook": "brujeria", "name": "eva", "sheet": sheet}
    )
    assert answer.status_code == 422, answer.text
    error = valid(answer.json())["error"]
    fields = [d["field"] for d in error["diagnostics"]]
    assert sorted(fields) == sorted(["Fuerza", "Destreza", "Mundano", "Fuersa"])
    assert error["field"] == fields[0]
    assert not (folder / "eva.yaml").exists()


@pytest.mark.parametrize(
    ("name", "status", "code"),
    [
        ("ana", 409, "name_taken"),  # the folder's
        ("menecma", 409, "name_taken"),  # a shipped character's
        ("../fuera", 400, "invalid_parameter"),
        ("eva.yaml", 400, "invalid_parameter"),
    ],
)
def test_a_name_taken_or_not_a_name_writes_nothing(client, folder, name, status, code):
    before = files_of(folder)
    answer = client.post(
        "/api/characters", json={"rulebook": "brujeria", "name": name, "sheet": NEW}
    )
    assert answer.status_code == status, answer.text
    error = valid(answer.json())["error"]  # (the error document's schema knows the code)
    assert error["code"] == code and error["field"] == "name"
    assert files_of(folder) == before
    assert not (folder.parent / "fuera.yaml").exists()


def test_values_set_by_hand_are_journaled_and_undone(client, folder):
    before = (folder / "ana.yaml").read_text(encoding="utf-8")
    shown = client.get("/api/characters/ana?rulebook=brujeria").json()
    vida = resource(shown, "Vida")["value"]
    body = {"rulebook": "brujeria", "values": {"Vida": vida - 5, "skills.Ocultismo": 2}}
    answer = client.patch("/api/characters/ana", json={**body, "shown": {"Vida": vida}})
    assert answer.status_code == 200, answer.text
    edited = answer.json()
    assert resource(edited, "Vida")["value"] == vida - 5
    assert {"path": "Ocultismo", "before": 1, "after": 2} in edited["changes"]
    text = (folder / "ana.yaml").read_text(encoding="utf-8")
    assert f"Vida: {vida - 5}" in text and "  Ocultismo: 2" in text
    assert text.startswith(before.splitlines()[0])  # the comment kept: only values written
    entries = client.get("/api/characters/ana/history").json()["entries"]
    assert (entries[0]["kind"], entries[0]["action"]) == ("sheet", "edit")
    # shown otherwise (another page saved meanwhile): refused, nothing written
    stale = client.patch("/api/characters/ana", json={**body, "shown": {"Vida": vida}})
    assert stale.status_code == 409 and (folder / "ana.yaml").read_text(encoding="utf-8") == text
    assert client.post("/api/undo", json={"entry": edited["entry"]}).status_code == 200
    assert (folder / "ana.yaml").read_text(encoding="utf-8") == before


def test_advancement_keeps_a_resource_within_its_new_maximum_and_writes_it_out(client, folder):
    up = client.patch("/api/characters/ana", json={"rulebook": "brujeria", "values": {"Fuerza": 3}})
    assert up.status_code == 200, up.text
    vida = resource(up.json(), "Vida")
    assert (vida["value"], vida["max"]) == (VIDA, VIDA_AT_3)  # kept, below its new maximum
    assert f"Vida: {VIDA}" in (folder / "ana.yaml").read_text(encoding="utf-8")
    down = client.patch(
        "/api/characters/ana", json={"rulebook": "brujeria", "values": {"Fuerza": 1}}
    )
    assert down.status_code == 200, down.text
    vida = resource(down.json(), "Vida")
    assert vida["value"] == vida["max"] == 4 * (3 + 1) + 10  # brought down to the new maximum


def test_a_value_out_of_range_is_refused_with_its_field(client, folder):
    before = files_of(folder)
    answer = client.patch(
        "/api/characters/ana", json={"rulebook": "brujeria", "values": {"Fuerza": 0}}
    )
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "Fuerza"
    assert files_of(folder) == before


@pytest.mark.parametrize("values", [{"rulebook": "arcana_mundi"}, {"": 1}, {"Fuersa": 3}])
def test_only_values_of_the_sheet_are_set(client, folder, values):
    before = files_of(folder)
    answer = client.patch("/api/characters/ana", json={"rulebook": "brujeria", "values": values})
    assert answer.status_code in (400, 422), answer.text
    assert valid(answer.json())["error"]["field"] in ("values", "Fuersa")
    assert files_of(folder) == before


def test_a_shipped_characters_edit_makes_its_copy_in_the_folder(client, folder):
    answer = client.patch(
        "/api/characters/brujeria_bruja", json={"rulebook": "brujeria", "values": {"Pelea": 2}}
    )
    assert answer.status_code == 200, answer.text
    copy = folder / "brujeria_bruja.yaml"
    shipped = ROOT / "rulebooks/characters/brujeria_bruja.yaml"
    assert copy.read_text(encoding="utf-8") == shipped.read_text(encoding="utf-8").replace(
        "Pelea: 1\n", "Pelea: 2\n"
    )
    assert client.post("/api/undo", json={"entry": answer.json()["entry"]}).status_code == 200
    assert not copy.exists()


def test_at_the_table_a_player_edits_only_their_own_character(folder):
    shutil.copy(folder / "ana.yaml", folder / "bea.yaml")
    app = create_app(
        folder, token="the-game-masters-token", table={"name": "martes", "code": "ABCD-EFGH"}
    )
    csrf = {"x-csrf-token": app.access.csrf}
    base = "http://127.0.0.1:8000"
    gm = TestClient(
        app, base_url=base, headers={**csrf, "authorization": "Bearer the-game-masters-token"}
    )
    with gm, TestClient(app, base_url=base, headers=csrf) as phone:
        assert phone.post("/api/table/join", json={"code": "ABCDEFGH", "player": "Lu"}).is_success
        picked = {"rulebook": "brujeria", "character": "ana"}
        assert phone.post("/api/table/character", json=picked).is_success
        edit = {"rulebook": "brujeria", "values": {"Pelea": 2}}
        refused = phone.patch("/api/characters/bea", json=edit)
        assert refused.status_code == 403, refused.text
        assert "Pelea: 1" in (folder / "bea.yaml").read_text(encoding="utf-8")
        assert phone.patch("/api/characters/ana", json=edit).status_code == 200
        assert gm.patch("/api/characters/bea", json=edit).status_code == 200
        events = gm.get("/api/table/log").json()["events"]
        told = [(e["kind"], e["who"], e["character"]) for e in events if e["kind"] == "edited"]
        assert told == [("edited", "Lu", "ana"), ("edited", "", "bea")]
        assert events[-1]["changes"] == [{"path": "Pelea", "before": 1, "after": 2}]


@pytest.mark.sqlite_only
def test_a_journal_of_version_5_takes_a_sheet_entry_after_its_migration(folder):
    import sqlite3

    from interpreter.journal import schema, undo

    path = folder / JOURNAL_NAME
    connection = sqlite3.connect(path)
    script = "".join(schema.MIGRATIONS[v] for v in range(5))
    connection.executescript(script + "PRAGMA user_version = 5;")
    with pytest.raises(sqlite3.IntegrityError):  # version 5 knew no entry of kind `sheet`
        connection.execute(
            "INSERT INTO runs (id, at, kind, state) VALUES (1, 't', 'sheet', 'applied')"
        )
    connection.execute(
        "INSERT INTO runs (id, at, kind, state, action) VALUES (1, 't', 'run', 'applied', 'act')"
    )
    connection.commit()
    connection.close()
    with page_client(create_app(folder)) as client:
        edit = {"rulebook": "brujeria", "values": {"Pelea": 2}}
        answer = client.patch("/api/characters/ana", json=edit)
        assert answer.status_code == 200, answer.text
    with Journal(path) as journal:
        first, second = journal.entries()
        assert (first.kind, first.action, second.kind, second.action) == (
            "run",
            "act",
            "sheet",
            "edit",
        )
        assert journal.integrity() == []
        undo(journal, second.id)
    assert "Pelea: 1" in (folder / "ana.yaml").read_text(encoding="utf-8")


def test_the_commands_say_what_a_sheet_written_by_hand_is(client, folder, capsys, monkeypatch):
    from interpreter.cli import main

    body = {"rulebook": "brujeria", "values": {"Pelea": 2}}
    edited = client.patch("/api/characters/ana", json=body).json()["entry"]
    monkeypatch.chdir(folder)
    assert main(["log"]) == 0  # (in the rulebook's language)
    assert "ana.yaml  hoja editada  Pelea 1 → 2" in capsys.readouterr().out
    assert main(["show", str(edited), "--lang", "en"]) == 0
    assert "sheet edited\nchanges: Pelea 1 → 2" in capsys.readouterr().out
    assert main(["export", str(edited), "--lang", "en"]) == 3
    assert "wrote a sheet by hand, not a run" in capsys.readouterr().err
    assert main(["journal", "verify"]) == 0
    capsys.readouterr()
    assert main(["undo", "--lang", "en"]) == 0  # the last entry: this edit
    assert f"undid the sheet written by hand ({edited}): Pelea 2 → 1" in capsys.readouterr().out
    assert "Pelea: 1" in (folder / "ana.yaml").read_text(encoding="utf-8")
