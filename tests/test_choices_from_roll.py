"""Choices over the dice themselves: options built from the roll (`option each d in LIST`),
answers given by the time a choice is asked (`place#2=1`) on the command line, through the
API and over HTTP, and the best play over them, against a brute force that tries every
answer with every roll."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from web_client import page_client

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, render_text
from interpreter.choosers import Chooser
from interpreter.cli.main import main
from interpreter.errors import ChoiceNotOpen, ParameterError
from interpreter.grouping import most_sets
from interpreter.web import create_app

BOOK = """
rulebook "Dice chosen" { language "en" }

action reroll(n: int) "Reroll one die" {
  let r = (n)d4
  choose which "Which die?" {
    option no
    option each d in r.sorted if d < 4
  }
  let dice = if which = "no" then r.sorted else without(r.sorted, [which]) + [d4]
  result { raises: most_sets(dice, 5), which: which }
}

action place(n: int) "Place each die" {
  let r = (n)d4
  let first = 0
  let second = 0
  for each d in r.dice {
    choose into "Which set for {d}?" {
      option none
      option each s in 1..2 {
        if s = 1 { set first to first + d } else { set second to second + d }
      }
    }
  }
  result { raises: (if first >= 5 then 1 else 0) + (if second >= 5 then 1 else 0) }
}

action group(n: int) "Make sets" {
  let r = (n)d4
  let left = r.sorted
  let raises = 0
  repeat 2 times {
    choose set_of "A set of 5?" {
      option none
      option each g in subsets(left) if sum(g) >= 5 {
        set left to without(left, g)
        set raises to raises + 1
      }
    }
  }
  result { raises: raises }
}
"""


@pytest.fixture(scope="module")
def engine():
    return Engine(dsl.load_text(BOOK, "chosen.rules"))


def run(engine, action, n, dice, choices):
    return engine.run(
        action, engine.empty_sheet(action), {"n": n}, ForcedDice(dice), choices=choices
    )


# ─── options built from the roll ────────────────────────────────────────────


def test_an_option_for_each_die_once_each_face(engine):
    seen = []

    def ask(question):
        seen.append((question.options, question.closed))
        return 1

    out = run(engine, "reroll", 3, [1, 4, 1, 3], ask)
    assert seen == [(("no", 1), (4,))]  # the 4 closed by its condition, the two 1s one option
    assert dict(out.result) == {"raises": 1, "which": 1}  # 1, 4, 3 → 4 + 1 = 5
    assert "which: 1 (chosen at the table)" in render_text(out.trace)
    with pytest.raises(ChoiceNotOpen):
        run(engine, "reroll", 3, [1, 4, 1], {"which": 4})
    with pytest.raises(ParameterError, match="not one of its options"):
        run(engine, "reroll", 3, [1, 4, 1], {"which": 2})


def test_subsets_as_options_and_without(engine):
    out = run(engine, "group", 4, [1, 4, 2, 3], {"set_of#1": "[1, 4]", "set_of#2": "[2, 3]"})
    assert out.result["raises"] == 2
    made = [(c.name, c.value) for c in out.choices]
    assert made == [("set_of", (1, 4)), ("set_of", (2, 3))]
    # as JSON gives them (the page, the HTTP API): lists
    out = run(engine, "group", 4, [1, 4, 2, 3], {"set_of#1": [1, 4], "set_of#2": [2, 3]})
    assert out.result["raises"] == 2


def test_options_must_come_from_a_list():
    text = BOOK.replace("option each d in r.sorted", "option each d in 3")
    with pytest.raises(RulebookError, match="option each"):
        dsl.load_text(text, "bad.rules")


# ─── answers by the time a choice is asked ──────────────────────────────────


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(1, 4), min_size=3, max_size=3),
    st.lists(st.sampled_from(["none", "1", "2"]), min_size=3, max_size=3),
)
def test_each_occurrence_takes_its_own_answer(engine, dice, answers):
    choices = {f"into#{i}": a for i, a in enumerate(answers, 1)}
    out = run(engine, "place", 3, dice, choices)
    sums = {"1": 0, "2": 0, "none": 0}
    for die, answer in zip(dice, answers):
        sums[answer] += die
    assert out.result["raises"] == (sums["1"] >= 5) + (sums["2"] >= 5)
    assert [c.value for c in out.choices] == [a if a == "none" else int(a) for a in answers]


def test_an_occurrence_answer_comes_before_the_answer_for_every_time(engine):
    out = run(engine, "place", 3, [4, 4, 1], {"into": 1, "into#3": 2})
    assert [c.value for c in out.choices] == [1, 1, 2]


@pytest.mark.parametrize("key", ["into#0", "into#", "into#x", "into#-1"])
def test_an_occurrence_is_a_number_from_1(key):
    with pytest.raises(ParameterError, match="NAME#N=VALUE"):
        Chooser({key: 1})


def test_the_command_line_answers_by_occurrence(tmp_path, capsys):
    path = tmp_path / "chosen.rules"
    path.write_text(BOOK, encoding="utf-8")
    argv = ["run", str(path), "place", "--set", "n=3", "--dice", "4,1,3"]
    assert (
        main([*argv, "--choose", "into=1", "--choose", "into#2=2", "--choose", "into#3=none"]) == 0
    )
    printed = capsys.readouterr().out
    assert "into: 2 (answered in advance)" in printed and "result: raises 0" in printed


def test_http_answers_by_occurrence(tmp_path):
    (tmp_path / "chosen.rules").write_text(BOOK, encoding="utf-8")
    body = {"rulebook": "chosen", "action": "place", "params": {"n": 2}, "dice": [4, 1]}
    body["choices"] = {"into": 1, "into#2": 2}
    with page_client(create_app(tmp_path), base_url="http://127.0.0.1:8000") as client:
        answer = client.post("/api/run", json=body)
    assert answer.status_code == 200, answer.json()
    assert [c["value"] for c in answer.json()["choices"]] == [1, 2]


# ─── the best play over them ────────────────────────────────────────────────


def reroll_oracle(n: int) -> Fraction:
    """The mean Raises when the best die (or none) is rerolled, every roll tried."""
    total = Fraction(0)
    for roll in itertools.product(range(1, 5), repeat=n):
        best = Fraction(most_sets(roll, (5,)))
        for i, face in enumerate(roll):
            if face < 4:
                rest = roll[:i] + roll[i + 1 :]
                mean = Fraction(sum(most_sets((*rest, new), (5,)) for new in range(1, 5)), 4)
                best = max(best, mean)
        total += best
    return total / 4**n


@pytest.mark.parametrize("n", [1, 2, 3])
def test_best_reroll_is_the_brute_force_best(engine, n):
    odds = engine.odds(
        "reroll", engine.empty_sheet("reroll"), {"n": n}, "raises", best="mean raises"
    )
    assert odds.mean == reroll_oracle(n)


def test_best_placement_is_the_best_grouping(engine):
    # two sets, every die placed knowing every die: the best split into two sets of 5
    sheet = engine.empty_sheet("place")
    odds = engine.odds("place", sheet, {"n": 2}, "raises", best="mean raises")
    rolls = list(itertools.product(range(1, 5), repeat=2))
    assert odds.mean == Fraction(sum(min(most_sets(r, (5,)), 2) for r in rolls), len(rolls))
    # the first die given in advance to set 1: only the second is chosen
    fixed = engine.odds(
        "place", sheet, {"n": 2}, "raises", best="mean raises", choices={"into#1": 1}
    )
    assert fixed.mean == Fraction(sum(1 for a, b in rolls if a + b >= 5), len(rolls))
