"""Exact odds: closed forms, agreement with the real roller sampled, actions, the API.

The agreement with an independent exact calculator (icepool) on a corpus covering every
notation form is in tests/test_distribution.py.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

import dsl
from interpreter import Engine, SeededDice, roll
from interpreter.cli import main
from interpreter.odds import EPSILON, expression_odds
from interpreter.odds.budget import Deadline, SafetyStop
from interpreter.odds.polynomials import TooComplex

DATA = Path(__file__).resolve().parent / "data"
CHARACTERS = Path(__file__).resolve().parent.parent / "rulebooks" / "characters"


def test_sum_of_two_d6_is_the_triangle():
    odds = expression_odds("2d6")
    assert odds.exact and odds.omitted == 0
    for total in range(2, 13):
        assert odds.probability(total) == Fraction(6 - abs(total - 7), 36)
    assert odds.mean == 7
    assert odds.stdev == pytest.approx(math.sqrt(35 / 6))


def test_sum_of_many_d6_matches_the_counting_formula():
    # P(sum = s) for n d6: Σ_k (-1)^k C(n, k) C(s - 6k - 1, n - 1) / 6^n
    n = 5
    odds = expression_odds(f"{n}d6")
    for s in range(n, 6 * n + 1):
        ways = sum(
            (-1) ** k * comb(n, k) * comb(s - 6 * k - 1, n - 1) for k in range((s - n) // 6 + 1)
        )
        assert odds.probability(s) == Fraction(ways, 6**n)


def test_success_counts_are_binomial():
    odds = expression_odds("12d10cs>=7")
    p = Fraction(4, 10)
    for k in range(13):
        assert odds.probability(k) == comb(12, k) * p**k * (1 - p) ** (12 - k)


def test_successes_with_ones_cancelling_are_trinomial():
    # each die: success (6..10) 1/2, a one -1/10, else 0 — net = successes - ones
    odds = expression_odds("10d10cs>=6df=1")
    s, f, o = Fraction(1, 2), Fraction(1, 10), Fraction(2, 5)
    for net in range(-10, 11):
        expected = sum(
            Fraction(
                math.factorial(10),
                math.factorial(a) * math.factorial(b) * math.factorial(10 - a - b),
            )
            * s**a
            * f**b
            * o ** (10 - a - b)
            for a in range(11)
            for b in range(11 - a)
            if a - b == net
        )
        assert odds.probability(net) == expected


def test_keep_highest_is_the_order_statistic():
    # 2d20kh1 (advantage): P(max = m) = (m² - (m-1)²) / 400
    odds = expression_odds("2d20kh1")
    for m in range(1, 21):
        assert odds.probability(m) == Fraction(m * m - (m - 1) ** 2, 400)
    # 4d6kh3: the classic table
    table = expression_odds("4d6kh3")
    assert table.probability(18) == Fraction(21, 1296)
    assert table.probability(3) == Fraction(1, 1296)
    assert table.mean == Fraction(15869, 1296)


def test_the_cli_json_for_the_closed_form(capsys):
    assert main(["odds", "10d10cs>=6df=1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exact"] is True and data["trials"] is None and data["omitted_mass"] == 0
    expected = expression_odds("10d10cs>=6df=1")
    for i, item in enumerate(data["outcomes"]):
        exact = expected.probability(item["outcome"])
        assert item["probability"] == pytest.approx(float(exact), abs=1e-15)
        assert Fraction(data["fractions"][f"/outcomes/{i}/probability"]) == exact
    assert sum(item["probability"] for item in data["outcomes"]) == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize(
    "expression",
    [
        "3d6",
        "4d6kh3",
        "d20 + d4 - 2",
        "max(d6, d6) * 2",
        "floor(3d6 / 2)",
        "2d6x",
        "5d10cs>=8df=1",
        "3d6rr=1",
        "4dF",
        "(2d6 >= 7)",
    ],
)
def test_exact_odds_agree_with_the_real_roller_sampled(expression):
    """Each outcome's sampled frequency lies within 4 standard errors of the exact odds."""
    exact = expression_odds(expression)
    trials = 4000
    dice = SeededDice(2026)
    counts = Counter(roll(expression, dice).total for _ in range(trials))
    for outcome in set(counts) | set(exact.probabilities):
        p = float(exact.probability(outcome))
        frequency = counts[outcome] / trials
        stderr = math.sqrt(max(p * (1 - p), 1 / trials) / trials)
        assert abs(frequency - p) <= 4 * stderr, (expression, outcome, p, frequency)


