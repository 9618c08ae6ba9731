"""The trace: what happened, step by step, in the rulebook's own names; and its renderings.

A trace is data (a list of `Step`); turning it into text or JSON is done here, apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, SupportsIndex, final

import attrs

from dsl.errors import Span
from dsl.messages import Message, show_value, tr, tr_n, translate
from interpreter.dice import DROPPED, KEPT, REROLLED, PoolRoll
from interpreter.shown import glimpse, glimpse_data, more_characters, more_items
from interpreter.values import to_json

#: how a roll's dice are marked when nobody should take them for a random roll
ORIGIN_MARKS = {"forced": tr("forced"), "typed": tr("typed in")}


@final
class Later:
    """A step's text, detail or data made only when it is read (the trace is shown):
    `make(*args)`, once. What it is made of is immutable (values, texts, rolls), read
    from the run as it was; it equals what it makes."""

    __slots__ = ("args", "length", "made", "make", "room")

    def __init__(self, make: Callable[..., Any], *args: Any):
        self.make: Callable[..., Any] | None = make
        self.args: tuple[Any, ...] | None = args
        self.made: Any = None
        #: a trace's bounds, cut to when made (Trace.bounded)
        self.room: int | None = None
        self.length: int | None = None

    def value(self) -> Any:
        if self.make is not None:
            made = self.make(*(self.args or ()))
            if self.room is not None:
                made = _cut_text(made, self.room)
            if self.length is not None:
                made = _cut_data(made, self.length)
            self.made = made
            self.make = self.args = None
        return self.made

    def __eq__(self, other) -> bool:
        if isinstance(other, Later):
            other = other.value()
        return self.value() == other

    def __hash__(self) -> int:
        return hash(self.value())

    def __repr__(self) -> str:
        return repr(self.value())


def made(part):
    """A step's part as it is read: a `Later` made now, anything else as it is."""
    return part.value() if type(part) is Later else part


@attrs.frozen
class Step:
    """One thing that happened: a roll, a check, a lookup, a cost, a change, a note.

    `kind` names it; `text` is what it says, in the rulebook's words (a `Message`:
    `translate(step.text, language)` gives it in a language); `line` is the rulebook line
    it came from; `data` carries the numbers for JSON consumers. `detail` is the step as
    the rules compute it (the expression behind a value), shown with `--verbose`;
    a `verbose` step (a condition tested, a maximum computed again) only then.
    A run records its steps' text, detail and data as `Later`s: made when first read.
    """

    kind: str
    _text: str | Later = attrs.field(alias="text")
    line: int | None = None
    _data: dict | Later = attrs.field(factory=dict, alias="data")
    depth: int = 0
    file: str | None = None  # the rulebook file of the line (a house rule has two)
    _detail: str | Later | None = attrs.field(default=None, alias="detail")
    verbose: bool = False

    @property
    def text(self) -> str:
        """What the step says, in the rulebook's words (made when first read)."""
        text = self._text
        return text.value() if type(text) is Later else text

    @property
    def data(self) -> dict:
        """The numbers for JSON consumers (made when first read)."""
        data = self._data
        return data.value() if type(data) is Later else data

    @property
    def detail(self) -> str | None:
        """The step as the rules compute it (`--verbose`), or None (made when first read)."""
        detail = self._detail
        return detail.value() if type(detail) is Later else detail

    @classmethod
    def at(
        cls,
        kind: str,
        text: str | Later,
        span: Span | None,
        data: dict | Later,
        depth: int,
        detail: str | Later | None = None,
        verbose: bool = False,
    ) -> Step:
        """A step at a span of the rulebook (its line and file)."""
        if span is None:
            return cls(kind, text, None, data, depth, None, detail, verbose)
        return cls(kind, text, span.line, data, depth, span.source.name, detail, verbose)

    def deeper(self, by: int = 1) -> Step:
        """The same step, `by` levels deeper (under a heading inserted above it)."""
        return attrs.evolve(self, depth=self.depth + by)

    def to_json(self, language: str | None = None) -> dict:
        """The step as JSON data (as in a run's JSON document: schema run, `trace`)."""
        return {
            "kind": self.kind,
            "text": translate(self.text, language),
            "file": self.file,
            "line": self.line,
            "depth": self.depth,
            "detail": translate(self.detail, language) if self.detail is not None else None,
            "verbose": self.verbose,
            "data": to_json(self.data),
        }


