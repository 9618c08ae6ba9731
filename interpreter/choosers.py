"""Decisions taken during a run (`choose`): who answers them, and what was chosen.

A `choose` statement asks its run's `Chooser` a `Question` (the options open at that
moment) and gets back the option and how it was chosen:

    "given"     answered in advance (a mapping: the API's `choices=`, `--choose NAME=VALUE`)
    "asked"     answered when asked (a callback: the person at the table)
    "only"      the only option open: nobody had to choose
    "recorded"  the answer the run had the first time (its trace, a journal's replay)
    "policy"    a policy of the odds engine (the best choice for a goal)

Every answer is kept on the run (`Outcome.choices`) as a `Choice`: the trace, the
journal and a replay all read them from there.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence

import attrs

from dsl.errors import Span, did_you_mean
from dsl.messages import tr
from interpreter import surface
from interpreter.errors import ChoiceNotOpen, ParameterError
from interpreter.values import show


@attrs.frozen
class Question:
    """What a `choose` asks: its name, its text, the options open now, who decides."""

    name: str
    label: str | None
    options: tuple  # the open options' values, in the rulebook's order
    closed: tuple  # the options not open now (their condition fails, or their cost)
    by: str | None  # the role of the character who decides (None: the acting one)
    who: str | None  # how the trace names that character
    span: Span | None = attrs.field(eq=False, repr=False, default=None)
    #: why each closed option is closed, in `closed`'s order: "condition" or "cost"
    why: tuple = attrs.field(eq=False, repr=False, default=())
    #: the how-manieth time this choice is asked in the run (1 the first; 0: not counted,
    #: no answer given in advance names an occurrence)
    occurrence: int = attrs.field(eq=False, default=0)

    def option(self, answer: object) -> object:
        """The option an answer names (a text from a command line: `2` is the number 2; a
        JSON list, an option built from a list of dice)."""
        if type(answer) is list:
            answer = tuple(answer)
        for option in self.options:
            if answer == option and type(answer) is type(option):
                return option
            if isinstance(answer, str) and show(option) == answer.strip():
                return option
        for index, closed in enumerate(self.closed):
            if answer == closed or show(closed) == str(answer).strip():
                why = self.why[index] if index < len(self.why) else None
                message = REFUSED.get(why, REFUSED[None])
                error = ChoiceNotOpen(message.fill(name=self.name, answer=str(answer)), self.span)
                # the answer refused, as the run's replay meets it again (its trace ends
                # there, not on another option taken in its place)
                error.refused = Choice(self.name, answer, self.by, "given")
                raise error
        every = [show(o) for o in (*self.options, *self.closed)]
        raise ParameterError(
            tr(
                "{name}: {answer} is not one of its options ({options})",
                name=self.name,
                answer=str(answer),
                options=", ".join(every),
            ),
            None,
            did_you_mean(str(answer), every) or _without_accents(str(answer), every),
        )


#: an answer given in advance to an option closed now, by what closes it
REFUSED = {
    "condition": tr("{name}: {answer} cannot be chosen now (its condition does not hold)"),
    "cost": tr("{name}: {answer} cannot be chosen now (its cost cannot be paid)"),
    None: tr("{name}: {answer} cannot be chosen now (its condition or its cost)"),
}


def _without_accents(answer: str, options: list) -> str | None:
    """`si` for `sí`: the option it is but for its accents (did_you_mean's measure finds
    two letters too far apart)."""

    def fold(text: str) -> str:
        decomposed = unicodedata.normalize("NFKD", text.casefold())
        return "".join(c for c in decomposed if not unicodedata.combining(c))

    same = [o for o in options if fold(o) == fold(answer)]
    return did_you_mean(same[0], same) if len(same) == 1 else None


@attrs.frozen
class Choice:
    """One decision of a run: which choice, the option taken, by whom, and how."""

    name: str
    value: object
    by: str | None  # the role of the character who decided (None: the acting one)
    how: str  # "given", "asked", "only", "recorded" or "policy"

    def to_json(self) -> dict:
        """The choice as JSON data: name, value, by, how."""
        return {"name": self.name, "value": self.value, "by": self.by, "how": self.how}


def occurrence_key(key) -> tuple:
    """`place#2` → ("place", 2): an answer for the second time `place` is asked; `place`
    → ("place", 0), an answer for every time. Refused: `place#`, `place#0`, `place#x`."""
    name, hash_, number = str(key).rpartition("#")
    if not hash_:
        return str(key), 0
    digits = number.strip()
    if not (digits.isascii() and digits.isdigit()) or int(digits) < 1 or len(digits) > 9:
        raise ParameterError(
            tr(
                "{key}: an answer for one time a choice is asked is written NAME#N=VALUE, "
                "N from 1 (place#2=1: the second time)",
                key=str(key),
            )
        )
    return name.strip(), int(digits)


class Chooser:
    """Answers a run's questions: from answers given in advance (by the choice's name, or
    by its name and the time it is asked: `place#2`, which comes first), then, when only
    one option is open, that one; else from `ask(question)`. With neither, a question
    with several options open is a ParameterError (nothing changes)."""

    def __init__(self, answers: Mapping | None = None, ask: Callable | None = None):
        self.answers = {}
        self.by_occurrence = False  # whether an answer names the time its choice is asked
        for key, value in dict(answers or {}).items():
            name, occurrence = occurrence_key(key)
            self.answers[(name, occurrence) if occurrence else name] = value
            self.by_occurrence = self.by_occurrence or occurrence > 0
        self.ask = ask

    def given(self, question: Question) -> bool:
        """Whether an answer was given in advance for this question."""
        return (question.name, question.occurrence) in self.answers or (
            question.name in self.answers
        )

    def choose(self, question: Question) -> tuple:
        """(the option chosen, how)."""
        once = (question.name, question.occurrence)
        if once in self.answers:
            return question.option(self.answers[once]), "given"
        if question.name in self.answers:
            return question.option(self.answers[question.name]), "given"
        if len(question.options) == 1:
            return question.options[0], "only"
        if self.ask is not None:
            return question.option(self.ask(question)), "asked"
        raise ParameterError(
            tr(
                "{name} is a choice to make ({options}): answer it in advance",
                name=question.name,
                options=", ".join(show(o) for o in question.options),
            ),
            None,
            tr(
                "answer it with {choose} (for the odds, also {best})",
                choose=surface.option("choose", question.name),
                best=surface.option("best"),
            ),
        )


class Recorded(Chooser):
    """The answers a run had, again in their order (the trace's replay, a journal's)."""

    def __init__(self, choices: Sequence):
        super().__init__()
        self.left = list(choices)

    def choose(self, question: Question) -> tuple:
        while self.left:
            recorded = self.left.pop(0)
            name, value, how = _fields(recorded)
            if name == question.name:
                return question.option(value), how
        return super().choose(question)


def _fields(recorded) -> tuple:
    if isinstance(recorded, Choice):
        return recorded.name, recorded.value, recorded.how
    return recorded["name"], recorded["value"], recorded.get("how", "recorded")


def chooser_for(choices) -> Chooser:
    """A Chooser from what an app gives: a Chooser, a mapping of answers, a callback
    `ask(question) → option`, a sequence of recorded choices, or None."""
    if choices is None:
        return NOBODY
    if isinstance(choices, Chooser):
        return choices
    if isinstance(choices, Mapping):
        return Chooser(choices)
    if callable(choices):
        return Chooser(ask=choices)
    return Recorded(choices)


#: the chooser of a run given no answers: a choice with one option open takes it
NOBODY = Chooser()
