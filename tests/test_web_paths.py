"""No absolute path of the server in any answer (interpreter.web.paths): every route is
asked, its answers when it works and when it refuses (traces, errors with locations,
saves, undo, history, the OpenAPI document, streamed odds), and none may hold the
folder's absolute path, the package's nor the home folder; files are named as the client
knows them: relative to the folder, a shipped rulebook or character by its name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from starlette.routing import Route
from web_client import page_client

import dsl
from interpreter.web import create_app
from interpreter.web.paths import Names

ROOT = Path(__file__).resolve().parent.parent
CASA = """rulebook "Casa" extends brujeria {
}
action temblar(veces: int = 1) "Temblar" {
  require veces > 0 else "Hay que temblar al menos una vez"
  let miedo = 1d6 + veces
  result { miedo: miedo }
}
"""
DEEP = 'rulebook "Honda" extends "bases/base.rules" {\n}\n'
BASE = (
    'rulebook "Base" extends brujeria {\n}\naction nada() {\n  let x = 1d6\n  result { x: x }\n}\n'
)


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home folder holding the campaign (as a user's would): both must stay unsaid."""
    home = tmp_path / "home of the user"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    assert Path.home() == home
    return home


@pytest.fixture
def folder(home):
    folder = home / "campaña de prueba"
    (folder / "bases").mkdir(parents=True)
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", folder / "ana.yaml")
    (folder / "mala.yaml").write_text("rulebook: brujeria\nFuerza: muchísima\n", encoding="utf-8")
    (folder / "casa.rules").write_text(CASA, encoding="utf-8")
    (folder / "roto.rules").write_text('rulebook "Roto" {\n}\naction a() { let x = }\n')
    (folder / "honda.rules").write_text(DEEP, encoding="utf-8")
    (folder / "bases/base.rules").write_text(BASE, encoding="utf-8")
    return folder


def forbidden(folder: Path) -> list[str]:
    """What no answer may hold: the folder's path, the package's, the home folder."""
    packages = {Path(m.__file__).resolve().parent.parent for m in (dsl,)} | {ROOT}
    places = {folder, folder.resolve(), Path.home(), *packages}
    out = set()
    for place in places:
        out |= {str(place), json.dumps(str(place))[1:-1]}
    return sorted(out)


class Walk:
    """Asks the server, keeping every answer and the routes asked."""

    def __init__(self, client, folder: Path):
        self.client, self.folder = client, folder
        self.answers: list[tuple[str, int, str]] = []
        self.routes: set[tuple[str, str]] = set()

    def ask(self, method: str, route: str, url: str | None = None, status=200, **options):
        answer = self.client.request(method, url or route, **options)
        assert answer.status_code == status, (method, url or route, answer.text[:500])
        self.answers.append((f"{method} {url or route}", answer.status_code, answer.text))
        self.routes.add((route, method))
        return answer.json() if "json" in answer.headers.get("content-type", "") else answer


