"""Small expressions over plain dice counted from their reading (interpreter.odds.small)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from dsl import plain_dice
from dsl.errors import RulebookError
from dsl.parser import dice_end
from interpreter.limits import DEFAULT_LIMITS
from interpreter.odds import compute, expression_odds, plain, small
from interpreter.odds.budget import Deadline

# ─── generated small expressions, rule by rule (dsl.plain_dice.read_expression) ──

#: terms with other modifiers (interpreter.odds.plain.MORE_TERMS), some of them wrong
MORE = ["4dF", "d%", "2d20ro=1kh1", "4dFcs=1df=-1", "3d8rr=1", "10d10cs>=6df=1", "2d6kh",
        "4d6ro<3kh3", "4d6d", "d6d", "3d6xo", "2d6kh-1", "3d4rr<=4", "0d6", "4dFkh2"]  # fmt: skip
TERMS = st.one_of(
    st.sampled_from(["d6", "2d6", "1d20", "3d6", "d4", "d1", "4d6kh3", "2d20kl1", "3d6dh1"]),
    st.integers(0, 12).map(str),
    st.sampled_from(["d6x", "2d6cs>4", "d0", "6d10cs>7", "2d6kh2", "-3", "1.5", "x"]),
    st.sampled_from(MORE),
)
SPACES = st.sampled_from(["", " "])
FUNCTIONS = ["floor", "ceil", "round", "abs", "min", "max", "clamp"]


@st.composite
def small_expressions(draw, depth: int = 0) -> str:
    """Terms, sums, products, quotients, parentheses and calls (some of them wrong)."""
    if depth >= 3 or draw(st.integers(0, 2)) == 0:
        return draw(TERMS)
    kind = draw(st.sampled_from(["binary", "parens", "call"]))
    inner = small_expressions(depth + 1)
    if kind == "binary":
        op = draw(st.sampled_from("+-*/"))
        return f"{draw(inner)}{draw(SPACES)}{op}{draw(SPACES)}{draw(inner)}"
    if kind == "parens":
        return f"({draw(inner)})"
    function = draw(st.sampled_from(FUNCTIONS))
    args = draw(st.lists(inner, min_size=1, max_size=3))
    return f"{function}({(',' + draw(SPACES)).join(args)})"


LIMITS = st.sampled_from(
    [
        DEFAULT_LIMITS,
        attrs.evolve(DEFAULT_LIMITS, steps_per_run=4),
        attrs.evolve(DEFAULT_LIMITS, dice_per_evaluation=3),
        attrs.evolve(DEFAULT_LIMITS, odds_outcomes=30),
        attrs.evolve(DEFAULT_LIMITS, number_digits=2, denominator_digits=1),
    ]
)


def _answered(text, limits, budget=compute.BUDGET):
    try:
        odds = expression_odds(text, limits=limits, trials=50, seconds=60, budget=budget)
    except RulebookError as error:
        return ("refused", type(error).__name__, str(error))
    return (odds.exact, odds.probabilities if odds.exact else None, odds.omitted)


def _general(text, limits, budget=compute.BUDGET):
    """expression_odds without the straight-from-text paths: the parser, checker, compiler."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compute, "plain_distribution", lambda *args: None)
        return _answered(text, limits, budget)


@st.composite
def compared(draw) -> str:
    """A small expression, or two compared (`2d6 >= 7`, `max(1d20, 1d20) > 15`)."""
    text = draw(small_expressions())
    if draw(st.booleans()):
        op = draw(st.sampled_from([">=", "<=", "!=", "<", ">", "="]))
        text += f"{draw(SPACES)}{op}{draw(SPACES)}{draw(small_expressions())}"
    return text


@settings(max_examples=500, deadline=None)
@given(compared(), LIMITS)
def test_small_expressions_are_what_the_general_path_gives(text, limits):
    try:
        counted = plain.plain_distribution(
            text, compute.EPSILON, limits, Deadline(60), compute.BUDGET
        )
    except RulebookError:  # (a lone term's error: its own words, the general path's)
        counted = None
    if counted is None:
        event("the general path's")  # both ways are the general path: nothing to compare
        return
    event("counted from the text")
    assert _answered(text, limits) == _general(text, limits), text