class Trace(list):
    """The steps of a run, in order, and the language they are shown in by default (the
    rulebook's).

    Given `limits`, it is bounded: it keeps the first `trace_steps` steps and counts the
    others (`omitted`; `close` adds a last step saying how many); each step's values are
    cut to about `shown_length` characters (the data of its JSON; its text is made of
    values cut so where it is written, `interpreter.shown.glimpse`, and a text longer
    than TEXT_ROOM of them is cut too)."""

    def __init__(self, steps=(), language: str | None = None, limits=None):
        super().__init__(steps)
        self.language = language
        self.most = limits.trace_steps if limits is not None else None
        self.length = limits.shown_length if limits is not None else None
        self.omitted = 0

    def wants(self) -> bool:
        """Whether a step added now would be kept: else it is counted out at once, and
        whoever asked need not make it (a full trace costs a run nothing more)."""
        if self.most is None or len(self) < self.most:
            return True
        self.omitted += 1
        return False

    def wants_at(self, index: int) -> bool:
        """`wants`, for a step inserted at `index` (a heading over the steps from there)."""
        if self.most is None or index < self.most:
            return True
        self.omitted += 1
        return False

    def append(self, step: Step) -> None:
        if self.most is None:
            super().append(step)
        elif len(self) < self.most:
            super().append(self.bounded(step))
        else:
            self.omitted += 1

    def insert(self, index: SupportsIndex, step: Step) -> None:
        if self.most is None:
            super().insert(index, step)
        elif index >= self.most:
            self.omitted += 1
        else:  # a heading over steps kept: the last step kept goes
            super().insert(index, self.bounded(step))
            self.trim()

    def __setitem__(self, index, steps) -> None:
        super().__setitem__(index, steps)
        if self.most is not None:
            self.trim()

    def trim(self) -> None:
        """Past `trace_steps` (headings put over steps kept): the last ones counted out."""
        most = self.most
        while most is not None and len(self) > most:
            self.pop()
            self.omitted += 1

    def bounded(self, step: Step) -> Step:
        """The step with its data cut to `shown_length` characters a value (at most
        DATA_ROOM of them in all), and its text and detail to TEXT_ROOM; cut when read,
        for a part made when read (`Later`)."""
        length = self.length
        if length is None:  # (an unbounded trace keeps its steps whole)
            return step
        changed = False
        data = step._data
        if type(data) is Later:  # (made for this step: cut as it is made)
            data.length = length
        else:
            for value in data.values():
                kind = type(value)
                if kind is int or kind is bool or value is None:
                    continue
                if kind is not str or len(value) > length:
                    data, changed = Later(_cut_data, data, length), True
                    break
        room = TEXT_ROOM * length
        text = step._text
        if type(text) is Later:
            text.room = room
        elif len(text) > room:
            text, changed = _cut_text(text, room), True
        detail = step._detail
        if type(detail) is Later:
            detail.room = room
        elif detail is not None and len(detail) > room:
            detail, changed = _cut_text(detail, room), True
        if not changed:
            return step
        return Step(step.kind, text, step.line, data, step.depth, step.file, detail, step.verbose)

    def close(self) -> Trace:
        """The trace as shown: with, past `trace_steps`, a last step saying how many more
        there were (in text and JSON alike)."""
        if self.omitted:
            count = self.omitted
            text = tr_n("… {n} more step", "… {n} more steps", count)
            super().append(Step("more", text, None, {"steps": count}, 0))
            self.omitted = 0
        return self


#: how many `shown_length`s a step's text (its data, all its values) may take
TEXT_ROOM = 8
DATA_ROOM = 8


def _cut_data(data, length: int) -> dict:
    """A step's data with each value cut to about `length` characters (DATA_ROOM of them
    in all)."""
    data = made(data)
    cut_data, room = None, DATA_ROOM * length
    for name, value in data.items():
        kind = type(value)
        if kind is int or kind is bool or value is None:  # (digits: bounded)
            continue
        if kind is str and len(value) <= length:
            room -= len(value)
            continue
        cut = glimpse_data(value, max(0, min(length, room)))
        room -= length
        if cut is not value:
            if cut_data is None:
                cut_data = dict(data)
            cut_data[name] = cut
    return data if cut_data is None else cut_data


