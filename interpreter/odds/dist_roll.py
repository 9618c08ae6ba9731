"""One dice term of the odds roller: its (total, successes, failures) distribution, when asked."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from interpreter.dice import Die
from interpreter.odds.distribution import Dist, mixture
from interpreter.odds.keys import next_number
from interpreter.odds.pools import limit_failures
from interpreter.odds.remembered import counted_may_fail, never_fails


class DistRoll:
    """A dice term in odds mode: its die, count and modifiers, and (computed when first
    asked for) the distribution of (total, successes, failures)."""

    __slots__ = (
        "_dist",
        "_raw",
        "_total",
        "count",
        "die",
        "failure",
        "finished",
        "number",
        "roller",
        "steps",
    )

    def __init__(self, roller, die: Die, count: int, steps: tuple):
        self.roller, self.die, self.count, self.steps = roller, die, count, steps
        self.number = next_number()  # what its answers are remembered by
        self._dist: Dist | None = None
        self._raw: Dist | None = None
        self._total: Dist | None = None
        self.finished: Any = None  # (not yet asked) a Dist of yes or why it failed; or False
        self.failure = not never_fails(die, steps) and counted_may_fail(
            die, count, steps, roller.epsilon, roller.extra_per_die, roller.budget_of_term()
        )  # (its budget made only for a term that may fail)

    def raw(self) -> Dist:
        """The term's distribution; for a term that may fail at the roller's limit, what
        it misses is the chance of failing."""
        if self._raw is None:
            self._raw = self.roller.term_distribution(self.die, self.count, self.steps)
        return self._raw

    @property
    def dist(self) -> Dist:
        """The distribution in the worlds where the roll finished."""
        if self._dist is None:
            raw = self.raw()
            if self.failure:
                raw = Dist(raw.weights, sum(raw.weights.values()))
            self._dist = raw
        return self._dist

    def finishes(self) -> Dist | None:
        """yes (the roll finished) or why it failed at the limit, with their chances;
        None when it always finishes."""
        raw = self.raw()
        done = sum(raw.weights.values())
        if done == raw.total:
            return None
        missing = Fraction(raw.total - done, raw.total)
        ways = limit_failures(
            self.die,
            self.count,
            self.steps,
            self.roller.epsilon,
            self.roller.extra_per_die,
            missing,
            self.roller.budget_of_term,
        )
        parts = [(1 - missing, Dist.point(True))]
        parts += [(chance, Dist.point(message)) for message, chance in ways if chance]
        return mixture(parts)

    @property
    def total(self) -> Dist:
        if self._total is None:  # one object, so that lifts over it are remembered
            if self._dist is None and self.nets():  # the difference alone is cheaper
                net = self.roller.term_distribution(self.die, self.count, self.steps, net=True)
                if self.failure:
                    net = Dist(net.weights, sum(net.weights.values()))
                self._total = net.map(lambda o: o[0])
            else:
                self._total = self.dist.map(lambda o: o[0])
        return self._total

    def nets(self) -> bool:
        """Whether the term takes failures from its successes (`cs…df…`)."""
        return any(step[0] == "failures" for step in self.steps)

    @property
    def successes(self) -> Dist:
        return self.dist.map(lambda o: o[1])

    @property
    def failures(self) -> Dist:
        return self.dist.map(lambda o: o[2])
