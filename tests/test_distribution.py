"""The exact distribution of one dice term (interpreter.odds.pools.pool_distribution).

- closed forms: sums of d6, binomial and trinomial success counts, keep-highest order
  statistics (4d6kh3, advantage);
- an oracle: every sequence of faces the REAL roller (interpreter.dice.roll_pool) may
  draw, walked depth-first with exact probabilities, for hand-picked terms that reach
  each way of computing and for hypothesis-generated ones; explosions and rerolls are
  cut at a depth, and the two sides must then agree within the mass each leaves out;
- agreement to 1e-12 with icepool 2.1.3 over benchmarks/corpus.py (icepool is a test
  dependency: /tmp/venv/bin/pip install icepool==2.1.3 dyce).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import every_roll_cut

from dsl.errors import RulebookError
from interpreter.dice import DiceTray, roll_pool
from interpreter.errors import EvaluationError
from interpreter.limits import DEFAULT_LIMITS
from interpreter.odds import Dist, TooComplex, pool_distribution
from interpreter.odds.pools import may_fail

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.corpus import CORPUS, compile_term

EPS = Fraction(1, 10**12)


def dist(text: str, epsilon=EPS, **options) -> Dist:
    die, count, steps = compile_term(text)
    return pool_distribution(die, count, steps, epsilon, **options)


def totals(d: Dist) -> dict:
    out: dict = {}
    for (total, _, _), p in d.items():
        out[total] = out.get(total, 0) + p
    return out


def table(weights: dict, den: int) -> dict:
    return {k: Fraction(w, den) for k, w in weights.items()}


# ─── closed forms ───────────────────────────────────────────────────────────


def test_2d6_and_3d6_are_the_known_tables():
    two = dict(zip(range(2, 13), [1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1]))
    three = dict(zip(range(3, 19), [1, 3, 6, 10, 15, 21, 25, 27, 27, 25, 21, 15, 10, 6, 3, 1]))
    assert totals(dist("2d6")) == table(two, 36)
    assert totals(dist("3d6")) == table(three, 216)
    assert dist("3d6").omitted == 0
    assert all(s is None and f is None for _, s, f in dist("3d6").weights)


def test_binomial_success_counts():
    p = Fraction(3, 10)  # d10 >= 8
    for n in (1, 5, 12):
        d = dist(f"{n}d10cs>=8")
        assert d.items() and all(t == s and f == 0 for t, s, f in d.weights)
        assert totals(d) == {k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def test_trinomial_successes_and_failures():
    n, ps, pf, pn = 20, Fraction(5, 10), Fraction(1, 10), Fraction(4, 10)
    d = dist(f"{n}d10cs>=6df=1")
    expected = {}
    for s in range(n + 1):
        for f in range(n - s + 1):
            r = n - s - f
            ways = comb(n, s) * comb(n - s, f)
            expected[(s - f, s, f)] = ways * ps**s * pf**f * pn**r
    assert dict(d.items()) == expected
    assert len(d) == 231


def test_4d6kh3_is_the_known_table():
    counts = [1, 4, 10, 21, 38, 62, 91, 122, 148, 167, 172, 160, 131, 94, 54, 21]
    assert totals(dist("4d6kh3")) == table(dict(zip(range(3, 19), counts)), 1296)
    assert totals(dist("4d6dl1")) == totals(dist("4d6kh3"))


def test_advantage_and_disadvantage():
    assert totals(dist("2d20kh1")) == {k: Fraction(2 * k - 1, 400) for k in range(1, 21)}
    assert totals(dist("2d20kl1")) == {k: Fraction(41 - 2 * k, 400) for k in range(1, 21)}
    assert totals(dist("2d20k")) == totals(dist("2d20kh1"))


def test_exploding_d6_chain():
    d = totals(dist("d6x"))
    assert d[5] == Fraction(1, 6)
    assert 6 not in d and 12 not in d
    assert d[7] == Fraction(1, 36)
    assert d[13] == Fraction(1, 216)
    assert d[6 * 9 + 4] == Fraction(1, 6**10)


def test_rerolls_are_exact():
    # rr: rolled until the condition fails, so uniform over the other faces
    assert totals(dist("d6rr<=2")) == {k: Fraction(1, 4) for k in range(3, 7)}
    # ro: once; the new die stands even when it meets the condition
    ro = totals(dist("d6ro=1"))
    assert ro[1] == Fraction(1, 36) and ro[4] == Fraction(7, 36)
    assert dist("4d6rr<=2").omitted == 0


def test_fudge_percentile_and_other_sizes():
    assert totals(dist("dF")) == {-1: Fraction(1, 3), 0: Fraction(1, 3), 1: Fraction(1, 3)}
    assert totals(dist("4dF"))[0] == Fraction(19, 81)
    assert totals(dist("d%")) == {k: Fraction(1, 100) for k in range(1, 101)}
    assert totals(dist("3d7"))[12] == Fraction(comb(11, 2) - 3 * comb(4, 2), 343)
    assert totals(dist("2d1")) == {2: 1}


def test_no_dice():
    assert dist("0d6").weights == {(0, None, None): 1}
    assert dict(dist("0d10cs>=6df=1").items()) == {(0, 0, 0): 1}
    assert dict(dist("0d6x").items()) == {(0, None, None): 1}
    assert dict(dist("0d6kh2").items()) == {(0, None, None): 1}


def test_a_condition_every_face_meets_is_an_error_as_when_rolling():
    for text in ("2d1x", "d6x>=1", "3d6rr<7", "0d6x<7"):
        with pytest.raises(EvaluationError, match="would never end"):
            dist(text)
    assert totals(dist("d6xo>=1")) == totals(dist("2d6"))  # once: every die adds one
    assert totals(dist("d6ro>=1")) == {k: Fraction(1, 6) for k in range(1, 7)}


def test_omitted_mass_is_below_epsilon_for_the_whole_term():
    for text in (
        "d6x",
        "30d6x",
        "20d6x>=5",
        "6d10x=10cs>=8",
        "8d6x=6kh3",
        "3d6kh2x",
        "3d6x>=5dh1",
        "4d6x=6xo",
        "3d6x=2kh2",
        "2d6xokh1x",
    ):
        for epsilon in (Fraction(1, 10**3), Fraction(1, 10**9)):
            d = dist(text, epsilon)
            assert 0 < d.omitted < epsilon, text
            assert d.omitted == 1 - sum(p for _, p in d.items())


def test_epsilon_must_be_positive():
    with pytest.raises(ValueError):
        dist("d6x", 0)


def test_a_term_past_the_budget_is_too_complex():
    with pytest.raises(TooComplex):
        dist("8d6kh4rr=1kh2", budget=1000)
    assert totals(dist("8d6kh4rr=1kh2"))  # the same within the default budget
    for text in (
        "d100x>=2",  # 99% to go on: too many dice before 1e-12
        "10d10xo=5dl1dh1",  # every sorted pool of up to 20 dice
        "10d10xo=5kh9",  # every 9 highest of them
        "2d6x=6x=6",
    ):  # explosions inside explosions: huge denominators
        with pytest.raises(TooComplex):  # at the default budget of counted work
            dist(text)
    assert dist("2d6x=6x=6", Fraction(1, 10**6)).omitted < Fraction(1, 10**6)


def test_success_pools_take_little_work():
    # counted, not timed (benchmarks/pools.py times them): within a budget of a thousand
    # units, where a pool of 20 dice counted die by die would need far more
    die, count, steps = compile_term("20d10cs>=6df=1")
    assert pool_distribution(die, count, steps, EPS, budget=1000).total > 0


# ─── the oracle: every way the real roller can draw ─────────────────────────


def brute_force(die, count, steps, max_draws: int):
    """(probability of each outcome over the sequences of at most max_draws faces,
    the probability of the sequences cut there)."""

    def run(dice):
        roll = roll_pool(DiceTray(dice, DEFAULT_LIMITS), die, count, steps, None, "term")
        return (roll.total, roll.successes, roll.failures)

    return every_roll_cut(run, max_draws)


def agree_with_the_roller(text: str, extra: int) -> None:
    die, count, steps = compile_term(text)
    try:
        ours = pool_distribution(die, count, steps, EPS)
    except EvaluationError:
        # The roller finds out only when it reaches the modifier that never ends, after
        # every die the modifiers before it draw: enough draws for each to take one.
        with pytest.raises(EvaluationError):
            brute_force(die, count, steps, count * (1 + len(steps)) + extra)
        return
    theirs, cut = brute_force(die, count, steps, count + extra)
    omitted = ours.omitted
    # What a term that may fail at the roller's limit misses is the chance of failing
    # (the brute force here stops far short of it: tests/test_limits.py holds the two
    # together); any other term leaves out less than epsilon.
    if not may_fail(die, count, steps, EPS, DEFAULT_LIMITS.extra_per_die):
        assert omitted < EPS
    mine = dict(ours.items())
    if cut == 0:
        assert mine == theirs, text
        return
    for outcome in set(mine) | set(theirs):
        a, b = mine.get(outcome, 0), theirs.get(outcome, 0)
        assert b <= a + omitted, (text, outcome, a, b)
        assert a <= b + cut, (text, outcome, a, b)


# one or more terms for each way of computing a term
ORACLE = [
    # sums and counts (convolution powers)
    ("3d4", 0),
    ("2dF", 0),
    ("3d3cs>=2df=1", 0),
    ("4d2cs=2", 0),
    ("2d5ro>=4", 1),
    ("3d3rr=1", 3),
    ("2d4rr>=3ro=1", 3),
    ("2d3x", 6),
    ("2d4x>=3", 5),
    ("2d3xo", 2),
    ("2dFx=1", 5),
    ("2d3x=3x=2", 6),
    ("2d3rr=1x", 6),
    ("2d3x=3rr=1", 6),
    ("2d4x>=4cs>=3df=1", 5),
    # keeps over fixed pools (order statistics), with rerolls before, values after
    ("4d4kh2", 0),
    ("4d3kl1", 0),
    ("4d4dh1", 0),
    ("4d3dl2", 0),
    ("3d4kh0", 0),
    ("3d4kh5", 0),
    ("4d4kh3kl2", 0),
    ("4d3dl1dh1", 0),
    ("4d4kl3kh1", 0),
    ("3dFkh2", 0),
    ("3d4ro=1kh2", 1),
    ("3d4rr<=2dl1", 3),
    ("4d4kh2cs>=3df=1", 0),
    ("3d3kh2x", 4),
    ("3d3kl1xo", 2),
    ("3d4kh2ro=1", 2),
    ("2d3kh1x=3cs>=2", 4),
    # pools that explosions make larger (top or bottom few)
    ("2d3xkh2", 5),
    ("2d3x>=2kl1", 5),
    ("3d3xkh1", 4),
    ("2d3xdh1", 5),
    ("2d3xdl1", 5),
    ("2d3xokh1", 2),
    ("2d3xkh1dh1", 5),
    ("2d3xkh2cs>=2", 5),
    ("2d3xkh1x", 5),
    ("3d4xdl1dh1", 3),
    ("2d3x=2kh1", 5),
    ("2d4x=2dh1", 5),
    ("2d3rr=1xkh1", 5),
    ("2d4x=2kh2kl1", 4),
    ("2d3xo=2kl1", 2),
    ("2d3x=1kh1", 5),
    ("2d3x<2dl1", 5),
    ("3d3x=1kh2kl1", 4),
    # the general method: keeps in other orders
    ("3d3kh2rr=1kh1", 4),
    ("3d3kh2x=3kl1", 5),
    ("2d3xokh1kl1", 2),
    ("2d3xodh1x", 5),
    ("2d3xkh2ro=1kh1", 5),
    ("2d3xkl2dl1x", 5),
    ("3d3kl2ro=1dh1", 2),
    ("3d4dh1xo=4kh1", 2),
    ("2d3x=2kh2ro=1kh1", 5),
    ("2d3x=1kh2ro=3kh1", 5),
    ("2d3x=2dh1ro=1", 5),
    ("3d3kh2ro=1dl1", 2),
    # an explosion between keeps: the last keep over the top (bottom) few, or dropping
    ("1d4khx>=2kh", 3),
    ("2d4klx>=2kh1", 2),
    ("1d4khx>=2dh", 3),
    ("2d3khx>=2dl", 3),
]


@pytest.mark.parametrize(("text", "extra"), ORACLE)
def test_agrees_with_every_draw_of_the_real_roller(text, extra):
    agree_with_the_roller(text, extra)


COMPARISONS = [">=", "<=", ">", "<", "="]


@st.composite
def dice_terms(draw):
    """A term with up to 4 dice of 1 to 6 faces or dF, and a random chain of modifiers."""
    sides = draw(st.sampled_from([1, 2, 3, 4, 5, 6, "F"]))
    low, high = (-1, 1) if sides == "F" else (1, sides)
    count = draw(st.integers(0, 4))

    def condition():
        return draw(st.sampled_from(COMPARISONS)) + str(draw(st.integers(low - 1, high + 1)))

    text = f"{count}d{sides}"
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["kh", "kl", "dh", "dl", "k", "x", "xo", "rr", "ro"]))
        if kind in ("x", "xo"):
            text += kind + (condition() if draw(st.booleans()) else "")
        elif kind in ("rr", "ro"):
            text += kind + condition()
        else:
            text += kind + draw(st.sampled_from(["", "0", "1", "2", "3"]))
    if draw(st.booleans()):
        text += "cs" + condition()
        if draw(st.booleans()):
            text += "df" + condition()
    return text, high - low + 1, count


@settings(max_examples=120, deadline=None)
@given(dice_terms())
def test_generated_terms_agree_with_the_real_roller(case):
    text, faces, count = case
    try:
        compile_term(text)
    except RulebookError:
        assume(False)
    extra = 0
    while faces ** (count + extra + 1) <= 1500 and extra < 6:
        extra += 1
    try:
        agree_with_the_roller(text, extra)
    except TooComplex:
        assert past_the_budget_by_its_shape(text), text
        assume(False)


def past_the_budget_by_its_shape(text: str) -> bool:
    """Whether a term is one of the shapes whose exact odds may need more than the
    budget at 1e-12 (the odds are sampled instead); every other term must be exact.

    - explosions inside explosions: two of them (an `xo` after an `x` explodes the
      exploded dice once more: `4d5x>=4xo`, `2d6xx`);
    - one chain that goes on 4 times in 5 or more, under keeps: followed to the roller's
      limit (100 extra dice, as likely as 0.8^100 = 2e-10), the keeps' top dice of a
      pool that large;
    - an explosion between two keeps, the last dropping dice (`3d6kh2x>=5dl1`): every
      sum of the dice kept, besides the dropped ones, of pools that grow (a last keep
      that keeps the top or bottom few is counted over those few, `1d4khx>=2kh`);
    - one chain that goes on 2 times in 3 or more, before counting successes and failures
      where an exploding face is a failure (`3d3x>=2cs>=0df>=0`): both counts of pools
      followed to ~70 dice a die, a joint count (a failure that cannot explode, as in
      `5d10x>=10cs>=6df=1`, is counted over the chain's ends only).
    """
    die, _count, steps = compile_term(text)
    kinds = [step[0] for step in steps]
    explosions = [i for i, kind in enumerate(kinds) if kind == "explode"]
    if len(explosions) >= 2:
        return True
    if not explosions:
        return False
    (at,) = explosions
    keeps = [i for i, kind in enumerate(kinds) if kind == "keep"]
    long_chain = sum(map(steps[at][2], die.faces())) >= 0.8 * die.size
    if long_chain and keeps:
        return True
    exploding = [face for face in die.faces() if steps[at][2](face)]
    failures = [step[1] for step in steps[at:] if step[0] == "failures"]
    if 3 * len(exploding) >= 2 * die.size and any(
        is_failure(face) for is_failure in failures for face in exploding
    ):
        return True
    keeps_before = any(i < at for i in keeps)
    drops_after = any(i > at and steps[i][1] in ("dh", "dl") for i in keeps)
    return keeps_before and drops_after


def test_only_terms_of_those_shapes_are_past_the_budget():
    # each shape is past the budget; the same term but for the shape is exact
    for text, exact in [
        ("2d6xx", "2d6x"),
        ("3d6kh2x>=5dl1", "3d6kh2x>=5kl1"),
        ("3d3x>=2cs>=0df>=0", "3d3x>=2cs>=0df=1"),
        ("1d4khx>=2kh", None),
        ("2d4klx>=2kh1", None),
    ]:
        if exact is None:
            assert totals(dist(text)) and not past_the_budget_by_its_shape(text)
            continue
        assert past_the_budget_by_its_shape(text)
        with pytest.raises(TooComplex):
            dist(text)
        assert not past_the_budget_by_its_shape(exact) and totals(dist(exact))


# ─── icepool ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("text", "build"), [(text, i) for text, i, _ in CORPUS], ids=[text for text, _, _ in CORPUS]
)
def test_agrees_with_icepool(text, build):
    icepool = pytest.importorskip("icepool")
    die = build(icepool, None)
    den = die.denominator()
    theirs = {}
    for outcome, quantity in die.items():
        key = tuple(outcome) if isinstance(outcome, icepool.Vector) else outcome
        theirs[key] = Fraction(quantity, den)
    pairs = isinstance(next(iter(theirs)), tuple)
    d = dist(text)
    ours: dict = {}
    for (total, s, f), p in d.items():
        key = (s, f) if pairs else total
        ours[key] = ours.get(key, 0) + p
    assert d.omitted < EPS
    worst = max(abs(ours.get(k, 0) - theirs.get(k, 0)) for k in set(ours) | set(theirs))
    assert worst < EPS, (text, float(worst))


def test_the_corpus_covers_every_notation_form():
    texts = " ".join(text for text, _, _ in CORPUS)
    for form in (
        "d%",
        "dF",
        "(",
        "kh",
        "kl",
        "dh",
        "dl",
        "k ",
        "x ",
        "x=",
        "x>=",
        "x>",
        "x<",
        "x<=",
        "xo",
        "xo>=",
        "rr",
        "ro",
        "cs>=",
        "cs>",
        "cs=",
        "df=",
        "df<=",
    ):
        assert form.strip() in texts, form
    assert len(CORPUS) >= 30
    assert any(t.endswith("k") for t, _, _ in CORPUS)
    assert any(t.endswith("x") for t, _, _ in CORPUS)
