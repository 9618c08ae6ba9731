"""Exact odds of a check inside an action: rulebook against icepool 2.1.3 and dyce, in one run.

    /tmp/venv/bin/python benchmarks/check_odds.py            # 5 rounds
    /tmp/venv/bin/python benchmarks/check_odds.py --rounds 9

Each case is an action that makes one check and reports it, asked for its odds through
the API (`Engine.odds(action, sheet, params, field)`: parameters bound, the check's roll
counted, its records, the action's result), beside the same distribution built with
icepool and with dyce (where dyce can say it: it has no outcomes that are tuples or
texts). Every call uses another modifier (cycling through 12), so that no side answers
from a cache of the previous call; both sides are checked to agree exactly on every
modifier before timing. The sides take turns, round after round; each time is the best
round's mean CPU time per call (`time.process_time`), and the summary gives the
geometric means of the ratios (below 1: rulebook is faster). Target (issue 12): checks
inside actions at most 1x icepool.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl
from benchmarks.corpus import peers
from interpreter import Engine

TARGET = 1.0
CALLS = 120  # calls per measurement
MODIFIERS = range(-4, 8)

BOOK = """
rulebook "Check odds benchmark" {
  system "checks inside actions"
  language "en"
}

sheet {
  attribute Strength, Dexterity in 1..10
  skill Athletics in 0..10
}

table Level by total {
  ..8:    "Failure"
  9..10:  "Adequate"
  11..12: "Decent"
  13..14: "Good"
  15..16: "Very good"
  17..:   "Excellent"
}

check simple(attr: attribute, skill: skill, modifier: int = 0) "Simple check" {
  roll d10 + 2 * attr + skill + modifier >= 9
  level = Level[total]
}
check advantage(modifier: int = 0) "With advantage" {
  roll 2d20kh1 + Dexterity + modifier >= 15
}
check under(modifier: int = 0) "Roll under" {
  roll 3d6 + modifier <= 3 * Strength
}

