"""A run's trace as JSON data, step by step: each step's parts read once, texts in the language.

What `json_data.step_data` writes of each step, written with fewer objects made on the
way (`json_data.steps_data` calls it; tests/test_json_steps.py compares them byte for
byte, with each switch off):

- a step the run recorded flat (`Trace.flat`: the function making its parts and their
  values) is written from those parts (`SWITCH.flat`), not made a `Step` first;
- a text (or detail) not made yet whose function joins parts (`trace.JOINED`: a let's
  `name = value`, a lookup's `Table[key] → row`, a run's heading) is written from its
  parts in the answer's language at once (`SWITCH.joined`): `Message.joined(parts)`
  rendered in a language is its parts each shown in it, one after the other. Its English
  is still measured where the trace is bounded: a text past its room is cut as it reads
  (`Step.text`), so made as it always was. It is not kept: read again, it is made again,
  the same (what it is made of is immutable);
- a step's data (a dict, or a `Later` not made yet) is cut and written in one pass
  (`SWITCH.data_once`: `_data_written`), not gone through three times (whether it fits
  its room, then cut, then made plain). Made here, it is not kept either;
- for a server's worker (`kept`, `SWITCH.kept`), a step of a function of `trace.KEPT_STEPS`
  (a let's, a lookup's, an if's, a note's: what it shows is made of its arguments alone)
  is kept as JSON by those arguments and the language (a text or number by its value,
  a record or span by its identity, held by what is kept), and given again, copied, for
  the same ones: a run's steps that read the same as another's are not written again.
  A step that noted a fraction at its pointer is not kept. At most KEPT_MOST.
"""

from __future__ import annotations

from typing import Any

from dsl.errors import Span
from dsl.messages import SOURCE_LANGUAGE, Message, show_value, translate
from interpreter.shown import glimpse_data
from interpreter.trace import (
    DATA_ROOM,
    JOINED,
    KEPT_STEPS,
    TEXT_ROOM,
    Later,
    Step,
    Trace,
    made_step,
)
from interpreter.values import Record, escape_key, plain


class Switch:
    """The ways above of writing a step with fewer objects (tests switch them off)."""

    flat = True
    joined = True
    data_once = True
    kept = True


SWITCH = Switch()

#: steps kept at most (then all forgotten at once)
KEPT_MOST = 1024
#: key (`_kept_key`) → (the entry recorded, which holds what its key names by identity,
#: and its step as JSON)
_KEPT: dict = {}
_TRUE, _FALSE = object(), object()  # (yes and no in a key: apart from 1 and 0)

_iter = list.__iter__


def steps_written(
    steps, language: str | None, fractions: dict, text, other, kept: bool = False
) -> list:
    """A trace's steps as JSON data: `other(step, i)` writes a step of any other type.
    `kept`: a step of KEPT_STEPS written once is kept and given again (a shallow copy:
    its data the same objects, for a caller that changes none of it: a server's worker)."""
    out: list[dict] = []
    append = out.append
    entries = _iter(steps) if type(steps) is Trace and steps.flat and SWITCH.flat else steps
    joined = SWITCH.joined
    once = SWITCH.data_once
    keeps = kept and SWITCH.kept and joined and once
    for i, entry in enumerate(entries):
        kind = type(entry)
        key = None  # (what this step is kept by, if it is)
        if kind is tuple:  # (recorded flat: its parts made here, not kept)
            key = _kept_key(entry, language) if keeps and entry[0] in KEPT_STEPS else None
            if key is not None and key in _KEPT:  # (a copy: the document's own)
                append(dict(_KEPT[key][1]))
                continue
            noted = len(fractions)
            step = made_step(entry[0](*entry[1:]))
        elif kind is Step:
            step = entry
        else:
            append(other(entry, i))
            continue
        r = step._r
        span = r[8]
        if span is None:
            file, line = r[5], r[2]
        else:
            file = span.source.name if r[5] is None else r[5]
            line = span.line  # (from its rulebook's line starts, found once)
        said: Any = r[1]
        said = _joined(said, r[9], language) if joined and _of_parts(said) else None
        if said is None:  # (as `Step.text` reads it: made, cut past its room)
            said = step.text
            if type(said) is not str:
                said = step_text(said, language)
        detail = r[6]
        if detail is not None:
            of_parts = joined and _of_parts(detail)
            detail = _joined(detail, r[9], language, True) if of_parts else _AS_READ
            if detail is _AS_READ:
                detail = step.detail
                if detail is not None and type(detail) is not str:
                    detail = step_text(detail, language)
        data = r[3]
        made: Any = None
        if once and type(data) is dict:
            made = data
        elif once and type(data) is Later and data.make is not None:
            made = data()  # (not kept: made again if read again)
        if type(made) is dict:
            pointer = f"/trace/{i}/data"
            if not made:
                data = {}  # (a new one: the document's own)
            elif r[9] is None:
                data = plain(made, fractions, pointer, text)
            else:
                data = _data_written(made, r[9], fractions, pointer, text)
            written = _entry(r[0], said, file, line, r[4], detail, r[7], data)
            append(written)
            if key is not None and len(fractions) == noted:  # (none noted at its pointer)
                _keep(key, entry, written)
            continue
        if type(data) is not dict or data:  # (an empty dict: nothing to make nor cut)
            data = step.data
        append(
            {
                "kind": r[0],
                "text": said,
                "file": file,
                "line": line,
                "depth": r[4],
                "detail": detail,
                "verbose": r[7],
                "data": {}
                if type(data) is dict and not data
                else plain(data, fractions, f"/trace/{i}/data", text),
            }
        )
    return out


