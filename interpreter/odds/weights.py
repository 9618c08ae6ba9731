"""The probability of a world: exact, as whole numbers (numerator, denominator), reduced rarely.

The explorer multiplies a world's probability by an outcome's weight over its
distribution's total at every branch, and adds up the probabilities of worlds it merges.
As Fractions, each of those steps would look for a common factor (a gcd of numbers that
grow with every branch). As plain pairs, a branch is two multiplications, worlds that
share a denominator (those from one branch, or from equal ones) add up with one integer
addition, and the common factor is taken out once, when the answer is made (or when a
denominator grows past a few thousand bits).
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd

#: certainty
ONE = (1, 1)
#: bits a denominator may reach before its common factor with the numerator is taken out
TIDY_BITS = 4096
#: bit-products (the bits of one number times the other's) past which that common factor
#: is not looked for: a gcd of two numbers of a million bits is seconds nothing can
#: interrupt (a factor left in changes no probability)
TIDY_WORK = 4_000_000_000


def times(weight: tuple, numerator: int, denominator: int) -> tuple:
    """weight × numerator / denominator."""
    n, d = weight
    n, d = n * numerator, d * denominator
    bits = d.bit_length()
    if bits > TIDY_BITS and bits * n.bit_length() <= TIDY_WORK:
        common = gcd(n, d)
        return n // common, d // common
    return n, d


def plus(a: tuple, b: tuple) -> tuple:
    """a + b, over their least common denominator (where finding it is cheap)."""
    if a[1] == b[1]:
        return a[0] + b[0], a[1]
    common = least_common(a[1], b[1])
    return times((a[0] * (common // a[1]) + b[0] * (common // b[1]), common), 1, 1)


def times_fraction(weight: tuple, probability: Fraction) -> tuple:
    return times(weight, probability.numerator, probability.denominator)


def fraction(weight: tuple) -> Fraction:
    return Fraction(*weight)


def least_common(a: int, b: int) -> int:
    """A common multiple of a and b: the least, when finding it is cheap (TIDY_WORK),
    else their product."""
    if a == 1 or b == 1 or a.bit_length() * b.bit_length() > TIDY_WORK:
        return a * b if a != b else a
    return a * b // gcd(a, b)


#: the bits of the denominator an omitted mass is rounded up to, when its exact fraction
#: would take too long to reduce
ROUNDED_BITS = 128
#: no probability (a Fraction cannot change: one for every mass of nothing)
NOTHING = Fraction(0)


def at_most(numerator: int, denominator: int) -> Fraction:
    """numerator / denominator as a Fraction: exact where reducing it is cheap (TIDY_WORK),
    else rounded up to a multiple of 2**-ROUNDED_BITS (for a mass left out: never less
    than what was left out, never more by a 10**38th)."""
    if not numerator:  # nothing left out (most answers): no Fraction made
        return NOTHING
    if numerator.bit_length() * denominator.bit_length() <= TIDY_WORK:
        return Fraction(numerator, denominator)
    scale = 1 << ROUNDED_BITS
    return Fraction(-(-numerator * scale // denominator), scale)


def pruned_up_to(prune: Fraction, weight: tuple, total: int) -> int:
    """The most an outcome may weigh, out of `total`, and be pruned in a world of
    `weight`: weight × w / total <= prune for every w up to it."""
    n, d = weight
    return (prune.numerator * d * total) // (prune.denominator * n)


def below(weight: tuple, threshold: Fraction) -> bool:
    """Whether the weight is less than a probability."""
    n, d = weight
    return n * threshold.denominator < threshold.numerator * d


class Mass:
    """A sum of many weights, kept as numerators by denominator: adding one is an int
    addition, and the few distinct denominators meet only at the end."""

    __slots__ = ("parts",)

    def __init__(self, first: tuple | None = None):
        self.parts: dict = {}
        if first is not None:
            self.parts[first[1]] = first[0]

    def add(self, weight: tuple) -> None:
        parts, denominator = self.parts, weight[1]
        parts[denominator] = parts.get(denominator, 0) + weight[0]

    def weight(self) -> tuple:
        """The sum, as a weight."""
        parts = self.parts
        if not parts:
            return (0, 1)
        if len(parts) == 1:
            ((denominator, numerator),) = parts.items()
            return numerator, denominator
        common = 1
        for denominator in parts:
            common = least_common(common, denominator)
        total = sum(numerator * (common // denominator) for denominator, numerator in parts.items())
        return times((total, common), 1, 1)

    def value(self) -> Fraction:
        """The sum, as a Fraction."""
        return Fraction(*self.weight())
