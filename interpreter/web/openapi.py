"""The API described for other programs: the OpenAPI 3.1 document served at /openapi.json."""

from __future__ import annotations

from interpreter.json_data import schemas
from interpreter.limits import WEB_SWEEP_CASES
from interpreter.version import VERSION
from interpreter.web.api import MAX_BUDGET, MAX_TEXT, MAX_TRIALS
from interpreter.web.tabletop.described import table_paths

_NAME = {"type": "string", "pattern": r"^[^\W_][\w-]{0,99}$"}
_PARAMS = {
    "type": "object",
    "description": "the action's parameters by name: texts are read as the type says "
    "(as `--set NAME=VALUE`), numbers, yes/no and lists are taken as they are",
    "additionalProperties": True,
}
_RULEBOOK = {
    "rulebook": {**_NAME, "description": "a rulebook's name (GET /api/rulebooks)"},
    "text": {
        "type": "string",
        "maxLength": MAX_TEXT,
        "description": "or a rulebook's whole text (an edit not yet saved); its `extends` "
        "names a shipped rulebook or one in the server's folder",
    },
}
_LANG = {
    "type": "string",
    "description": "the language of the answer's texts (en, es; by default the rulebook's)",
}
_CHOICES = {
    "type": "object",
    "description": "the action's choices (`choose`) answered in advance, by name (as "
    "`--choose NAME=VALUE`)",
    "additionalProperties": True,
}
_SUBJECT = {
    **_RULEBOOK,
    "action": {"type": "string", "description": "an action (or check, opposed check, named roll)"},
    "character": {**_NAME, "description": "a character's name (GET /api/characters)"},
    "sheet": {"type": "object", "description": "or the sheet itself, as a sheet file holds it"},
    "params": _PARAMS,
    "targets": {
        "type": "object",
        "description": "the other characters of the run (as `--target NAME=FILE`), by the "
        "action's `character` parameter they are: a character's name, or a sheet (an object; "
        "not when saving)",
        "additionalProperties": {"oneOf": [_NAME, {"type": "object"}]},
    },
    "choices": _CHOICES,
    "lang": _LANG,
}
_CREATE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["rulebook", "name", "sheet"],
    "properties": {
        "rulebook": {**_NAME, "description": "the rulebook the character is for"},
        "name": {**_NAME, "description": "the new character's name (its file: NAME.yaml)"},
        "sheet": {"type": "object", "description": "its values, as a sheet file holds them"},
        "lang": _LANG,
    },
}
_EDIT = {
    "type": "object",
    "additionalProperties": False,
    "required": ["rulebook", "values"],
    "properties": {
        "rulebook": {**_NAME, "description": "the rulebook that reads the character"},
        "values": {
            "type": "object",
            "description": "the values to set, by path: `Fuerza`, `dinamis.Virtus`, "
            "`skills.Ocultismo`",
        },
        "shown": {
            "type": "object",
            "description": "the values the page showed, by path: one that is not so any "
            "more refuses the edit (409)",
        },
        "lang": _LANG,
    },
}
_RUN = {
    "type": "object",
    "additionalProperties": False,
    "required": ["action"],
    "properties": {
        **_SUBJECT,
        "seed": {"type": "integer", "description": "reproducible random dice"},
        "dice": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "the faces in draw order (as `--dice`); with `ask`, the faces "
            "typed in so far",
        },
        "ask": {
            "type": "boolean",
            "description": "dice typed in one by one (as `--ask`): while a die is missing "
            'the answer is `{"need": {...}}`, naming the die; send again with one more face',
        },
        "answers": {
            "type": "array",
            "description": "the choices asked during the run answered so far, in order: "
            "while a choice not answered (nor in `choices`) has several options open, the "
            'answer is `{"need": {"kind": "choice", ...}, "trace": [...]}`, the trace so far; '
            "send again with one more answer",
        },
        "save": {
            "type": "boolean",
            "description": "run and save as one step, journaled in the folder's "
            "journal.sqlite: the changed sheet written back to the character's file in the "
            "server's folder (a shipped character: a copy there)",
        },
        "expect": {
            "type": "object",
            "description": "with `save`: the run's `result` and `changes` as shown; if the "
            "run now comes out otherwise (the sheet changed since), 409 and nothing written",
        },
    },
}
_ODDS = {
    "type": "object",
    "additionalProperties": False,
    "description": "`{expression}` for a dice expression, or an action's subject",
    "properties": {
        "expression": {"type": "string", "maxLength": 1000, "examples": ["3d6", "4d6kh3"]},
        **_SUBJECT,
        "field": {"type": "string", "description": "the result field (or sheet path) to study"},
        "compare": {
            "type": "object",
            "additionalProperties": False,
            "description": "a second series: another rulebook (a house rule, an edited text) "
            "for the same sheet, and/or other parameters",
            "properties": {**_RULEBOOK, "params": _PARAMS},
        },
        "budget": {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET},
        "trials": {"type": "integer", "minimum": 1, "maximum": MAX_TRIALS},
        "seed": {"type": "integer", "description": "the seed of sampling, when it samples"},
        "best": {
            "type": "string",
            "description": "the choices not answered in `choices` taken as the best for a "
            'goal (as `--best`): `"success"`, `"degree=critical"`, `"mean damage"`',
        },
        "progress": {
            "type": "boolean",
            "description": 'stream lines of JSON: `{"progress": {phase, done, total}}`, '
            'then `{"result": ...}` or `{"error": ...}`',
        },
    },
}
_VALUES = {
    "description": "one value, a list of values, a range `LOW..HIGH` or `all` (its choices)",
}
_SWEEP = {
    "type": "object",
    "additionalProperties": False,
    "description": "the grid of `rulebook sweep`: at most "
    f"{WEB_SWEEP_CASES} cases (characters x params x vary x rulebooks)",
    "properties": {
        **_RULEBOOK,
        "action": _SUBJECT["action"],
        "character": _SUBJECT["character"],
        "characters": {"type": "array", "items": _NAME, "description": "or several"},
        "sheet": _SUBJECT["sheet"],
        "params": {"type": "object", "additionalProperties": _VALUES},
        "vary": {
            "type": "object",
            "description": "sheet values by field (as `--vary`)",
            "additionalProperties": _VALUES,
        },
        "compare": {"type": "array", "items": _NAME, "description": "rulebooks side by side"},
        "field": {"type": "string", "description": "the result field (or sheet path) to study"},
        "outcomes": {"type": "array", "items": {"type": "string"}},
        "picture": {
            "type": "object",
            "additionalProperties": False,
            "description": "draw it: the answer's `svg`",
            "properties": {
                "x": {"type": "string"},
                "y": {"type": "string"},
                "plot": {"type": "string"},
            },
        },
        "budget": {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET},
        "trials": {"type": "integer", "minimum": 1, "maximum": MAX_TRIALS},
        "lang": _LANG,
    },
}
_COMBATANT = {
    "type": "object",
    "description": "as in an encounter file (docs/encounters.md): sheet, action, params, "
    "target, damage, name, health, falls_at, initiative",
    "properties": {
        "sheet": {
            "description": "a character's name (GET /api/characters) or a sheet's data",
            "oneOf": [_NAME, {"type": "object"}],
        },
        "action": {"type": "string"},
        "initiative": {
            "description": "a fixed number, or a dice expression rolled at the start",
            "oneOf": [{"type": "integer"}, {"type": "string"}],
        },
    },
    "required": ["sheet", "action"],
}
_ENCOUNTER = {
    "type": "object",
    "additionalProperties": False,
    "description": "an encounter file's data (`rulebook encounter`), and how to answer",
    "required": ["sides", "health"],
    "properties": {
        **_RULEBOOK,
        "rounds": {"type": "integer", "minimum": 1, "description": "at most this many rounds"},
        "health": {"type": "string", "description": "the field a combatant falls by"},
        "falls_at": {"type": "integer"},
        "sides": {
            "type": "object",
            "description": "exactly two sides, each a list of combatants",
            "additionalProperties": {"type": "array", "items": _COMBATANT},
        },
        "method": {"enum": ["auto", "exact", "sampled"]},
        "trials": {"type": "integer", "minimum": 1, "description": "a sample's trials"},
        "seed": {"type": "integer"},
        "lang": {"type": "string"},
    },
}
_CHECK = {
    "type": "object",
    "additionalProperties": False,
    "required": ["text"],
    "properties": {
        "text": {"type": "string", "maxLength": MAX_TEXT},
        "name": {"type": "string", "description": "the name diagnostics give the text"},
    },
}
_EDITOR = {
    "type": "object",
    "additionalProperties": False,
    "required": ["text", "what"],
    "properties": {
        "text": {"type": "string", "maxLength": 500_000},
        "name": {"type": "string", "description": "the rulebook's name in the folder"},
        "position": {
            "type": "integer",
            "minimum": 0,
            "description": "where, in UTF-16 code units from the start (as a browser counts)",
        },
        "what": {"enum": ["complete", "hover", "outline"]},
    },
}
# The answers are the documents of interpreter/schemas/ (the `--json` output's schemas),
# included whole under components/schemas and referred to by their `$id`.
_ERROR = {"$ref": "urn:rulebook:schema:error"}
_OPTION = {
    "type": "object",
    "required": ["value", "text"],
    "description": "an option: its value, and as the rulebook's language shows it",
    "properties": {"value": True, "text": {"type": "string"}},
}
_NEED = {
    "type": "object",
    "required": ["need", "trace"],
    "description": "what a run with typed-in dice or answers needs next: a die, or a "
    "choice (its open options, those closed now, who decides), with the trace so far",
    "properties": {
        "need": {
            "type": "object",
            "required": ["kind", "position", "file", "line"],
            "properties": {
                "kind": {"enum": ["die", "choice"]},
                "position": {"type": "integer"},
                "die": {"type": "string"},
                "low": {"type": "integer"},
                "high": {"type": "integer"},
                "faces": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "a die of symbols: its faces' symbols, face 1 first",
                },
                "roll": {"type": ["string", "null"]},
                "name": {"type": "string"},
                "label": {"type": ["string", "null"]},
                "options": {"type": "array", "items": _OPTION},
                "closed": {"type": "array", "items": _OPTION},
                "by": {"type": ["string", "null"]},
                "who": {"type": ["string", "null"]},
                "file": {"type": ["string", "null"]},
                "line": {"type": ["integer", "null"]},
            },
        },
        "language": {"type": "string"},
        "trace": {"type": "array", "items": {"$ref": "urn:rulebook:schema:common#/$defs/step"}},
        "fractions": {"type": "object"},
    },
}