def _keep(key: tuple, entry: tuple, written: dict) -> None:
    if len(_KEPT) >= KEPT_MOST:
        _KEPT.clear()
    _KEPT[key] = (entry, dict(written))


def _kept_key(entry: tuple, language: str | None) -> tuple | None:
    """What a step recorded flat is kept by: its function, the language and each
    argument: a text or whole number as it is, yes/no apart from 1 and 0, a record or a
    span by its identity (the entry kept holds it), a tuple of texts and whole numbers
    as it is; None for any other argument (not kept)."""
    key: list = [entry[0], language]
    for value in entry[1:]:
        kind = type(value)
        if kind is str or kind is int or value is None:
            key.append(value)
        elif kind is bool:
            key.append(_TRUE if value else _FALSE)
        elif kind is Span or kind is Record:
            key.append((kind, id(value)))
        elif kind is tuple and all(type(v) is str or type(v) is int for v in value):
            key.append(value)
        else:
            return None
    return tuple(key)


def _entry(kind, text, file, line, depth, detail, verbose, data) -> dict:
    return {
        "kind": kind,
        "text": text,
        "file": file,
        "line": line,
        "depth": depth,
        "detail": detail,
        "verbose": verbose,
        "data": data,
    }


def _data_written(data: dict, length: int, fractions: dict, pointer: str, text) -> dict:
    """A bounded step's data as JSON data: `plain` of what `Step.data` gives (each value
    cut to about `length` characters, DATA_ROOM of them in all: `trace._cut_data`, which
    keeps data that fits as it is), in one pass."""
    out = {}
    room = DATA_ROOM * length
    for key, value in data.items():
        kind = type(value)
        if kind is int or kind is bool or value is None:  # (digits: bounded)
            out[key if type(key) is str else str(key)] = value
        elif kind is str and len(value) <= length:
            room -= len(value)
            out[key if type(key) is str else str(key)] = text(value)
        else:
            cut = glimpse_data(value, max(0, min(length, room)))
            room -= length
            out[str(key)] = plain(cut, fractions, f"{pointer}/{escape_key(key)}", text)
    return out


#: (a detail to read as `Step.detail` reads it: its text past its room)
_AS_READ: Any = object()


def _of_parts(part) -> bool:
    """Whether a step's text or detail is a `Later` not made yet, of parts (JOINED), made
    of its arguments alone (the parts' function is given no keywords)."""
    return type(part) is Later and part.make in JOINED and not part.keywords


def _joined(later: Later, length: int | None, language: str | None, detail: bool = False):
    """A text not made yet, of a function that joins parts, in `language`, from its parts
    (no Message made). A text longer than a bounded trace's room, or of no parts: None
    for a text, to read as `Step.text` reads it; for a detail, `_AS_READ` past its room,
    None of no parts (it has none)."""
    parts = JOINED[later.func](*later.args)
    if parts is None:
        return None
    english = language is None or language == SOURCE_LANGUAGE
    texts, longer = [], 0  # (how much longer its English is: a text or number is the same)
    measured = not english and length is not None
    for part in parts:
        kind = type(part)
        if kind is str:
            texts.append(part)
        elif kind is int:
            texts.append(str(part))
        elif kind is Message:  # (its English is itself: `show_value(part)`, not made again)
            shown = part.render(language)
            texts.append(shown)
            if measured:
                longer += len(part) - len(shown)
        else:
            shown = show_value(part, language)
            texts.append(shown)
            if measured:
                longer += len(show_value(part)) - len(shown)
    text = "".join(texts)
    if length is not None and len(text) + longer > TEXT_ROOM * length:
        return _AS_READ if detail else None
    return text


def step_text(text, language: str | None) -> str | None:
    """A step's text or detail in a language (the commonest kinds first)."""
    if type(text) is Message:
        return text.render(language)
    if type(text) is str or text is None:
        return text
    return translate(text, language)
