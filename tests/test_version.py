"""The package's version, written once (interpreter/version.py), in every JSON document the
project emits: the command line's --json, the HTTP API's answers, a journal's exports."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from web_client import page_client

import interpreter
from interpreter.cli import main
from interpreter.version import VERSION, VERSION_FIELD, versioned
from interpreter.web import create_app
from interpreter.web.openapi import document

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "rulebooks/characters"
BASE = "http://127.0.0.1:8000"
RUN = {"rulebook": "brujeria", "action": "asustarse", "character": "ana"}


def test_the_version_is_written_once_and_read_by_the_package_build():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "interpreter.version.VERSION"
    }
    assert interpreter.__version__ == VERSION
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", VERSION)


def test_the_changelog_keeps_an_unreleased_section_and_names_the_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert f"`{VERSION}`" in changelog


def test_versioned_puts_the_version_after_the_kind_and_copies():
    given = {"kind": "undo", "undoes": 1}
    assert list(versioned(given)) == ["kind", VERSION_FIELD, "undoes"]
    assert list(versioned({"rulebooks": []})) == [VERSION_FIELD, "rulebooks"]
    assert given == {"kind": "undo", "undoes": 1}


def _printed(capsys, *argv) -> tuple[int, dict]:
    code = main([str(a) for a in argv])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "argv",
    [
        ("describe", "brujeria"),
        ("roll", "3d6+1", "--seed", "4"),
        ("odds", "2d6"),
        ("odds", "2d6", "--compare", "3d6"),
        ("run", "brujeria", "asustarse", "--char", SHIPPED / "brujeria_investigadora.yaml"),
        ("run", "brujeria", "no_such_action", "--char", SHIPPED / "brujeria_investigadora.yaml"),
        ("roll", "3d"),  # an error
    ],
)
def test_every_json_answer_of_the_command_line_carries_the_version(capsys, argv):
    _, data = _printed(capsys, *argv, "--json")
    assert data[VERSION_FIELD] == VERSION, data


def test_a_usage_error_in_json_carries_the_version(capsys):
    with pytest.raises(SystemExit):
        main(["odds", "2d6", "--budget", "zero", "--json"])
    assert json.loads(capsys.readouterr().out)[VERSION_FIELD] == VERSION


def test_a_journals_documents_and_exports_carry_the_version(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "brujeria_investigadora", "lucia.yaml"]) == 0
    run = ["run", "brujeria", "asustarse", "--char", "lucia.yaml", "--dice", "1,1,1,3", "--save"]
    assert main(run) == 0
    capsys.readouterr()
    for argv in (("log", "lucia"), ("show", "1"), ("replay", "--against", "brujeria")):
        _, data = _printed(capsys, *argv, "--json")
        assert data[VERSION_FIELD] == VERSION, argv
    assert main(["export", "1", "-o", "run1.json"]) == 0
    record = json.loads((tmp_path / "run1.json").read_text(encoding="utf-8"))
    assert record[VERSION_FIELD] == VERSION and record["version"] == 1  # the format's own
    assert main(["verify", "run1.json"]) == 0  # the field is read past, not refused


@pytest.fixture
def client(tmp_path):
    shutil.copy(SHIPPED / "brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    with page_client(create_app(tmp_path), base_url=BASE) as client:
        yield client


def test_every_answer_of_the_http_api_carries_the_version(client):
    text = 'rulebook "T" extends brujeria {\n}\n'
    asked = [
        client.get("/api/session"),
        client.get("/api/language"),
        client.get("/api/rulebooks"),
        client.get("/api/rulebooks/brujeria"),
        client.get("/api/rulebooks/brujeria/source"),
        client.get("/api/characters", params={"rulebook": "brujeria"}),
        client.get("/api/characters/ana"),
        client.get("/api/characters/ana/history"),
        client.get("/api/words"),
        client.get("/api/nothing"),  # Starlette's 404, as the project's error
        client.post("/api/run", json={**RUN, "seed": 3}),
        client.post("/api/run", json={**RUN, "dice": [2], "save": True}),
        client.post("/api/undo", json={"entry": 1}),
        client.post("/api/run", json={**RUN, "params": {"nope": 1}}),  # an error
        client.post("/api/odds", json={"expression": "2d6"}),
        client.post("/api/check", json={"text": text}),
        client.post("/api/editor", json={"text": text, "what": "outline"}),
        client.post("/api/sheet", json={"rulebook": "brujeria", "sheet": {}}),
    ]
    for answer in asked:
        assert answer.json()[VERSION_FIELD] == VERSION, (answer.url, answer.text[:200])
    streamed = client.post("/api/odds", json={"expression": "3d6", "progress": True})
    last = json.loads(streamed.text.splitlines()[-1])
    assert last["result"][VERSION_FIELD] == VERSION


def test_the_openapi_document_gives_the_version_where_openapi_keeps_it():
    assert document()["info"]["version"] == VERSION
