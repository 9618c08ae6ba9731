"""The caller's budget (`--budget`) bounds a dice term's own counting too.

A small one turns an answer the default budget counts exactly into a sampled one."""

from __future__ import annotations

import json

import pytest

from interpreter.cli import main
from interpreter.odds import BUDGET, expression_odds
from interpreter.odds.pools import DEFAULT_BUDGET, term_budget


def odds_json(capsys, *argv: str) -> dict:
    assert main(["odds", *argv, "--trials", "100", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("expression", ["60d20", "20d6!"])  # a plain term; one the roller counts
def test_a_small_budget_changes_the_answer_from_counted_to_sampled(capsys, expression):
    assert odds_json(capsys, expression)["exact"] is True
    assert odds_json(capsys, expression, "--budget", "100")["exact"] is False


def test_the_default_budget_gives_a_term_what_it_had():
    assert term_budget(BUDGET) == DEFAULT_BUDGET
    assert expression_odds("60d20", budget=BUDGET).exact
    assert not expression_odds("60d20", budget=BUDGET // 1000, trials=50).exact
