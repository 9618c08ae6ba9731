"""A served run's answer remembered by what made it, given again for the same run.

A run is a function of its rulebook's engine, the sheet, the request's body and the dice
it drew: the same four make the same answer, byte for byte. Rendering a run's trace
costs a worker several times the run itself, so the answers of plain runs (a named
rulebook and character, a seed: what the page sends most) are kept, bounded, by those
four, and a run that drew the same dice as one kept answers its bytes without rendering
them again (an open d10's few dozen ways, say). The run itself is still made every time:
its dice, its limits and its errors are its own.

What is kept holds the sheet it was made with (compared by identity: a sheet read again
after its file changed is another object, so an answer of the old one is never given
for it) and the engine by a weak reference (a rulebook read again is another engine).
"""

from __future__ import annotations

import json
import weakref

from dsl.bounded import Bounded

#: whether a plain run's answer is remembered (off: every run's trace is rendered again)
REMEMBER = True
#: bytes of answers kept at most (their JSON; with what the table's event reads of them,
#: 256 of Brujería's `asustarse` hold 1.6 MB), answers (an opposed check of two open
#: d10s draws about 300 ways in 1,000 runs), and bytes of one
MOST_BYTES = 4 * 2**20
MOST_ANSWERS = 1024
MOST_ONE = 64 * 2**10
#: the fields a remembered run's body may have (any other, such as typed dice, choices,
#: targets or a save: the answer is made as it always is)
PLAIN_FIELDS = frozenset({"rulebook", "action", "character", "params", "seed", "lang"})


#: what the table's event of a run reads of its answer (tabletop.told.event_of): kept of
#: its document (not its trace and sheet: their many small objects would each be kept,
#: and looked at by every full collection of the garbage)
TOLD_FIELDS = ("params", "dice", "origin", "result", "changes", "choices")


class Rendered:
    """An answer made once: its bytes and what the table's event is made of (`document`),
    with the engine and sheet it was made with."""

    __slots__ = ("body", "document", "engine", "sheet")

    def __init__(self, document: dict, body: bytes, engine, sheet):
        self.document = {key: document[key] for key in TOLD_FIELDS if key in document}
        self.body = body
        self.engine, self.sheet = weakref.ref(engine), sheet


#: key → Rendered (in each worker process its own)
_ANSWERS = Bounded(MOST_BYTES, MOST_ANSWERS)
#: a run's parameters as one text (sorted: the same ones in another order match)
_TEXT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode


def key_of(body: dict, engine, sheet, language: str, outcome) -> tuple | None:
    """What a run's answer is remembered by, or None for a run whose answer is not kept
    (switched off, or a body with a field beyond PLAIN_FIELDS). The run went through, so
    its fields are as the run reads them (`params` an object or none)."""
    if not REMEMBER or not body.keys() <= PLAIN_FIELDS:
        return None
    rulebook, character, lang = body.get("rulebook"), body.get("character"), body.get("lang")
    if type(rulebook) is not str or type(character) is not str:
        return None  # (a rulebook's text or a sheet given as data: not kept by name)
    if lang is not None and type(lang) is not str:
        return None
    params = body.get("params")
    try:  # (the body is JSON the server read: any value of it is written again)
        params = _TEXT(params) if params else None
    except (TypeError, ValueError):
        return None
    named = (id(engine), id(sheet), rulebook, character, body.get("action"), lang, language)
    return (*named, params, outcome.origin, outcome.dice)


def found(key: tuple, engine, sheet) -> Rendered | None:
    """The answer kept under `key`, made with this very engine and sheet, or None."""
    kept = _ANSWERS.get(key)
    if kept is None or kept.sheet is not sheet or kept.engine() is not engine:
        return None
    return kept


def keep(key: tuple, rendered: Rendered) -> None:
    """Keep an answer (a long one, a long trace's, is not: a cheap run's is short)."""
    if len(rendered.body) <= MOST_ONE:
        _ANSWERS.put(key, rendered, len(rendered.body))
