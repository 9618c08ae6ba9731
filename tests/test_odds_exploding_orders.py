"""The order-free questions of exploding pools whose modifiers come in any order the grammar
writes (a reroll, a clamp or a keep before the explosion, or after it; `x`, `xo`, `!p`,
thresholds): exact odds, cut at the total's 10^-12, against every draw of the real roller
(the run itself, its dice given one by one) and against icepool; `highest(2d6rr1x)` stopped
at "a die exploded more than 100 times" (issue 30)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import NeedDie, PrefixDice

import dsl
from interpreter import Engine, Limits
from interpreter.dice import ForcedDice
from interpreter.odds import expression_odds

#: the error allowed beside what the brute force leaves out: the odds' own cut
EPS = Fraction(1, 10**12)

#: each question as the rulebook asks it of `r`
QUESTIONS = {
    "highest": "highest(r)",
    "lowest": "lowest(r)",
    "sixes": "count(r, 6)",
    "two": "highest(r, 2)",
    "top two": "sum(highest(r, 2))",
    "low two": "sum(lowest(r, 2))",
    "sorted": "r.sorted",
    "total": "r.total",
    "sets": "most_sets(r, 7)",
}


def engine_for(term: str, question: str, kept: bool = False) -> Engine:
    """An action asking `question` (a name of QUESTIONS, or the text itself) of `term`."""
    fields = f"value: {QUESTIONS.get(question, question)}" + (", kept: r.sorted" if kept else "")
    text = (
        'rulebook "Pools" { }\n'
        'action ask() "Ask" {\n'
        f"  let r = {term}\n"
        f"  result {{ {fields} }}\n"
        "}\n"
    )
    # a time limit far past the work: a loaded machine must not sample
    return Engine(dsl.load_text(text, "pools.rules"), Limits(odds_seconds=300))


def key(value):
    return tuple(key(v) for v in value) if isinstance(value, list) else value


def every_draw(engine: Engine, cut: Fraction) -> tuple:
    """({value: probability} over every way the real run draws its dice, the mass of the
    draws less likely than `cut`, left out); each run's value also checked against the
    answer computed here from its kept dice."""
    sheet = engine.sheet({})
    out: dict = {}
    lost = Fraction(0)
    stack = [((), Fraction(1))]
    while stack:
        faces, probability = stack.pop()
        try:
            result = engine.run("ask", sheet, {}, dice=PrefixDice(faces)).result
        except NeedDie as need:
            die = need.die
            if probability / die.size < cut:
                lost += probability
                continue
            stack.extend(((*faces, f), probability / die.size) for f in die.faces())
            continue
        value = key(result["value"])
        out[value] = out.get(value, 0) + probability
    return out, lost


def agree(odds, expected: dict, slack: Fraction) -> None:
    ours = {key(k): p for k, p in odds.probabilities.items()}
    for outcome in set(ours) | set(expected):
        assert abs(ours.get(outcome, 0) - expected.get(outcome, 0)) <= slack, outcome


def odds_of(engine: Engine):
    odds = engine.odds("ask", engine.sheet({}), {}, field="value")
    assert odds.exact and odds.omitted < EPS
    return odds


#: pools whose modifiers come before, around or after the explosion
TERMS = [
    "2d6rr1x",  # the issue's own
    "2d4ro1x",
    "2d4xrr1",  # the extra dice rerolled too
    "2d4min2x",
    "2d4xmax3",
    "3d4kh2x",  # the two kept explode
    "3d4xkh2",
    "2d4rr1xkl1",
    "2d4!prr1",
    "2d4x>=3ro4",
    "2d4rr4xo",
    "2d4x=4x=1",  # two explosions, the second of the first's dice too
    "3d4dl1xdh1",
    "2d4x>=4dl1rr=1",  # a reroll after a keep: only the kept dice are rolled again
    "2d4!p>=4kh1ro=2",
    "2d4!p>=3dl1rr=1",  # half the faces explode: the kept dice not listed (drop_few)
    "3d4xdh1ro<2",
]


#: every pool sorted (or split into sets) is an outcome of its own: asked where one face explodes
ASKED = [
    (term, question)
    for term in TERMS
    for question in ("highest", "lowest", "sixes", "sorted", "total", "sets", "top two")
    if question not in ("sorted", "sets") or ">=" not in term
]


@pytest.mark.parametrize(("term", "question"), ASKED)
def test_modifiers_around_an_explosion_against_every_draw(term, question):
    engine = engine_for(term.replace("6", "4") if question == "sixes" else term, question)
    expected, lost = every_draw(engine, Fraction(1, 10**5))
    agree(odds_of(engine), expected, EPS + lost)


def test_the_issues_pool_gives_its_odds():
    """`highest(2d6rr1x)`: each first die shows 2-6 alike, extra dice any face."""
    odds = odds_of(engine_for("2d6rr1x", "highest"))
    assert odds.probability(1) == 0  # no first die shows 1, and a 1 ends no chain of 6s
    assert odds.probability(2) == Fraction(1, 25)
    # a 6 among the first two, less the longest chains of 6s, cut as the total's are
    assert 0 <= 1 - Fraction(16, 25) - odds.probability(6) <= odds.omitted


def test_the_run_reads_what_the_odds_count():
    """The same dice give the run's answer and the answer counted from its kept dice."""
    engine = engine_for("3d6rr1xkh2", "two", kept=True)
    sheet = engine.sheet({})
    for dice in ([6, 6, 3, 2, 5], [1, 2, 6, 4, 3], [1, 1, 2, 2, 6, 6, 6, 1]):
        result = engine.run("ask", sheet, {}, dice=ForcedDice(dice)).result
        assert key(result["value"]) == key(sorted(result["kept"], reverse=True)[:2])


