"""The shipped games' worked examples, one table per game (tests/examples/<game>.yaml):
each example run with its forced dice and held to every number its passage states.

The format and what each claim checks are in tests/worked_examples.py. The rules around
the examples (limits, refusals, properties) stay as code in tests/test_rulebook_*.py.
"""

from __future__ import annotations

import copy

import pytest
from worked_examples import examples, games, run_example

CASES = [example for path in games() for example in examples(path)]


@pytest.mark.parametrize("example", CASES, ids=lambda e: f"{e['rulebook'][10:-6]}:{e['name']}")
def test_worked_example(example):
    run_example(example)


def test_every_shipped_game_has_its_table():
    assert [path.stem for path in games()] == [
        "arcana_mundi",
        "brujeria",
        "mago",
        "nuevos_dioses",
        "pentagrama",
    ]


def _numbers(value, where=()):
    """Every whole number in a claim, with where it stands."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield where
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _numbers(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _numbers(item, (*where, index))


def _nudged(claim: dict, where: tuple) -> dict:
    wrong = copy.deepcopy(claim)
    holder = wrong
    for step in where[:-1]:
        holder = holder[step]
    holder[where[-1]] += 1
    return wrong


@pytest.mark.parametrize("path", games(), ids=lambda p: p.stem)
def test_a_wrong_number_in_the_table_fails(path):
    """Each number a claim states is checked: one off, anywhere, and the example fails."""
    for example in examples(path):
        for index, claim in enumerate(example["claims"]):
            if "raises" in claim:
                continue
            for where in _numbers({k: v for k, v in claim.items() if k != "says"}):
                claims = list(example["claims"])
                claims[index] = _nudged(claim, where)
                with pytest.raises(AssertionError):
                    run_example({**example, "claims": claims})
