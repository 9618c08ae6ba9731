"""The odds roller's answers to questions about pools (interpreter.pool): counted, or enumerated.

`answers(roll, questions)` is the joint distribution of the answers, a Dist of tuples:
from the term's own distribution when only its total and counts are asked; by counting
multisets (interpreter.odds.multiset) for order-free questions of dice drawn alike; else
by walking every way the real roller can draw (small pools only, or TooComplex).
`settle(roll, questions)` picks the answers of the world being explored: what a `let`
holding a pool binds while counting.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from dsl.messages import tr
from interpreter.dice import PoolRoll, roll_pool
from interpreter.errors import EvaluationError
from interpreter.limits import Limits
from interpreter.odds.distribution import Dist
from interpreter.odds.draws import enumerate_draws
from interpreter.odds.keys import Same
from interpreter.odds.polynomials import Budget, TooComplex
from interpreter.odds.pools import group_total, kept_values
from interpreter.odds.remembered import counted_answers
from interpreter.pool import (
    COUNTED,
    Answers,
    Failures,
    Rolled,
    Sorted,
    Standing,
    Successes,
    Summed,
    Total,
)
from interpreter.runtime import ChainRoll, lift

#: what a pool bound by `let` keeps when the questions to come are not all known
EVERYTHING = (Total(), Successes(), Failures(), Sorted())
#: where each of (total, successes, failures) sits in a term's distribution's outcomes
SUMMARY = {Total: 0, Successes: 1, Failures: 2}


#: why a pool read in the order rolled is not counted, and what is (the sampled answer's note)
IN_ORDER = tr(
    "{why}: a pool's dice read in the order rolled (.dice, .kept, .dropped) are counted roll "
    "by roll; where the order does not matter, .sorted, count, highest, lowest and "
    "sum(highest(...)) are counted over the dice whatever their order"
)


class PoolQuestionsHost:
    """What PoolQuestions reads of the odds roller it is part of (interpreter.odds.roller,
    which makes all of it in `__init__`): declared here so that mypy checks every use."""

    epsilon: Fraction  # what one open-ended roll may leave out
    limits: Limits
    asked: dict  # joint answers to pool questions, by term and questions
    capture: dict | None  # pools' `let`s caught as they roll (odds.compound), by name

    if TYPE_CHECKING:  # what PoolQuestions calls on the roller (defined there)

        def budget_of_term(self) -> Budget: ...
        def resolve(self, dist: Dist) -> Any: ...
        def bind_pool(self, ctx: Any, name: str, values: Dist) -> Any: ...


class PoolQuestions(PoolQuestionsHost):
    """The part of the odds roller (interpreter.odds.roller) that answers pool questions."""

    def answers(self, roll, questions: tuple) -> Dist:
        key = (_key_of(roll), questions)
        found = self.asked.get(key)
        if found is None:  # (a named roll is held in its key)
            found = self.asked[key] = self.count_answers(roll, questions)
        return found

    def count_answers(self, roll, questions: tuple) -> Dist:
        if type(roll) is ChainRoll:
            return self.chain_answers(roll, questions)
        if not is_term(roll):
            return value_answers(roll, questions)
        counted = counted_as(roll, questions)
        if counted != questions:  # (`max(r.dice)` of a pool that drops none: its kept's)
            return self.answers(roll, counted)
        if all(type(q) in COUNTED for q in questions):
            places = [SUMMARY[type(q)] for q in questions]
            return roll.dist.map(lambda o: tuple(o[i] for i in places))
        if not any(q.ordered for q in questions):
            try:
                return counted_answers(
                    roll.die,
                    roll.count,
                    roll.steps,
                    questions,
                    self.epsilon,
                    self.budget_of_term(),
                    self.limits.extra_per_die,
                )
            except NotImplementedError:
                pass
        rolls = self.rolls_of(roll, any(q.ordered for q in questions))
        return rolls.map(lambda frozen: tuple(q.of_roll(thaw(frozen)) for q in questions))

    def rolls_of(self, roll, ordered: bool = True) -> Dist:
        """Every way the term can fall, as the real roller draws it (frozen PoolRolls):
        walked once per term (each world of a pool read in the order rolled asks again)."""
        key = ("rolls", _key_of(roll))
        found = self.asked.get(key)
        if found is None:
            die, count, steps = roll.die, roll.count, roll.steps

            def run(tray):
                return freeze(roll_pool(tray, die, count, steps, None, ""))

            try:
                found = enumerate_draws(run, self.limits, epsilon=self.epsilon)
            except TooComplex as error:
                if not ordered:
                    raise
                raise TooComplex(IN_ORDER.fill(why=error.args[0])) from None
            self.asked[key] = found
        return found

    def chain_answers(self, chain: ChainRoll, questions: tuple) -> Dist:
        """A named roll: its total; other questions of a roll that is one dice term by
        that term's counts, else by walking every way its procedure's dice can fall."""
        rolls = [roll for _, rolls, _ in chain.parts for roll in rolls]
        if len(rolls) == 1 and _total_of(rolls[0]) is chain.total:
            return self.answers(rolls[0], questions)
        if all(type(q) is Total for q in questions):
            return chain.total.map(lambda total: (total,) * len(questions))
        if chain.concrete is None:
            raise TooComplex(
                tr(
                    "the dice of roll {name} (more than one dice term) are not counted",
                    name=chain.name,
                )
            )
        return self.chain_rolls(chain.concrete).map(
            lambda frozen: tuple(q.of_roll(thaw_chain(frozen)) for q in questions)
        )

    def chain_rolls(self, concrete: tuple) -> Dist:
        """Every way a named roll's procedure can fall, as a real run rolls it (frozen
        ChainRolls), with the arguments it was given (`ChainRoll.concrete`): walked once
        per roll and arguments (an exploding chain followed until what is left is below
        the roller's epsilon)."""
        key, run = concrete
        key = ("chain rolls", key)
        found = self.asked.get(key)
        if found is None:

            def walked(tray):
                return freeze_chain(run(tray))

            try:
                found = enumerate_draws(walked, self.limits, epsilon=self.epsilon)
            except EvaluationError as error:  # (a chain past the limit: the sampler says it)
                raise TooComplex(str(error)) from None
            self.asked[key] = found
        return found

    def group(self, rolls: list, keeps: tuple, label: str) -> ChainRoll:
        """`{4d6+3d8}k4` counted: a pool known by its total (pool_answers does not take
        mixed dice yet: other questions about it are sampled)."""
        key = ("group", tuple(r.number for r in rolls), keeps)
        found = self.asked.get(key)
        if found is None:
            terms = [(r.die, r.count, r.steps) for r in rolls]
            try:
                total = group_total(
                    terms, keeps, self.epsilon, self.limits.extra_per_die, self.budget_of_term()
                )
            except NotImplementedError as error:
                raise TooComplex(str(error)) from None
            found = self.asked[key] = (total, rolls)
        return ChainRoll(label, [], found[0])

    def kept(self, values: list, keeps: tuple, each):
        """`{1d8x, 1d6x}kh1` counted: the values kept at once over the multiset of them
        (interpreter.odds.pools.kept_values), or each(*values) over every combination."""
        found = kept_values(values, keeps, self.budget_of_term())
        return lift(each, *values) if found is None else found

    def settle(self, roll, questions: tuple | None, ctx=None, name: str | None = None):
        """The pool of the world being explored, as a `let` binds it: its answers to the
        questions the rules will ask (None: any order-free question). With the `ctx` and
        `name` of the `let`, the explorer's own `let` makes a world per value at once
        (OddsRoller.bind_pool)."""
        capture = self.capture
        if capture is not None and name in capture:  # (the term, before it is counted)
            return capture[name](roll, questions, name)
        if questions is not None and any(q.ordered for q in counted_as(roll, questions)):
            if type(roll) is ChainRoll:
                if roll.concrete is None:
                    raise TooComplex(
                        tr(
                            "the dice of roll {name} in the order rolled are not counted",
                            name=roll.name,
                        )
                    )
                return thaw_chain(self.resolve(self.chain_rolls(roll.concrete)))
            if not is_term(roll):
                value_answers(roll, questions)  # (TooComplex)
            return thaw(self.resolve(self.rolls_of(roll)))
        asked = EVERYTHING if questions is None else questions
        if questions is None and (type(roll) is ChainRoll or not is_term(roll)):
            asked = (Total(),)
        values = self.pool_values(roll, asked, questions is None)
        if ctx is None or name is None:
            return self.resolve(values)
        return self.bind_pool(ctx, name, values)

    def pool_values(self, roll, asked: tuple, whole: bool) -> Dist:
        """The distribution of the values a `let` of the pool binds (Answers to `asked`;
        `whole`: the sorted kept faces kept too, where asked), made once per term and
        questions."""
        key = ("values", _key_of(roll), asked, whole)
        found = self.asked.get(key)
        if found is None:
            sorted_ = Sorted()
            keeps = whole and sorted_ in asked

            def value(answered: tuple) -> Answers:
                answers = dict(zip(asked, answered))
                kept = answers.pop(sorted_) if keeps else None
                return Answers(answers, kept, unasked)

            found = self.asked[key] = self.answers(roll, asked).map(value)
        return found


def counted_as(roll, questions: tuple) -> tuple:
    """The questions as a term's counts answer them: a question of the dice that stand
    (Standing: `max(r.dice)`) is its question of the kept dice where the term drops none
    (no keep); every kept die added up (`sum(r.sorted)`) is its total where it counts no
    successes; the others as they are."""
    if not is_term(roll) or not any(type(q) in _RECOUNTED for q in questions):
        return questions
    kinds = {step[0] for step in roll.steps}
    drops, counts = "keep" in kinds, bool(kinds & _COUNTING)
    out = []
    for question in questions:
        if type(question) is Standing and not drops:
            question = question.of
        if question == _EVERY_KEPT and not counts:
            question = Total()
        out.append(question)
    return tuple(out)


_RECOUNTED = (Standing, Summed)
_EVERY_KEPT = Summed(Sorted())
#: the steps that make a term's total a count of its dice (interpreter.dice.roll_pool)
_COUNTING = frozenset({"successes", "fail_count", "failures"})


def _key_of(roll) -> tuple:
    """What a roll's answers are remembered by: a dice term's or a distribution's number;
    a value itself; a named roll held in the key (equal only to itself)."""
    if type(roll) is Dist or is_term(roll):
        return ("number", roll.number)
    if type(roll) is ChainRoll:
        return ("held", Same(roll))
    try:
        hash(roll)
    except TypeError:
        return ("held", Same(roll))
    return ("value", roll, type(roll))


def _total_of(roll):
    """A roll's total (a dice term's, a roll shown), else None."""
    return roll.total if is_term(roll) or isinstance(roll, Rolled) else None


def is_term(roll) -> bool:
    """Whether a pool value is one dice term's (the odds roller's DistRoll, odds.dist_roll: a die, a
    count, modifiers), which every question can be asked of."""
    return hasattr(roll, "die") and hasattr(roll, "steps")


def value_answers(value, questions: tuple) -> Dist:
    """What a value that is no dice term answers where a pool was expected (a lone die's
    distribution, a number: `let r = if c then 2d20kh1 else d20` on the branch of the
    die): its total alone; any other question is left to sampling (TooComplex)."""
    if all(type(q) is Total for q in questions):
        dist = value if type(value) is Dist else Dist.point(value)
        return dist.map(lambda total: (total,) * len(questions))
    raise TooComplex(
        tr(
            "{question} of a value that is not one roll of dice is not counted",
            question=next(type(q).__name__.lower() for q in questions if type(q) is not Total),
        )
    )


def unasked(question):
    raise TooComplex(
        tr(
            "{question} of a pool, asked where it cannot be seen",
            question=type(question).__name__.lower(),
        )
    )


def freeze(roll: PoolRoll) -> tuple:
    return (tuple(tuple(face) for face in roll.faces), roll.total, roll.successes, roll.failures)


def thaw(frozen: tuple) -> PoolRoll:
    faces, total, successes, failures = frozen
    return PoolRoll("", [list(face) for face in faces], total, successes, failures)


def freeze_chain(chain: ChainRoll) -> tuple:
    parts = tuple(
        (sign, tuple(freeze(roll) for roll in rolls), value) for sign, rolls, value in chain.parts
    )
    return (chain.name, parts, chain.total)


def thaw_chain(frozen: tuple) -> ChainRoll:
    name, parts, total = frozen
    return ChainRoll(
        name, [(sign, [thaw(roll) for roll in rolls], value) for sign, rolls, value in parts], total
    )
