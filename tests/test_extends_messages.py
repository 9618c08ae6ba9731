"""`extends` tells nothing of the files it may not read: a file missing and a file out of
reach (an absolute path, `..` out of the folder, a link leading out, not a `.rules`
file) get the very same answer, on the command line and from the server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from web_client import page_client

from interpreter.cli.main import main
from interpreter.web import create_app

SECRET = 'rulebook "Secret" {\n}\ntable T { a: 1 }\n'


def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A campaign folder, and beside it (out of its reach) a place for secrets."""
    campaign, elsewhere = tmp_path / "campaign", tmp_path / "elsewhere"
    campaign.mkdir()
    elsewhere.mkdir()
    return campaign, elsewhere


def references(campaign: Path, elsewhere: Path) -> dict[str, tuple[str, Path]]:
    """Each way out: the reference written, and the file whose existence must not show."""
    (campaign / "link.rules").symlink_to(elsewhere / "linked.rules")
    return {
        "absolute": (f'"{elsewhere / "secret.rules"}"', elsewhere / "secret.rules"),
        "up": ('"../elsewhere/up.rules"', elsewhere / "up.rules"),
        "down and up": ('"sub/../../elsewhere/deep.rules"', elsewhere / "deep.rules"),
        "link out": ('"link.rules"', elsewhere / "linked.rules"),
        "not a rulebook": (f'"{elsewhere / "notes.txt"}"', elsewhere / "notes.txt"),
    }


def house(reference: str) -> str:
    return f'rulebook "Casa" extends {reference} {{\n}}\n'


def cli_answers(capsys, path: Path) -> tuple[str, str]:
    """What `check` and `describe --json` say of the house rule (each exits 3)."""
    assert main(["check", str(path)]) == 3
    text = capsys.readouterr()
    assert main(["describe", str(path), "--json"]) == 3
    return text.out + text.err, capsys.readouterr().out


@pytest.mark.parametrize("way", ["absolute", "up", "down and up", "link out", "not a rulebook"])
def test_the_command_line_says_the_same_of_a_missing_and_a_forbidden_file(tmp_path, capsys, way):
    campaign, elsewhere = layout(tmp_path)
    reference, secret = references(campaign, elsewhere)[way]
    path = campaign / "casa.rules"
    path.write_text(house(reference), encoding="utf-8")
    missing = cli_answers(capsys, path)
    secret.write_text(SECRET, encoding="utf-8")
    present = cli_answers(capsys, path)
    assert present == missing
    assert "no .rules file of that path inside" in missing[0]
    assert "Secret" not in missing[0] + missing[1]


@pytest.mark.parametrize("way", ["absolute", "up", "down and up", "link out", "not a rulebook"])
def test_the_server_says_the_same_of_a_missing_and_a_forbidden_file(tmp_path, way):
    campaign, elsewhere = layout(tmp_path)
    reference, secret = references(campaign, elsewhere)[way]
    text = house(reference)
    (campaign / "top.rules").write_text(text, encoding="utf-8")
    shutil.copy(
        Path(__file__).resolve().parent.parent / "rulebooks/characters/brujeria_investigadora.yaml",
        campaign / "ana.yaml",
    )

    def answers(client) -> list:
        run = {"text": text, "action": "asustarse", "character": "ana"}
        replies = [
            client.post("/api/check", json={"text": text}),
            client.post("/api/run", json=run),
            client.post("/api/odds", json=run),
            client.put("/api/rulebooks/casa", json={"text": text}),
            client.get("/api/rulebooks/top"),
        ]
        listed = [b for b in client.get("/api/rulebooks").json()["rulebooks"] if b["name"] == "top"]
        return [(r.status_code, r.json()) for r in replies] + [listed]

    with page_client(create_app(campaign)) as client:
        missing = answers(client)
        secret.write_text(SECRET, encoding="utf-8")
        present = answers(client)
    assert present == missing
    assert [status for status, _ in missing[:5]] == [200, 422, 422, 422, 422]
    assert "no .rules file of that path inside" in json.dumps(missing)
    assert "Secret" not in json.dumps(missing)
    assert not (campaign / "casa.rules").exists()