@pytest.mark.parametrize("budget", [2, 30, 1000])
def test_a_small_budget_is_met_as_the_general_path_meets_it(budget):
    for text in ("max(3d6, 3d6) * max(3d6, 3d6)", "floor(3d6 / 2) + abs(2d6 - 2d6)"):
        assert _answered(text, DEFAULT_LIMITS, budget) == _general(text, DEFAULT_LIMITS, budget)


def test_terms_with_other_modifiers_need_no_parser_checker_or_compiler(monkeypatch):
    def refused(text):
        raise AssertionError(f"compiled: {text}")

    monkeypatch.setattr(compute, "compile_expression", refused)
    assert expression_odds("4dF + 2").probability(6) == Fraction(1, 81)
    assert expression_odds("max(2d20ro=1kh1, 1d20 - 1)").exact
    assert expression_odds("d% + 10").probability(110) == Fraction(1, 100)
    monkeypatch.setattr(plain, "MORE_TERMS", False)  # the switch: compiled again
    with pytest.raises(AssertionError, match="compiled"):
        expression_odds("4dF + 2")


def test_a_lone_die_of_a_small_expression_is_counted_as_a_lone_die(monkeypatch):
    def refused(*args):
        raise AssertionError("counted as a term")

    monkeypatch.setattr(plain, "term_distribution", refused)
    assert expression_odds("max(1d20, d20)").probability(20) == Fraction(39, 400)
    assert expression_odds("abs(d% - 1d6)").probability(99) == Fraction(1, 600)
    monkeypatch.setattr(plain, "LONE_DIE", False)  # the switch: as any term
    with pytest.raises(AssertionError, match="as a term"):
        expression_odds("max(1d20, d20)")


def test_small_expressions_need_no_parser_checker_or_compiler():
    # (only the path straight from the text answers without compiling)
    def refused(text):
        raise AssertionError(f"compiled: {text}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compute, "compile_expression", refused)
        odds = expression_odds("floor((2d6 + 3) / 2)")
        assert odds.probability(2) == Fraction(1, 36) and odds.probability(7) == Fraction(3, 36)
        assert expression_odds("abs(1d6 - 1d6)").probability(0) == Fraction(1, 6)
        assert expression_odds("max(1d20, 1d20)").probability(20) == Fraction(39, 400)
        assert expression_odds("round(1d4 / 2)").probability(1) == Fraction(1, 2)  # 1/2 → 1
        assert expression_odds("2d6 >= 7").probability(True) == Fraction(7, 12)


def test_what_a_small_expression_cannot_answer_exactly_goes_the_general_way():
    count = plain.PLAIN.fullmatch  # (any text: the reader's own None)
    assert count("3d6+1") is None
    for text in ("1d6 / (1d6 - 1d6)", "min(2d6)", "floor(1d6, 2)", "clamp(1d6, 2, 3)", "1d6x + 1"):
        assert plain.small_distribution(text, lambda term: None, DEFAULT_LIMITS, 10**5) is None


@settings(max_examples=300, deadline=None)
@given(compared())
def test_the_counting_reads_what_the_reader_of_small_expressions_reads(text):
    ours, theirs = small.read(text), plain_dice.read_expression(text)
    assert (ours is None) == (theirs is None), text
    if ours is not None:
        assert type(ours).__name__ == type(theirs).__name__
    # with other modifiers: what the counting reads, the builder reads the same
    more = small.read(text, plain.term_node, plain.term_end)
    if more is not None:
        built = plain_dice.read_expression(text, term=_builder_term(text), dice_end=dice_end)
        assert type(more).__name__ == type(built).__name__, text


def _builder_term(text):
    from dsl.build import Builder
    from dsl.errors import Source

    return Builder(Source("<expression>", text)).dice_at(0)


def test_a_term_with_other_modifiers_needs_no_lark():
    # where the grammar's DICE token ends is read from the grammar's text (dsl.dice_terminal):
    # a first `4dF + 2` in a fresh process imports neither Lark nor the parser (50 ms)
    root = Path(__file__).resolve().parent.parent
    code = (
        "import json, sys\n"
        "from interpreter.odds import expression_odds\n"
        "print(expression_odds('4dF + 2').probability(6))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    answer, modules = done.stdout.strip().splitlines()
    assert answer == "1/81"
    heavy = [m for m in json.loads(modules) if m.split(".")[0] == "lark" or m == "dsl.parser"]
    assert not heavy