def _cut_text(text, room: int):
    """A step's text (or detail) cut to `room` characters, and how many more there were."""
    text = made(text)
    if text is not None and len(text) > room:
        return Message.joined([text[:room], more_characters(len(text) - room)])
    return text


def faces_text(roll: PoolRoll, length: int | None = None) -> str:
    """`[6, 5, 3, ~~1~~]`: struck faces were dropped or rerolled; `6!` exploded. With a
    `length`, the faces that fit in about that many characters, then how many more."""
    parts: list[str] = []
    used = 0
    for i, (face, status, exploded) in enumerate(roll.faces):
        if length is not None and used > length:
            return "[" + ", ".join(parts) + f", {more_items(len(roll.faces) - i)}]"
        text = str(face)
        if exploded:
            text += "!"
        if status in (DROPPED, REROLLED):
            text = f"~~{text}~~"
        parts.append(text)
        used += len(text) + 2
    return "[" + ", ".join(parts) + "]"


def roll_text(roll: PoolRoll, length: int | None = None) -> Message:
    """`4d6kh3 [6, 5, 3, ~~1~~]`, with successes counted where the term counts them."""
    text = f"{roll.label} {faces_text(roll, length)}"
    if roll.successes is None:
        return Message.joined([text], "")
    counts = [tr_n("{n} success", "{n} successes", roll.successes)]
    if roll.failures:
        counts.append(tr_n("{n} failure", "{n} failures", roll.failures))
    return Message.joined([text, " (", Message.joined(counts, " - "), ")"], "")


def render_text(steps: list[Step], language: str | None = None, verbose: bool = False) -> str:
    """One line per step: the rulebook line it came from, then the step, indented by how
    deep in calls it happened (a check's rolls under the check). In `language`, by
    default the trace's own. `verbose`: every step, each as the rules compute it."""
    language = language or getattr(steps, "language", None)
    lines = []
    main = steps[0].file if steps else None
    for step in steps:
        if step.verbose and not verbose:
            continue
        text = step.detail if verbose and step.detail is not None else step.text
        where = str(step.line or "")
        if step.file is not None and step.file != main and step.line:
            where = f"{step.file.rsplit('/', 1)[-1]}:{step.line}"
        gutter = f"{where:>5} │ " if where else "      │ "
        lines.append(gutter + "  " * (step.depth + 1) + translate(text, language))
    return "\n".join(lines)


def call_text(label: str, params, length: int | None = None) -> Message:
    """`Usar una númina(numina=Grito Báquico, preces=no)`: values in the output's language
    (each cut to about `length` characters, when given: `interpreter.shown.glimpse`)."""
    parts: list = [label, "("]
    for i, (name, value) in enumerate(params):
        shown = value if length is None else glimpse(value, length)
        parts += [", " if i else "", name, "=", shown]
    return Message.joined([*parts, ")"])


def origin_mark(origin: str) -> Message:
    """` (forced)`, ` (typed in)`: dice nobody should mistake for a random roll."""
    mark = ORIGIN_MARKS.get(origin)
    return Message.joined([" (", mark, ")"] if mark is not None else [], "")


def dice_step(roll: PoolRoll, span, depth: int, origin: str, length: int | None = None) -> Step:
    """A roll's step (its faces cut to about `length` characters, when given)."""
    kept = [f[0] for f in roll.faces if f[1] == KEPT]
    return Step.at(
        "roll",
        Later(_dice_text, roll, origin, length),
        span,
        {
            "dice": roll.label,
            "faces": [f[0] for f in roll.faces],
            "kept": kept,
            "value": roll.total,
            "origin": origin,
        },
        depth,
    )


def _dice_text(roll: PoolRoll, origin: str, length: int | None) -> Message:
    """A roll's step: `4d6kh3 [6, 5, 3, ~~1~~] = 14`, and where its dice came from."""
    return Message.joined([roll_text(roll, length), " = ", roll.total, origin_mark(origin)], "")


def let_text(name: str, shown: Later) -> Message:
    """A `let`'s step: `name = value` (the value cut short when long: `glimpse`)."""
    return Message.joined([name, " = ", shown.value()], "")


def let_detail(name: str, source: str, shown: Later) -> Message | None:
    """A `let`'s step as the rules compute it (`name = expression = value`), when the
    expression is not the value itself."""
    value = shown.value()
    if source == show_value(value):
        return None
    return Message.joined([name, " = ", source, " = ", value], "")
