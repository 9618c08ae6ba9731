"""Runs per second: a check-shaped action through the API against a hand-written function.

    python benchmarks/check_action.py            # 5 rounds of ~1 s per measurement
    python benchmarks/check_action.py --quick    # 2 rounds of ~0.3 s

The action is a Unisystem-shaped check: d10 + attribute x 2 + skill + a difficulty
modifier against 9, and the success level from a ranged table. Ours runs it with
`Engine.run("test", sheet, params, dice=SeededDice(n))`; the hand-written function does
the same with `random.Random`. Before timing, both are run on every face of the d10 with
a range of modifiers (forced dice on our side) and must give the same result, so the two
do the same work.

Two ways of getting dice, each measured on both sides:
- a seed per run: ours `SeededDice(n)`, the hand-written `random.Random(n)` (an app
  that records each run's seed pays this; seeding a generator costs a few microseconds);
- one generator for all runs: one `SeededDice`, one `random.Random` (the engine's own
  cost, with nothing else around it).
Ours is measured twice in each: without touching `out.trace`, and with it (the trace is
built lazily, by running again with the dice the run recorded). The measurements take
turns, round after round; the medians are compared. The target: ours at most 3x the time
of the hand-written function. Time is CPU time (`time.process_time`), so that a shared,
busy machine taking the CPU away now and then does not count against one measurement.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from bisect import bisect_left
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl
from interpreter import Engine, ForcedDice, SeededDice

TARGET = 3.0
BATCH = 200  # runs between two looks at the clock

BOOK = """
rulebook "Check benchmark" {
  system "a Unisystem-shaped check"
  language "en"
}

sheet {
  attribute Strength, Dexterity, Willpower in 1..10
  skill Athletics, Stealth in 0..10
}

table Level by total {
  ..8:    "Failure"
  9..10:  "Adequate"
  11..12: "Decent"
  13..14: "Good"
  15..16: "Very good"
  17..20: "Excellent"
  21..23: "Extraordinary"
  24..:   "Amazing"
}

check simple(attr: attribute, skill: skill, modifier: int = 0) "Simple check" {
  roll d10 + 2 * attr + skill + modifier >= 9
  level = Level[total]
}

action test(attr: attribute, skill: skill, modifier: int = 0) "Test" {
  let c = simple(attr, skill, modifier)
  result { success: c.success, total: c.total, margin: c.margin, level: c.level }
}
"""

SHEET = {"Strength": 3, "Dexterity": 4, "Willpower": 2, "Athletics": 2, "Stealth": 3}
PARAMS = {"attr": "Dexterity", "skill": "Stealth", "modifier": -2}
MODIFIERS = range(-16, 12)  # with every d10 face, totals from below 9 to past 24: every row

# The Level table by hand: the highest total of each row, then each row's label.
LEVEL_TOPS = (8, 10, 12, 14, 16, 20, 23)
LEVEL_LABELS = (
    "Failure",
    "Adequate",
    "Decent",
    "Good",
    "Very good",
    "Excellent",
    "Extraordinary",
    "Amazing",
)


def hand_check(sheet: dict, attr: str, skill: str, modifier: int, rng: random.Random) -> dict:
    """The same check, written by hand."""
    total = rng.randint(1, 10) + 2 * sheet[attr] + sheet[skill] + modifier
    return {
        "success": total >= 9,
        "total": total,
        "margin": total - 9,
        "level": LEVEL_LABELS[bisect_left(LEVEL_TOPS, total)],
    }


class _OneFace:
    """A stand-in for random.Random whose d10 always shows one face."""

    def __init__(self, face: int):
        self.face = face

    def randint(self, low: int, high: int) -> int:
        return self.face


def agree(engine: Engine, sheet) -> int:
    """Both sides give the same result on every face and many modifiers; how many runs."""
    runs = 0
    for modifier in MODIFIERS:
        params = dict(PARAMS, modifier=modifier)
        for face in range(1, 11):
            ours = dict(engine.run("test", sheet, params, dice=ForcedDice([face])).result)
            hand = hand_check(SHEET, params["attr"], params["skill"], modifier, _OneFace(face))
            if ours != hand:
                sys.exit(
                    f"the two sides disagree on face {face}, modifier {modifier}: "
                    f"ours {ours}, by hand {hand}"
                )
            runs += 1
    return runs


def variants(engine: Engine, sheet) -> dict[str, Callable[[int], object]]:
    """Each measurement as a function of the run's number."""
    run = engine.run
    attr, skill, modifier = PARAMS["attr"], PARAMS["skill"], PARAMS["modifier"]
    shared_dice, shared_rng = SeededDice(12345), random.Random(12345)
    return {
        "hand, seed per run": lambda i: hand_check(SHEET, attr, skill, modifier, random.Random(i)),
        "ours, seed per run": lambda i: run("test", sheet, PARAMS, dice=SeededDice(i)),
        "ours + trace, seed per run": lambda i: (
            run("test", sheet, PARAMS, dice=SeededDice(i)).trace
        ),
        "hand, one generator": lambda i: hand_check(SHEET, attr, skill, modifier, shared_rng),
        "ours, one generator": lambda i: run("test", sheet, PARAMS, dice=shared_dice),
        "ours + trace, one generator": lambda i: run("test", sheet, PARAMS, dice=shared_dice).trace,
    }


def rate(fn: Callable[[int], object], seconds: float, first: int) -> float:
    """Runs per CPU second of `fn`, over about `seconds` of CPU time."""
    done = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for i in range(first + done, first + done + BATCH):
            fn(i)
        done += BATCH
        now = time.process_time()
        if now >= deadline:
            return done / (now - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds of ~0.3 s")
    parser.add_argument("--rounds", type=int, help="rounds (default 5)")
    parser.add_argument("--seconds", type=float, help="seconds per measurement (default 1)")
    args = parser.parse_args(argv)
    rounds = args.rounds or (2 if args.quick else 5)
    seconds = args.seconds or (0.3 if args.quick else 1.0)

    engine = Engine(dsl.load_text(BOOK, "check_action.rules"))
    sheet = engine.sheet(SHEET)
    checked = agree(engine, sheet)
    measured = variants(engine, sheet)
    for fn in measured.values():  # warm up
        for i in range(BATCH):
            fn(i)
    print(
        f"check-action benchmark: Python {platform.python_version()}, {rounds} rounds of "
        f"~{seconds:g} s per measurement, taking turns"
    )
    print(
        f"  the two sides agree on all {checked} forced runs "
        f"(every face, {len(MODIFIERS)} modifiers)"
    )
    rates: dict[str, list[float]] = {name: [] for name in measured}
    for number in range(rounds):
        for name, fn in measured.items():
            rates[name].append(rate(fn, seconds, first=10_000_000 * number))
    medians = {name: statistics.median(values) for name, values in rates.items()}
    width = max(map(len, medians))
    print("median runs per second, microseconds per run, and the rounds' range:")
    for name, value in medians.items():
        low, high = min(rates[name]), max(rates[name])
        print(
            f"  {name:<{width}} {value:>9,.0f}/s {1e6 / value:7.1f} us"
            f"   ({low:,.0f} .. {high:,.0f})"
        )
    print(f"ours' time over the hand-written function's (target <= {TARGET:g}x):")
    for dice in ("seed per run", "one generator"):
        hand = medians[f"hand, {dice}"]
        for ours in ("ours", "ours + trace"):
            ratio = hand / medians[f"{ours}, {dice}"]
            verdict = "met" if ratio <= TARGET else "NOT met"
            print(f"  {ours + ', ' + dice:<{width}} {ratio:7.2f}x  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
