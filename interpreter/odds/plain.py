"""Plain dice (`3d6`, `2d20kh1`, `6d10cs>7`, `(2+1)d6`): their exact distribution from the text.

The commonest expression asked for is a plain term: a count, `d`, a number of faces, and
perhaps a reroll, one keep and one count of successes. Its distribution needs none of
the parser, checker, compiler or explorer that any other text goes through, which a first
call would pay for in full (in a fresh process, more than half of `2d20kh1`'s 0.9 ms).
A text read here as a plain term is exactly the term the parser builds
(tests/test_odds_reuse.py holds the two together); anything else, and any term near a
limit (which the general path refuses or samples, with its own words), is left to the
general path: None.
"""

from __future__ import annotations

import re
from math import comb

from dsl.errors import Source, Span
from interpreter.dice import Die, predicate
from interpreter.odds.distribution import SMALL_SUM, Dist, uniform_sum
from interpreter.odds.polynomials import Budget
from interpreter.odds.pools import DEFAULT_BUDGET, term_budget
from interpreter.odds.remembered import counted_distribution, counted_may_fail
from interpreter.odds.roller import shares_of
from interpreter.odds.small import Nodes, small_distribution

#: `d6`, `3d6`, `10d10`, `d%`, `4dF` (Fudge dice: with a count; `df` alone is a name): no
#: sign, no zero in front, no space; then perhaps a reroll (`4d6ro=1`, `3d8rr=1`: one that
#: cannot reach the roller's limit), then at most one keep or drop (`2d20kh1`, `4dFkh2`: of
#: fewer dice than the count), then at most one count of successes, less failures
#: (`6d10cs>7`, `20d10cs>=6df=1`, `5d10kh3cs>=6`: the kept dice's successes)
#: a count or a number of faces written as whole numbers added, taken or multiplied, in
#: parentheses (`(2+1)d(3*2)`): worked out here as the compiled term works it out
_FOLDED = r"\((?:(?:0|[1-9][0-9]{0,3})[-+*]){1,3}(?:0|[1-9][0-9]{0,3})\)"
_COUNT = rf"[1-9][0-9]{{0,3}}|{_FOLDED}"
PLAIN = re.compile(
    rf"(?:({_COUNT})?d([1-9][0-9]{{0,3}}|%|{_FOLDED})|({_COUNT})d([Ff]))"
    r"(?:(ro|rr)(>=|<=|>|<|=)(-?(?:0|[1-9][0-9]{0,3})))?"
    r"(?:(kh|kl|dh|dl|k|d)([1-9][0-9]{0,2})?)?"
    r"(?:cs(>=|<=|>|<|=)(-?(?:0|[1-9][0-9]{0,3}))(?:df(>=|<=|>|<|=)(-?(?:0|[1-9][0-9]{0,3})))?)?"
)

#: a count of successes alone (`6d10cs>7`, `4dFcs=1df=-1`: less failures) of up to
#: BINOMIAL_DICE dice counted as the binomial (or trinomial) it is, without the pool's
#: machinery, which a first call pays for in full (switch off to compare); past them the
#: pool's convolutions are the faster
BINOMIAL = True
BINOMIAL_DICE = 64
TRINOMIAL_DICE = 16  # (its count's cost grows as the square of the dice)

#: a lone die (`d6`, `1d20`, `d%`), the commonest text asked for, answered by `lone_die`
#: before any deadline is set up or the plain term's checks made (a first call pays for
#: every line it runs: in a fresh process `d6` took 70 µs against dyce's 30; switch off
#: to compare)
LONE_DIE = True
LONE = re.compile(r"1?d([1-9][0-9]{0,3}|%)")

#: the keeps spelled with one letter (`2d20k`, `4d6d1`), as the builder reads them
KEEPS = {"k": "kh", "d": "dl"}


def plain_distribution(
    text: str, epsilon, limits, deadline, budget: int | None = None
) -> Dist | None:
    """The distribution of a plain term's total, or of a small expression over plain
    terms (interpreter.odds.small: `floor(3d6/2)`), or None (neither, or near a limit);
    `budget` is the caller's (`--budget`: the roller's own share of it for one term)."""
    match = PLAIN.fullmatch(text)
    if match is None:

        def term(written: str) -> Dist | None:  # (a lone die, `1d20`: as lone_die gives it)
            found = lone_die(written, limits)
            if found is None:
                found = term_distribution(
                    PLAIN.fullmatch(written), written, epsilon, limits, deadline, budget
                )
            return found

        return small_distribution(
            text,
            term,
            limits,
            DEFAULT_BUDGET if budget is None else budget,
            (term_node, term_end) if MORE_TERMS else (None, None),
        )
    return term_distribution(match, text, epsilon, limits, deadline, budget)


#: a small expression's terms may be any PLAIN reads (`4dF + 2`, `d% + 10`,
#: `max(2d20ro=1, 1d20)`), not only those of dsl.plain_dice's reader (dice and keeps):
#: they would take the parser, checker, compiler and explorer (switch off to compare)
MORE_TERMS = True


def term_end(text: str, start: int) -> int | None:
    """Where a term PLAIN reads at `start` of a small expression ends, when it ends
    there as the grammar's DICE token (the lexer's: `2d6kh-1` is a keep of -1 to it),
    its count written in digits; or None."""
    found = PLAIN.match(text, start)
    if found is None or text[start] == "(":
        return None
    from dsl.dice_terminal import dice_end  # (the grammar's own terminal, without Lark)

    end = dice_end(text, start)
    return end if end == found.end() else None


