"""The tests' one brute-force oracle: every way the dice can fall (and every answer a
choice can take), each run for real, with the exact probability of each outcome.

A run is given `PrefixDice`: the faces tried so far, then `NeedDie` naming the die it
asked for next, so the oracle tries every face of that die (depth first). Only finite
rolls can be listed; `ways` bounds how many runs the oracle may make.

every_roll, every_roll_cut: any run; action_outcomes: an engine's action; optimal_play:
the best answer to every choice. agrees_with_brute_force, assert_counted_as_run and the
decorator against_brute_force hold the odds engine's answers to the oracle's.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings

import dsl
from interpreter import Engine, Limits
from interpreter.dice import DiceSource
from interpreter.errors import EvaluationError, RequirementFailed
from interpreter.odds import Failure


class NeedDie(Exception):
    """The run needs a die past the prefix: `die` is the one (its faces, its size)."""

    def __init__(self, die):
        super().__init__()
        self.die = die


class NeedChoice(Exception):
    """The run asks a question past the answers given: `question` is the one."""

    def __init__(self, question):
        super().__init__()
        self.question = question


class PrefixDice(DiceSource):
    """The faces given, in order; past them, NeedDie."""

    origin = "forced"

    def __init__(self, faces):
        self.faces, self.next = faces, 0

    def draw(self, die, position):
        if self.next >= len(self.faces):
            raise NeedDie(die)
        self.next += 1
        return self.faces[self.next - 1]


def every_roll(run, ways: int | None = None) -> dict | None:
    """{outcome: probability} of `run(dice)` over every way the dice can fall.

    A run needing a die past the prefix is run again once per face. With `ways`, None
    once more than that many runs were needed (the case is too big to list)."""
    walked = _walk(run, ways, None)
    return None if walked is None else walked[0]


def every_roll_cut(run, draws: int) -> tuple[dict, Fraction]:
    """Every way the dice can fall in at most `draws` faces: ({outcome: probability},
    the probability of the ways that need more, cut there)."""
    return _walk(run, None, draws)


def _walk(run, ways: int | None, draws: int | None):
    out: dict = {}
    cut = Fraction(0)
    stack = [((), Fraction(1))]
    runs = 0
    while stack:
        faces, p = stack.pop()
        runs += 1
        if ways is not None and runs > ways:
            return None
        try:
            outcome = run(PrefixDice(faces))
        except NeedDie as need:
            if draws is not None and len(faces) >= draws:
                cut += p
                continue
            stack.extend(((*faces, f), p / need.die.size) for f in need.die.faces())
            continue
        out[outcome] = out.get(outcome, 0) + p
    return out, cut


def failed(error: EvaluationError) -> tuple:
    """A run stopped by the project's error, as an outcome: ("fails", its message)."""
    return ("fails", str(error.message))


def action_outcomes(engine, action: str, sheet, params=None, ways: int | None = None):
    """Each result of an engine's action over every way the dice can fall (a run that
    fails: `failed(error)`, an outcome of the odds too); None past `ways` runs."""

    def run(dice):
        try:
            return engine.run(action, sheet, params or {}, dice=dice).result
        except EvaluationError as error:
            return failed(error)

    return every_roll(run, ways)


def optimal_play(run, value) -> Fraction:
    """The value of optimal play: `run(dice, choose)` runs the action, `value(result)` is
    what the goal makes of its result (a run that fails a requirement: `value(None)`).
    Each die is averaged over its faces; each question takes its best answer (the
    lowest where the question's `by` names the other side)."""

    def play(faces: tuple, answers: tuple) -> Fraction:
        given = iter(answers)

        def choose(question):
            answer = next(given, None)
            if answer is None:
                raise NeedChoice(question)
            return answer

        try:
            result = run(PrefixDice(faces), choose)
        except NeedDie as need:
            total = sum((play((*faces, f), answers) for f in need.die.faces()), Fraction(0))
            return total / need.die.size
        except NeedChoice as need:
            values = [play(faces, (*answers, o)) for o in need.question.options]
            return min(values) if need.question.by else max(values)
        except RequirementFailed:
            return Fraction(value(None))
        return Fraction(value(result))

    return play((), ())


def keyed(probabilities: dict) -> dict:
    """The odds engine's outcomes as the oracle writes them: a failure by its message."""
    return {
        (("fails", str(o.message)) if isinstance(o, Failure) else o): p
        for o, p in probabilities.items()
    }


def counted(odds) -> dict:
    """An answer's probabilities, comparable with the oracle's."""
    return keyed(odds.probabilities)


def marginal(joint: dict, field: str) -> dict:
    """One field's distribution in the oracle's joint one (a failure stays whole)."""
    out: dict = {}
    for outcome, p in joint.items():
        value = outcome if isinstance(outcome, tuple) else outcome[field]
        out[value] = out.get(value, 0) + p
    return out


def agrees_with_brute_force(engine, sheet, note="", fields=None) -> None:
    """`act`'s whole result and each of its fields (or those named), exact and with
    nothing left out, equal to every sequence of dice a real run can draw."""
    joint = action_outcomes(engine, "act", sheet)
    whole = engine.odds("act", sheet, {})
    assert whole.exact and whole.omitted == 0, note
    assert counted(whole) == joint, note
    names = fields or [name for name, _ in engine.rulebook.actions["act"].body[-1].fields]
    for field in names:
        odds = engine.odds("act", sheet, {}, field)
        assert odds.exact and odds.omitted == 0, (note, field)
        assert counted(odds) == marginal(joint, field), (note, field)


#: ties rerolled at most once, so that every sequence of dice is finite (and the stop at
#: the limit is an outcome of its own on both sides)
TIE_ONCE = Limits(tie_rerolls=1)


def assert_counted_as_run(text: str, data: dict, fields=None, limits=TIE_ONCE) -> None:
    """A rulebook's `act` on a sheet (its data): whole and field by field (or the fields
    named), exact and equal to every sequence of dice run through the real engine."""
    engine = Engine(dsl.load_text(text), limits)
    agrees_with_brute_force(engine, engine.sheet(data), text, fields)


def against_brute_force(cases, examples: int):
    """The property test's decorator: `examples` (rulebook text, sheet data) cases drawn
    from `cases`, with no deadline (each runs every way its dice can fall)."""
    chosen = settings(
        max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    return lambda test: chosen(given(cases)(test))
