"""A check's roll explained term by term: each term's value, named in the rules' words."""

from __future__ import annotations

import functools

from dsl.messages import Message, available_languages, catalogue_for, tr
from interpreter.compile.arithmetic import as_number
from interpreter.roll_steps import faces_text
from interpreter.runtime import ChainRoll
from interpreter.shown import glimpse
from interpreter.state import place_text
from interpreter.trace import JOINED, Later, made
from interpreter.values import normalize, show

THE_TERM = tr("the term {label}")
#: whether a check's verdict and fields are written as their parts where every catalogue
#: writes `" → {verdict}"` and `"{name} {value}"` as they are (off: a Message each, made
#: in English and then rendered in the answer's language; the same text)
FLAT_TAIL = True


def explained_sum(ctx, terms) -> tuple:
    """Evaluate a check's roll term by term, naming each: `Hierofanía 3 + 2d10 [3, 4]`.
    The total, and what each term gave: the terms in the rules' words, and as the rules
    compute them (--verbose), are written from it when the step is read (`terms_text`)."""
    total = 0
    given = []  # (sign, kind, label, short, what it gave: a roll, a place and its value, a value)
    for sign, kind, fn, label, short in terms:
        if kind == "roll" or kind == "chain":
            roll = fn(ctx)
            value = roll.total
            given.append((sign, kind, label, short, roll))
        elif kind == "ref":
            place = fn(ctx)
            if place is None:  # an optional skill not given: nothing to add, nothing to show
                continue
            value = ctx.state.read(place)
            given.append((sign, kind, label, short, (place, value)))
        else:
            value = fn(ctx)
            if callable(label):  # (the values it names now, written when read)
                label = label(ctx)
            given.append((sign, kind, label, short, value))
        if type(value) is not int:
            value = term_number(value, label)
        total = total + value if sign > 0 else total - value
        if type(total) is not int:
            total = normalize(total)
    return total, given


class TermLabel:
    """A term's source text whose holes name values of the run (`2 * atributo` → `2 *
    Fuerza`): called in a run, the text as a `Later` of the values named now (`holes`:
    where each is, the closure naming it, its node: codegen.traced writes them inline)."""

    __slots__ = ("holes", "text")

    def __init__(self, text: str, holes: tuple) -> None:
        self.text, self.holes = text, holes

    def __call__(self, ctx):
        return Later(label_text, self.text, self.holes, [hole[2](ctx) for hole in self.holes])


def label_text(text: str, holes: tuple, values: list | tuple) -> str:
    """A term's source text with the values that name something in their holes (a
    parameter naming nothing, an optional skill not given, keeps its own name: `if
    skill = none then 0 else ...`, not `if none = none`)."""
    out, last = [], 0
    for (start, end, *_), value in zip(holes, values):
        out.append(text[last:start])
        out.append(show(value) if value is not None else text[start:end])
        last = end
    out.append(text[last:])
    return "".join(out)


def written_label(label):
    """A term's label as read: a `Later` made, a label the generated code recorded as
    `(text, holes, *values)` written now (`label_text`), any other as it is."""
    if type(label) is tuple:
        return label_text(label[0], label[1], label[2:])
    return made(label)


def term_number(value, label):
    """A term's value as a number, else refused (`the term {label}`)."""
    return as_number(value, None, THE_TERM, label=written_label(label))


#: in what a check's terms gave, where its roll's end and its target's begin (a target
#: of several terms: `vs WS 41 + Melee 10 - 20 = 31`)
TARGET = (0, "target", None, None, None)


class Shown:
    """A check's terms as its step shows them: in the rules' words (its text) and as they
    compute (its detail, None when the same), both written once, when first read; and
    the rest of the line, the same in both (`tail`: written by the check, once). Its
    target's terms, when it has several, in the rules' words (`target_text`)."""

    __slots__ = ("_both", "given", "length", "tail", "target_given")

    def __init__(self, given: list | None, length: int) -> None:
        given = given or []
        self.target_given: list | None = None
        for index, term in enumerate(given):
            if term is TARGET:
                given, self.target_given = given[:index], given[index + 1 :]
                break
        self.given, self.length = given, length
        self._both: tuple[Message, Message | None] | None = None
        self.tail: list | None = None

    def both(self) -> tuple[Message, Message | None]:
        if self._both is None:
            self._both = terms_texts(self.given, self.length)
        return self._both

    def target_text(self) -> Message | None:
        if self.target_given is None or len(self.target_given) < 2:  # (a skill not given)
            return None
        return terms_texts(self.target_given, self.length)[0]


