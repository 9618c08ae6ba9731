"""Dice terms counted once per process (distributions, answers, may-fail), within a memory bound."""

from __future__ import annotations

import threading
from fractions import Fraction

from interpreter.odds import pools
from interpreter.odds.distribution import KEPT, Dist
from interpreter.odds.polynomials import Budget
from interpreter.odds.pools import DEFAULT_BUDGET
from interpreter.odds.walker import CHAINS

# A term's distribution depends only on its die, count and modifiers (compiled once per
# rulebook), epsilon and the bounds of the work: the same terms come back call after call
# (the check of an action asked for again with another modifier, the dice of an
# expression), so the odds roller keeps what was counted, within a bound on the memory
# it holds; a term's modifiers are keyed by what they do (`steps_key`: a computed
# modifier's test is a new function each time it is made). (pools.pool_distribution and
# pools.may_fail themselves count every time.)


def counted_distribution(die, count, steps, epsilon, budget: Budget, limit, net=False) -> Dist:
    """pool_distribution, kept for the next time the same term is asked for."""
    key = (
        "term",
        die.key,
        count,
        steps_key(die, steps),
        _exactly(epsilon),
        budget.limit,
        budget.max_bytes,
    )
    return remembered_term(
        (*key, limit, net),
        lambda: pools.pool_distribution(die, count, steps, epsilon, budget, limit=limit, net=net),
    )


def counted_answers(die, count, steps, questions, epsilon, budget: Budget, limit) -> Dist:
    """pool_answers, kept as counted_distribution keeps its terms: the answers depend on
    nothing else, and a term's work is charged to its own budget alone (in the key)."""
    key = (
        "answers",
        die.key,
        count,
        steps_key(die, steps),
        questions,
        _exactly(epsilon),
        budget.limit,
    )
    return remembered_term(
        (*key, budget.max_bytes, limit),
        lambda: pools.pool_answers(die, count, steps, questions, epsilon, budget, limit),
    )


def never_fails(die, steps: tuple) -> bool:
    """Whether a term cannot go past the limit: no explosion nor reroll (no Term)."""
    return die.size <= DEFAULT_BUDGET and not any(step[0] in CHAINS for step in steps)


def counted_may_fail(die, count: int, steps: tuple, epsilon, limit: int, work=None) -> bool:
    """may_fail, kept as counted_distribution keeps its terms."""
    if never_fails(die, steps):
        return False  # no explosion nor reroll: nothing may go past the limit (no Term)
    key = ("may fail", die.key, count, steps_key(die, steps), _exactly(epsilon), limit)
    return remembered_term(key, lambda: pools.may_fail(die, count, steps, epsilon, limit, work))


#: (die key, steps, their key) of the term keyed last: a term's pool, whether it may fail,
#: its distribution and its answers are keyed one after another (its tests run once)
_last_keyed: list = [None]


def steps_key(die, steps: tuple) -> tuple:
    """Modifiers that roll alike have equal keys: tests by the faces they hold for (by
    identity when a die may show what no face shows, or has too many faces)."""
    if not steps:  # (a plain term: asked for every pool a run rolls)
        return ()
    last = _last_keyed[0]
    if last is not None and last[1] is steps and last[0] == die.key:
        return last[2]
    key = _tests_key(die, steps)
    _last_keyed[0] = (die.key, steps, key)
    return key


def _tests_key(die, steps: tuple) -> tuple:
    """steps_key, made: each step's test run on every face."""
    faces = list(die.faces()) if die.size <= 1000 else None
    if any(step[0] in ("compound", "penetrate", "clamp") for step in steps):
        faces = None
    out = []
    for step in steps:
        kind = step[0]
        if kind in ("keep", "clamp", "sort"):
            out.append(step[:3])
        elif kind in CHAINS:
            test = step[2]
            out.append((kind, step[1], tuple(test(f) for f in faces) if faces else test))
        else:
            test = step[1]
            out.append((kind, tuple(test(f) for f in faces) if faces else test))
    return tuple(out)


#: whether a kept distribution's projections onto fields are kept with it (Dist.project)
PROJECTIONS_KEPT = True
#: terms kept at most, and the (estimated) bytes of their weights
TERMS_KEPT = 256
TERM_BYTES_KEPT = 16 * 2**20

_counted: dict = {}  # key → (answer, its bytes), the oldest first
_counted_bytes = [0]
_counted_lock = threading.Lock()


def _exactly(number):
    """A number as a key (a Fraction's hash takes a modular inverse: not each call)."""
    if type(number) is Fraction:
        return (number.numerator, number.denominator)
    return number


def remembered_term(key: tuple, compute):
    """compute(), or what it gave before for the same key (an error is not kept: it
    comes again)."""
    try:
        found = _counted.get(key)
    except TypeError:  # a modifier that cannot be a key: counted every time
        return compute()
    if found is not None:
        return found[0]
    answer = compute()
    size = 64
    # (a Dist, or a tuple led by one: its weights are what the memory holds)
    dist = answer[0] if type(answer) is tuple and answer else answer
    if type(dist) is Dist:
        size += len(dist.weights) * (48 + dist.total.bit_length() // 8)
    if size > TERM_BYTES_KEPT // 16:
        return answer
    with _counted_lock:
        if key not in _counted:
            _counted[key] = (answer, size)
            _counted_bytes[0] += size
            if type(dist) is Dist and PROJECTIONS_KEPT:  # (its cuts kept with it: KEPT)
                KEPT.setdefault(dist.number, {})
            while len(_counted) > TERMS_KEPT or _counted_bytes[0] > TERM_BYTES_KEPT:
                gone, gone_size = _counted.pop(next(iter(_counted)))
                _counted_bytes[0] -= gone_size
                gone = gone[0] if type(gone) is tuple and gone else gone
                if type(gone) is Dist:
                    KEPT.pop(gone.number, None)
    return answer