def test_no_answer_holds_a_path_of_the_server(folder):
    app = create_app(folder)
    with page_client(app) as client:
        walk = Walk(client, folder)
        ask = walk.ask
        # ─── reading
        ask("GET", "/")
        ask("GET", "/openapi.json")
        ask("GET", "/api/session")
        books = {b["name"]: b for b in ask("GET", "/api/rulebooks")["rulebooks"]}
        assert books["casa"]["path"] == "casa.rules" and books["brujeria"]["path"] == "brujeria"
        assert books["honda"]["files"] == {
            "honda.rules": "honda",
            "bases/base.rules": None,
            "brujeria": "brujeria",
        }
        assert "roto.rules:3" in books["roto"]["error"] or books["roto"]["error"]
        ask("GET", "/api/rulebooks/{name}", "/api/rulebooks/casa")
        broken = ask("GET", "/api/rulebooks/{name}", "/api/rulebooks/roto", 422)
        assert broken["error"]["location"]["file"] == "roto.rules"
        ask("GET", "/api/rulebooks/{name}", "/api/rulebooks/nada", 404)
        source = ask("GET", "/api/rulebooks/{name}/source", "/api/rulebooks/casa/source")
        assert source["path"] == "casa.rules"
        shipped = ask("GET", "/api/rulebooks/{name}/source", "/api/rulebooks/brujeria/source")
        assert shipped["path"] == "brujeria"
        ask("GET", "/api/characters")
        ask("GET", "/api/characters", "/api/characters?rulebook=casa")
        ana = ask("GET", "/api/characters/{name}", "/api/characters/ana?rulebook=casa")["sheet"]
        ask("GET", "/api/characters/{name}", "/api/characters/menecma?rulebook=arcana_mundi")
        bad_sheet = ask(
            "GET", "/api/characters/{name}", "/api/characters/mala?rulebook=brujeria", 422
        )
        assert bad_sheet["error"]["file"] == "mala.yaml"
        ask("GET", "/api/characters/{name}/history", "/api/characters/ana/history")
        ask("GET", "/api/language")
        ask("GET", "/api/words", "/api/words?rulebook=casa")
        ask("GET", "/api/nothing", status=404)
        # ─── running, counting, checking
        run = {"rulebook": "casa", "action": "temblar", "character": "ana", "seed": 4}
        ran = ask("POST", "/api/run", json=run)
        assert {step["file"] for step in ran["trace"]} <= set(books["casa"]["files"])
        failed = ask("POST", "/api/run", json={**run, "params": {"veces": 0}}, status=422)
        assert failed["error"]["location"]["file"] == "casa.rules"
        deep = ask("POST", "/api/run", json={"rulebook": "honda", "action": "nada", "seed": 1})
        files = {step["file"] for step in deep["trace"]}
        assert "bases/base.rules" in files and files <= set(books["honda"]["files"])
        need = ask("POST", "/api/run", json={**run, "seed": None, "ask": True, "dice": []})
        assert need["need"]["file"] == "casa.rules"
        ask("POST", "/api/run", json={**run, "text": CASA, "rulebook": None})
        ask("POST", "/api/run", json={**run, "seed": None, "dice": [7]}, status=422)  # no d6 face
        ask("POST", "/api/odds", json={"rulebook": "casa", "action": "temblar", "field": "miedo"})
        ask("POST", "/api/odds", json={"expression": "3d6", "progress": True})
        ask("POST", "/api/odds", json={**run, "seed": None, "params": {"veces": 0}}, status=200)
        sweep = {"rulebook": "casa", "action": "temblar", "character": "ana", "field": "miedo"}
        swept = ask("POST", "/api/sweep", json={**sweep, "params": {"veces": "0..2"}})
        assert [row["veces"] for row in swept["rows"]] == [0, 1, 2]
        assert swept["rows"][0]["P(miedo=fails: Hay que temblar al menos una vez)"] == "1/1"
        ask("POST", "/api/sweep", json={**sweep, "compare": ["roto"]}, status=422)
        blow = {"sheet": "ana", "action": "ataque_cuerpo_a_cuerpo", "damage": "daño"}
        fight = {"rulebook": "casa", "health": "Vida", "rounds": 3, "trials": 20}
        fight["sides"] = {"a": [{**blow, "name": "a"}], "b": [{**blow, "name": "b"}]}
        fought = ask("POST", "/api/encounter", json=fight)
        assert fought["kind"] == "encounter" and fought["method"] == "sampled"
        fight["sides"]["b"][0]["sheet"] = "mala"
        ask("POST", "/api/encounter", json=fight, status=422)
        checked = ask(
            "POST", "/api/check", json={"text": 'rulebook "X" extends "roto.rules" {\n}\n'}
        )
        assert {d["location"]["file"] for d in checked["diagnostics"]} == {"roto.rules"}
        ask("POST", "/api/check", json={"text": CASA, "name": "casa.rules"})
        ask("POST", "/api/sheet", json={"rulebook": "casa", "sheet": ana})
        editing = {"text": CASA, "name": "casa.rules"}
        ask("POST", "/api/editor", json={**editing, "what": "outline"})
        for word in ("1d6", "veces", "brujeria"):  # a dice term, a parameter, the base
            at = CASA.index(word) + 1
            ask("POST", "/api/editor", json={**editing, "what": "hover", "position": at})
        at = CASA.index("miedo }")
        ask("POST", "/api/editor", json={**editing, "what": "complete", "position": at})
        ask("POST", "/api/editor", json={**editing, "what": "rename"}, status=400)
        ask("POST", "/api/sheet", json={"rulebook": "casa", "sheet": {"Fuerza": "x"}}, status=422)
        # ─── saving, the journal, undo
        none_yet = ask("POST", "/api/undo", json={"entry": 1}, status=422)
        # (the journal is there already: it keeps the table's log of the runs above)
        assert none_yet["error"]["message"] == "the journal has no run 1"
        saved = ask("POST", "/api/run", json={**run, "save": True})
        assert (
            saved["saved"]["path"] == "ana.yaml" and saved["saved"]["journal"] == "journal.sqlite"
        )
        copy = ask(
            "POST",
            "/api/run",
            json={
                "rulebook": "arcana_mundi",
                "action": "usar_numina",
                "character": "menecma",
                "seed": 2,
                "save": True,
                "params": {"numina": "Grito Báquico"},
            },
        )
        assert copy["saved"]["path"] == "menecma.yaml"
        stale = {"result": {"miedo": -1}, "changes": []}
        ask("POST", "/api/run", json={**run, "save": True, "expect": stale}, status=409)
        history = ask("GET", "/api/characters/{name}/history", "/api/characters/ana/history")
        assert history["entries"][0]["sheets"] == ["ana.yaml"]
        ask("POST", "/api/undo", json={"entry": saved["saved"]["entry"]})
        ask("POST", "/api/undo", json={"entry": saved["saved"]["entry"]}, status=409)
        ask("POST", "/api/undo", json={"entry": 99}, status=422)
        made = ask("PUT", "/api/rulebooks/{name}", "/api/rulebooks/nueva", json={"text": CASA})
        assert made["file"] == "nueva.rules"
        ask("PUT", "/api/rulebooks/{name}", "/api/rulebooks/nueva", json={"text": CASA}, status=428)
        over = {"if-match": made["version"]}
        ask(
            "PUT",
            "/api/rulebooks/{name}",
            "/api/rulebooks/nueva",
            json={"text": CASA + "#\n"},
            headers=over,
        )
        ask(
            "PUT",
            "/api/rulebooks/{name}",
            "/api/rulebooks/nueva",
            json={"text": CASA},
            headers=over,
            status=412,
        )
        bad = ask(
            "PUT",
            "/api/rulebooks/{name}",
            "/api/rulebooks/mal",
            json={"text": CASA + "action b() { let y = z }\n"},
            status=422,
        )
        assert {d["location"]["file"] for d in bad["error"]["diagnostics"]} == {"mal.rules"}
        ask("POST", "/api/undo", json={"entry": made["entry"]}, status=409)  # saved over since
        # ─── characters made and edited by hand (a sheet that does not read: its file named)
        eva = {"rulebook": "casa", "name": "eva", "sheet": {**ana, "rulebook": "casa"}}
        ask("POST", "/api/characters", json=eva)
        ask("POST", "/api/characters", json=eva, status=409)
        edit = {"rulebook": "casa", "values": {"Pelea": 3}}
        ask("PATCH", "/api/characters/{name}", "/api/characters/eva", json=edit)
        refused = ask(
            "PATCH", "/api/characters/{name}", "/api/characters/mala", json=edit, status=422
        )
        assert refused["error"]["file"] == "mala.yaml"
        # ─── a request refused before any route: still no path
        ask("POST", "/api/run", json={**run, "nope": 1}, status=400)
        ask("DELETE", "/api/run", json={}, status=405)
        # ─── the shared table (its log holds the runs above)
        ask("GET", "/join")
        ask("GET", "/api/table")
        ask("GET", "/api/table/log")
        ask("GET", "/api/table/qr.svg")
        ask("POST", "/api/table/join", json={"code": "NOT-THE-CODE", "player": "x"}, status=403)
        pick = {"rulebook": "casa", "character": "ana"}
        ask("POST", "/api/table/character", json=pick, status=400)  # (the game master)
        # the stream's messages are the log's events (asked above), as they come
        walk.routes.add(("/api/table/events", "GET"))
    # every route of the API was asked
    inner = app
    while not hasattr(inner, "routes"):
        inner = inner.app
    served = {
        (route.path, method)
        for route in inner.routes
        if isinstance(route, Route)
        for method in route.methods - {"HEAD"}
    }
    assert served <= walk.routes | {("/", "GET")}, served - walk.routes
    # and no answer holds a path of the server
    for place in forbidden(folder):
        leaks = [(what, status) for what, status, text in walk.answers if place in text]
        assert leaks == [], (place, leaks)