def test_open_ended_rolls_report_what_they_leave_out():
    exploded = expression_odds("d6x")
    assert 0 < exploded.omitted < EPSILON
    assert sum(exploded.probabilities.values()) + exploded.omitted == 1


@pytest.fixture(scope="module")
def showcase():
    engine = Engine(dsl.load(DATA / "showcase.rules"))
    return engine, engine.load_sheet(DATA / "showcase.yaml")


def test_the_open_d10_and_the_doubles_leave_out_less_than_epsilon(showcase):
    engine, sheet = showcase
    for name in ("open", "doubles", "scare"):
        odds = engine.odds(name, sheet, {}, None)
        assert odds.exact
        assert 0 < odds.omitted < EPSILON
    open_d10 = engine.odds("open", sheet)
    # a plain face 2..9: 1/10 each; a 10 adds d6 - 1 (0..4 without a chain): 1/60 each
    assert open_d10.probability(5) == Fraction(1, 10)
    assert open_d10.probability(10) == Fraction(1, 60)
    assert open_d10.mean == pytest.approx(5.5, abs=0.2)


def test_a_check_field_exactly(showcase):
    engine, sheet = showcase
    # simple(Wits): open d10 + 2 * 4 + 0 >= 9 fails exactly when open <= 0, that is when
    # the d10 shows 1 (a d6 is then subtracted): 1/10, less the tail of the chains that
    # were cut short (all of it failures after a 1, successes after a 10).
    odds = engine.odds("simple", sheet, {"attr": "Wits"}, "success")
    assert odds.exact
    assert Fraction(1, 10) - EPSILON < odds.probability(False) <= Fraction(1, 10)
    assert Fraction(9, 10) - EPSILON < odds.probability(True) <= Fraction(9, 10)


def test_an_action_result_exactly_and_its_api(showcase):
    engine, sheet = showcase
    odds = engine.odds("cast_spell", sheet, {"spell": "Fireball"}, "success")
    assert odds.exact and odds.omitted < EPSILON
    # doubles + 6 > 10 ⇔ the 2d10 (with chains) shows 5 or more
    total = sum(odds.probabilities.values()) + odds.omitted
    assert total == 1
    assert odds.at_least(True) == odds.probability(True)
    tribute = engine.odds("cast_spell", sheet, {"spell": "Fireball"}, "Tribute")
    assert tribute.numeric() and tribute.quantile(Fraction(1, 2)) in tribute.probabilities
    assert tribute.at_least(0) == 1 - tribute.omitted
    # 8 on the sheet: a success leaves it, a near miss adds 1, a bad miss turns 10 into
    # a point of Shadow
    assert set(tribute.probabilities) <= set(range(10))
    assert tribute.at_most(7) + tribute.at_least(8) == 1 - tribute.omitted


def test_failures_are_outcomes(showcase):
    engine, sheet = showcase
    odds = engine.odds("cast_spell", sheet, {"spell": "Drown"}, "success")
    [(outcome, probability)] = odds.probabilities.items()
    assert str(outcome).startswith("fails: You cannot spend 12 dinamis[Virtus]: you have 5")
    assert probability == 1


def test_sampling_when_exact_would_pass_the_budget(showcase):
    engine, sheet = showcase
    odds = engine.odds("cast_spell", sheet, {"spell": "Fireball"}, "success", budget=5, trials=500)
    assert not odds.exact and odds.trials == 500
    assert sum(odds.probabilities.values()) == 1
    assert odds.stderr(True) == pytest.approx(
        math.sqrt(float(odds.probability(True)) * float(odds.probability(False)) / 500)
    )
    exact = engine.odds("cast_spell", sheet, {"spell": "Fireball"}, "success")
    assert abs(float(odds.probability(True) - exact.probability(True))) < 4 * max(
        odds.stderr(True), 0.01
    )


