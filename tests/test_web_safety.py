"""The server's safety: names never paths, nothing outside FOLDER, bounded requests,
cross-site requests refused, bad input a 4xx with the project's message (never a
traceback), an OpenAPI document that matches the routes, safe headers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.routing import Route
from web_client import page_client

from interpreter.web import create_app
from interpreter.web.api import MAX_TEXT

ROOT = Path(__file__).resolve().parent.parent
BASE = "http://127.0.0.1:8000"
RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "brujeria_investigadora"}


@pytest.fixture
def folder(tmp_path):
    inside = tmp_path / "campaign"
    inside.mkdir()
    return inside


@pytest.fixture
def client(folder):
    with page_client(create_app(folder), base_url=BASE) as client:
        yield client


def error_of(answer, status: int) -> dict:
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert error["message"] and "Traceback" not in answer.text
    return error


# ─── nothing outside the folder ────────────────────────────────────────────


@pytest.mark.parametrize(
    "name", ["../brujeria", "..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "brujeria.rules", "x/y"]
)
def test_rulebooks_and_characters_are_names_not_paths(client, name):
    for path in (f"/api/rulebooks/{name}", f"/api/rulebooks/{name}/source"):
        assert client.get(path).status_code == 404
    assert client.get(f"/api/characters/{name}?rulebook=brujeria").status_code == 404
    error_of(client.post("/api/run", json={**RUN, "character": name.replace("%2F", "/")}), 404)


def test_extends_outside_the_folder_is_refused(client, folder):
    secret = folder.parent / "secret.rules"
    secret.write_text('rulebook "Secret" {\n}\n')
    for reference in ('"../secret.rules"', f'"{secret}"', '"/etc/passwd"'):
        text = f'rulebook "H" extends {reference} {{\n}}\n'
        answer = client.post("/api/check", json={"text": text}).json()
        assert answer["ok"] is False
        [finding] = answer["diagnostics"]
        assert "no .rules file of that path inside" in finding["message"]
        assert finding["location"]["line"] == 1
        error_of(client.post("/api/run", json={**RUN, "text": text, "rulebook": None}), 422)
        error_of(client.put("/api/rulebooks/h", json={"text": text}), 422)
    assert not (folder / "h.rules").exists()


def test_a_folder_rulebook_extending_outside_is_refused_too(client, folder):
    (folder.parent / "secret.rules").write_text('rulebook "Secret" {\n}\n')
    (folder / "middle.rules").write_text('rulebook "M" extends "../secret.rules" {\n}\n')
    (folder / "top.rules").write_text('rulebook "T" extends "middle.rules" {\n}\n')
    error = error_of(client.get("/api/rulebooks/top"), 422)
    assert "no .rules file of that path inside" in error["message"]


def test_links_leading_out_of_the_folder_are_not_listed(client, folder):
    outside = folder.parent / "elsewhere.yaml"
    outside.write_text("rulebook: brujeria\n")
    os.symlink(outside, folder / "linked.yaml")
    names = [c["name"] for c in client.get("/api/characters").json()["characters"]]
    assert "linked" not in names
    error_of(client.get("/api/characters/linked?rulebook=brujeria"), 404)


def test_saves_write_only_in_the_folder(client, folder):
    (folder / "ana.yaml").write_text(
        (ROOT / "rulebooks/characters/brujeria_investigadora.yaml").read_text(encoding="utf-8")
    )
    before = {p: p.stat().st_mtime_ns for p in (ROOT / "rulebooks").rglob("*") if p.is_file()}
    answer = client.post("/api/run", json={**RUN, "seed": 1, "save": True})
    assert answer.status_code == 200
    answer = client.post("/api/run", json={**RUN, "character": "ana", "seed": 1, "save": True})
    assert answer.status_code == 200
    after = {p: p.stat().st_mtime_ns for p in (ROOT / "rulebooks").rglob("*") if p.is_file()}
    assert before == after
    written = sorted(p.name for p in folder.iterdir() if not p.name.startswith("journal.sqlite"))
    assert written == ["ana.yaml", "brujeria_investigadora.yaml"]
    assert (folder / "journal.sqlite").is_file()  # both saves journaled beside them
    error_of(client.put("/api/rulebooks/..%2Fx", json={"text": 'rulebook "X" {\n}\n'}), 404)
    error_of(client.put("/api/rulebooks/.hidden", json={"text": 'rulebook "X" {\n}\n'}), 400)


# ─── bounded requests ──────────────────────────────────────────────────────


def test_large_bodies_and_texts_are_refused(folder):
    with page_client(create_app(folder, max_body=10_000), base_url=BASE) as small:
        error_of(small.post("/api/check", json={"text": "#" * 20_000}), 413)
    with page_client(create_app(folder), base_url=BASE) as client:
        error_of(client.post("/api/check", json={"text": "#" * (MAX_TEXT + 1)}), 413)


def test_deep_json_is_refused(client):
    deep: object = 1
    for _ in range(40):
        deep = [deep]
    error_of(client.post("/api/run", json={**RUN, "params": {"x": deep}}), 400)
    error_of(
        client.post(
            "/api/run", content="[" * 100_000, headers={"content-type": "application/json"}
        ),
        400,
    )


# ─── cross-site requests ───────────────────────────────────────────────────


def test_cross_site_requests_are_refused(client):
    evil = {"origin": "http://evil.example"}
    error_of(client.post("/api/run", json={**RUN, "seed": 1}, headers=evil), 403)
    cross = {"sec-fetch-site": "cross-site"}
    error_of(client.post("/api/run", json={**RUN, "seed": 1}, headers=cross), 403)
    same_site = {"sec-fetch-site": "same-site"}  # another port of this machine
    error_of(client.post("/api/run", json={**RUN, "seed": 1}, headers=same_site), 403)
    form = {"content-type": "application/x-www-form-urlencoded"}
    error_of(client.post("/api/run", content=b"rulebook=brujeria", headers=form), 415)
    error_of(client.post("/api/run", content=b"{}", headers={"content-type": "text/plain"}), 415)
    mine = {"origin": BASE, "sec-fetch-site": "same-origin"}
    assert client.post("/api/run", json={**RUN, "seed": 1}, headers=mine).status_code == 200


def test_a_foreign_host_name_is_refused(client):
    # DNS rebinding: a page whose name now points at 127.0.0.1 sends its own Host.
    error_of(client.get("/api/rulebooks", headers={"host": "evil.example:8000"}), 400)
    assert client.get("/api/rulebooks", headers={"host": "localhost:8000"}).status_code == 200


def test_every_answer_has_a_strict_content_security_policy(client):
    for answer in (client.get("/"), client.get("/api/rulebooks"), client.get("/nothing")):
        policy = answer.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert answer.headers["x-content-type-options"] == "nosniff"


# ─── bad input: a 4xx with the project's message ───────────────────────────


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({**RUN, "action": "asustarsee"}, 400, "querías decir"),  # Brujería speaks Spanish
        ({**RUN, "params": {"nope": 1}}, 400, "nope"),
        ({**RUN, "seed": "x"}, 400, "whole number"),
        ({**RUN, "dice": [1, "two"]}, 400, "not a whole number"),
        ({**RUN, "seed": 1, "dice": [1]}, 400, "not both"),
        ({**RUN, "rulebook": "nope"}, 404, "no rulebook named 'nope'"),
        ({**RUN, "sheet": {"Fuerza": 99}}, 400, "not both"),
        ({**RUN, "character": None, "sheet": {"Fuerza": 99}}, 422, "Fuerza"),
        ({**RUN, "dices": [1]}, 400, "did you mean dice"),  # (or choices)
        ({"rulebook": "brujeria"}, 400, "'action' is required"),
    ],
)
def test_bad_runs_say_what_is_wrong(client, body, status, words):
    assert words in error_of(client.post("/api/run", json=body), status)["message"] + str(
        error_of(client.post("/api/run", json=body), status)["hint"]
    )


def test_unknown_addresses_and_methods_are_json_too(client):
    assert "no such address" in error_of(client.get("/api/nothing"), 404)["message"]
    assert error_of(client.request("DELETE", "/api/run", json={}), 405)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
_FIELDS = st.sampled_from(
    [
        "rulebook",
        "text",
        "action",
        "character",
        "sheet",
        "params",
        "seed",
        "dice",
        "ask",
        "field",
        "expression",
        "compare",
        "budget",
        "trials",
    ]
)
_NAMES = st.sampled_from(
    ["brujeria", "arcana_mundi", "asustarse", "usar_numina", "menecma", "3d6", "d6x", "../x", ""]
)


@settings(max_examples=150)
@given(
    st.dictionaries(_FIELDS, _JSON | _NAMES, max_size=6), st.sampled_from(["run", "odds", "check"])
)
def test_any_body_gets_an_answer_never_a_traceback(body, endpoint):
    with page_client(
        create_app(ROOT / "tests/data"), base_url=BASE, raise_server_exceptions=False
    ) as c:
        answer = c.post(f"/api/{endpoint}", json=body)
        assert answer.status_code in (200, 400, 404, 413, 422), answer.text
        data = answer.json() if "ndjson" not in answer.headers["content-type"] else {}
        if answer.status_code != 200:
            assert data["error"]["message"] and "Traceback" not in answer.text


# ─── the API described ─────────────────────────────────────────────────────


def test_openapi_describes_every_route_of_the_api(client):
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    described = {
        (path, method.upper()) for path, item in document["paths"].items() for method in item
    }
    app = client.app
    while not hasattr(app, "routes"):  # inside the guard and the other middleware
        app = app.app
    served = {
        (route.path, method)
        for route in app.routes
        if isinstance(route, Route) and route.path.startswith("/api")
        for method in route.methods - {"HEAD"}
    }
    assert described == served
    for item in document["paths"].values():
        for operation in item.values():
            assert operation["summary"] and "200" in operation["responses"]


def test_openapi_answers_are_the_shipped_json_schemas(client):
    # Every $ref in the document reaches a schema it holds (the --json output's schemas).
    document = client.get("/openapi.json").json()
    held = {schema["$id"] for schema in document["components"]["schemas"].values()}
    assert {"urn:rulebook:schema:run", "urn:rulebook:schema:error"} <= held
    refs = set()
    stack = [document["paths"]]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "$ref" in item:
                refs.add(item["$ref"].split("#")[0])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    assert refs and refs <= held
    run = document["paths"]["/api/run"]["post"]["responses"]
    assert {"$ref": "urn:rulebook:schema:run"} in run["200"]["content"]["application/json"][
        "schema"
    ]["oneOf"]
    assert run["422"]["content"]["application/json"]["schema"] == {
        "$ref": "urn:rulebook:schema:error"
    }


def test_openapi_request_bodies_are_the_fields_each_endpoint_takes(client):
    # Each documented body field is one the endpoint knows (never "unknown field"), and
    # a field the document does not list is refused: the document and the app agree.
    document = client.get("/openapi.json").json()
    checked = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            body = operation.get("requestBody")
            if body is None:
                continue
            schema = body["content"]["application/json"]["schema"]
            assert schema.get("additionalProperties") is False, (path, method)
            address = path.replace("{name}", "brujeria_mine")
            for name in schema["properties"]:
                answer = client.request(method.upper(), address, json={name: None})
                message = answer.json().get("error", {}).get("message", "")
                assert "unknown field" not in message, (path, name, message)
                checked += 1
            stray = client.request(method.upper(), address, json={"zzz_not_a_field": 1})
            assert stray.status_code == 400, (path, stray.json())
            assert "unknown field" in stray.json()["error"]["message"]
    assert checked >= 30
    run = document["paths"]["/api/run"]["post"]["requestBody"]["content"]["application/json"]
    assert {"targets", "choices", "answers", "lang"} <= set(run["schema"]["properties"])


def test_a_run_that_needs_a_choice_answers_as_documented(client):
    # The `need` answer validates against the schema the document gives for it.
    import jsonschema
    from referencing import Registry, Resource

    from interpreter.json_data import schemas

    document = client.get("/openapi.json").json()
    answers = document["paths"]["/api/run"]["post"]["responses"]["200"]["content"]
    need_schema = answers["application/json"]["schema"]["oneOf"][1]
    registry = Registry().with_resources(
        (id_, Resource.from_contents(contents)) for id_, contents in schemas().items()
    )
    validator = jsonschema.Draft202012Validator(need_schema, registry=registry)
    body = {"rulebook": "arcana_mundi", "action": "usar_numina", "character": "menecma"}
    body["params"] = {"numina": "Grito Báquico"}
    die = client.post("/api/run", json={**body, "ask": True, "dice": []}).json()
    assert list(validator.iter_errors(die)) == [] and die["need"]["kind"] == "die"
    assert die["trace"][0]["text"].startswith("Usar una númina(")  # the run so far