def test_names_take_away_only_whole_paths(folder):
    names = Names(folder)
    inside = json.dumps({"message": f"cannot write {folder / 'ana.yaml'}: no room"})
    assert json.loads(names.rewrite(inside.encode()))["message"] == "cannot write ana.yaml: no room"
    beside = f"{folder}2/x.rules"  # a folder whose name only begins like this one's
    assert json.loads(names.rewrite(json.dumps(beside).encode())) == "~/campaña de prueba2/x.rules"
    escaped = json.dumps(f"{folder}/casa.rules")  # ñ as \\u00f1
    assert json.loads(names.rewrite(escaped.encode())) == "casa.rules"
    shipped = dsl.shipped_rulebooks()["brujeria"]
    assert json.loads(names.rewrite(json.dumps(f"en {shipped}:3").encode())) == "en brujeria:3"
    home_file = Path.home() / "notas.txt"
    assert json.loads(names.rewrite(json.dumps(str(home_file)).encode())) == "~/notas.txt"


class _Counted(list):
    """The paths a `Names` looks for, each time it looks for them noted."""

    looked = 0

    def __iter__(self):
        self.looked += 1
        return super().__iter__()


def test_an_answer_without_the_first_byte_of_every_path_is_not_searched(folder):
    """Fails with paths.FIRST_BYTE off: each of the server's paths is then looked for in
    an answer that holds no `/` at all."""
    names = Names(folder)
    names.anchors = _Counted(names.anchors)
    plain = json.dumps({"kind": "run", "trace": [{"file": "brujeria", "line": 3}]}).encode()
    assert names.first == b"/" and names.rewrite(plain) is plain
    assert names.anchors.looked == 0
    inside = json.dumps({"file": str(folder / "casa.rules"), "fractions": {"/a": "1/2"}})
    assert json.loads(names.rewrite(inside.encode()))["file"] == "casa.rules"
    assert names.anchors.looked == 1