action test(attr: attribute, skill: skill, modifier: int = 0) "Test" {
  let c = simple(attr, skill, modifier)
  result { success: c.success, total: c.total, margin: c.margin, level: c.level }
}
action strike(modifier: int = 0) "Strike" {
  let c = advantage(modifier)
  result { hit: c.success, total: c.total }
}
action climb(modifier: int = 0) "Climb" {
  let c = under(modifier)
  result { success: c.success, margin: c.margin }
}
"""

SHEET = {"Strength": 3, "Dexterity": 4, "Athletics": 2}
BASE = 2 * SHEET["Strength"] + SHEET["Athletics"]  # the simple check's constant part


def level(total: int) -> str:
    for high, label in ((8, "Failure"), (10, "Adequate"), (12, "Decent"), (14, "Good")):
        if total <= high:
            return label
    return "Very good" if total <= 16 else "Excellent"


def cases(icepool, dyce):
    """(name, our (action, params(m), field), icepool(m), dyce(m) or None, as_ours)."""
    d10, d20, d6 = icepool.d10, icepool.d20, icepool.d6
    simple = {"attr": "Strength", "skill": "Athletics"}
    return [
        (
            "d10+k >= 9: success",
            ("test", lambda m: {**simple, "modifier": m}, "success"),
            lambda m: (d10 + BASE + m) >= 9,
            lambda m: (dyce.H(10) + BASE + m).ge(9),
            None,
        ),
        (
            "d10+k >= 9: level",
            ("test", lambda m: {**simple, "modifier": m}, "level"),
            lambda m: (d10 + BASE + m).map(level),
            None,
            None,
        ),
        (
            "d10+k >= 9: whole",
            ("test", lambda m: {**simple, "modifier": m}, None),
            lambda m: (d10 + BASE + m).map(lambda t: (t >= 9, t, t - 9, level(t))),
            None,
            lambda r: (r["success"], r["total"], r["margin"], r["level"]),
        ),
        (
            "2d20kh1+k >= 15: hit",
            ("strike", lambda m: {"modifier": m}, "hit"),
            lambda m: (d20.highest(2, 1) + SHEET["Dexterity"] + m) >= 15,
            lambda m: ((2 @ dyce.P(20)).at(-1) + SHEET["Dexterity"] + m).ge(15),
            None,
        ),
        (
            "2d20kh1+k >= 15: total",
            ("strike", lambda m: {"modifier": m}, "total"),
            lambda m: d20.highest(2, 1) + SHEET["Dexterity"] + m,
            lambda m: (2 @ dyce.P(20)).at(-1) + SHEET["Dexterity"] + m,
            None,
        ),
        (
            "3d6+k <= 9: success",
            ("climb", lambda m: {"modifier": m}, "success"),
            lambda m: (3 @ d6 + m) <= 3 * SHEET["Strength"],
            lambda m: (3 @ dyce.H(6) + m).le(3 * SHEET["Strength"]),
            None,
        ),
    ]


def agree(ours, theirs, convert) -> bool:
    """Our Odds against an icepool Die (or a dyce H): the same outcomes, the same
    probabilities, exactly."""
    mine = {}
    for outcome, p in ours.probabilities.items():
        key = convert(outcome) if convert else outcome
        mine[key] = mine.get(key, 0) + p
    if hasattr(theirs, "denominator"):  # icepool
        total = theirs.denominator()
        other = {o: Fraction(theirs.quantity(o), total) for o in theirs.outcomes()}
    else:  # dyce
        total = theirs.total
        other = {o: Fraction(c, total) for o, c in theirs.items()}
    other = {(bool(o) if isinstance(mine_key(mine), bool) else o): p for o, p in other.items()}
    other = {o: p for o, p in other.items() if p}
    return mine == other


def mine_key(mine: dict):
    return next(iter(mine)) if mine else None


def timed(function, modifiers) -> float:
    start = time.process_time()
    for i in range(CALLS):
        function(modifiers[i % len(modifiers)])
    return (time.process_time() - start) / CALLS


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    found = peers()
    if found is None:
        return 1
    icepool, dyce = found
    engine = Engine(dsl.load_text(BOOK))
    sheet = engine.sheet(SHEET)
    modifiers = list(MODIFIERS)
    print(f"icepool {icepool.__version__}; times in µs per call, best of {args.rounds} rounds")
    columns = ("rulebook", "icepool", "dyce", "/icepool")
    print(f"{'case':24s} " + " ".join(f"{c:>9s}" for c in columns) + f" {'/dyce':>7s}")
    ratios_icepool, ratios_dyce = [], []
    for name, (action, params, field), build_icepool, build_dyce, convert in cases(icepool, dyce):

        def ours(m, action=action, params=params, field=field):
            return engine.odds(action, sheet, params(m), field)

        for m in modifiers:  # the two sides mean the same, for every modifier
            if not agree(ours(m), build_icepool(m), convert):
                print(f"{name}: rulebook and icepool disagree at modifier {m}")
                return 1
            if build_dyce is not None and not agree(ours(m), build_dyce(m), convert):
                print(f"{name}: rulebook and dyce disagree at modifier {m}")
                return 1
        sides = {"rulebook": ours, "icepool": build_icepool}
        if build_dyce is not None:
            sides["dyce"] = build_dyce
        best: dict = {}
        for _ in range(args.rounds):
            for side, function in sides.items():
                elapsed = timed(function, modifiers)
                best[side] = min(best.get(side, elapsed), elapsed)
        vs_icepool = best["rulebook"] / best["icepool"]
        vs_dyce = best["rulebook"] / best["dyce"] if "dyce" in best else None
        ratios_icepool.append(vs_icepool)
        if vs_dyce is not None:
            ratios_dyce.append(vs_dyce)
        dyce_time = f"{best['dyce'] * 1e6:9.0f}" if "dyce" in best else f"{'-':>9s}"
        dyce_ratio = f"{vs_dyce:7.2f}" if vs_dyce is not None else f"{'-':>7s}"
        print(
            f"{name:24s} {best['rulebook'] * 1e6:9.0f} {best['icepool'] * 1e6:9.0f} "
            f"{dyce_time} {vs_icepool:9.2f} {dyce_ratio}"
        )
    mean_icepool, mean_dyce = geomean(ratios_icepool), geomean(ratios_dyce)
    print(
        f"\ngeometric mean of time ratios: rulebook/icepool {mean_icepool:.2f} "
        f"(target <= {TARGET}), rulebook/dyce {mean_dyce:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