def _errors(*codes: int) -> dict:
    words = {
        400: "a bad request or parameter, or a Host this server does not answer to",
        401: "no token, or not the server's (a server bound beyond loopback asks for one)",
        403: "a cross-site request, or one without the CSRF token (`X-CSRF-Token`)",
        404: "no rulebook or character of that name",
        409: (
            "a save or undo refused by the files' state (changed since, busy, a later run, "
            "a symbolic link or not a regular file where the file is)"
        ),
        412: "a rulebook saved over that changed since the version named (If-Match)",
        413: "a body or text too large",
        415: "a body that is not JSON",
        422: "a rulebook, sheet or expression that is not valid, or an evaluation that "
        "could not finish (a limit, a failed `require`, a short resource, the time limit)",
        428: "a rulebook saved over without naming the version it replaces (If-Match)",
        429: "too many wrong join codes from this client: try again after `Retry-After` s",
    }
    return {str(code): {"description": words[code], "content": _json(_ERROR)} for code in codes}


def _json(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


def _answer(description: str, schema: dict | None = None) -> dict:
    return {"200": {"description": description, "content": _json(schema or {"type": "object"})}}


def _document(kind: str) -> dict:
    return {"$ref": f"urn:rulebook:schema:{kind}"}


def _post(summary: str, schema: dict, answer: str, answers: dict | None = None) -> dict:
    return {
        "post": {
            "summary": summary,
            "requestBody": {"required": True, "content": _json(schema)},
            "responses": {
                **_answer(answer, answers),
                **_errors(400, 401, 403, 404, 409, 413, 415, 422),
            },
        }
    }


def _name_parameter(what: str) -> dict:
    return {"name": "name", "in": "path", "required": True, "schema": _NAME, "description": what}


def document() -> dict:
    """The OpenAPI document: every route of /api, its body and its answers."""
    rulebook_query = {
        "name": "rulebook",
        "in": "query",
        "schema": _NAME,
        "description": "the rulebook that reads the character",
    }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "rulebook",
            "version": VERSION,
            "description": "Tabletop rules run, counted and checked: the same JSON as the "
            "command line's `--json`. Requests that post anything must be JSON and carry the "
            "CSRF token (`X-CSRF-Token`, from GET /api/session). A server bound beyond "
            "loopback asks every request for its token: `Authorization: Bearer TOKEN`.",
        },
        "security": [{}, {"token": []}],
        "paths": {
            "/api/session": {
                "get": {
                    "summary": "the CSRF token every request that posts must carry, and "
                    "whether the server asks for its token",
                    "responses": {
                        **_answer("`{csrf_token, token_required}`"),
                        **_errors(401),
                    },
                }
            },
            "/api/rulebooks": {
                "get": {
                    "summary": "the rulebooks offered: shipped and the server's folder",
                    "responses": _answer('`{"rulebooks": [{name, title, source, extends, ...}]}`'),
                }
            },
            "/api/rulebooks/{name}": {
                "get": {
                    "summary": "what a rulebook offers (`rulebook describe --json`)",
                    "parameters": [_name_parameter("the rulebook")],
                    "responses": {
                        **_answer("the description", _document("describe")),
                        **_errors(404, 422),
                    },
                },
                "put": {
                    "summary": "save a rulebook's text in the server's folder (if it checks), "
                    "journaled: undone with POST /api/undo",
                    "parameters": [
                        _name_parameter("the rulebook"),
                        {
                            "name": "If-Match",
                            "in": "header",
                            "schema": {"type": "string"},
                            "description": "the version replaced: the ETag of GET "
                            "/api/rulebooks/{name}/source; needed over a file that exists "
                            "(428 without it, 412 if the file changed since)",
                        },
                    ],
                    "requestBody": {
                        "required": True,
                        "content": _json(
                            {
                                "type": "object",
                                "additionalProperties": False,
                                "required": ["text"],
                                "properties": {"text": {"type": "string", "maxLength": MAX_TEXT}},
                            }
                        ),
                    },
                    "responses": {
                        **_answer(
                            "`{saved, file, entry, version}`: the journal's entry, "
                            "the new version (also the answer's ETag)"
                        ),
                        **_errors(400, 401, 403, 409, 412, 413, 422, 428),
                    },
                },
            },
            "/api/rulebooks/{name}/source": {
                "get": {
                    "summary": "a rulebook's text",
                    "parameters": [_name_parameter("the rulebook")],
                    "responses": {
                        **_answer(
                            "`{name, source, path, text, version}`: `version` is also "
                            "the answer's ETag, what a save over it names (If-Match)"
                        ),
                        **_errors(404),
                    },
                }
            },
            "/api/characters": {
                "get": {
                    "summary": "the characters offered (for one rulebook, with ?rulebook=)",
                    "parameters": [{**rulebook_query, "required": False}],
                    "responses": _answer('`{"characters": [{name, rulebook, source}]}`'),
                },
                **_post(
                    "make a character in the server's folder (NAME.yaml) from values of the "
                    "rulebook's sheet (describe's `sheet.fields[].schema`), read as a sheet "
                    "file is: the first value wrong is the error's `field`; journaled "
                    "(kind `sheet`), undone with POST /api/undo; a name taken: 409",
                    _CREATE,
                    "`{created, file, entry, sheet, resources}`",
                ),
            },
            "/api/characters/{name}": {
                "get": {
                    "summary": "a character's sheet, with each resource's bounds",
                    "parameters": [
                        _name_parameter("the character"),
                        {**rulebook_query, "required": True},
                    ],
                    "responses": {
                        **_answer("`{name, source, saves_to, sheet, resources}`"),
                        **_errors(400, 404, 422),
                    },
                },
                "patch": {
                    "summary": "set values of a character by hand (healing, advancement), read "
                    "as a sheet file is; a resource not set kept within its new maximum; "
                    "journaled (kind `sheet`), undone with POST /api/undo; a shipped "
                    "character's copy made in the folder. At a shared table a player sets "
                    "only their own character's",
                    "parameters": [_name_parameter("the character")],
                    "requestBody": {"required": True, "content": _json(_EDIT)},
                    "responses": {
                        **_answer("`{edited, file, entry, changes, sheet, resources}`"),
                        **_errors(400, 401, 403, 404, 409, 413, 415, 422),
                    },
                },
            },
            "/api/characters/{name}/history": {
                "get": {
                    "summary": "a character's saved runs, newest first (`rulebook log --json`)",
                    "parameters": [_name_parameter("the character")],
                    "responses": {**_answer('`{"entries": [...]}`'), **_errors(404)},
                }
            },
            "/api/undo": _post(
                "undo a saved run (`rulebook undo N`): its sheets as they were before it; or "
                "a rulebook's save: its text before",
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["entry"],
                    "properties": {"entry": {"type": "integer"}},
                },
                "the undo's own journal entry",
            ),
            "/api/sheet": _post(
                "a sheet given as data, read by a rulebook: completed, with its resources' bounds",
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["sheet"],
                    "properties": {**_RULEBOOK, "sheet": {"type": "object"}},
                },
                "`{sheet, resources: [{path, value, min, max}]}`",
            ),
            "/api/run": _post(
                "run an action (`rulebook run --json`)",
                _RUN,
                "the run: action, params, result, changes, characters, choices, sheet, "
                'trace, dice, origin; or `{"need": {kind: "die" | "choice", ...}, trace}`',
                {"oneOf": [_document("run"), _NEED]},
            ),
            "/api/odds": _post(
                "exact odds (`rulebook odds --json`)",
                _ODDS,
                "the distribution; `{a, b, names}` when compared",
                {"oneOf": [_document("odds"), _document("odds_comparison")]},
            ),
            "/api/sweep": _post(
                "exact odds over a grid (`rulebook sweep`)",
                _SWEEP,
                '`{columns, rows: [{input: value, ..., P(field=outcome): "n/d", ...}], svg}`',
            ),
            "/api/encounter": _post(
                "a whole encounter's odds (`rulebook encounter --json`)",
                _ENCOUNTER,
                "who wins, in how many rounds, with what left: exact, or sampled",
                _document("encounter"),
            ),
            "/api/check": _post(
                "check a rulebook's text: every diagnostic",
                _CHECK,
                "`{ok, title, diagnostics: [{severity, message, hint, line, column, ...}]}`",
            ),
            "/api/editor": _post(
                "what the page's editor offers at a place (the language server's answers)",
                _EDITOR,
                "`{from, to, items: [{label, kind, detail, insert}]}`, `{hover: {from, to, "
                "markdown}}` or `{outline: [{name, kind, from, line, children}]}`",
            ),
            "/api/language": {
                "get": {
                    "summary": "the language's keywords (for highlighting)",
                    "responses": _answer("`{keywords, comment}`"),
                }
            },
            "/api/words": {
                "get": {
                    "summary": "the page's words in a language: `lang`, else `serve --lang`, "
                    "else the rulebook's",
                    "parameters": [
                        {**rulebook_query, "description": "the rulebook whose language"},
                        {"name": "lang", "in": "query", "schema": _LANG},
                    ],
                    "responses": _answer(
                        "`{language, words: {English: translated}, numbers: {decimal, percent}, "
                        "languages}`"
                    ),
                }
            },
            **table_paths(_post, _answer, _errors),
        },
        "components": {
            "schemas": {s["$id"].rsplit(":", 1)[1]: s for s in schemas().values()},
            "securitySchemes": {
                "token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "the token `rulebook serve` printed (or was given)",
                }
            },
        },
    }
