"""The shared table (interpreter.web.tabletop): a player's code gives a player's rights only,
every run reaches the table's log in the journal, secret rolls stay the game master's."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from interpreter.journal import Journal
from interpreter.journal.schema import VERSION
from interpreter.web import create_app
from interpreter.web.tabletop.addresses import _stream
from interpreter.web.tabletop.roles import Role, make_table, plain_code

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:8000"
TOKEN = "the-game-masters-token"
CODE = "ABCD-EFGH"
ANA = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 1}

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture
def folder(tmp_path):
    inside = tmp_path / "campaign"
    inside.mkdir()
    for name in ("ana", "bea"):
        shutil.copy(
            ROOT / "rulebooks/characters/brujeria_investigadora.yaml", inside / f"{name}.yaml"
        )
    return inside


@pytest.fixture
def app(folder):
    return create_app(folder, token=TOKEN, table={"name": "martes", "code": CODE})


def clients(app):
    """The game master's client (the token) and a client with no token (a phone)."""
    csrf = {"x-csrf-token": app.access.csrf}
    gm = TestClient(app, base_url=BASE, headers={**csrf, "authorization": f"Bearer {TOKEN}"})
    phone = TestClient(app, base_url=BASE, headers=csrf)
    return gm, phone


def seated(phone, player="Lu", character="ana"):
    joined = phone.post("/api/table/join", json={"code": "abcd efgh", "player": player})
    assert joined.status_code == 200, joined.text
    if character is not None:
        picked = phone.post(
            "/api/table/character", json={"rulebook": "brujeria", "character": character}
        )
        assert picked.status_code == 200, picked.text


def code_of(answer) -> str:
    return answer.json()["error"]["code"]


def test_a_phone_without_a_seat_gets_the_join_page_and_nothing_else(app):
    _gm, phone = clients(app)
    with phone:
        page = phone.get("/join?code=" + CODE)
        assert page.status_code == 200 and "join-code" in page.text
        assert app.access.csrf in page.text  # its form posts the join
        for path in ("/", "/api/table", "/api/rulebooks", "/api/table/log", "/static/js/main.js"):
            assert phone.get(path).status_code == 401, path
        assert phone.post("/api/run", json=ANA).status_code == 401
        wrong = phone.post("/api/table/join", json={"code": "ABCD-EFGX", "player": "Lu"})
        assert wrong.status_code == 403 and code_of(wrong) == "usage_error"
        assert phone.get("/api/rulebooks").status_code == 401  # no seat was given


def test_a_player_runs_only_their_own_characters_actions(app, folder):
    gm, phone = clients(app)
    with gm, phone:
        seated(phone, character=None)
        about = phone.get("/api/table").json()
        assert about["role"] == "player" and about["player"] == "Lu"
        assert "code" not in about and "join" not in about  # the code is the game master's
        first = phone.post("/api/run", json=ANA)
        assert first.status_code == 403 and "choose your character" in first.text
        seated_again = phone.post(
            "/api/table/character", json={"rulebook": "brujeria", "character": "ana"}
        )
        assert seated_again.status_code == 200
        assert phone.post("/api/run", json=ANA).status_code == 200
        for other in (
            {**ANA, "character": "bea"},
            {k: v for k, v in ANA.items() if k != "character"},
            {**ANA, "rulebook": "arcana_mundi"},
            {**{k: v for k, v in ANA.items() if k != "character"}, "sheet": {"x": 1}},
        ):
            refused = phone.post("/api/run", json=other)
            assert refused.status_code == 403 and code_of(refused) == "forbidden", other
        # a second pick (another character) is refused: the seat is for one character
        again = phone.post(
            "/api/table/character", json={"rulebook": "brujeria", "character": "bea"}
        )
        assert again.status_code == 409
        # the game master's doors stay shut whatever the player sends
        before = sorted(p.name for p in folder.iterdir())
        for method, path, body in (
            ("POST", "/api/undo", {"entry": 1}),
            ("PUT", "/api/rulebooks/mine", {"text": 'rulebook "X" {\n}\n'}),
            ("POST", "/api/sweep", {}),
            ("POST", "/api/encounter", {}),
            ("POST", "/api/run", {**ANA, "secret": True}),
        ):
            refused = phone.request(method, path, json=body, headers={"authorization": "Bearer x"})
            assert refused.status_code in (401, 403), (path, refused.text)
        assert sorted(p.name for p in folder.iterdir()) == before
        # the game master runs any character
        assert gm.post("/api/run", json={**ANA, "character": "bea"}).status_code == 200


def test_another_players_character_cannot_be_picked(app):
    _gm, phone = clients(app)
    _gm2, other = clients(app)
    with phone, other:
        seated(phone, "Lu", "ana")
        seated(other, "Mar", None)
        taken = other.post(
            "/api/table/character", json={"rulebook": "brujeria", "character": "ana"}
        )
        assert taken.status_code == 409 and "another player plays ana" in taken.text


