"""Dice terms in our notation beside the same roll built with icepool 2.1.3 and with dyce.

Shared by the agreement tests (tests/test_distribution.py) and the benchmark
(benchmarks/odds.py). Each case is (notation, icepool builder, dyce builder); a builder is
a function of the two libraries' modules returning the distribution (an icepool Die or a
dyce H), or None where that library has no direct way to say it. Outcomes are the term's
value, or a (successes, failures) pair where the builder gives tuples.

Open-ended rolls: icepool and dyce cap an explosion at a depth and keep the capped die's
value; ours drops the mass past epsilon (1e-12) and reports it. The depths below are
chosen so that what either side moves or leaves out is below 1e-13 for the whole term,
so the two agree to 1e-12 outcome by outcome.
"""

from __future__ import annotations

import math
import warnings

EPSILON = 1e-12


def depth(p: float, dice: int = 1, slack: float = 1e-13) -> int:
    """Explosions per die after which a term of `dice` dice, each exploding with
    probability p, has less than `slack` mass left in the capped tails."""
    return max(1, math.ceil(math.log(slack / max(dice, 1)) / math.log(p)))


def compile_term(text: str):
    """(die, count, steps) of a single dice term, compiled exactly as the interpreter does."""
    from interpreter.dice import PoolRoll
    from interpreter.expression import compile_expression
    from interpreter.limits import DEFAULT_LIMITS
    from interpreter.runtime import Context, Roller

    class Capture(Roller):
        __slots__ = ("terms",)

        def __init__(self):
            self.terms = []

        def pool(self, die, count, steps, span, label):
            self.terms.append((die, count, steps))
            return PoolRoll(label, [], 0)

        def face(self, die, span):  # a lone die with no modifiers (`d6`)
            self.terms.append((die, 1, ()))
            return die.low

    _node, value = compile_expression(text)
    capture = Capture()
    value(Context(capture, DEFAULT_LIMITS))
    if len(capture.terms) != 1:
        raise ValueError(f"{text!r} is not a single dice term")
    return capture.terms[0]


# ─── builders ───────────────────────────────────────────────────────────────
# i: the icepool module, y: the dyce module (with H, P, expand, explode_n).


def _ix(i, sides, test, dice, once=False):
    """icepool: one die of `sides` exploding on `test`, its chain summed."""
    die = i.d(sides)
    p = sum(1 for f in range(1, sides + 1) if test(f)) / sides
    return die.explode(test, depth=1 if once else depth(p, dice))


def _yx(y, sides, test, dice, once=False):
    """dyce: the same with explode_n and a resolver. dyce expands every path, so a
    condition met by k faces costs k^depth: only single-face explosions are built."""
    hits = sum(1 for f in range(1, sides + 1) if test(f))
    if hits > 1 and not once:
        return None
    p = hits / sides

    def resolve(result, _left, _done):
        return result.h if test(result.outcome) else result.outcome

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return y.explode_n(y.H(sides), n=1 if once else depth(p, dice), resolver=resolve)


def _times(count, h):
    return None if h is None else count @ h


def _y_reroll(y, sides, test, once):
    die = y.H(sides)

    def again(result):
        if not test(result.outcome):
            return result.outcome
        return die if once else y.H({})

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return y.expand(again, die)


def _y_keep(y, die, count, which):
    return (count @ y.P(die)).at(which)


def _i_counts(i, sides, success, failure=None):
    """icepool: one die's successes less its failures: what the term's total is (not the
    joint (successes, failures), which no expression here asks for)."""
    return i.d(sides).map(lambda f: int(success(f)) - (int(failure(f)) if failure else 0))


def _y_counts(y, die, success, failure=None):
    die = y.H(die) if isinstance(die, int) else die
    return die.apply(lambda f: int(success(f)) - (int(failure(f)) if failure else 0))


def _i_keep_then_explode(i, sides, count, keep, dice):
    chain = _ix(i, sides, lambda f: f == sides, dice)

    def value(faces):
        return sum((sides + chain) if f == sides else f for f in faces)

    return i.d(sides).pool(count).highest(keep).expand().map(value)


def _y_keep_then_explode(y, sides, count, keep, dice):
    chain = _yx(y, sides, lambda f: f == sides, dice)

    def value(result):
        total = 0
        for f in result.roll[-keep:]:
            total = total + ((chain + sides) if f == sides else f)
        return total

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return y.expand(value, count @ y.P(sides))


def _i_explode_keep(i, sides, count, test, keep, dice):
    p = sum(1 for f in range(1, sides + 1) if test(f)) / sides
    return i.d(sides).explode_to_pool(count, test, depth=depth(p, dice)).highest(keep).sum()


