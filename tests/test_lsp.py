"""`rulebook lsp` spoken to as an editor speaks to it: a subprocess, JSON-RPC with its
Content-Length framing on stdin and stdout, every request of the features it offers."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: seconds to wait for one answer (the machine is shared: generous; never asserted on)
WAIT = 60

BASE = """\
rulebook "Base" { language "es" }

sheet {
  # the hero's strength
  attribute Fuerza, Destreza in 1..10
}

# how hard a task is
table Dificultad {
  Fácil: 5
  Normal: 0
}

check tirada(atributo: attribute, dificultad: Dificultad = "Normal") "Tirada" {
  roll d10 + atributo + Dificultad[dificultad] >= 10
}
"""

HOUSE = """\
rulebook "Casa" extends "base.rules" { language "es" }

action golpe(fuerza_extra: int = 0) "Golpe" {
  let c = tirada(Fuerza)
  result { total: c.total + fuerza_extra + Fuerzaa }
}
"""


class Client:
    """A language client: requests and their answers, notifications as they come."""

    def __init__(self, folder: Path):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        program = "import sys; from interpreter.cli.main import main; sys.exit(main(['lsp']))"
        self.process = subprocess.Popen(
            [sys.executable, "-c", program],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=folder,
            env=env,
        )
        self.messages: queue.Queue = queue.Queue()
        self.pending: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.decode("ascii").strip()
                if not line:
                    break
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body.decode("utf-8")))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict | None):
        self.next_id += 1
        number = self.next_id
        self.send({"id": number, "method": method, "params": params})
        message = self._wait(lambda m: m.get("id") == number and "method" not in m)
        assert "error" not in message, message
        return message["result"]

    def request_error(self, method: str, params: dict) -> dict:
        self.next_id += 1
        number = self.next_id
        self.send({"id": number, "method": method, "params": params})
        return self._wait(lambda m: m.get("id") == number and "method" not in m)["error"]

    def diagnostics(self, uri: str) -> list[dict]:
        def published(m):
            return m.get("method") == "textDocument/publishDiagnostics" and (
                m["params"]["uri"] == uri
            )

        return self._wait(published)["params"]["diagnostics"]

    def _wait(self, wanted):
        for message in self.pending:
            if wanted(message):
                self.pending.remove(message)
                return message
        while True:
            message = self.messages.get(timeout=WAIT)
            if "method" in message and "id" in message:  # a request of the server's
                self.send({"id": message["id"], "result": None})
            elif wanted(message):
                return message
            else:
                self.pending.append(message)


@pytest.fixture
def client(tmp_path):
    (tmp_path / "base.rules").write_text(BASE, encoding="utf-8")
    (tmp_path / "casa.rules").write_text(HOUSE, encoding="utf-8")
    client = Client(tmp_path)
    answer = client.request(
        "initialize",
        {"processId": os.getpid(), "rootUri": (tmp_path).as_uri(), "capabilities": {}},
    )
    client.capabilities = answer["capabilities"]
    client.notify("initialized", {})
    yield client
    client.request("shutdown", None)
    client.notify("exit", None)
    assert client.process.wait(timeout=WAIT) == 0


def at(text: str, needle: str, after: int = 0) -> dict:
    """The LSP position of `after` characters into the first `needle` of `text`."""
    offset = text.index(needle) + after
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def test_the_language_server_answers_every_feature_over_stdio(client, tmp_path):
    capabilities = client.capabilities
    for feature in (
        "hoverProvider",
        "completionProvider",
        "definitionProvider",
        "referencesProvider",
        "renameProvider",
        "documentSymbolProvider",
        "codeActionProvider",
        "documentFormattingProvider",
    ):
        assert capabilities.get(feature), feature
    house = tmp_path / "casa.rules"
    uri = house.as_uri()
    document = {"uri": uri, "version": 1}
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {**document, "languageId": "rulebook", "text": HOUSE}},
    )
    # Diagnostics as `rulebook check` gives them: the code, the rulebook's language (es),
    # the did-you-mean; at the name's line and column.
    (found,) = client.diagnostics(uri)
    assert found["code"] == "check_error" and found["severity"] == 1
    assert "Fuerzaa" in found["message"] and "desconocido" in found["message"]
    assert found["range"]["start"] == at(HOUSE, "Fuerzaa")
    # The quick fix of the did-you-mean.
    fixes = client.request(
        "textDocument/codeAction",
        {
            "textDocument": document,
            "range": found["range"],
            "context": {"diagnostics": [found]},
        },
    )
    fix = next(f for f in fixes if f["edit"]["changes"][uri][0]["newText"] == "Fuerza")
    assert fix["kind"] == "quickfix"
    # A change that fixes it: no diagnostics.
    fixed = HOUSE.replace("Fuerzaa", "Fuerza")
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]},
    )
    assert client.diagnostics(uri) == []
    position = {"textDocument": {"uri": uri}}
    # Hover: a keyword's reference entry, a name's definition and comment (in the base
    # file, across `extends`), a dice term's exact distribution.
    keyword = client.request("textDocument/hover", {**position, "position": at(fixed, "let")})
    assert "a name for a value" in keyword["contents"]["value"]
    name = client.request("textDocument/hover", {**position, "position": at(fixed, "Fuerza)", 2)})
    text = name["contents"]["value"]
    assert "attribute" in text and "base.rules:5" in text and "the hero's strength" in text
    client.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"text": fixed.replace("+ fuerza_extra", "+ 2d6 + fuerza_extra")}],
        },
    )
    client.diagnostics(uri)
    dice_text = fixed.replace("+ fuerza_extra", "+ 2d6 + fuerza_extra")
    dice = client.request("textDocument/hover", {**position, "position": at(dice_text, "2d6")})
    line = dice["contents"]["value"]
    assert "media 7," in line  # in the rulebook's language
    assert "2..12" in line and "7: 16,67 %" in line and "2: 2,78 %" in line  # (its numbers)
    # Completion: keywords, names in scope, sheet fields, a table's rows, parameters.
    completion = client.request(
        "textDocument/completion", {**position, "position": at(dice_text, "+ fuerza_extra", 2)}
    )
    labels = {item["label"] for item in completion["items"]}
    assert {"fuerza_extra", "Fuerza", "Destreza", "tirada", "let", "require"} <= labels
    typing = dice_text.replace("let c = tirada(Fuerza)", 'let c = tirada(Fuerza, "')
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": typing}]},
    )
    client.diagnostics(uri)
    rows = client.request(
        "textDocument/completion", {**position, "position": at(typing, 'Fuerza, "', 9)}
    )
    assert {"Fácil", "Normal"} <= {item["label"] for item in rows["items"]}
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 5}, "contentChanges": [{"text": dice_text}]},
    )
    client.diagnostics(uri)
    # Go to definition and find references, across `extends`.
    target = client.request(
        "textDocument/definition", {**position, "position": at(dice_text, "tirada(")}
    )
    assert target["uri"] == (tmp_path / "base.rules").as_uri()
    assert target["range"]["start"] == at(BASE, "tirada(")
    uses = client.request(
        "textDocument/references",
        {**position, "position": at(dice_text, "Fuerza)"), "context": {"includeDeclaration": True}},
    )
    assert {(u["uri"].rsplit("/", 1)[-1], u["range"]["start"]["line"]) for u in uses} == {
        ("base.rules", 4),
        ("casa.rules", 3),
        ("casa.rules", 4),
    }
    # Rename: every use of a parameter, in its definition.
    edit = client.request(
        "textDocument/rename",
        {**position, "position": at(dice_text, "fuerza_extra"), "newName": "bonus"},
    )
    changed = edit["changes"][uri]
    assert len(changed) == 2 and {c["newText"] for c in changed} == {"bonus"}
    refused = client.request_error(
        "textDocument/rename", {**position, "position": at(dice_text, "let"), "newName": "x"}
    )
    assert refused["message"]
    # The outline.
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert [(s["name"], s["detail"]) for s in symbols] == [
        ("Casa", "rulebook"),
        ("golpe", "action"),
    ]
    # Formatting: the canonical layout, as `rulebook fmt` writes it.
    untidy = dice_text.replace("let c = tirada(Fuerza)", "let  c=tirada( Fuerza )")
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 6}, "contentChanges": [{"text": untidy}]},
    )
    client.diagnostics(uri)
    (formatting,) = client.request(
        "textDocument/formatting",
        {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}},
    )
    assert formatting["newText"] == dice_text


def test_a_text_that_does_not_parse_gets_its_syntax_error_and_no_crash(client, tmp_path):
    uri = (tmp_path / "roto.rules").as_uri()
    text = "sheet {\n  attribute A in 1..10\n\naction a() {\n  let x = (1 +\n}\n"
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "version": 1, "languageId": "rulebook", "text": text}},
    )
    (found,) = client.diagnostics(uri)
    assert found["code"] == "syntax_error"
    position = {"textDocument": {"uri": uri}, "position": {"line": 4, "character": 2}}
    keyword = client.request("textDocument/hover", position)
    assert "a name for a value" in keyword["contents"]["value"]
    assert client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}) == []
    items = client.request("textDocument/completion", position)["items"]
    assert "let" in {item["label"] for item in items}
    formatting = client.request(
        "textDocument/formatting",
        {"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": True}},
    )
    assert formatting in ([], None)


def test_the_outline_lists_a_sheets_ensure_rules_by_their_condition(client, tmp_path):
    uri = (tmp_path / "reglas.rules").as_uri()
    long = " + ".join(["Fuerza"] * 12)
    text = (
        'rulebook "Reglas" {\n}\n\nsheet {\n  attribute Fuerza, Brio in 1..10\n'
        '  ensure Fuerza +   Brio <= 15 else "15 puntos"\n'
        f'  ensure {long} <= 999 else "largo"\n}}\n'
    )
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "version": 1, "languageId": "rulebook", "text": text}},
    )
    client.diagnostics(uri)
    symbols = client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    (sheet,) = [s for s in symbols if s["name"] == "sheet"]
    rules = [(c["name"], c["detail"]) for c in sheet["children"] if c["detail"] == "ensure"]
    assert (
        rules
        == [
            ("ensure Fuerza + Brio <= 15", "ensure"),  # (its spaces as one)
            ("ensure " + long[:47] + "…", "ensure"),  # (cut short)
        ]
    )
    first = next(c for c in sheet["children"] if c["name"].startswith("ensure Fuerza"))
    assert first["selectionRange"]["start"] == {"line": 5, "character": 2}