def term_node(written: str, start: int) -> Nodes.Dice | None:
    """The node of a term `term_end` found: its dice, and its written parts' steps (the
    count, keep's count, each condition's value: nodes the compiled term evaluates)."""
    match = PLAIN.fullmatch(written)
    if match is None:
        return None
    counted = match[1] or match[3]
    count = int(counted) if counted else 1
    steps = bool(counted) + bool(match[9]) + bool(match[5]) + bool(match[10]) + bool(match[12])
    return Nodes.Dice(count, None, (), (start, start + len(written)), steps)


def lone_die(text: str, limits) -> Dist | None:
    """A lone die's distribution, as term_distribution gives it (its faces, uniform), or
    None (not one, or past a limit: the general path says so)."""
    match = LONE.fullmatch(text) if LONE_DIE else None
    if match is None:
        sides = 0
    else:
        sides = 100 if match[1] == "%" else int(match[1])
    if (
        not sides
        or sides > limits.faces_per_die
        or sides > limits.odds_outcomes
        or limits.dice_per_term < 1
        or limits.dice_per_evaluation < 1
    ):
        return None
    return Dist.uniform(range(1, sides + 1))


def term_distribution(match, text: str, epsilon, limits, deadline, budget) -> Dist | None:
    """A plain term's distribution (PLAIN's `match` of its `text`), or None."""
    if match is None:
        return None
    if match[3]:  # Fudge dice: faces -1, 0, 1
        count, sides, die = folded(match[3]), 3, Die.of("F")
    else:
        count = folded(match[1]) if match[1] else 1
        sides = 100 if match[2] == "%" else folded(match[2])
        if sides < 1:  # (the compiled term refuses it, with its words)
            return None
        die = Die.of(sides)
    if count < 1:
        return None
    steps = modifier_steps(match, count, text)
    if steps is None:
        return None
    outcomes = count * (sides - 1) + 1
    if (
        count > limits.dice_per_term
        or count > limits.dice_per_evaluation
        or sides > limits.faces_per_die
        or max(sides, outcomes) > limits.odds_outcomes
    ):
        return None
    if not steps and count == 1:
        return Dist.uniform(die.faces())  # as the odds roller gives a lone die
    if not steps and count * outcomes <= SMALL_SUM:
        return uniform_sum(count, sides, die.low)
    most = BINOMIAL_DICE if len(steps) == 1 else TRINOMIAL_DICE
    if BINOMIAL and steps and count <= most and steps[0][0] == "successes":
        return successes(die, count, *(test for _, test in steps))
    work = term_budget(budget) if budget is not None else DEFAULT_BUDGET
    term_work = Budget(work, limits.odds_bytes, deadline)  # as the roller's own
    share = shares_of(epsilon)[0]  # what the roller lets one term leave out
    if match[5] and counted_may_fail(die, count, steps, share, limits.extra_per_die, term_work):
        return None  # a reroll that may reach the roller's limit: the general path says so
    net = bool(match[12])  # (as the roller counts `cs…df…`: the difference alone)
    term = counted_distribution(die, count, steps, share, term_work, limits.extra_per_die, net)
    return term.map(_total)


def successes(die: Die, count: int, test, failure=None) -> Dist:
    """How many of `count` dice pass `test`, less those that pass `failure`: k of them
    (none failing) in comb(count, k) hits^k misses^(count - k) of the sides^count ways;
    with failures, each die counting +1, -1 or 0, the trinomial's sum."""
    faces = die.faces()
    hits = sum(1 for face in faces if test(face))
    if failure is None:
        misses = len(faces) - hits
        weights = {k: comb(count, k) * hits**k * misses ** (count - k) for k in range(count + 1)}
        return Dist({k: w for k, w in weights.items() if w}, len(faces) ** count)
    signs = [bool(test(face)) - bool(failure(face)) for face in faces]
    up, down = signs.count(1), signs.count(-1)
    still = len(faces) - up - down
    weights = {}
    for p in range(count + 1):  # p dice up, q down, the rest still
        ways = comb(count, p) * up**p
        for q in range(count - p + 1):
            w = ways * comb(count - p, q) * down**q * still ** (count - p - q)
            if w:
                weights[p - q] = weights.get(p - q, 0) + w
    return Dist(weights, len(faces) ** count)


#: the signed terms of FOLDED's sum, each a product
_TERMS = re.compile(r"([-+]?)([^-+]+)")


def folded(written: str) -> int:
    """A whole number as PLAIN reads it, or its parentheses' sum of products worked out."""
    if written[0] != "(":
        return int(written)
    total = 0
    for sign, term in _TERMS.findall(written[1:-1]):
        product = 1
        for factor in term.split("*"):
            product *= int(factor)
        total += -product if sign == "-" else product
    return total


def modifier_steps(match, count: int, text: str) -> tuple | None:
    """The steps the compiler makes of PLAIN's modifiers (interpreter.compile.dice), or
    None for a keep of all the dice (the checker has a word for it: the general path)."""
    steps: tuple = ()
    if match[5]:
        span = Span(Source("<expression>", text), match.start(5), match.end(7))
        steps += (("reroll", match[5] == "ro", predicate(match[6], int(match[7])), span),)
    if match[8]:
        k = int(match[9]) if match[9] else 1
        if k >= count:
            return None
        span = Span(Source("<expression>", text), match.start(8), match.end(9 if match[9] else 8))
        steps += (("keep", KEEPS.get(match[8], match[8]), k, span),)
    if match[10]:
        steps += (("successes", predicate(match[10], int(match[11]))),)
        if match[12]:
            steps += (("failures", predicate(match[12], int(match[13]))),)
    return steps


def _total(outcome):
    return outcome[0]