FUDGE = (-1, 0, 1)

#: (our notation, icepool builder, dyce builder)
CORPUS = [
    # plain sums, any die size, dF, d%, counts and sides as expressions
    ("d6", lambda i, y: i.d6, lambda i, y: y.H(6)),
    ("d20", lambda i, y: i.d20, lambda i, y: y.H(20)),
    ("d%", lambda i, y: i.d(100), lambda i, y: y.H(100)),
    ("2d6", lambda i, y: 2 @ i.d6, lambda i, y: 2 @ y.H(6)),
    ("3d6", lambda i, y: 3 @ i.d6, lambda i, y: 3 @ y.H(6)),
    ("10d6", lambda i, y: 10 @ i.d6, lambda i, y: 10 @ y.H(6)),
    ("100d6", lambda i, y: 100 @ i.d6, lambda i, y: 100 @ y.H(6)),
    ("3d100", lambda i, y: 3 @ i.d(100), lambda i, y: 3 @ y.H(100)),
    ("4dF", lambda i, y: 4 @ i.Die(FUDGE), lambda i, y: 4 @ y.H(FUDGE)),
    ("(2+1)d(3*2)", lambda i, y: 3 @ i.d6, lambda i, y: 3 @ y.H(6)),
    # keep and drop
    ("2d20kh1", lambda i, y: i.d20.pool(2).highest(1).sum(), lambda i, y: _y_keep(y, 20, 2, -1)),
    ("2d20kl1", lambda i, y: i.d20.pool(2).lowest(1).sum(), lambda i, y: _y_keep(y, 20, 2, 0)),
    ("2d20k", lambda i, y: i.d20.pool(2).highest(1).sum(), lambda i, y: _y_keep(y, 20, 2, -1)),
    (
        "4d6kh3",
        lambda i, y: i.d6.pool(4).highest(3).sum(),
        lambda i, y: _y_keep(y, 6, 4, slice(1, None)),
    ),
    (
        "4d6dl1",
        lambda i, y: i.d6.pool(4).lowest(drop=1).sum(),
        lambda i, y: _y_keep(y, 6, 4, slice(1, None)),
    ),
    (
        "5d10dh2",
        lambda i, y: i.d10.pool(5).highest(drop=2).sum(),
        lambda i, y: _y_keep(y, 10, 5, slice(None, 3)),
    ),
    (
        "6d6kl2",
        lambda i, y: i.d6.pool(6).lowest(2).sum(),
        lambda i, y: _y_keep(y, 6, 6, slice(None, 2)),
    ),
    (
        "10d10kh3",
        lambda i, y: i.d10.pool(10).highest(3).sum(),
        lambda i, y: _y_keep(y, 10, 10, slice(-3, None)),
    ),
    (
        "8d6dl2",
        lambda i, y: i.d6.pool(8).lowest(drop=2).sum(),
        lambda i, y: _y_keep(y, 6, 8, slice(2, None)),
    ),
    ("4d6kh3kl2", lambda i, y: i.d6.pool(4)[1:3].sum(), lambda i, y: _y_keep(y, 6, 4, slice(1, 3))),
    (
        "4dFkh2",
        lambda i, y: i.Die(FUDGE).pool(4).highest(2).sum(),
        lambda i, y: _y_keep(y, y.H(FUDGE), 4, slice(-2, None)),
    ),
    # explosions
    (
        "d6x",
        lambda i, y: _ix(i, 6, lambda f: f == 6, 1),
        lambda i, y: _yx(y, 6, lambda f: f == 6, 1),
    ),
    (
        "3d6x",
        lambda i, y: 3 @ _ix(i, 6, lambda f: f == 6, 3),
        lambda i, y: 3 @ _yx(y, 6, lambda f: f == 6, 3),
    ),
    (
        "2d10x>=9",
        lambda i, y: 2 @ _ix(i, 10, lambda f: f >= 9, 2),
        lambda i, y: _times(2, _yx(y, 10, lambda f: f >= 9, 2)),
    ),
    (
        "2d6x>4",
        lambda i, y: 2 @ _ix(i, 6, lambda f: f > 4, 2),
        lambda i, y: _times(2, _yx(y, 6, lambda f: f > 4, 2)),
    ),
    (
        "3d8x<2",
        lambda i, y: 3 @ _ix(i, 8, lambda f: f < 2, 3),
        lambda i, y: 3 @ _yx(y, 8, lambda f: f < 2, 3),
    ),
    (
        "2d12x<=1",
        lambda i, y: 2 @ _ix(i, 12, lambda f: f <= 1, 2),
        lambda i, y: 2 @ _yx(y, 12, lambda f: f <= 1, 2),
    ),
    (
        "d20x=20",
        lambda i, y: _ix(i, 20, lambda f: f == 20, 1),
        lambda i, y: _yx(y, 20, lambda f: f == 20, 1),
    ),
    (
        "3d6xo",
        lambda i, y: 3 @ _ix(i, 6, lambda f: f == 6, 3, once=True),
        lambda i, y: 3 @ _yx(y, 6, lambda f: f == 6, 3, once=True),
    ),
    (
        "4d6xo>=5",
        lambda i, y: 4 @ _ix(i, 6, lambda f: f >= 5, 4, once=True),
        lambda i, y: 4 @ _yx(y, 6, lambda f: f >= 5, 4, once=True),
    ),
    # explosions whose extra dice join the pool, then keeps
    ("8d6x=6kh3", lambda i, y: _i_explode_keep(i, 6, 8, lambda f: f == 6, 3, 8), lambda i, y: None),
    (
        "5d10xkh2",
        lambda i, y: _i_explode_keep(i, 10, 5, lambda f: f == 10, 2, 5),
        lambda i, y: None,
    ),
    # keep, then explode the kept dice
    (
        "3d6kh2x",
        lambda i, y: _i_keep_then_explode(i, 6, 3, 2, 2),
        lambda i, y: _y_keep_then_explode(y, 6, 3, 2, 2),
    ),
    # rerolls
    (
        "4d6ro=1",
        lambda i, y: 4 @ i.d6.reroll([1], depth=1),
        lambda i, y: 4 @ _y_reroll(y, 6, lambda f: f == 1, True),
    ),
    (
        "4d6rr<=2",
        lambda i, y: 4 @ i.d6.reroll(lambda f: f <= 2, depth="inf"),
        lambda i, y: 4 @ _y_reroll(y, 6, lambda f: f <= 2, False),
    ),
    (
        "3d8rr=1",
        lambda i, y: 3 @ i.d8.reroll([1], depth="inf"),
        lambda i, y: 3 @ _y_reroll(y, 8, lambda f: f == 1, False),
    ),
    (
        "4d6ro<3kh3",
        lambda i, y: i.d6.reroll(lambda f: f < 3, depth=1).pool(4).highest(3).sum(),
        lambda i, y: _y_keep(y, _y_reroll(y, 6, lambda f: f < 3, True), 4, slice(1, None)),
    ),
    (
        "2d20ro=1kh1",
        lambda i, y: i.d20.reroll([1], depth=1).pool(2).highest(1).sum(),
        lambda i, y: _y_keep(y, _y_reroll(y, 20, lambda f: f == 1, True), 2, -1),
    ),
    # success counting
    (
        "10d10cs>=6",
        lambda i, y: 10 @ i.d10.map(lambda f: int(f >= 6)),
        lambda i, y: 10 @ _y_counts(y, 10, lambda f: f >= 6),
    ),
    (
        "6d10cs>7",
        lambda i, y: 6 @ i.d10.map(lambda f: int(f > 7)),
        lambda i, y: 6 @ _y_counts(y, 10, lambda f: f > 7),
    ),
    (
        "20d10cs>=6df=1",
        lambda i, y: 20 @ _i_counts(i, 10, lambda f: f >= 6, lambda f: f == 1),
        lambda i, y: 20 @ _y_counts(y, 10, lambda f: f >= 6, lambda f: f == 1),
    ),
    # the net successes of large pools with cancelling 1s (the joint counts would be
    # (n + 1)(n + 2) / 2 Vectors for icepool, which takes seconds at 100 dice)
    (
        "50d10cs>=6df=1",
        lambda i, y: 50 @ i.d10.map(lambda f: int(f >= 6) - int(f == 1)),
        lambda i, y: 50 @ _y_counts(y, 10, lambda f: f >= 6, lambda f: f == 1),
    ),
    (
        "100d10cs>=6df=1",
        lambda i, y: 100 @ i.d10.map(lambda f: int(f >= 6) - int(f == 1)),
        lambda i, y: 100 @ _y_counts(y, 10, lambda f: f >= 6, lambda f: f == 1),
    ),
    (
        "8d10cs>=8df<=1",
        lambda i, y: 8 @ i.d10.map(lambda f: int(f >= 8) - int(f <= 1)),
        lambda i, y: 8 @ _y_counts(y, 10, lambda f: f >= 8, lambda f: f <= 1),
    ),
    (
        "4dFcs=1df=-1",
        lambda i, y: 4 @ i.Die(FUDGE).map(lambda f: int(f == 1) - int(f == -1)),
        lambda i, y: 4 @ _y_counts(y, y.H(FUDGE), lambda f: f == 1, lambda f: f == -1),
    ),
    (
        "10d10x=10cs>=8",
        lambda i, y: 10 @ _i_exploding_successes(i, 10),
        lambda i, y: 10 @ _y_exploding_successes(y, 10),
    ),
    (
        "6d10x=10cs>=8df=1",
        lambda i, y: 6 @ _i_exploding_counts(i, 6),
        lambda i, y: 6 @ _y_exploding_counts(y, 6),
    ),
    # keep, then count the kept dice (the counts only grow with the face, so counting
    # before keeping the highest is the same)
    (
        "5d10kh3cs>=6",
        lambda i, y: i.d10.map(lambda f: int(f >= 6)).pool(5).highest(3).sum(),
        lambda i, y: _y_keep(y, _y_counts(y, 10, lambda f: f >= 6), 5, slice(-3, None)),
    ),
]


