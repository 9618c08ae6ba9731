"""Plain dice (`3d6`, `d20`, `d%`, `4dF`): their exact distribution straight from the text.

The commonest expression asked for is a plain term: a count, `d`, a number of faces. Its
distribution needs none of the parser, checker, compiler or explorer that any other text
goes through, which a first call would pay for in full. A text read here as a plain
term is exactly the term the parser builds (tests/test_odds_reuse.py holds the two
together); anything else, and any term near a limit (which the general path refuses or
samples, with its own words), is left to the general path: None.
"""

from __future__ import annotations

import re

from interpreter.dice import Die
from interpreter.odds.distribution import Dist
from interpreter.odds.polynomials import Budget
from interpreter.odds.pools import DEFAULT_BUDGET, counted_distribution, term_budget
from interpreter.odds.roller import shares_of

#: `d6`, `3d6`, `10d10`, `d%`, `4dF` (Fudge dice: with a count; `df` alone is a name): no
#: sign, no zero in front, no space, no modifier
PLAIN = re.compile(r"([1-9][0-9]{0,3})?d([1-9][0-9]{0,3}|%)|([1-9][0-9]{0,3})d([Ff])")


#: sums small enough to count by hand, one die after another (dice × outcomes: the
#: additions it takes; `3d6`, `2d20`): they are what is asked most, and a first call
#: then runs little code (past it, pool_distribution's packed products are faster)
SMALL_SUM = 120


def plain_distribution(
    text: str, epsilon, limits, deadline, budget: int | None = None
) -> Dist | None:
    """The distribution of a plain term's total, or None (not plain, or near a limit);
    `budget` is the caller's (`--budget`: the roller's own share of it for one term)."""
    match = PLAIN.fullmatch(text)
    if match is None:
        return None
    if match[3]:  # Fudge dice: faces -1, 0, 1
        count, sides, die = int(match[3]), 3, Die.of("F")
    else:
        count = int(match[1]) if match[1] else 1
        sides = 100 if match[2] == "%" else int(match[2])
        die = Die.of(sides)
    outcomes = count * (sides - 1) + 1
    if (
        count > limits.dice_per_term
        or count > limits.dice_per_evaluation
        or sides > limits.faces_per_die
        or max(sides, outcomes) > limits.odds_outcomes
    ):
        return None
    if count == 1:
        return Dist.uniform(die.faces())  # as the odds roller gives a lone die
    if count * outcomes <= SMALL_SUM:
        return uniform_sum(count, sides, die.low)
    work = term_budget(budget) if budget is not None else DEFAULT_BUDGET
    term_work = Budget(work, limits.odds_bytes, deadline)  # as the roller's own
    share = shares_of(epsilon)[0]  # what the roller lets one term leave out
    term = counted_distribution(die, count, (), share, term_work, limits.extra_per_die)
    return term.map(_total)


def uniform_sum(count: int, sides: int, low: int = 1) -> Dist:
    """The sum of `count` dice of faces low..low + sides - 1 (the distribution
    pool_distribution counts: the fewest ways, one, leave no common factor to take out)."""
    ways = [1] * sides  # ways[i]: the ways to make count + i, so far
    for _ in range(count - 1):
        running = [0]  # running[j]: ways[0] + ... + ways[j - 1]
        for w in ways:
            running.append(running[-1] + w)
        last = len(ways)
        # one more die: a new sum t gets the ways of t - sides .. t - 1 before it
        ways = [
            running[min(t + 1, last)] - running[max(t + 1 - sides, 0)]
            for t in range(last + sides - 1)
        ]
    return Dist({count * low + i: w for i, w in enumerate(ways)}, sides**count)


def _total(outcome):
    return outcome[0]
