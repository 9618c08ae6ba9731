"""The odds of what is asked of an exploding pool's dice (`let r = 3d10x` then
`highest(r)`, `count(r, 10)`, `r.largest_set`, `r.sorted`): exact, with the mass the
explosions leave out below 10^-12 as for the total, against icepool's pools of exploded
dice (`Die.explode_to_pool`) and against every chain of every die enumerated here."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dsl
from interpreter import Engine

#: the error allowed: what both sides leave out of the explosions, well below 10^-12
EPS = Fraction(1, 10**12)

#: the questions asked of the pool `r`, as the rulebook writes them, and by hand
QUESTIONS = {
    "highest": ("highest(r)", lambda kept, top: max(kept) if kept else None),
    "lowest": ("lowest(r)", lambda kept, top: min(kept) if kept else None),
    "tops": ("count(r, TOP)", lambda kept, top: kept.count(top)),
    "two": ("sum(highest(r, 2))", lambda kept, top: sum(sorted(kept)[-2:])),
    "width": ("r.largest_set.size", lambda kept, top: largest(kept)[0]),
    "height": ("r.largest_set.face", lambda kept, top: largest(kept)[1]),
    "sorted": ("r.sorted", lambda kept, top: tuple(sorted(kept))),
    "total": ("r.total", None),
}


def largest(kept: list) -> tuple:
    """(size, face) of the largest set, the higher face first of equal sizes."""
    if not kept:
        return 0, None
    return max((n, face) for face, n in Counter(kept).items())


def engine_odds(term: str, question: str, top: int):
    text = (
        'rulebook "Pools" { }\n'
        'action ask() "Ask" {\n'
        f"  let r = {term}\n"
        f"  result {{ value: {QUESTIONS[question][0].replace('TOP', str(top))} }}\n"
        "}\n"
    )
    engine = Engine(dsl.load_text(text, "pools.rules"))
    odds = engine.odds("ask", engine.sheet({}), {}, field="value")
    assert odds.exact and odds.omitted < EPS, (term, question)
    return odds


def agree(odds, expected: dict, slack: Fraction = EPS) -> None:
    """Outcome by outcome, within what either side leaves out."""
    ours = {tuple(k) if isinstance(k, list) else k: p for k, p in odds.probabilities.items()}
    for key in set(ours) | set(expected):
        assert abs(ours.get(key, 0) - expected.get(key, 0)) <= slack, key


# ─── every chain enumerated ─────────────────────────────────────────────────


def chains(sides: int, kind: str, hits: set, once: bool, cut: Fraction) -> tuple:
    """([(the values a die's chain leaves in the pool, its probability)], the mass of the
    chains less likely than `cut`, left out), as interpreter.dice._explode rolls them:
    `x` adds a die, `!p` a die counting one less, `!!` adds to the die; the test is of
    the face each new die shows; `once`: the first die alone may explode."""
    # Level by level, chains that leave the same values merged (each chain of a level is
    # as likely as any other of it, so the cut is the same for all): walking chain by
    # chain grows as 2^depth when two faces explode, past any memory at 3 sides.
    out, lost = [], Fraction(0)
    level: dict = {(): Fraction(1)}  # the values so far (sorted) -> the mass of such chains
    depth, one = 0, Fraction(1)  # `one`: the probability of a single chain of this level
    while level:
        q = one / sides
        deeper: dict = {}
        for values, p in level.items():
            for face in range(1, sides + 1):
                if kind == "compound" and depth:
                    new = (values[0] + face,)
                elif kind == "penetrate" and depth:
                    new = tuple(sorted((*values, face - 1)))
                else:
                    new = tuple(sorted((*values, face)))
                if face in hits and not (once and depth):
                    if q < cut:
                        lost += p / sides
                    else:
                        deeper[new] = deeper.get(new, 0) + p / sides
                else:
                    out.append((new, p / sides))
        level, depth, one = deeper, depth + 1, q
    return out, lost


def brute(count, sides, kind, hits, once, keep, question, successes=None):
    """{answer: probability} over every pool of `count` chains, and the mass left out."""
    per_die, lost = chains(sides, kind, set(hits), once, Fraction(1, 10**14))
    alike: dict = {}  # chains by the values they leave, sorted
    for values, q in per_die:
        key = tuple(sorted(values))
        alike[key] = alike.get(key, 0) + q
    pools = {(): Fraction(1)}  # every pool of the dice so far, sorted
    for _ in range(count):
        grown: dict = {}
        for dice, p in pools.items():
            for values, q in alike.items():
                key = tuple(sorted(dice + values))
                grown[key] = grown.get(key, 0) + p * q
        pools = grown
    top = sides
    out: dict = {}
    for dice, p in pools.items():
        kept = list(dice)
        if keep is not None:
            mode, k = keep
            kept = kept[-k:] if mode == "kh" else kept[:k]
        if question == "total":
            answer = sum(1 for f in kept if f >= successes) if successes else sum(kept)
        else:
            answer = QUESTIONS[question][1](kept, top)
        out[answer] = out.get(answer, 0) + p
    return out, 1 - (1 - lost) ** count


#: (term, dice, sides, kind, the faces that explode, once, keep, success threshold)
CASES = [
    ("2d6x", 2, 6, "explode", {6}, False, None, None),
    ("3d6xo", 3, 6, "explode", {6}, True, None, None),
    ("2d6!p", 2, 6, "penetrate", {6}, False, None, None),
    ("2d6!!", 2, 6, "compound", {6}, False, None, None),
    ("3d6xkh2", 3, 6, "explode", {6}, False, ("kh", 2), None),
    ("3d6xcs>=5", 3, 6, "explode", {6}, False, None, 5),
    ("0d6x", 0, 6, "explode", {6}, False, None, None),
]
#: the questions each case is asked (every pool sorted: only of the smallest)
ASKED = ["highest", "lowest", "tops", "two", "width", "height", "total"]


@pytest.mark.parametrize("question", ASKED)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_question_of_an_exploding_pool_against_every_chain(case, question):
    term, count, sides, kind, hits, once, keep, successes = case
    odds = engine_odds(term, question, sides)
    expected, lost = brute(count, sides, kind, hits, once, keep, question, successes)
    agree(odds, expected, EPS + lost)


# ─── icepool ────────────────────────────────────────────────────────────────


def icepool_pool(icepool, count: int, sides: int, hits: list, depth: int):
    return icepool.Die(range(1, sides + 1)).explode_to_pool(count, hits, depth=depth)


#: (term, dice, sides, the faces that explode, icepool's depth, keep)
LARGE = [
    ("5d10x", 5, 10, [10], 16, None),
    ("6d10xkh3", 6, 10, [10], 16, ("kh", 3)),
    ("4d6x>=6kl2", 4, 6, [6], 18, ("kl", 2)),
]


@pytest.mark.parametrize("question", ["highest", "tops", "two", "height"])
@pytest.mark.parametrize("case", LARGE, ids=[c[0] for c in LARGE])
def test_larger_exploding_pools_agree_with_icepool(case, question):
    icepool = pytest.importorskip("icepool")
    term, count, sides, hits, depth, keep = case
    pool = icepool_pool(icepool, count, sides, hits, depth)
    if keep is not None:
        pool = pool.highest(keep[1]) if keep[0] == "kh" else pool.lowest(keep[1])
    if question == "highest":
        die = pool.highest(1).sum()
    elif question == "lowest":
        die = pool.lowest(1).sum()
    elif question == "tops":
        die = pool.keep_outcomes([sides]).size()
    elif question == "two":
        die = pool.highest(2).sum()
    elif question == "width":
        die = pool.largest_count()
    else:
        die = pool.largest_count_and_outcome().map(lambda size, face: face)
    den = die.denominator()
    expected = {outcome: Fraction(n, den) for outcome, n in die.items()}
    # icepool's last die at its depth does not explode: (hits/sides)^depth a die, and ours
    # cuts below 10^-12
    slack = EPS + count * Fraction(len(hits), sides) ** depth
    agree(engine_odds(term, question, sides), expected, slack)


def test_every_sorted_pool_of_two_exploding_dice():
    odds = engine_odds("2d6x", "sorted", 6)
    expected, lost = brute(2, 6, "explode", {6}, False, None, "sorted")
    agree(odds, expected, EPS + lost)


def test_the_recipes_blades_pool_of_exploding_dice_is_no_error():
    """The issue's own: `rulebook odds` stopped at 'a die exploded more than 100 times'."""
    odds = engine_odds("2d6x", "highest", 6)
    assert 0 <= 1 - Fraction(25, 36) - odds.probability(6) <= odds.omitted  # the cut chains
    assert odds.probability(1) == Fraction(1, 36)
    assert 0 < odds.omitted < EPS  # the chains of 6s, cut as the total's are


@settings(max_examples=8, deadline=None)
@given(
    count=st.integers(1, 2),
    sides=st.integers(3, 6),
    threshold=st.integers(0, 1),
    kind=st.sampled_from(["x", "xo", "!p"]),
    question=st.sampled_from(["highest", "lowest", "tops", "width", "height", "total"]),
)
def test_any_small_exploding_pool_against_every_chain(count, sides, threshold, kind, question):
    low = max(2, sides - threshold)  # at least the 1 does not explode
    term = f"{count}d{sides}{kind}>={low}"
    hits = set(range(low, sides + 1))
    name = {"x": "explode", "xo": "explode", "!p": "penetrate"}[kind]
    odds = engine_odds(term, question, sides)
    expected, lost = brute(count, sides, name, hits, kind == "xo", None, question)
    agree(odds, expected, EPS + lost)