#: small expressions of a few terms (issue 24: a first call built Lark's lexer), each
#: peer's best formulation: its own floor division, abs, highest and lowest of dice, its
#: sum of dice and a number
SMALL = [
    ("floor(3d6/2)", lambda i, y: (3 @ i.d6) // 2, lambda i, y: (3 @ y.H(6)) // 2),
    ("ceil(3d6/2)", lambda i, y: -((-(3 @ i.d6)) // 2), lambda i, y: -((-(3 @ y.H(6))) // 2)),
    ("max(1d20, 1d20)", lambda i, y: i.highest(i.d20, i.d20), lambda i, y: _y_keep(y, 20, 2, -1)),
    ("min(1d20, 1d20)", lambda i, y: i.lowest(i.d20, i.d20), lambda i, y: _y_keep(y, 20, 2, 0)),
    ("abs(1d6 - 1d6)", lambda i, y: abs(i.d6 - i.d6), lambda i, y: abs(y.H(6) - y.H(6))),
    ("floor((2d6 + 3) / 2)", lambda i, y: (2 @ i.d6 + 3) // 2, lambda i, y: (2 @ y.H(6) + 3) // 2),
    # terms with other modifiers (issue 24: each loaded Lark's parser on a first call)
    ("4dF + 2", lambda i, y: 4 @ i.Die(FUDGE) + 2, lambda i, y: 4 @ y.H(FUDGE) + 2),
    ("d% + 10", lambda i, y: i.d(100) + 10, lambda i, y: y.H(100) + 10),
    (
        "3d6x + 1",
        lambda i, y: 3 @ _ix(i, 6, lambda f: f == 6, 3) + 1,
        lambda i, y: 3 @ _yx(y, 6, lambda f: f == 6, 3) + 1,
    ),
    # a whole expression compared (each library's own comparison of a die with a number)
    ("2d6 >= 7", lambda i, y: (2 @ i.d6) >= 7, lambda i, y: (2 @ y.H(6)).ge(7)),
    ("1d20 + 5 > 15", lambda i, y: (i.d20 + 5) > 15, lambda i, y: (y.H(20) + 5).gt(15)),
]


def _i_exploding_successes(i, dice):
    """icepool: successes (>= 8) of one d10 exploding on 10s (each extra die counts too)."""
    chain = i.d10.explode([10], depth=depth(0.1, dice))
    # a chain of k tens and a last die f gives k + [f >= 8] successes
    return chain.map(lambda total: total // 10 + int(total % 10 >= 8))


def _y_exploding_successes(y, dice):
    chain = _yx(y, 10, lambda f: f == 10, dice)
    return chain.apply(lambda total: total // 10 + int(total % 10 >= 8))


def _i_exploding_counts(i, dice):
    """icepool: successes (>= 8) less failures (= 1) of one d10 exploding on 10s."""
    chain = i.d10.explode([10], depth=depth(0.1, dice))
    return chain.map(lambda t: t // 10 + int(t % 10 >= 8) - int(t % 10 == 1))


def _y_exploding_counts(y, dice):
    chain = _yx(y, 10, lambda f: f == 10, dice)
    return chain.apply(lambda t: t // 10 + int(t % 10 >= 8) - int(t % 10 == 1))


#: how to get the peers the benchmarks compare against
INSTALL = "/tmp/venv/bin/pip install icepool==2.1.3 dyce"


def peers():
    """(icepool, dyce), imported with their warnings silenced; None (said) without them."""
    warnings.simplefilter("ignore")
    try:
        import dyce
        import icepool
    except ImportError:
        print(f"icepool and dyce are needed: {INSTALL}")
        return None
    return icepool, dyce
