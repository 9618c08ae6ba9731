"""No path of the server's machine in any answer: files are named as the client knows them.

The folder's files by their path relative to it (`casa.rules`, `ana.yaml`), a shipped
rulebook or character by its name (`brujeria`, `menecma`), anything else of the
package by its path inside it, and the home folder as `~`. Every JSON answer (and each
line of a streamed one) goes through `PublicPaths` on its way out, whichever route made
it and whatever wrote a path into it: a trace step's `file`, an error's location, a
save's file, a journal's message, the text of an error from the file system.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import cast

import anyio.to_thread

import dsl
import grammar
import interpreter
import rulebooks
from interpreter.sheets.character import shipped_characters_folder

#: answers whose bodies are rewritten (a streamed one line by line)
JSON_TYPES = (b"application/json", b"application/x-ndjson")
#: bytes of an answer past which it is rewritten in a thread, not on the event loop
LARGE = 256_000
#: a byte that may go on a file's name: a path written bare ends before any other
_NAME_BYTE = rb"[\w.\-\x80-\xff]"
#: whether an answer that lacks the byte every path of the server begins with (`/`) is
#: given back at once (off: each path looked for in it, one pass over it each)
FIRST_BYTE = True


class Names:
    """The server's absolute paths, and what an answer says instead."""

    def __init__(self, folder: Path):
        table: dict[str, str] = {}
        for name, path in dsl.shipped_rulebooks().items():
            _add(table, path, name)
        characters = shipped_characters_folder()
        for path in characters.iterdir():
            if path.suffix in (".yaml", ".yml", ".json"):
                _add(table, path, path.stem)
        # (packages read from folders: each has its file)
        roots = {
            Path(cast(str, m.__file__)).parent.parent
            for m in (dsl, interpreter, rulebooks, grammar)
        }
        places = [(folder, ""), *((root, "") for root in roots), (Path.home(), "~/")]
        anchors: set[bytes] = set()  # every path replaced begins with one of these
        for place, instead in places:
            for form in _forms(place):
                if form in ("/", ""):  # a folder at the root is no prefix to take away
                    continue
                table.setdefault(form.rstrip("/") + "/", instead)
                table.setdefault(form.rstrip("/"), instead.rstrip("/") or ".")
                anchors |= {_escaped(form.rstrip("/"), ascii_only) for ascii_only in (False, True)}
        self.table = table
        #: a whole path → what an answer says instead, for a text that is one of them
        #: exactly (`rewrite` would write the same; a path that JSON escapes is left to it)
        self.exact = {
            old: new
            for old, new in table.items()
            if json.dumps(old, ensure_ascii=False)[1:-1] == old
        }
        self.anchors = sorted(anchors)
        # the byte every path replaced begins with, when they share one (`/`): an answer
        # without it holds none of them (one pass over it, not one for each)
        firsts = {anchor[:1] for anchor in self.anchors}
        self.first = firsts.pop() if len(firsts) == 1 else None
        replacements: dict[bytes, bytes] = {}
        for old, new in table.items():
            for ascii_only in (False, True):
                replacements.setdefault(_escaped(old, ascii_only), _escaped(new, ascii_only))
        self.replacements = replacements
        alternatives = []
        for escaped in sorted(replacements, key=len, reverse=True):
            bare = b"" if escaped.endswith(b"/") else b"(?!" + _NAME_BYTE + b")"
            alternatives.append(re.escape(escaped) + bare)
        self.pattern = re.compile(b"|".join(alternatives))

    def rewrite(self, body: bytes) -> bytes:
        """A JSON text with every absolute path of the server written as a client sees it."""
        if FIRST_BYTE and self.first is not None and self.first not in body:
            return body
        if not any(anchor in body for anchor in self.anchors):  # the most common: none
            return body
        return self.pattern.sub(lambda found: self.replacements[found.group(0)], body)


def _add(table: dict, path: Path, name: str) -> None:
    for form in _forms(path):
        table.setdefault(form, name)


def _forms(path: Path) -> set[str]:
    """A path as given and as resolved (a link in it followed): both may be written."""
    forms = {str(path.absolute())}
    with contextlib.suppress(OSError, RuntimeError):
        forms.add(str(path.resolve()))
    return forms


def _escaped(text: str, ascii_only: bool) -> bytes:
    """`text` as it is inside a JSON string (with or without `\\u` escapes)."""
    return json.dumps(text, ensure_ascii=ascii_only)[1:-1].encode("utf-8")


class PublicPaths:
    """ASGI middleware: each JSON answer rewritten by `Names` (its length set anew); a
    streamed one (lines of JSON) rewritten line by line, as each line is sent."""

    def __init__(self, app, folder: Path):
        self.app = app
        self.names = Names(folder)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") == "HEAD":
            return await self.app(scope, receive, send)
        start: dict = {}  # (the JSON answer's start, held until its body is whole)
        kind: bytes | None = None
        held: list[bytes] = []

        async def rewritten(message):
            nonlocal start, kind
            if message["type"] == "http.response.start":
                kind = _content_type(message.get("headers", []))
                if kind == b"application/json":
                    start = message  # sent once the body is whole: its length changes
                    return None
                return await send(message)
            if message["type"] != "http.response.body" or kind not in JSON_TYPES:
                return await send(message)
            held.append(message.get("body", b""))
            more = message.get("more_body", False)
            body = b"".join(held)
            held.clear()
            if kind == b"application/json":
                if more:
                    held.append(body)
                    return None
                body = await self.rewrite(body)
                headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
                headers.append((b"content-length", str(len(body)).encode()))
                await send({**start, "headers": headers})
                return await send({"type": "http.response.body", "body": body})
            if more:  # a line not yet whole waits for the rest of it
                cut = body.rfind(b"\n") + 1
                held.append(body[cut:])
                body = body[:cut]
            return await send({**message, "body": await self.rewrite(body)})

        await self.app(scope, receive, rewritten)

    async def rewrite(self, body: bytes) -> bytes:
        # a large answer (a long trace) is rewritten off the event loop: 8 MB take 0.2 s
        if len(body) < LARGE:
            return self.names.rewrite(body)
        return await anyio.to_thread.run_sync(self.names.rewrite, body)


def _content_type(headers) -> bytes | None:
    for key, value in headers:
        if key.lower() == b"content-type":
            return value.split(b";")[0].strip().lower()
    return None
