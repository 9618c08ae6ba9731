"""A distribution's weights summed once (interpreter.odds.distribution.Dist.mass): a
`let`'s distribution is asked what it leaves out in each world that binds it (issue 24)."""

from __future__ import annotations

from fractions import Fraction

from interpreter.odds.distribution import Dist


class Counted(dict):
    """Weights that count the times their values are read."""

    read = 0

    def values(self):
        Counted.read += 1
        return super().values()


def test_the_weights_are_summed_once_however_often_asked():
    dist = Dist(Counted({1: 2, 2: 3}), 8)  # (3 of 8 left out: an exploding roll's tail)
    Counted.read = 0
    assert [dist.missing() for _ in range(5)] == [3] * 5
    assert dist.mass() == 5 and dist.omitted == Fraction(3, 8)
    assert Counted.read == 1