def terms_texts(given: list, length: int) -> tuple[Message, Message | None]:
    """A check's terms and their signs in the rules' words, and as they compute when that
    reads otherwise (else None): one pass, the terms shown alike made once. Each way is
    one joined message of all its parts (`a + b - c`: no message made a term), which
    reads and renders as the terms' own messages spaced (`_spaced`) would."""
    brief: list = []
    full: list = []
    differ = False
    shown: tuple
    computed: tuple
    for sign, kind, label, short, gave in given:
        if kind == "roll" and type(gave) is ChainRoll:  # (`let d = abierta`: a name for it)
            kind, label = "chain", label or gave.name
        if kind == "roll":
            shown = computed = (f"{label or gave.label} {faces_text(gave, length)}",)
        elif kind == "chain":
            # a roll that went on: its value here, its arithmetic in its own step
            computed = (f"{label} {gave.faces_text(length)}",)
            shown = (label, " ", gave.total) if len(gave.parts) > 1 else computed
        elif kind == "ref":
            shown = computed = (place_text(gave[0]), " ", gave[1])
        else:
            label = written_label(label)
            computed = (label, " ", gave) if label != show(gave) else (gave,)
            shown = computed if short is None else (short, " ", gave) if short else (gave,)
        if shown is not computed:
            differ = True
        if brief:
            between = " + " if sign > 0 else " - "
            brief.append(between)
            full.append(between)
        elif sign < 0:
            brief.append("-")
            full.append("-")
        brief += shown
        full += computed
    text = Message.joined(brief)
    if not differ:
        return text, None
    other = Message.joined(full)
    return text, (None if other == text else other)


def verdict_parts(verdict) -> list:
    """A check's ` → verdict`, as parts of its line."""
    if FLAT_TAIL and _as_is_everywhere(" → {verdict}"):
        return [" → ", verdict]
    return [tr(" → {verdict}", verdict=verdict)]


def fields_parts(names: list, fields, length: int) -> list:
    """A check's fields `name value, name value` (each value cut short: `glimpse`), as
    parts of its line."""
    if FLAT_TAIL and _as_is_everywhere("{name} {value}"):
        out: list = []
        for name in names:
            if out:
                out.append(", ")
            out += [name, " ", glimpse(fields[name], length)]
        return out
    shown = [tr("{name} {value}", name=name, value=glimpse(fields[name], length)) for name in names]
    return [Message.joined(shown, ", ")]


def _spaced(parts: list) -> Message:
    """Terms and their signs, one space apart: `a + b - c`."""
    out = []
    for i, part in enumerate(parts):
        out.append(part)
        if i % 2 == 0 and i + 1 < len(parts):
            out.append(" ")
    return Message.joined(out)


def check_line(check, terms: Shown, fields) -> Message:
    """A check's step's text (`CompiledCheck.describe`), made when read; written in a
    language from its parts (`check_line_parts`, trace.JOINED), no Message made."""
    return check.describe(terms, fields)


def check_detail(check, terms: Shown, fields) -> Message | None:
    """A check's step's detail (`CompiledCheck.detail`), as `check_line`."""
    return check.detail(terms, fields)


def check_line_parts(check, terms: Shown, fields) -> list:
    """The parts `check_line` joins: the label, the terms, the total, then the tail (the
    head `{label}: {terms} = {total}` flattened where every catalogue writes it as it is;
    else the line itself, one part)."""
    return _line_parts(check, terms, fields, True)


def check_detail_parts(check, terms: Shown, fields) -> list | None:
    """The parts `check_detail` joins, or None when it has none (the terms read alike)."""
    if terms.both()[1] is None:
        return None
    return _line_parts(check, terms, fields, False)


def _line_parts(check, terms: Shown, fields, brief: bool) -> list:
    text, computed = terms.both()
    shown = text if brief or computed is None else computed
    # (the template of `CompiledCheck.describe`'s head: tests/test_json_steps.py compares)
    if shown.parts is None or not _as_is_everywhere("{label}: {terms} = {total}"):
        return [check.describe(terms, fields, brief)]
    if terms.tail is None:  # (as `describe` makes it: once for the text and the detail)
        terms.tail = check._tail(terms, fields)
    return [check.label, ": ", *shown.parts, " = ", fields["total"], *terms.tail]


@functools.cache  # (a template or two, the catalogues being the package's)
def _as_is_everywhere(template: str) -> bool:
    """Whether every catalogue shipped translates `template` as it is."""
    for language in available_languages():
        catalogue = catalogue_for(language)
        if catalogue is not None and catalogue.gettext(template) != template:
            return False
    return True


JOINED[check_line], JOINED[check_detail] = check_line_parts, check_detail_parts
