"""Rolls counted through the real roller: every way the dice can fall, and roll procedures."""

from __future__ import annotations

import math
from fractions import Fraction

from dsl.messages import tr
from interpreter.dice import DiceSource, Die
from interpreter.errors import WENT_ON_PAST, EvaluationError
from interpreter.odds.distribution import Dist, mixture
from interpreter.odds.polynomials import (
    TooComplex,
)
from interpreter.runtime import Roller

#: draws one enumerated roll (a procedure's base or extra) may make
ENUMERATION_LEAVES = 50_000


class NeedDie(Exception):
    def __init__(self, die: Die):
        super().__init__()
        self.die = die


class PrefixSource(DiceSource):
    """Faces from a fixed prefix; past its end, say which die is needed next."""

    origin = "forced"

    def __init__(self, prefix: tuple):
        self.prefix = prefix
        self.next = 0

    def draw(self, die: Die, position: int) -> int:  # noqa: ARG002 (a DiceSource draws with (die, position))
        if self.next >= len(self.prefix):
            raise NeedDie(die)
        face = self.prefix[self.next][0]
        self.next += 1
        return face

    def finish(self) -> None:
        pass


def enumerate_draws(
    run, limits, leaves: int = ENUMERATION_LEAVES, epsilon: Fraction | None = None
) -> Dist:
    """The exact distribution of run(tray) over every sequence of faces it may draw.

    More than `leaves` sequences is too complex. With an `epsilon`, an explosion's chain
    is followed until what is left is below it: a sequence less likely than
    epsilon / leaves is left out (the Dist's omitted mass; at most `leaves` of them, so
    less than epsilon in all); without one, for finite rolls only. This walks the real
    roller, so it means exactly what a real roll means.
    """
    probabilities: dict = {}
    stack: list[tuple[tuple, Fraction]] = [((), Fraction(1))]
    count = 0
    unlikely = None if epsilon is None else epsilon / leaves
    total = 1  # the common denominator, left-out sequences included
    while stack:
        prefix, probability = stack.pop()
        count += 1
        if count > leaves:
            raise TooComplex(tr("more than {leaves} ways the dice can fall", leaves=leaves))
        if unlikely is not None and probability < unlikely:
            total = math.lcm(total, probability.denominator)
            continue
        try:
            value = run(Roller(PrefixSource(prefix), limits))
        except NeedDie as need:
            die = need.die
            step = probability / die.size
            for face in die.faces():
                stack.append(((*prefix, (face, die.size)), step))
            continue
        probabilities[value] = probabilities.get(value, 0) + probability
    return from_fractions(probabilities, total)


def from_fractions(probabilities: dict, denominator: int = 1) -> Dist:
    """Fractions as a Dist's weights over their common denominator (at least
    `denominator`: a mass left out stays out of the weights)."""
    for p in probabilities.values():
        denominator = denominator * p.denominator // math.gcd(denominator, p.denominator)
    return Dist(
        {v: p.numerator * (denominator // p.denominator) for v, p in probabilities.items()},
        denominator,
    )


def chain_distribution(procedure, ctx, roller) -> tuple:
    """The distribution of a custom roll procedure's total (`roll x = d10 then {...}`),
    and the roller's error if the chain may go past extra_per_die (else None).

    The base roll and each rule's extra roll are enumerated through the real roller;
    the rules' conditions are the compiled conditions; a chain that goes on while its
    `again` condition holds is the fixed point C = stop + continue ⊛ C, expanded until
    the mass not yet expanded is below epsilon, or to the limit: then the mass missing
    is the chance that the real roller fails there.
    """
    saved_roller = ctx.roller
    env = ctx.env
    limits = roller.limits
    try:

        def base(roller):
            ctx.roller = roller
            roll = procedure.base(ctx)
            procedure.watch(env, [roll], roll.total)
            for index, (condition, _sign, _extra, _again, rule) in enumerate(procedure.rules):
                if _concrete_bool(condition(ctx), rule):
                    return (roll.total, index)
            return (roll.total, None)

        base_dist = enumerate_draws(base, limits)
        chains = {}
        parts = []
        failure = None
        for (total, index), weight in base_dist.weights.items():
            probability = Fraction(weight, base_dist.total)
            if index is None:
                parts.append((probability, Dist.point(total)))
                continue
            if index not in chains:
                chains[index] = _chain(procedure, procedure.rules[index], ctx, roller)
            chain, reached = chains[index]
            if reached:
                failure = WENT_ON_PAST.fill(name=procedure.name, limit=limits.extra_per_die)
            sign = procedure.rules[index][1]
            parts.append((probability, chain.map(lambda c, t=total, s=sign: t + s * c)))
        return mixture(parts), failure
    finally:
        ctx.roller = saved_roller


def _chain(procedure, rule, ctx, roller) -> tuple:
    """One rule's chain of extra rolls, and whether it was cut at the limit."""
    env = ctx.env
    _condition, _sign, extra, again, node = rule
    limits = roller.limits

    def one(roller):
        ctx.roller = roller
        captured, ctx.capture = ctx.capture, []
        try:
            value = extra(ctx)
            rolls = ctx.capture
        finally:
            ctx.capture = captured
        if again is None:
            return (value, False)
        procedure.watch(env, rolls, value)
        return (value, _concrete_bool(again(ctx), node))

    step = enumerate_draws(one, limits)
    stop = Dist({v: w for (v, go), w in step.weights.items() if not go}, step.total)
    more = Dist({v: w for (v, go), w in step.weights.items() if go}, step.total)
    chain = stop
    left = Fraction(sum(more.weights.values()), more.total)
    unexpanded = left
    rounds = 1
    if limits.extra_per_die <= 0:  # the first extra roll already goes past the limit
        return Dist({}, 1), True
    while unexpanded >= roller.epsilon and more.weights:
        rounds += 1
        if rounds > limits.extra_per_die:
            return chain, True
        chain = _add(stop, more.combine(chain, lambda a, b: a + b))
        unexpanded *= left
    return chain, False


def _add(a: Dist, b: Dist) -> Dist:
    """Two parts of one distribution, over different denominators, put together."""
    total = a.total * b.total // math.gcd(a.total, b.total)
    weights: dict = {}
    for dist in (a, b):
        scale = total // dist.total
        for outcome, weight in dist.weights.items():
            weights[outcome] = weights.get(outcome, 0) + weight * scale
    return Dist(weights, total).reduced()


def _concrete_bool(value, rule) -> bool:
    if value is True or value is False:
        return value
    raise EvaluationError(tr("a roll's condition must be yes or no"), rule.span)
