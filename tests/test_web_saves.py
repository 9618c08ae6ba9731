"""What the server writes into its folder, and only that: a run is saved only with the
folder's own rules and sheets; a rulebook is overwritten only naming the version it
replaces (If-Match), the old text kept in the journal and the save undone like a run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web_client import page_client

from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
ANA = {"rulebook": "brujeria", "action": "asustarse", "character": "ana", "seed": 3}
# An edit of Brujería that empties a character's life: run as text, never saved.
LETHAL = 'rulebook "Letal" extends brujeria {\n}\naction matar() {\n  lose Vida from Vida\n}\n'

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_investigadora.yaml", tmp_path / "ana.yaml")
    return tmp_path


@pytest.fixture
def client(folder):
    with page_client(create_app(folder)) as client:
        yield client


def files_of(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


# ─── a run is saved with the folder's rules and sheets only ────────────────


def test_a_run_of_rules_given_as_text_is_never_saved(client, folder):
    before = files_of(folder)
    body = {"text": LETHAL, "action": "matar", "character": "ana", "save": True}
    answer = client.post("/api/run", json=body)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert "save the rulebook first" in error["message"]
    assert "PUT /api/rulebooks/NAME" in error["hint"]
    assert files_of(folder) == before  # no sheet written, no journal made
    # run (not saved), it shows what it would do; saved as a rulebook, it runs by name
    shown = client.post("/api/run", json={**body, "save": False}).json()
    assert shown["changes"][0]["path"] == "Vida" and shown["changes"][0]["after"] == 0
    assert client.put("/api/rulebooks/letal", json={"text": LETHAL}).status_code == 200
    saved = client.post(
        "/api/run", json={"rulebook": "letal", "action": "matar", "character": "ana", "save": True}
    )
    assert saved.status_code == 200 and "Vida: 0" in (folder / "ana.yaml").read_text()


def test_a_sheet_given_as_data_is_never_saved(client, folder):
    before = files_of(folder)
    body = {**ANA, "sheet": {"Vida": 1}, "save": True}
    answer = client.post("/api/run", json=body)
    assert answer.status_code == 400 and "sheet given as data" in answer.json()["error"]["message"]
    assert files_of(folder) == before


# ─── a rulebook saved over names the version it replaces ───────────────────

CASA = 'rulebook "Casa" extends brujeria {\n}\n'
CASA_2 = CASA + "table Nueva { a: 1 }\n"
CASA_3 = CASA + "table Otra { b: 2 }\n"


def source_of(client, name: str) -> tuple[str, str]:
    answer = client.get(f"/api/rulebooks/{name}/source")
    assert answer.status_code == 200
    assert answer.headers["etag"] == answer.json()["version"]
    return answer.json()["text"], answer.headers["etag"]


def put(client, name: str, text: str, version: str | None = None):
    headers = {"if-match": version} if version is not None else {}
    return client.put(f"/api/rulebooks/{name}", json={"text": text}, headers=headers)


def journal_entries(client, folder: Path) -> list:
    from interpreter.journal import Journal, NoJournal

    try:  # (the folder's file, or the database $RULEBOOK_DATABASE names)
        with Journal(folder / "journal.sqlite", create=False) as journal:
            return journal.entries()
    except NoJournal:
        return []


def test_a_new_rulebook_needs_no_version_and_answers_its_own(client, folder):
    made = put(client, "casa", CASA)
    assert made.status_code == 200, made.text
    saved = made.json()
    assert saved["file"] == "casa.rules" and saved["entry"] == 1
    assert saved["version"] == made.headers["etag"] == source_of(client, "casa")[1]


def test_saving_over_a_rulebook_without_its_version_is_refused(client, folder):
    (folder / "casa.rules").write_text(CASA, encoding="utf-8")
    for given in (None, "*", ""):
        answer = put(client, "casa", CASA_2, given)
        assert answer.status_code == 428, answer.text
        error = answer.json()["error"]
        assert error["code"] == "version_required" and "If-Match" in error["message"]
        assert "/api/rulebooks/casa/source" in error["hint"]
    assert (folder / "casa.rules").read_text(encoding="utf-8") == CASA
    assert journal_entries(client, folder) == []


def test_saving_over_a_version_someone_else_replaced_is_refused(client, folder):
    (folder / "casa.rules").write_text(CASA, encoding="utf-8")
    _text, mine = source_of(client, "casa")
    _text, theirs = source_of(client, "casa")
    assert put(client, "casa", CASA_2, theirs).status_code == 200  # they save first
    answer = put(client, "casa", CASA_3, mine)  # mine names the version they replaced
    assert answer.status_code == 412, answer.text
    error = answer.json()["error"]
    assert error["code"] == "version_mismatch" and "nothing was written" in error["message"]
    assert (folder / "casa.rules").read_text(encoding="utf-8") == CASA_2
    for other in ("W/" + mine, '"0000"', mine.strip('"')):  # weak, another, unquoted
        assert put(client, "casa", CASA_3, other).status_code in (412, 428)
    text, now = source_of(client, "casa")
    assert text == CASA_2 and put(client, "casa", CASA_3, f'"x", {now}').status_code == 200


def test_a_version_of_a_file_removed_since_is_refused(client, folder):
    (folder / "casa.rules").write_text(CASA, encoding="utf-8")
    _text, version = source_of(client, "casa")
    (folder / "casa.rules").unlink()
    answer = put(client, "casa", CASA_2, version)
    assert answer.status_code == 412 and not (folder / "casa.rules").exists()


def test_two_saves_of_one_version_at_once_one_wins(folder):
    import threading

    (folder / "casa.rules").write_text(CASA, encoding="utf-8")
    app = create_app(folder)
    with page_client(app) as first, page_client(app) as second:
        _text, version = source_of(first, "casa")
        answers, start = {}, threading.Barrier(2)

        def save(client, text):
            start.wait()
            answers[text] = put(client, "casa", text, version).status_code

        threads = [
            threading.Thread(target=save, args=(first, CASA_2)),
            threading.Thread(target=save, args=(second, CASA_3)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(answers.values()) == [200, 412]
    winner = next(text for text, status in answers.items() if status == 200)
    assert (folder / "casa.rules").read_text(encoding="utf-8") == winner


def test_a_rulebook_saved_over_is_journaled_and_undone(client, folder, capsys, monkeypatch):
    from interpreter.cli.main import main

    (folder / "casa.rules").write_text(CASA, encoding="utf-8")
    _text, version = source_of(client, "casa")
    saved = put(client, "casa", CASA_2, version).json()
    [entry] = journal_entries(client, folder)
    assert (entry.id, entry.kind, entry.action) == (saved["entry"], "rulebook", "casa")
    undone = client.post("/api/undo", json={"entry": saved["entry"]})
    assert undone.status_code == 200 and undone.json()["undoes"] == saved["entry"]
    assert (folder / "casa.rules").read_text(encoding="utf-8") == CASA
    assert "Nueva" not in client.get("/api/rulebooks/casa").json().get("tables", {})
    # and from the command line, in the folder
    _text, version = source_of(client, "casa")
    again = put(client, "casa", CASA_3, version).json()
    monkeypatch.chdir(folder)
    assert main(["undo", str(again["entry"])]) == 0
    assert (folder / "casa.rules").read_text(encoding="utf-8") == CASA
    # a rulebook made anew from the page: undone, it is gone again
    made = put(client, "nueva", CASA_2).json()
    assert client.post("/api/undo", json={"entry": made["entry"]}).status_code == 200
    assert not (folder / "nueva.rules").exists()
    assert client.get("/api/rulebooks/nueva").status_code == 404


def test_line_ends_are_saved_as_the_file_reads_them(client, folder):
    saved = put(client, "casa", CASA.replace("\n", "\r\n")).json()
    text, version = source_of(client, "casa")
    assert version == saved["version"] and text == CASA
    assert put(client, "casa", CASA_2, version).status_code == 200


def test_a_link_in_the_folder_is_never_written_through(client, folder, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "theirs.rules"
    outside.write_text(CASA, encoding="utf-8")
    (folder / "casa.rules").symlink_to(outside)
    answer = put(client, "casa", CASA_2)
    assert answer.status_code == 409 and "link" in answer.json()["error"]["message"]
    assert answer.json()["error"]["code"] == "file_refused"
    assert outside.read_text(encoding="utf-8") == CASA and journal_entries(client, folder) == []


def test_a_character_saved_through_a_link_is_a_conflict_with_the_file(client, folder):
    """A link in the folder to a sheet in the folder: listed, read, never written through
    (409: the request is fine, the file as it is refuses it)."""
    (folder / "real").mkdir()
    real = folder / "real" / "ana.yaml"
    real.write_text(
        (ROOT / "rulebooks/characters/brujeria_investigadora.yaml").read_text(encoding="utf-8")
    )
    (folder / "linked.yaml").symlink_to(real)
    before = real.read_bytes()
    run = {"rulebook": "brujeria", "action": "asustarse", "character": "linked", "seed": 1}
    assert client.post("/api/run", json=run).status_code == 200  # read through it: fine
    answer = client.post("/api/run", json={**run, "save": True})
    assert answer.status_code == 409, answer.text
    error = answer.json()["error"]
    assert error["code"] == "file_refused" and "link" in error["message"]
    assert str(folder) not in answer.text  # the folder's path is not told
    assert real.read_bytes() == before and (folder / "linked.yaml").is_symlink()
