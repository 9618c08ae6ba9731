"""The table's addresses in the OpenAPI document (interpreter.web.openapi adds them)."""

from __future__ import annotations


def table_paths(post, answer, errors) -> dict:
    """The table's paths, made with the document's own helpers (`_post`, `_answer`,
    `_errors` of interpreter.web.openapi)."""
    after = {
        "name": "after",
        "in": "query",
        "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"},
        "description": "the number of the last event seen (the log: without it, the latest)",
    }
    events = "`{events: [{id, at, kind, audience, who, character, action, dice, result, ...}]}`"
    join = post(
        "join the table with its code: a player's seat (its cookie), a player's rights only; "
        "a client that gave too many wrong codes waits (429, `Retry-After`)",
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["code", "player"],
            "properties": {"code": {"type": "string"}, "player": {"type": "string"}},
        },
        "`{table, player}`, and the seat's cookie",
    )
    join["post"]["responses"].update(errors(429))
    return {
        "/api/table/join": join,
        "/api/table": {
            "get": {
                "summary": "the table: its name, who the request is (gm or player), the "
                "party; the game master also gets the join link and code",
                "responses": {**answer("`{table, role, player, character, party, ...}`")},
            }
        },
        "/api/table/character": post(
            "a player picks their character, once (one another player holds is refused)",
            {
                "type": "object",
                "additionalProperties": False,
                "required": ["rulebook", "character"],
                "properties": {"rulebook": {"type": "string"}, "character": {"type": "string"}},
            },
            "`{rulebook, character}`",
        ),
        "/api/table/log": {
            "get": {
                "summary": "the evening's events the request's role may see (a game "
                "master's secret rolls are only the game master's)",
                "parameters": [after],
                "responses": {**answer(events), **errors(400, 401)},
            }
        },
        "/api/table/events": {
            "get": {
                "summary": "the same events as they happen: server-sent events "
                "(`text/event-stream`, `Last-Event-ID` resumes; each stream ends after "
                "minutes and the browser opens it again)",
                "parameters": [after],
                "responses": {
                    "200": {
                        "description": "one event per message: `id`, `event` (its kind), "
                        "`data` (its JSON)",
                        "content": {"text/event-stream": {"schema": {"type": "string"}}},
                    },
                    **errors(400, 401),
                },
            }
        },
        "/api/table/qr.svg": {
            "get": {
                "summary": "the join link as a QR code (SVG)",
                "responses": {
                    "200": {
                        "description": "the QR code",
                        "content": {"image/svg+xml": {"schema": {"type": "string"}}},
                    },
                    **errors(401),
                },
            }
        },
    }
