"""What a request that went through tells the table: its event, made where its answer is."""

from __future__ import annotations

import json

#: bytes of an answer kept to tell the table (a larger one is told without its details)
MAX_TOLD = 2_000_000
#: changes an event lists, at most
MAX_CHANGES = 40
#: characters of one event's JSON at most (a huge result is cut, said so in the event)
MAX_EVENT_CHARS = 20_000
#: what an answer's lists are before JSON (the worker's answer is not JSON read back)
SEQUENCES = (list, tuple)


def told_kind(method: str, path: str) -> str | None:
    """Which requests the table is told of: runs (and choices asked), undos, rulebooks
    saved, characters made or edited."""
    if method == "POST" and path == "/api/run":
        return "run"
    if method == "POST" and path == "/api/undo":
        return "undo"
    if method == "PUT" and path.startswith("/api/rulebooks/"):
        return "rulebook"
    if method == "POST" and path == "/api/characters":
        return "character"
    if method == "PATCH" and path.startswith("/api/characters/"):
        return "edited"
    return None


def event_text(data: dict) -> str:
    """An event's data as the store keeps it: JSON, cut to MAX_EVENT_CHARS (said so)."""
    text = _encode(data)
    if len(text) > MAX_EVENT_CHARS:
        data = {k: v for k, v in data.items() if k not in ("result", "dice", "changes")}
        text = _encode({**data, "cut": True})[:MAX_EVENT_CHARS]
    return text


#: `json.dumps(data, ensure_ascii=False)`, its encoder made once
_encode = json.JSONEncoder(ensure_ascii=False).encode


def told_frame(tell: dict, body, out, size: int) -> bytes | None:
    """The event a worker sends beside an answer of `size` bytes (its kind, a newline, its
    data's JSON), or None when the answer tells the table nothing. `tell` is what the
    server asked (`kind`, `path`, `page`), `body` the request's, `out` the answer."""
    if size > MAX_TOLD:
        return None
    body = body if isinstance(body, dict) else {}
    event = event_of(tell.get("kind", ""), body, out, tell.get("path", ""))
    if event is None:
        return None
    kind, data = event
    data["page"] = tell.get("page")
    return kind.encode() + b"\n" + event_text(data).encode("utf-8")


def event_of(kind: str, body: dict, out, path: str) -> tuple[str, dict] | None:
    """The event of a request of `kind` (told_kind) answered `out`, or None."""
    if not isinstance(out, dict):
        return None
    if kind == "undo":
        return "undo", {"entry": body.get("entry"), "characters": _files(out.get("sheets"))}
    if kind == "rulebook":
        return "rulebook", {"rulebook": path.rsplit("/", 1)[-1], "entry": out.get("entry")}
    if kind in ("character", "edited"):  # a character made, or values set by hand
        changes = out.get("changes")
        return kind, {
            "rulebook": body.get("rulebook"),
            "character": out.get("created" if kind == "character" else "edited"),
            "entry": out.get("entry"),
            "changes": list(changes[:MAX_CHANGES]) if isinstance(changes, SEQUENCES) else [],
        }
    if kind != "run":
        return None
    need = out.get("need")
    subject: dict = {
        "rulebook": body.get("rulebook"),
        "character": body.get("character"),
        "action": body.get("action"),
        "targets": body.get("targets") if isinstance(body.get("targets"), dict) else {},
    }
    if isinstance(need, dict):
        if need.get("kind") != "choice":
            return None  # a typed die asked for: the run goes on in that page
        question = {k: need.get(k) for k in ("name", "label", "who", "by")}
        return "choice", {**subject, "question": question}
    saved = out.get("saved") if isinstance(out.get("saved"), dict) else None
    changes = out.get("changes")
    changes = changes if isinstance(changes, SEQUENCES) else []
    data = {
        **subject,
        "params": out.get("params"),
        "dice": out.get("dice"),
        "origin": out.get("origin"),
        "result": out.get("result"),
        "changes": list(changes[:MAX_CHANGES]),
        "choices": [
            {"name": c.get("name"), "value": c.get("value")}
            for c in (out.get("choices") or [])[:MAX_CHANGES]
            if isinstance(c, dict)
        ],
    }
    if saved is not None:
        data["entry"] = saved.get("entry")
        data["others"] = _files(saved.get("others"))
        return "saved", data
    return "run", data


def _files(value) -> list:
    """Names of the characters an answer names by file (never a path of the server)."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, SEQUENCES):
        return []
    names = []
    for item in value:
        if isinstance(item, str):
            names.append(item.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return names
