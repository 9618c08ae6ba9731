"""interpreter.odds.kept_draws: a pool's kept dice in the order rolled, drawn as a
multiset's state and then one kept die at a time, against every roll of the dice kept
by interpreter.dice.keep_dice (ties to the earlier die)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from interpreter.dice import KEPT, keep_dice
from interpreter.odds.kept_draws import KeptDie, next_kept, passes, states_of

#: dice by their faces' weights: a d3, a die of listed faces, a d2, one of four far apart
DICE = [{1: 1, 2: 1, 3: 1}, {1: 2, 2: 1, 3: 3}, {1: 1, 2: 1}, {0: 1, 5: 2, 7: 1, 9: 1}]


def every_roll(weights: dict, dice: int, mode: str, k: int) -> Counter:
    """The kept faces in the order rolled → their chance, over every roll."""
    total = sum(weights.values())
    out: Counter = Counter()
    for faces in product(sorted(weights), repeat=dice):
        rolled = [[face, KEPT, False] for face in faces]
        keep_dice(rolled, mode, k)
        chance = Fraction(1, total**dice)
        for face in faces:
            chance *= weights[face]
        out[tuple(f[0] for f in rolled if f[1] == KEPT)] += chance
    return out


def drawn(weights: dict, dice: int, mode: str, k: int) -> Counter:
    """The same, drawn as kept_draws draws it."""
    die = KeptDie(weights, mode, k)
    start = states_of(die, dice)
    assert start is not None
    going = Counter({((), state): Fraction(w, sum(weights.values()) ** dice)
                     for state, w in start.items()})  # fmt: skip
    out: Counter = Counter()
    while going:
        following: Counter = Counter()
        for (kept, state), chance in going.items():
            if not passes(die, state):
                out[kept] += chance
                continue
            ways, denominator = next_kept(die, state)
            assert sum(w for _, _, w in ways) == denominator
            for face, after, w in ways:
                following[((*kept, face), after)] += chance * Fraction(w, denominator)
        going = following
    return out


@pytest.mark.parametrize("weights", DICE)
@pytest.mark.parametrize("mode", ["kh", "kl", "dh", "dl"])
def test_kept_dice_drawn_agree_with_every_roll(weights, mode):
    for dice in range(5):
        for k in range(dice + 2):
            assert drawn(weights, dice, mode, k) == every_roll(weights, dice, mode, k)
