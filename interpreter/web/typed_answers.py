"""Dice typed in and choices answered one by one over HTTP: the run replayed each time.

A run is deterministic given its dice and its choices, so the server keeps nothing
between requests: the page sends the faces typed so far and the answers given so far;
the run goes as far as they take it, and either finishes (its outcome, its dice marked
"typed in", its choices "chosen at the table") or stops at the first die or choice
still missing, which the answer describes (which die and its faces, or which choice,
its open options and who decides; the rulebook line; the trace so far, so that the
person sees what was rolled before choosing) and the page asks again with one more.
Nothing is changed by a run that stopped for a die or a choice.
"""

from __future__ import annotations

from dsl.messages import show_value, tr, tr_n
from dsl.rulebook import defined_at
from interpreter.dice import Asked, AskingDice, Die
from interpreter.errors import DiceError, EvaluationError, ParameterError
from interpreter.values import to_json


class DieNeeded(DiceError):
    """The next die of a run whose faces are being typed in; not an error to show."""

    code = "dice_error"

    def __init__(self, die: Die, position: int, asked: Asked | None = None):
        super().__init__(tr("die {position} ({die}) is needed", position=position, die=die.label))
        self.die = die
        self.position = position
        self.asked = asked

    def to_json(self, language: str | None = None, book=None) -> dict:
        """What the page asks for: `{"need": {"kind": "die", ...}}`; whose die it is
        (`who`: another character's name, or null), why (`why`: the face that exploded,
        the rule that rolls it, or null) and what it is rolled for (`for`: the label or
        name of the check, roll or action of the rulebook `book` it is written in)."""
        need = {
            "kind": "die",
            "position": self.position,
            "die": self.die.label,
            "low": self.die.low,
            "high": self.die.high,
            "file": None,
            "line": None,
            "roll": None,
        }
        names = getattr(self.die, "names", None)
        if names is not None:  # a die of symbols: each face (by position) by its symbols
            need["faces"] = list(names)
        if self.span is not None:  # the dice tray tells where the die is rolled
            need.update(file=self.span.source.name, line=self.span.line, roll=self.span.text)
        asked = self.asked
        if asked is not None and asked.rolled is not None:  # `2d6`, written `(pool)d6`
            need["roll"] = asked.rolled
        need["who"] = asked.who if asked is not None else None
        why = asked.why if asked is not None else None
        need["why"] = why.render(language) if why is not None else None
        need["for"] = defined_at(book, self.span) if book is not None else None
        return {"need": need}


class TypedSoFar(AskingDice):
    """The faces typed so far, in draw order; past the last one, `DieNeeded`."""

    origin = "typed"

    def __init__(self, faces: list[int]):
        self.faces = list(faces)
        self.used = 0

    def draw(self, die: Die, position: int) -> int:
        if self.used >= len(self.faces):
            raise DieNeeded(die, position, self.asking)
        face = self.faces[self.used]
        self.used += 1
        if not (die.low <= face <= die.high):
            raise DiceError(
                tr(
                    "die {position}: {face} is not a face of {die} ({low}..{high})",
                    position=position,
                    face=face,
                    die=die.label,
                    low=die.low,
                    high=die.high,
                ),
                None,
                tr("type the face the die shows, or take back the last faces typed"),
            )
        return face

    def finish(self) -> None:
        left = len(self.faces) - self.used
        if left:
            raise DiceError(
                tr_n(
                    "{n} face typed beyond what the run needed: it used {used}",
                    "{n} faces typed beyond what the run needed: it used {used}",
                    left,
                    used=self.used,
                ),
                None,
                tr("take back the last faces typed"),
            )


class ChoiceNeeded(EvaluationError):
    """The next choice of a run whose choices are answered in the page; not an error to
    show (an EvaluationError, so that the run's trace up to it comes along)."""

    code = "evaluation_error"

    def __init__(self, question, position: int):
        super().__init__(tr("choice {name} is to be made", name=question.name), question.span)
        self.question = question
        self.position = position

    def to_json(self, language: str | None = None) -> dict:
        """What the page asks: `{"need": {"kind": "choice", ...}}` (each option as its
        value and as the rulebook's language shows it)."""
        question = self.question

        def options(values) -> list[dict]:
            return [{"value": to_json(v), "text": show_value(v, language)} for v in values]

        need = {
            "kind": "choice",
            "position": self.position,
            "name": question.name,
            "label": show_value(question.label, language) if question.label else None,
            "options": options(question.options),
            "closed": options(question.closed),
            "by": question.by,
            "who": question.who,
            "file": None,
            "line": None,
        }
        if question.span is not None:
            need.update(file=question.span.source.name, line=question.span.line)
        return {"need": need}


class TypedAnswers:
    """The answers given so far to the choices asked during a run, in order: the callback
    of a Chooser (`ask`); past the last one, `ChoiceNeeded`."""

    def __init__(self, answers: list):
        self.answers = list(answers)
        self.used = 0

    def __call__(self, question):
        if self.used >= len(self.answers):
            raise ChoiceNeeded(question, self.used + 1)
        answer = self.answers[self.used]
        self.used += 1
        return answer

    def finish(self) -> None:
        left = len(self.answers) - self.used
        if left:
            raise ParameterError(
                tr_n(
                    "{n} answer given beyond the choices the run asked: it asked {used}",
                    "{n} answers given beyond the choices the run asked: it asked {used}",
                    left,
                    used=self.used,
                ),
                None,
                tr("take back the last answers"),
            )
