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
  the same (what it is made of is immutable).
"""

from __future__ import annotations

from typing import Any

from dsl.messages import SOURCE_LANGUAGE, Message, show_value, translate
from interpreter.trace import JOINED, TEXT_ROOM, Later, Step, Trace, made_step
from interpreter.values import plain


class Switch:
    """The ways above of writing a step with fewer objects (tests switch them off)."""

    flat = True
    joined = True


SWITCH = Switch()

_iter = list.__iter__


def steps_written(steps, language: str | None, fractions: dict, text, other) -> list:
    """A trace's steps as JSON data: `other(step, i)` writes a step of any other type."""
    out: list[dict] = []
    append = out.append
    entries = _iter(steps) if type(steps) is Trace and steps.flat and SWITCH.flat else steps
    joined = SWITCH.joined
    for i, entry in enumerate(entries):
        kind = type(entry)
        if kind is tuple:  # (recorded flat: its parts made here, not kept)
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
    for part in parts:
        kind = type(part)
        if kind is str:
            texts.append(part)
        elif kind is int:
            texts.append(str(part))
        else:
            shown = show_value(part, language)
            texts.append(shown)
            if not english and length is not None:
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
