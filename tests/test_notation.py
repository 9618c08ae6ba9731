"""The notation people already type (Roll20, Foundry VTT, d20): read as the peers mean it
where they agree; this language's reading and a note naming the other spelling where
they do not; errors at the modifier, listing the modifiers; pointless modifiers warned;
and the odds of every new modifier equal to every draw of the real roller."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsl.errors import RulebookError, RulebookSyntaxError
from dsl.spellings import _with_digits
from interpreter import ForcedDice, Limits, roll
from interpreter.cli import main
from interpreter.expression import compile_expression, expression_warnings
from interpreter.odds import expression_odds


def shown(text: str, dice) -> str:
    return roll(text, ForcedDice(dice)).detail


@pytest.mark.parametrize(
    ("text", "dice", "detail"),
    [
        ("4d6d1", [3, 1, 6, 4], "4d6d1 [3, ~~1~~, 6, 4] = 13"),  # drop the lowest
        ("4D6", [1, 2, 3, 4], "4D6 [1, 2, 3, 4] = 10"),
        ("1d6!", [6, 6, 2], "1d6! [6!, 6!, 2] = 14"),  # explode on the top face
        ("3d6!>4", [4, 1, 2, 3], "3d6!>4 [4!, 3, 1, 2] = 10"),  # Roll20's > is >=
        ("3d6!<2", [2, 6, 6, 3], "3d6!<2 [2!, 3, 6, 6] = 17"),  # ... and < is <=
        ("3d6!3", [3, 1, 2, 5], "3d6!3 [3!, 5, 1, 2] = 11"),  # a bare number: equals
        ("1d6!!", [6, 6, 2], "1d6!! [14!] = 14"),  # compounding: one die
        ("1d6!p", [6, 6, 2], "1d6!p [6!, 5!, 1] = 12"),  # penetrating: each extra one less
        ("3d6ro1", [1, 2, 3, 4], "3d6ro1 [~~1~~, 4, 2, 3] = 9"),
        ("4d6rr1", [1, 1, 2, 3, 4, 5], "4d6rr1 [~~1~~, 4, ~~1~~, 5, 2, 3] = 14"),
        ("8d6min2", [1, 1, 3, 6, 2, 2, 4, 5], "8d6min2 [2, 2, 3, 6, 2, 2, 4, 5] = 26"),
        ("8d6max5", [1, 1, 3, 6, 2, 2, 4, 6], "8d6max5 [1, 1, 3, 5, 2, 2, 4, 5] = 23"),
        ("6d6cf<=3", [1, 2, 3, 4, 5, 6], "6d6cf<=3 [1, 2, 3, 4, 5, 6] = 3"),
        ("6d6even", [1, 2, 3, 4, 6, 6], "6d6even [1, 2, 3, 4, 6, 6] = 4"),
        ("6d6odd", [1, 2, 3, 4, 6, 6], "6d6odd [1, 2, 3, 4, 6, 6] = 2"),
        ("3d6sa", [5, 1, 3], "3d6sa [1, 3, 5] = 9"),
        ("3d6sd", [5, 1, 3], "3d6sd [5, 3, 1] = 9"),
        ("2**3 + 7%3", [], "2**3 + 7%3 = 9"),
        ("-7 % 3", [], "-7 % 3 = -1"),  # the dividend's sign, as Roll20 and Foundry
        ("2d6[fire] + 1d4[cold]", [3, 4, 2], "2d6[fire] [3, 4] + 1d4[cold] [2] = 9"),
        ("{1d20+5, 1d20+3}kh1", [12, 19], "{1d20 [12]+5, 1d20 [19]+3}kh1 = 22"),
        ("{4d6+3d8}k4", [1, 2, 3, 4, 5, 6, 7], "{4d6 [1, 2, 3, 4]+3d8 [5, 6, 7]}k4 = 22"),
        # a group counting its rolls (Foundry VTT): how many of them meet the condition
        ("{1d20, 1d20, 1d20}cs>10", [11, 10, 20], "{1d20 [11], 1d20 [10], 1d20 [20]}cs>10 = 2"),
        ("{1d20+2, 1d20}cf<=5", [3, 9], "{1d20 [3]+2, 1d20 [9]}cf<=5 = 1"),
        (
            "{1d20, 1d20, 1d20}kh2cs>10",
            [11, 10, 20],
            "{1d20 [11], 1d20 [10], 1d20 [20]}kh2cs>10 = 2",
        ),
        ("{1d6, 1d6}cs>=5df=1", [1, 6], "{1d6 [1], 1d6 [6]}cs>=5df=1 = 0"),
        ("1d20 + 5[bonus]", [8], "1d20 [8] + 5[bonus] = 13"),  # a label on a number
        ("d{1,1,2,3}", [2], "d{1,1,2,3} [2] = 2"),
        ("d{-1,0,1}", [-1], "d{-1,0,1} [-1] = -1"),
        ("10 * d{0..9} + d{0..9}", [0, 7], "10 * d{0..9} [0] + d{0..9} [7] = 7"),
    ],
)
def test_the_spellings_roll20_and_foundry_agree_on(text, dice, detail):
    assert shown(text, dice) == detail


def test_a_listed_face_comes_up_as_often_as_it_is_listed():
    odds = expression_odds("d{1,1,2,3}")
    assert odds.probabilities == {1: Fraction(1, 2), 2: Fraction(1, 4), 3: Fraction(1, 4)}
    with pytest.raises(RulebookError, match="not a face of"):
        roll("d{1,3,5}", ForcedDice([2]))


def test_call_of_cthulhu_bonus_die_needs_no_tricks():
    # units 0-9, the better of two tens dice 0-90; 00 and 0 make 100
    text = "if 10 * lowest(2d{0..9}) + d{0..9} = 0 then 100 else 10 * lowest(2d{0..9}) + d{0..9}"
    assert roll("10 * lowest(2d{0..9}) + d{0..9}", ForcedDice([7, 3, 5])).total == 35
    odds = expression_odds("10 * lowest(2d{0..9}) + d{0..9}")
    # P(tens die = t) for the lower of two d10s read 0-9: ((10 - t)^2 - (9 - t)^2) / 100
    assert odds.probability(35) == Fraction((10 - 3) ** 2 - (9 - 3) ** 2, 100) / 10
    assert sum(odds.probabilities.values()) == 1
    assert compile_expression(text)


# ─── where the peers disagree: this language's reading, and a note ──────────


@pytest.mark.parametrize(
    ("text", "note", "hint"),
    [
        ("10d10>=6", "compares the total", "10d10cs>=6"),
        ("10d10>6", "compares the total", "10d10cs>=6"),  # Roll20's > is >=
        ("3d6ro<2", "Roll20 rerolls 2 too", None),
        ("4d6k3", "in d20 it keeps the dice showing 3", "kh3"),
        ("1d20cs>19", "only marks a critical success", None),
    ],
)
def test_a_spelling_read_otherwise_elsewhere_carries_a_note(text, note, hint):
    warnings = expression_warnings(text)
    assert len(warnings) == 1 and note in warnings[0].message
    if hint:
        assert hint in warnings[0].hint


def test_this_languages_reading_stays():
    assert roll("10d10>=6", ForcedDice([6] * 10)).total is True  # the total, 60, >= 6
    # `ro<2` rerolls only the 1s (Roll20 would reroll the 2s too): a 3 is three 1s twice
    assert expression_odds("3d6ro<2").probability(3) == Fraction(1, 36) ** 3
    assert not expression_warnings("2d6 >= 7")  # spaced: plainly a comparison
    assert not expression_warnings("4d6kh3")


@pytest.mark.parametrize(
    ("text", "column", "message", "hint"),
    [
        ("3d6zz", 4, "`zz` is not a dice modifier", "the modifiers: kh kl dh dl"),
        ("3d6r<2", 4, "`r` is not a modifier here", "write `ro` to reroll once or `rr`"),
        ("4d6e6", 4, "`e` is not a modifier here", "4d6x=6"),
        ("4d6p1", 4, "`p` is not a modifier here", "4d6dl1"),
        ("8d6min", 4, "`min` takes a value", "the modifiers"),
        ("2 + 4d6kh3q", 11, "`q` is not a dice modifier", "the modifiers"),
        ("3d6kh>3", 4, "keeps or drops a number of dice", "k>3"),
        ("3d6f1", 4, "`f` is not a modifier here", "cs...df"),
        ("{4d6+3d8}cs>4", 10, "to count dice, count them in each term", "4d6cs>=5 + 3d8cs>=5"),
        ("{1d20, 1d20}cs>10kh1", 18, "a group keeps or drops before it counts", None),
        # other rollers' spellings that do not parse: said at what differs, with ours
        ("10d10>5f1", 6, "how Roll20 counts successes and failures", "10d10cs>=5df=1"),
        ("2 + 6d6<2f6", 8, "how Roll20 counts successes and failures", "6d6cs<=2df=6"),
        ("{1d20, 1d20}x", 13, "`x` is not a modifier of a group", "{3d6, 3d6, 3d6}cs>=10"),
        ("{1d4, 1d6}cs>3ro1", 15, "`ro` is not a modifier of a group", "then may count"),
        ("3 + (1d4, 1d6, 1d8)kh1", 5, "written with braces here", "{1d4, 1d6, 1d8}kh1"),
        ("(1d4, 1d6)p1", 1, "written with braces here", "{1d4, 1d6}dl1"),
        ("{1d20, 1d20}>10", 13, "after a group counts its rolls", "{1d20, 1d20}cs>=10"),
        ("{3d20+5}>21", 9, "after a group counts its rolls", "(3d20+5) >= 21"),
        ("/r 1d20+5", 1, "`/r` is the chat's command", "write the roll alone: 1d20+5"),
        ("3@4d6", 1, "AnyDice's die at place 3", "lowest(highest(4d6, 3))"),
        ("2 + 1@2d20", 5, "AnyDice's die at place 1", "highest(2d20)"),
        ("4d6 kh3", 5, "follows its dice with no space", "write 4d6kh3"),
        ("2 + 6d10  x", 11, "follows its dice with no space", "write 6d10x"),
        ("d20 cs>=15", 5, "follows its dice with no space", "write d20cs>=15"),
        ("(n)d6x cs>=4 >= 2", 8, "follows its dice with no space", "write (n)d6xcs>=4"),
        ("5d(s)!! kh(k)", 9, "follows its dice with no space", "write 5d(s)!!kh(k)"),
        ("2d6 x 3", 5, "to multiply, write *", "2d6 * 3"),
        ("3 X (1d4)", 3, "to multiply, write *", "2d6 * 3"),
        ("2d6×3", 4, "to multiply, write *", "2d6 * 3"),
        ("3d6^2", 4, "a power is written **", "2 ** 3"),
        ("1e5 + d6", 1, "a number is written with its digits", "write 100000"),
        ("d20 + 2E12", 7, "a number is written with its digits", None),
        ("d20 adv", 5, "`adv` is not part of a roll here", "write 2d20kh1"),
        ("1d12 Disadvantage + 2", 6, "`Disadvantage` is not part", "write 2d12kl1"),
        ("4d6 drop lowest", 5, "written as a modifier after its dice", "write 4d6dl1"),
        ("1 + 6d10 keep highest 3", 10, "written as a modifier after its dice", "write 6d10kh3"),
        ("1d20+5 vs 15", 8, "to compare, write >=", "write 1d20+5 >= 15"),
        ("2d6 Versus (1d8)", 5, "`Versus` is not an operator", "write 2d6 >= (1d8)"),
        ("1.5e3", 1, "`1.5e3` is not a number here", "write 1500"),
        ("d6 * 2.5E-1", 6, "a number is written with its digits", "write 0.25"),
        ("3d6 + 1e+2", 7, "a number is written with its digits", "write 100"),
        ("/roll 4d6kh3", 1, "`/roll` is the chat's command", "4d6kh3"),
        ("8d100cs>95cf<5", 11, "counts its dice once", "write df: cs>95df<5"),
        ("2d + 3", 1, "`2d` has no number of sides", "after the d: 2d6"),
        ("1 + 3D", 5, "`3D` has no number of sides", "after the d: 3D6"),
        ("3d6 reroll 1", 5, "`reroll` is written as a modifier", "once: 3d6ro1; again and"),
        ("1 + 10d6 min 2", 10, "`min` is written as a modifier", "write 10d6min2"),
        ("4d8 MAX7", 5, "`MAX` is written as a modifier", "write 4d8max7"),
        ("2d sides + 1", 1, "`2d` has no number of sides", "in parentheses: 2d(sides)"),
        ("1 + d size", 7, "`d size` is not a die", "write d(size)"),
        ("D  faces", 4, "`D faces` is not a die", "write D(faces)"),
        ("d6 // 2", 4, "`//` is not an operator here", "floor(d6 / 2)"),
        ("d6 // 2", 4, "`//` is not an operator here", "a comment starts with `#`"),
        ("1d20 with advantage", 6, "`with advantage` is not part of a roll", "write 2d20kh1"),
        ("1d20 + @{strength}", 8, "`@{strength}` is Roll20's attribute", "write strength"),
        ("d20 + @{Weapon Skill}", 7, "Roll20's attribute", "write 'Weapon Skill'"),
        ("1d20 + 1d4 (bless)", 12, "a label is written in brackets", "write 1d4[bless]"),
        ("2 + 5 (bonus)", 7, "a label is written in brackets", "write 5[bonus]"),
        ("2d6 >= 3 and <= 5", 14, "`<=` compares two values", "again: x >= 10 and x <= 12"),
    ],
)
def test_a_wrong_modifier_is_an_error_at_it(text, column, message, hint):
    with pytest.raises(RulebookSyntaxError) as caught:
        roll(text)
    error = caught.value
    assert error.span.column == column and message in error.message
    assert hint is None or hint in error.hint


def test_a_spaced_label_says_where_a_label_goes():
    with pytest.raises(RulebookError) as caught:
        roll("1d20 [attack] + 5")
    assert "1d20[attack]" in str(caught.value.render())


@pytest.mark.parametrize(("text", "example"), [("d", "d6"), ("dd20", "d20"), ("3 + D", "d6")])
def test_a_die_written_without_sides_or_with_two_ds_says_how_it_is_written(text, example):
    with pytest.raises(RulebookError) as caught:
        roll(text)
    said = str(caught.value.render())
    assert "unknown name" in said
    assert f"a die is written with its sides after one d: {example}" in said


def test_names_that_look_like_dice_without_a_count_stay_names():
    with pytest.raises(RulebookError, match="unknown name `d20roll`"):
        roll("d20roll + 1")
    for text in ("my_d x", "add x", "2d6 + dd x"):  # (a name ending in d, then a name)
        with pytest.raises(RulebookError) as caught:
            roll(text)
        assert "is not a die" not in str(caught.value.render())


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("2d6kh5", "keeps 5 of 2 dice: all of them"),
        ("3d6dl4", "drops 4 of 3 dice: none is left"),
        ("10d10cs>=11", "no face of this die is >=11"),
        ("3d6x>6", "no face of this die is >6"),
        ("3d6rr=7", "no face of this die is =7"),
    ],
)
def test_pointless_modifiers_are_warned(text, warning):
    (found,) = expression_warnings(text)
    assert warning in found.message


def test_a_leading_minus_is_an_expression_on_the_command_line(capsys):
    assert main(["roll", "-1d6", "--dice", "4"]) == 0
    assert capsys.readouterr().out.startswith("-1d6 [4] = -4")
    assert main(["odds", "-2d4"]) == 0
    out = capsys.readouterr().out
    assert "-8" in out and "-2" in out
    assert main(["roll", "4dF", "--dice", "-1,0,1,1"]) == 0  # a negative --dice list too
    assert capsys.readouterr().out.startswith("4dF [-1, 0, 1, 1] = 1")


def test_notes_are_printed_on_stderr(capsys):
    assert main(["roll", "10d10>=6", "--seed", "1"]) == 0
    captured = capsys.readouterr()
    assert "warning:" in captured.err and "10d10cs>=6" in captured.err
    assert "warning" not in captured.out


# ─── one meaning: the odds of every new modifier are the real roller's ──────


@pytest.mark.parametrize(
    "text",
    [
        "3d4min2",
        "3d4max2kh2",
        "2d4min3x=3",  # a die raised to 3 by min explodes
        "4d4cf<=1",
        "4d4even",
        "3d{1,1,2,3}kh2",
        "2d{1,1,3}x=3",
        "3d{-1,0,1}cs=1df=-1",
        "1d4!!",
        "2d3!!kh1",
        "1d4!p",
        "2d3!p>2kl2",
        "{2d4+1d6}k2",
        "{1d4+1, 1d6}kh1",
        "{1d4, 1d4, 1d4}kl2",
        "{1d4, 1d4+1, 1d4}cs>=3",
        "{1d4, 1d4, 1d4}kh2cf<=2",
        "{2d3, 1d6}cs>=4df=2",
        "2d4sd + 1",
        "d{0..3} ** 2 % 5",
        "highest(3d4min2, 2)",
        "count(4d{1,1,2,3}, 1)",
    ],
)
def test_odds_of_each_new_modifier_are_every_draw_of_the_roller(every_draw, text):
    limits = attrs.evolve(Limits(), extra_per_die=2)  # explosions: every draw, to the limit
    odds = expression_odds(text, limits=limits)
    assert odds.exact and odds.omitted == 0
    expected = every_draw(text, limits)
    assert odds.probabilities == expected, text


def test_the_suggested_spelling_of_anydices_place_is_that_die():
    # the third highest of 4d6, against every way four dice can fall
    faces = range(1, 7)
    counts = Counter(sorted(r, reverse=True)[2] for r in itertools.product(faces, repeat=4))
    odds = expression_odds("lowest(highest(4d6, 3))")
    assert {k: Fraction(v, 6**4) for k, v in counts.items()} == dict(odds.probabilities)


def test_roll20s_inline_roll_is_read_as_written_with_a_warning(capsys):
    assert main(["roll", "[[1d20+5]]", "--dice", "7"]) == 0
    captured = capsys.readouterr()
    assert "= [[12]]" in captured.out
    assert "Roll20's inline roll" in captured.err and "write 1d20+5" in captured.err
    assert main(["roll", "[[1, 2]]"]) == 0  # a list of numbers: nothing to say
    assert "Roll20" not in capsys.readouterr().err


@given(
    whole=st.integers(0, 10**6),
    places=st.text("0123456789", max_size=6),
    exponent=st.integers(-9, 9),
)
def test_a_number_in_scientific_notation_is_rewritten_to_its_exact_digits(whole, places, exponent):
    mantissa = f"{whole}.{places}" if places else str(whole)
    written = _with_digits(mantissa, f"{exponent:+d}")
    assert Fraction(written) == Fraction(mantissa) * Fraction(10) ** exponent
    assert "e" not in written and not written.endswith(".")


@pytest.mark.parametrize("text", ["d66", "2d66 + 1", "1 + d66", "floor(d66 / 2)"])
def test_a_d66_is_warned_to_be_66_faces_not_tens_and_units(text):
    from dsl.plain_dice import read

    warnings = expression_warnings(text)
    assert len(warnings) == 1 and "dice of 66 faces" in warnings[0].message
    assert "10 * d6 + d6" in warnings[0].hint
    assert not expression_warnings("d{1..66}")
    assert read("d66") is None  # (the plain reader gives no warnings: the parser's way)
