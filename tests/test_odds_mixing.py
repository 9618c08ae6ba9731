"""Worlds alike but for the distribution a value still holds are one world holding the
mixture (interpreter.odds.mixing): a small-budget case only that path answers, and its
answers against every way the dice fall (issue 24)."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import dsl
import interpreter.odds.mixing as mixing
from interpreter import Engine

#: the check's total rides in its record (read once, by the result); given its success,
#: its distribution differs with the bonus `a`: twelve worlds per success, one once mixed
RIDING = """
check tirada(bono: int) {
  roll 1d6 + bono >= 4
}
action act() {
  let a = d12
  let r = tirada(a)
  let b = d6
  let c = d6
  let d = d6
  let t = if b > c then d else b
  let u = if r.success then t else 0
  result { u: u, total: r.total }
}
"""
#: work units: the mixed worlds need 1,540 (the whole result), the apart ones 3,104 for
#: any exact answer (measured by bisection, with odds.alike's let runs in place, and every
#: world made counted: issue 24)
SMALL = 2000


def brute() -> dict:
    counts: Counter = Counter()
    for a, x, b, c, d in product(range(1, 13), *[range(1, 7)] * 4):
        t = d if b > c else b
        counts[(t if x + a >= 4 else 0, x + a)] += 1
    return {k: Fraction(v, 12 * 6**4) for k, v in counts.items()}


def answered(odds) -> dict:
    return {(k["u"], k["total"]): p for k, p in odds.probabilities.items()}


def test_worlds_apart_only_in_a_riders_distribution_are_mixed(monkeypatch):
    engine = Engine(dsl.load_text(RIDING, "riding.rules"))
    odds = engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50)
    assert odds.exact and answered(odds) == brute()
    # switched off: each world keeps its own distribution
    monkeypatch.setattr(mixing.SWITCH, "mixed", False)
    engine = Engine(dsl.load_text(RIDING, "riding.rules"))
    assert not engine.odds("act", engine.sheet({}), {}, budget=SMALL, trials=50).exact


def test_a_mixture_keeps_each_worlds_weight():
    from interpreter.odds.distribution import Dist

    first, second = Dist({1: 1, 2: 1}, 2), Dist({2: 1, 3: 2}, 4)  # (a fourth left out)
    dist, weight = mixing.mixture([((1, 3), first), ((2, 3), second)])
    assert Fraction(*weight) == 1
    got = {k: Fraction(w, dist.total) for k, w in dist.weights.items()}
    assert got == {1: Fraction(1, 6), 2: Fraction(1, 6) + Fraction(1, 6), 3: Fraction(1, 3)}


class Counted:
    """An outcome that counts the times its hash is asked (as a record's: a Python call)."""

    asked = 0

    def __init__(self, value: int):
        self.value = value

    def __hash__(self) -> int:
        Counted.asked += 1
        return hash(self.value)

    def __eq__(self, other) -> bool:
        return type(other) is Counted and other.value == self.value


def mixed_groups() -> tuple:
    """Two groups of worlds (`a` 1 or 2), each holding the same two distributions of
    three outcomes in `r`: (the worlds mixed, the outcomes' hashes asked)."""
    from interpreter.odds.distribution import Dist
    from interpreter.odds.worlds import World

    outcomes = [Counted(v) for v in range(3)]
    first = Dist({outcomes[0]: 1, outcomes[1]: 1}, 2)
    second = Dist({outcomes[1]: 1, outcomes[2]: 3}, 4)
    worlds = [World({"a": a, "r": dist}, None, (1, 4)) for a in (1, 2) for dist in (first, second)]
    Counted.asked = 0
    out = mixing.mixed(worlds, ("a", "r"), (), lambda state: None)
    return out, Counted.asked


def test_the_mixtures_of_one_merge_look_each_outcome_up_once(monkeypatch):
    out, asked = mixed_groups()
    assert len(out) == 2
    for world in out:
        dist = world.env["r"]
        got = {k.value: Fraction(w, dist.total) for k, w in dist.weights.items()}
        assert got == {0: Fraction(1, 4), 1: Fraction(3, 8), 2: Fraction(3, 8)}
        assert Fraction(*world.weight) == Fraction(1, 2)
    # each distribution's outcomes once (4), each mixture's three made a dict (6)
    assert asked == 10
    monkeypatch.setattr(mixing.SWITCH, "shared", False)  # each mixture its own: 2 × 4 more
    assert mixed_groups()[1] > 10


def test_mixtures_of_outcomes_of_their_own_are_alike_either_way_they_sum():
    """Groups whose outcomes are their own (most of the merge's places not theirs: summed
    in a dict, not a list of every place) mix as each mixed alone."""
    from interpreter.odds.distribution import Dist
    from interpreter.odds.worlds import World

    worlds = []
    for a in range(6):
        first = Dist({(a, 0): 1, (a, 1): 1}, 2)
        second = Dist({(a, 1): 1, (a, 2): 3}, 4)
        worlds += [World({"a": a, "r": dist}, None, (1, 12)) for dist in (first, second)]
    out = mixing.mixed(worlds, ("a", "r"), (), lambda state: None)
    assert len(out) == 6
    for world in out:
        a, dist = world.env["a"], world.env["r"]
        alone = mixing.mixture([((1, 12), w.env["r"]) for w in worlds if w.env["a"] == a])[0]
        assert list(dist.weights) == list(alone.weights) == [(a, 0), (a, 1), (a, 2)]
        got = {k: Fraction(w, dist.total) for k, w in dist.weights.items()}
        assert got == {k: Fraction(w, alone.total) for k, w in alone.weights.items()}
        assert got == {(a, 0): Fraction(1, 4), (a, 1): Fraction(3, 8), (a, 2): Fraction(3, 8)}


#: two dice and the higher: many worlds merged, no value in one a distribution
PLAIN = """
action higher() {
  let a = d6
  let b = d6
  let c = if a > b then a else b
  result { c: c }
}
"""


def test_worlds_holding_no_distribution_are_not_looked_into(monkeypatch):
    """A merge (or a let's worlds) none of whose keys holds a distribution is left as it
    is (mixing.rides), without looking into each world (Seen) for one."""
    made = []

    class Looked(mixing.Seen):
        def __init__(self, names, cuts):
            made.append(names)
            super().__init__(names, cuts)

    monkeypatch.setattr(mixing, "Seen", Looked)

    def answer() -> dict:
        engine = Engine(dsl.load_text(PLAIN, "plain.rules"))
        odds = engine.odds("higher", engine.sheet({}), {}, "c")
        assert odds.exact
        return odds.probabilities

    expected = {c: Fraction(2 * c - 1, 36) for c in range(1, 7)}
    assert answer() == expected and not made
    monkeypatch.setattr(mixing.SWITCH, "quick", False)  # each world looked into
    assert answer() == expected and made