def test_odds_text_and_compare(capsys):
    rules, sheet = str(DATA / "showcase.rules"), str(DATA / "showcase.yaml")
    assert (
        main(["odds", rules, "simple", "--char", sheet, "--set", "attr=Wits", "--field", "success"])
        == 0
    )
    out = capsys.readouterr().out
    assert "(exact;" in out
    # yes/no as the language writes them (and as `rulebook run` shows them)
    false_row = next(line for line in out.splitlines() if line.strip().startswith("no "))
    assert "10.0000%" in false_row
    # 1/10 less the tail the open-ended chains leave out: 15 digits, shown when asked for
    assert "/" not in false_row
    assert "false" not in out and "true" not in out
    asked = ["odds", rules, "simple", "--char", sheet, "--set", "attr=Wits", "--field", "success"]
    assert main([*asked, "--fractions"]) == 0
    out = capsys.readouterr().out
    false_row = next(line for line in out.splitlines() if line.strip().startswith("no "))
    numerator, denominator = map(int, false_row.split()[-1].split("/"))
    tail = Fraction(1, 10**12)
    assert Fraction(1, 10) - tail < Fraction(numerator, denominator) <= Fraction(1, 10)
    assert (
        main(
            [
                "odds",
                rules,
                "simple",
                "--char",
                sheet,
                "--set",
                "attr=Wits",
                "--field",
                "success",
                "--compare",
                "difficulty=Very hard",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "B: difficulty=Very hard" in out and "+40.0000%" in out
    lines = out.splitlines()  # each table under its letter, as the comparison names them
    assert lines[0] == "A: as given" and "B: difficulty=Very hard" in lines
    assert lines[lines.index("B: difficulty=Very hard") + 1].startswith("simple")


# ─── the acceptance, on the shipped rulebooks ───────────────────────


def test_grito_baquico_success_is_printed_as_an_exact_fraction(capsys):
    code = main(
        [
            "odds",
            "arcana_mundi",
            "usar_numina",
            "--char",
            "menecma",
            "--set",
            "numina=Grito Báquico",
            "--field",
            "éxito",
            "--fractions",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "(exacto;" in out  # the rulebook is Spanish
    rows = {line.split()[0]: line for line in out.splitlines()[2:] if line.strip()}
    # 3 + 3 + 7 + 2d10 >= 15 fails only on a double 1 (whose chain is subtracted): 1/100,
    # less the tail the chains leave out
    numerator, denominator = map(int, rows["no"].split()[-1].split("/"))
    assert Fraction(1, 100) - EPSILON < Fraction(numerator, denominator) <= Fraction(1, 100)


@pytest.mark.parametrize(
    "book, roll_name, character",
    [("brujeria", "abierta", "brujeria_bruja"), ("arcana_mundi", "capicua", "menecma")],
)
def test_the_open_d10_and_the_doubles_report_less_than_1e_12_left_out(book, roll_name, character):
    engine = Engine.of(dsl.load(book))
    sheet = engine.load_sheet(CHARACTERS / f"{character}.yaml")
    odds = engine.odds(roll_name, sheet)
    assert odds.exact
    assert 0 < odds.omitted < Fraction(1, 10**12)
    assert sum(odds.probabilities.values()) + odds.omitted == 1


@pytest.mark.parametrize("wall_step", [None, 0.003])
def test_a_deadline_passes_after_its_seconds_of_computing_and_not_before(
    counted_clock, monkeypatch, wall_step
):
    # The thread's clock is read only once the wall clock says the time may be up: the
    # computation still gets all its seconds of computing, and stops once they are spent.
    # Each look at the thread's clock moves it a thousandth of a second; the wall clock
    # moves as much (an idle machine: one clock for both) or three times as much (a
    # loaded one, whose other work the wall clock counts too).
    from interpreter.odds import budget

    counted_clock.step = 0.001
    if wall_step is not None:
        monkeypatch.setattr(budget, "wall", type(counted_clock)(wall_step))
    deadline = Deadline(0.05)
    while True:
        early = counted_clock.now + counted_clock.step < deadline.at  # its next look: early
        if deadline.passed():
            break
        assert counted_clock.looks < 1000  # (it passes at all)
    assert not early  # not before its seconds of computing are spent
    assert deadline.at <= counted_clock.now < deadline.at + 0.003  # but once they are
    with pytest.raises(TooComplex) as stopped:
        Deadline(0.0).check()
    assert not isinstance(stopped.value, SafetyStop)  # sampling's deadline
    # the exact phase's safety stop follows its budget, not the time limit (a time
    # limit already up, a budget of 100 units: 0.03 s), or the time limit when longer
    safety = Deadline(0.0).exact_stop(100)
    assert safety.seconds == 100 * budget.SAFETY_SECONDS_PER_UNIT
    assert not safety.passed()
    safety.check()  # no error: its seconds are left
    assert Deadline(60.0).exact_stop(100).seconds == 60.0
    with pytest.raises(SafetyStop, match="safety stop"):  # the exact phase's: says so
        counted_clock.step = 1.0
        for _ in range(1000):
            safety.check()
    # sampling after an exact phase that gave up late still has a tenth of the time
    counted_clock.step = 0.0
    late = Deadline(0.5, at=counted_clock.now - 1)
    assert late.for_sampling().left() > 0.04