def test_every_run_and_save_reaches_the_log_and_a_secret_roll_only_the_game_masters(app, folder):
    gm, phone = clients(app)
    with gm, phone:
        seated(phone)
        ran = phone.post("/api/run", json=ANA).json()
        saved = phone.post("/api/run", json={**ANA, "save": True}).json()
        assert (
            gm.post("/api/run", json={**ANA, "character": "bea", "secret": True}).status_code == 200
        )
        gm_log = gm.get("/api/table/log").json()["events"]
        player_log = phone.get("/api/table/log").json()["events"]
    kinds = [(e["kind"], e["who"], e["audience"]) for e in gm_log]
    assert kinds == [
        ("joined", "Lu", "all"),
        ("seat", "Lu", "all"),
        ("run", "Lu", "all"),
        ("saved", "Lu", "all"),
        ("run", "", "gm"),
    ]
    assert player_log == gm_log[:-1]  # the secret roll is not the players'
    run = gm_log[2]
    assert (run["character"], run["action"]) == ("ana", "asustarse")
    assert run["dice"] == ran["dice"] and run["result"] == ran["result"]
    assert gm_log[3]["entry"] == saved["saved"]["entry"]
    # kept in the journal's database, beside the runs
    with Journal(folder / "journal.sqlite", create=False) as journal:
        if journal.on_postgres:
            assert journal.connection.version() == VERSION
        else:
            assert journal.connection.execute("PRAGMA user_version").fetchone()[0] == VERSION
        rows = journal.connection.execute("SELECT kind, data FROM table_events ORDER BY id")
        rows = rows.fetchall()
    assert [r[0] for r in rows] == [e["kind"] for e in gm_log]
    assert json.loads(rows[2][1])["dice"] == ran["dice"]


def test_a_new_code_seats_everyone_anew(folder):
    first = create_app(folder, token=TOKEN, table={"code": CODE})
    _gm, phone = clients(first)
    with phone:
        seated(phone)
        cookies = dict(phone.cookies)
    later = create_app(folder, token=TOKEN, table={"code": "WXYZ-2345"})
    with TestClient(later, base_url=BASE, cookies=cookies) as same_phone:
        assert same_phone.get("/api/table").status_code == 401
    again = create_app(folder, token=TOKEN, table={"code": CODE})
    with TestClient(again, base_url=BASE, cookies=cookies) as same_phone:
        assert same_phone.get("/api/table").json()["character"] == "ana"


def test_the_join_link_and_its_qr_code(app):
    gm, _phone = clients(app)
    with gm:
        about = gm.get("/api/table").json()
        assert about["join"] == f"{BASE}/join?code={CODE}" and about["table"] == "martes"
        picture = gm.get("/api/table/qr.svg")
    assert picture.headers["content-type"].startswith("image/svg+xml")
    assert picture.text.startswith("<svg") and "<path" in picture.text


def test_codes_as_typed_and_codes_refused(folder):
    assert plain_code(" abcd-efgh ") == "ABCDEFGH"
    table = make_table(folder)
    assert len(table.code) == 8 and table.is_code(table.code.lower())
    assert table.name == "campaign"
    for bad in ("abc", "ABCD/EFGH", "x" * 40):
        with pytest.raises(Exception, match="6 to 32 letters"):
            make_table(folder, code=bad)


def test_the_stream_tells_an_event_as_it_is_kept(folder):
    table = make_table(folder, code=CODE)

    async def first_two():
        stream = _stream(table, Role(gm=True), 0)
        assert (await anext(stream)).startswith("retry:")
        waiting = asyncio.ensure_future(anext(stream))
        for _ in range(3):  # the stream is waiting: nothing to tell yet
            await asyncio.sleep(0)
        assert not waiting.done()
        table.tell("run", "Lu", {"action": "asustarse"})
        told = await asyncio.wait_for(waiting, 5)  # a bound on a hang, not a timing
        await stream.aclose()
        return told

    told = asyncio.run(first_two())
    assert told.startswith("id: 1\nevent: run\ndata: ")
    assert json.loads(told.split("data: ", 1)[1])["action"] == "asustarse"
    assert table._waiting == set()  # the closed stream waits no more


def test_a_server_that_stops_ends_every_stream(folder):
    table = make_table(folder, code=CODE)

    async def ended() -> list:
        stream = _stream(table, Role(gm=True), 0)
        said = [await anext(stream)]
        waiting = asyncio.ensure_future(anext(stream))
        for _ in range(3):
            await asyncio.sleep(0)
        assert not waiting.done()
        table.close()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, 5)  # a bound on a hang, not a timing
        return said

    assert asyncio.run(ended()) == ["retry: 1000\n\n"]
    assert table._waiting == set()