# ─── icepool ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("question", ["lowest", "tens"])
@pytest.mark.parametrize("count", [3, 6])
def test_a_reroll_before_the_explosion_agrees_with_icepool(count, question):
    """`Nd10rr1x`: each first die 2-10 (icepool's reroll), a 10 then a chain of fresh d10s
    that may show 1 (icepool's explode_to_pool of one die), each die and its chain
    mixed by hand, the N of them summed or compared by icepool."""
    icepool = pytest.importorskip("icepool")
    depth = 14
    first = icepool.d10.reroll([1], depth="inf")
    chain = icepool.d10.explode_to_pool(1, [10], depth=depth)
    if question == "lowest":
        after = chain.lowest(1).sum()
        per_die = first.map(lambda f: f if f < 10 else icepool.lowest(after, 10))
        die = icepool.lowest(*[per_die] * count)
        text = "lowest(r)"
    else:
        after = chain.keep_outcomes([10]).size()
        per_die = first.map(lambda f: 0 if f < 10 else 1 + after)
        die = sum([per_die] * (count - 1), per_die)
        text = "count(r, 10)"
    den = die.denominator()
    expected = {outcome: Fraction(n, den) for outcome, n in die.items()}
    odds = odds_of(engine_for(f"{count}d10rr1x", text))
    # icepool's last die at its depth does not explode: (1/10)^depth a die
    agree(odds, expected, EPS + count * Fraction(1, 10) ** depth)


# ─── any pool the grammar writes ────────────────────────────────────────────


@st.composite
def shapes(draw):
    sides = draw(st.integers(3, 5))
    count = draw(st.integers(1, 2))

    def test(low: int) -> str:
        return f">={draw(st.integers(low, sides))}"

    explosion = draw(st.sampled_from(["x", "xo", "!p"])) + test(max(2, sides - 1))
    others = draw(
        st.lists(st.sampled_from(["rr", "ro", "min", "max", "kh", "kl", "dl"]), max_size=2)
    )
    mods = []
    for other in others:
        if other in ("rr", "ro"):
            mods.append(f"{other}={draw(st.integers(1, sides))}")
        elif other in ("min", "max"):
            mods.append(f"{other}{draw(st.integers(2, sides - 1))}")
        else:
            mods.append(f"{other}1")
    at = draw(st.integers(0, len(mods)))
    mods.insert(at, explosion)
    return f"{count}d{sides}{''.join(mods)}"


@settings(max_examples=25, deadline=None)
@given(
    term=shapes(),
    question=st.sampled_from(["highest", "lowest", "sorted", "total", "top two", "low two"]),
)
def test_any_exploding_pool_against_every_draw(term, question):
    engine = engine_for(term, question)
    expected, lost = every_draw(engine, Fraction(1, 10**4))
    agree(odds_of(engine), expected, EPS + lost)


@pytest.mark.parametrize("term", ["2d4!p>=3dl1rr=1", "3d4xdh1ro<2", "2d4!pdl1min2"])
def test_a_reroll_after_a_drop_after_an_explosion_is_exact(term):
    """A keep of all but a few dice of an exploding pool, then a reroll or a clamp of the
    kept ones: the expression's total (each kept die's value drawn, the dropped ones'
    taken out again: keeps.undrawn) and the action's answers (the kept dice not listed:
    exploding.Counting.drop_few) are exact, within a small budget, and agree."""
    expression = expression_odds(term, budget=20_000)
    assert expression.exact and expression.omitted < EPS
    for question in ("total", "highest", "lowest"):
        engine = engine_for(term, question)
        odds = engine.odds("ask", engine.sheet({}), {}, field="value", budget=20_000)
        assert odds.exact and odds.omitted < EPS
        if question == "total":
            agree(odds, {key(k): p for k, p in expression.probabilities.items()}, 2 * EPS)
