"""The trace: what happened, step by step, in the rulebook's own names; and its renderings.

A trace is data (a list of `Step`); turning it into text or JSON is done here, apart.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import partial
from typing import Any, SupportsIndex, final

from dsl.errors import Span
from dsl.messages import Message, tr_n, translate
from interpreter.shown import glimpse, glimpse_data, more_characters
from interpreter.values import to_json

#: what a `Later` holds before it is made
_NOT_YET: Any = object()


@final
class Later(partial):
    """A step's text, detail or data made only when it is read (the trace is shown):
    `make(*args)`, once. What it is made of is immutable (values, texts, rolls), read
    from the run as it was; it equals what it makes. (A `functools.partial`: made in C,
    as cheap as a run can record it.)"""

    __slots__ = ()
    _made: Any = _NOT_YET  # (in the instance's own dict, once made)

    @property
    def make(self) -> Callable[..., Any] | None:
        """What makes it, until it is made (then None)."""
        return self.func if self._made is _NOT_YET else None

    @property
    def made(self) -> Any:
        """What it made (None until then)."""
        made = self._made
        return None if made is _NOT_YET else made

    def value(self, room: int | None = None) -> Any:
        """What it makes (made now if not yet: a text cut to `room` characters, when
        given: a bounded trace's, `Trace.bounded`)."""
        made = self._made
        if made is _NOT_YET:
            made = self()
            if room is not None:
                made = _cut_text(made, room)
            self._made = made
        return made

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


@final
class Step:
    """One thing that happened: a roll, a check, a lookup, a cost, a change, a note.

    `kind` names it; `text` is what it says, in the rulebook's words (a `Message`:
    `translate(step.text, language)` gives it in a language); `line` is the rulebook line
    it came from; `data` carries the numbers for JSON consumers. `detail` is the step as
    the rules compute it (the expression behind a value), shown with `--verbose`;
    a `verbose` step (a condition tested, a maximum computed again) only then.

    Recording one costs a run little: it is one tuple of what it was given (`_r`, in the
    order of `__init__`'s parameters: a traced run's commonest steps write it straight,
    `new_step`); its text, detail and data may be `Later`s, made when first read; its
    line and file are read from its `span` when asked; a bounded trace's cuts
    (`Trace.bounded`) are made when a part is read. Its fields are read-only.
    A step may even be recorded as what makes that tuple (`_m`: a function, then its
    arguments, as the run gave them), made when first read (`__getattr__`).
    """

    __slots__ = ("_m", "_r")

    #: (kind, text, line, data, depth, file, detail, verbose, span, length): what it holds
    _r: tuple
    #: (make, *args): what makes `_r`, of a step recorded so (`lazy_step`)
    _m: tuple

    def __getattr__(self, name: str) -> tuple:
        # Only `_r` not made yet comes here (a slot not set): made now, once, from `_m`.
        if name != "_r":
            raise AttributeError(name)
        m = self._m
        r = self._r = m[0](*m[1:])
        return r

    def __init__(
        self,
        kind: str,
        text: str | Later,
        line: int | None = None,
        data: dict | Later | None = None,
        depth: int = 0,
        file: str | None = None,  # the rulebook file of the line (a house rule has two)
        detail: str | Later | None = None,
        verbose: bool = False,
        span: Span | None = None,  # (else line and file): where, read when asked
        length: int | None = None,  # a bounded trace's `shown_length` (cut when read)
    ) -> None:
        self._r = (
            kind,
            text,
            line,
            data if data is not None else {},
            depth,
            file,
            detail,
            verbose,
            span,
            length,
        )

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
        return cls(kind, text, None, data, depth, None, detail, verbose, span)

    def _with(self, index: int, value: Any) -> Step:
        """The same step with one part of `_r` another (a new step)."""
        r = self._r
        step = new_step(Step)
        step._r = (*r[:index], value, *r[index + 1 :])
        return step

    def _keep(self, index: int, value: Any) -> None:
        """One part of `_r` made (a cut text kept, a bounded trace's length given)."""
        r = self._r
        self._r = (*r[:index], value, *r[index + 1 :])

    # the parts as recorded (the tests read the texts not written yet)
    @property
    def _text(self) -> str | Later:
        return self._r[1]

    @property
    def _data(self) -> dict | Later:
        return self._r[3]

    @property
    def _detail(self) -> str | Later | None:
        return self._r[6]

    @property
    def _length(self) -> int | None:
        return self._r[9]

    @property
    def kind(self) -> str:
        """What the step is: `roll`, `check`, `let`, `lookup`, `change`, `note`, ..."""
        return self._r[0]

    @property
    def line(self) -> int | None:
        """The rulebook line it came from (None: none)."""
        r = self._r
        span = r[8]
        return span.line if span is not None else r[2]

    @property
    def file(self) -> str | None:
        """The rulebook file of the line (a house rule has two), or None."""
        r = self._r
        file, span = r[5], r[8]
        return span.source.name if file is None and span is not None else file

    @property
    def depth(self) -> int:
        """How deep in calls it happened (a check's rolls under the check)."""
        return self._r[4]

    @property
    def verbose(self) -> bool:
        """Whether it is shown only with `--verbose` (a condition tested)."""
        return self._r[7]

    @property
    def text(self) -> str:
        """What the step says, in the rulebook's words (made when first read)."""
        r = self._r
        text, length = r[1], r[9]
        if type(text) is Later:
            return text.value(TEXT_ROOM * length if length is not None else None)
        if length is not None and len(text) > TEXT_ROOM * length:
            text = _cut_text(text, TEXT_ROOM * length)
            self._keep(1, text)
        return text

    @property
    def data(self) -> dict:
        """The numbers for JSON consumers (made when first read)."""
        r = self._r
        data, length = r[3], r[9]
        if isinstance(data, Later):  # (made now, then cut as a dict would be)
            if data._made is not _NOT_YET:
                return data._made
            made = data.value()
            if length is not None and not _fits(made, length):
                made = data._made = _cut_data(made, length)
            return made
        if length is not None and not _fits(data, length):
            later = Later(_cut_data, data, length)
            self._keep(3, later)
            return later.value()
        return data

    @property
    def detail(self) -> str | None:
        """The step as the rules compute it (`--verbose`), or None (made when first read)."""
        r = self._r
        detail, length = r[6], r[9]
        if type(detail) is Later:
            return detail.value(TEXT_ROOM * length if length is not None else None)
        if detail is not None and length is not None and len(detail) > TEXT_ROOM * length:
            detail = _cut_text(detail, TEXT_ROOM * length)
            self._keep(6, detail)
        return detail

    def deeper(self, by: int = 1) -> Step:
        """The same step, `by` levels deeper (under a heading inserted above it)."""
        return self._with(4, self._r[4] + by)

    def shown_verbose(self) -> Step:
        """The same step, shown only with `--verbose` (work that changed nothing)."""
        return self._with(7, True)

    def _fields(self) -> tuple:
        return (self.kind, self.text, self.line, self.depth, self.file, self.detail, self.verbose)

    def __eq__(self, other) -> bool:
        if type(other) is not Step:
            return NotImplemented
        return self._fields() == other._fields() and self.data == other.data

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return (
            f"Step(kind={self.kind!r}, text={self.text!r}, line={self.line!r}, "
            f"data={self.data!r}, depth={self.depth!r}, file={self.file!r}, "
            f"detail={self.detail!r}, verbose={self.verbose!r})"
        )

    def to_json(self, language: str | None = None) -> dict:
        """The step as JSON data (as in a run's JSON document: schema run, `trace`)."""
        detail = self.detail
        return {
            "kind": self._r[0],
            "text": translate(self.text, language),
            "file": self.file,
            "line": self.line,
            "depth": self._r[4],
            "detail": translate(detail, language) if detail is not None else None,
            "verbose": self._r[7],
            "data": to_json(self.data),
        }


#: a step made without `__init__` (a traced run's commonest steps): `step = new_step(Step)`,
#: then `step._r = (kind, text, line, data, depth, file, detail, verbose, span, length)`,
#: or `step._m = (make, *args)`, `make(*args)` giving that `_r` when it is first read
new_step: Callable[[type[Step]], Step] = object.__new__


def later_step(entry: tuple) -> Step:
    """A step recorded as what makes it (`entry`: `(make, *args)`, `Step._m`)."""
    step = new_step(Step)
    step._m = entry
    return step


def made_step(parts: tuple) -> Step:
    """A step of its parts (`Step._r`), made without `__init__`."""
    step = new_step(Step)
    step._r = parts
    return step


_append = list.append
_insert = list.insert
_new_list = list.__new__
_getitem = list.__getitem__
_iter = list.__iter__
_pop = list.pop


class Trace(list):
    """The steps of a run, in order, and the language they are shown in by default (the
    rulebook's).

    Given `limits`, it is bounded: it keeps the first `trace_steps` steps and counts the
    others (`omitted`; `close` adds a last step saying how many); each step's values are
    cut to about `shown_length` characters (the data of its JSON; its text is made of
    values cut so where it is written, `interpreter.shown.glimpse`, and a text longer
    than TEXT_ROOM of them is cut too).

    A traced run may record a step flat: the tuple that makes it (`(make, *args)`,
    what `Step._m` holds) put in the list itself, and `flat` set; each such entry
    becomes its `Step` (still made only when its parts are read) the first time the
    trace is read (`steps`): a run pays for no `Step` object (`SWITCH.flat_steps`)."""

    __slots__ = ("flat", "language", "length", "most", "omitted")

    def __init__(self, steps=(), language: str | None = None, limits=None):
        super().__init__(steps)
        self.language = language
        self.most = limits.trace_steps if limits is not None else None
        self.length = limits.shown_length if limits is not None else None
        self.omitted = 0
        self.flat = False

    def steps(self) -> Trace:
        """The trace with every entry a `Step` (those recorded flat made now: `Step._m`)."""
        if self.flat:
            self.flat = False
            for index, entry in enumerate(_iter(self)):
                if type(entry) is tuple:
                    list.__setitem__(self, index, later_step(entry))
        return self

    # every read sees steps (an entry recorded flat made a `Step` first)
    def __getitem__(self, index):
        if self.flat:
            self.steps()
        return _getitem(self, index)

    def __iter__(self):
        if self.flat:
            self.steps()
        return _iter(self)

    def __reversed__(self):
        return list.__reversed__(self.steps())

    def __contains__(self, step) -> bool:
        return list.__contains__(self.steps(), step)

    def __eq__(self, other) -> bool:
        if isinstance(other, Trace):
            other.steps()
        return list.__eq__(self.steps(), other)

    def __ne__(self, other) -> bool:
        return not self == other

    def __add__(self, other) -> list:
        return list.__add__(self.steps(), other)

    def __repr__(self) -> str:
        return list.__repr__(self.steps())

    def index(self, step, *where) -> int:
        return list.index(self.steps(), step, *where)

    def count(self, step) -> int:
        return list.count(self.steps(), step)

    def copy(self) -> list:
        return list.copy(self.steps())

    def pop(self, index: SupportsIndex = -1):
        return _pop(self.steps(), index)

    @classmethod
    def headed(cls, heading: tuple, language, limits, flat: bool) -> Trace:
        """`Trace([], language, limits)` begun with a run's heading (`(make, *args)`:
        `make(*args, bounded)` gives its `Step._r`, `bounded` a bounded trace's length),
        made without `__init__`, `Step.__init__` nor `append` calls: what every traced run
        pays before its first step. `flat`: the heading recorded flat (`Trace.flat`)."""
        trace = _new_list(cls)
        trace.language = language
        most = trace.most = limits.trace_steps
        length = trace.length = limits.shown_length
        trace.omitted = 0
        trace.flat = False
        if most is not None and most <= 0:  # (`append`: no room)
            trace.omitted = 1
            return trace
        bounded = length if most is not None else None  # (`append`: cut when read)
        if flat:
            trace.flat = True
            _append(trace, heading + (bounded,))  # noqa: RUF005 (cheaper than unpacking)
        else:
            _append(trace, made_step(heading[0](*heading[1:], bounded)))
        return trace

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
        most = self.most
        if most is None:
            _append(self, step)
        elif len(self) < most:
            if step._r[9] != self.length:
                step._keep(9, self.length)  # (cut when read: `bounded`)
            _append(self, step)
        else:
            self.omitted += 1

    def insert(self, index: SupportsIndex, step: Step) -> None:
        most = self.most
        if most is None:
            _insert(self, index, step)
        elif index >= most:
            self.omitted += 1
        else:  # a heading over steps kept: the last step kept goes
            if step._r[9] != self.length:
                step._keep(9, self.length)  # (`bounded`)
            _insert(self, index, step)
            if len(self) > most:
                self.trim()

    def __setitem__(self, index, steps) -> None:
        super().__setitem__(index, steps)
        if self.most is not None:
            self.trim()

    def trim(self) -> None:
        """Past `trace_steps` (headings put over steps kept): the last ones counted out."""
        most = self.most
        while most is not None and len(self) > most:
            _pop(self)  # (an entry recorded flat, too: never read)
            self.omitted += 1

    def bounded(self, step: Step) -> Step:
        """The step with its data cut to `shown_length` characters a value (at most
        DATA_ROOM of them in all), and its text and detail to TEXT_ROOM: cut when they
        are read (the step's `text`, `data`, `detail`), which is when they are made, for
        a part made when read (`Later`)."""
        if step._r[9] != self.length:
            step._keep(9, self.length)
        return step

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


def _fits(data: dict, length: int) -> bool:
    """Whether a step's data is within bounds as it is: what `_cut_data` would keep
    (numbers, short texts, a few small numbers), seen without cutting."""
    for value in data.values():
        kind = type(value)
        if kind is int or kind is bool or value is None or kind is Fraction:
            continue
        if kind is str and len(value) <= length:
            continue
        few = (kind is list or kind is tuple) and len(value) * 24 <= length
        if few and all(type(v) is int and v.bit_length() < 64 for v in value):
            continue
        return False
    return True


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


def heading_parts(kind: str, name: str, label, shown: tuple, file, span, length: int, bounded):
    """A run's heading's parts (`Step._r`): what was run, with what (its words written
    when read), at depth -1, in `file`, at `span`."""
    text = Later(call_text, label, shown, length)
    heading = "action" if kind == "action" else "run"
    return (heading, text, None, {kind: name}, -1, file, None, False, span, bounded)


def run_heading(runnable, shown: dict, file, length: int, bounded):
    """`heading_parts` of what a run ran (an `Engine.runnable`, its name, kind, label and
    line) with the parameters as shown (a dict no one writes to), read when shown."""
    compiled = runnable.compiled
    given = tuple(shown.items())
    kind, name, span = runnable.kind, runnable.name, compiled.node.span
    return heading_parts(kind, name, compiled.label, given, file, span, length, bounded)


def call_text(label: str, params, length: int | None = None) -> Message:
    """`Usar una númina(numina=Grito Báquico, preces=no)`: values in the output's language
    (each cut to about `length` characters, when given: `interpreter.shown.glimpse`)."""
    return Message.joined(call_parts(label, params, length))


def call_parts(label: str, params, length: int | None = None) -> list:
    """The parts `call_text` joins (JOINED: written from them in a language at once)."""
    parts: list = [label, "("]
    for i, (name, value) in enumerate(params):
        shown = value if length is None else glimpse(value, length)
        parts += [", " if i else "", name, "=", shown]
    parts.append(")")
    return parts


#: a function that makes a step's text (or detail) as `Message.joined(parts)` → the one
#: giving those parts (or None: no text) from the same arguments: a `Later` of it not yet
#: made is written in a language from its parts, no Message made (interpreter.steps_json)
JOINED: dict[Callable[..., Any], Callable[..., list | None]] = {call_text: call_parts}
#: the functions of steps recorded flat (`Trace.flat`) whose step as JSON is a function of
#: their arguments and its language alone: a server's worker keeps it (interpreter.steps_json)
KEPT_STEPS: set[Callable[..., tuple]] = set()
