"""Time the exact odds of a Genesys pool of symbol dice: rulebook against icepool's vector faces.

    python benchmarks/symbol_dice.py [--repeat 3] [--sizes 4,8,12,16]

The pool of examples/games/genesys.rules' `skill_check`, at several sizes (POOLS; 16 is
3 Proficiency, 2 Ability, 3 Boost, 3 Challenge, 2 Difficulty, 3 Setback).
The question: the chance of success (net successes, a Triumph counting as one and a
Despair as a failure, of 1 or more), exactly.

- `rulebook`: `Engine.odds(..., field="success")`, end to end (the check's own pool);
- `icepool full`: each die's faces as 6-symbol `icepool.Vector`s, the dice summed, then
  the net successes read of the sum (the readable form: every symbol counted);
- `icepool sums`: each face first mapped to (net successes, net advantages), then summed
  (what rulebook counts: the sums the rules read).

Each is timed in this process, the best of --repeat rounds; icepool's caches are cleared
(`icepool.clear_cache`, when it has one) before each of its rounds. The answers are
compared (they must be equal, fraction for fraction). Below 1, rulebook is faster.

This is a benchmark, not a test: CI does not run it. Measured on a shared 2-core machine
(under load from other work), --repeat 2:

    dice    rulebook  icepool full  icepool sums  ratios
       4      0.072s        0.164s        0.039s  0.44 1.83
       8      0.331s        2.326s        0.086s  0.14 3.86
      12      0.717s       18.355s        0.505s  0.04 1.42
      16      3.651s      104.158s        0.671s  0.04 5.44

Since the success alone is asked, the check counts its pool by the sum the roll reads
alone (the net successes; compile.symbol_forms.built_in_cuts), not by the four sums its
fields read too. Measured after that, --repeat 1 --sizes 4,8,12 (load about 4):

    dice    rulebook  icepool full  icepool sums  ratios
       4      0.015s        0.060s        0.017s  0.25 0.88
       8      0.007s        1.036s        0.072s  0.01 0.10
      12      0.007s        7.615s        0.177s  0.00 0.04

(16 dice, benchmarks/wording.py's `packed`: 0.005 s against icepool sums' 0.210 s.)
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dsl
from interpreter import Engine

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "examples" / "games" / "genesys.rules"

# (success, advantage, triumph, failure, threat, despair) of each face, by letter
FACES = {
    "Boost": ["", "", "s", "sa", "aa", "a"],
    "Setback": ["", "", "f", "f", "h", "h"],
    "Ability": ["", "s", "s", "ss", "a", "a", "sa", "aa"],
    "Difficulty": ["", "f", "ff", "h", "h", "h", "hh", "fh"],
    "Proficiency": ["", "s", "s", "ss", "ss", "a", "sa", "sa", "sa", "aa", "aa", "t"],
    "Challenge": ["", "f", "f", "ff", "ff", "h", "h", "fh", "fh", "hh", "hh", "d"],
}


#: the pools timed, by size: how many of each die
POOLS = {
    4: {"Proficiency": 1, "Ability": 1, "Boost": 0, "Challenge": 1, "Difficulty": 1, "Setback": 0},
    8: {"Proficiency": 2, "Ability": 1, "Boost": 1, "Challenge": 1, "Difficulty": 2, "Setback": 1},
    12: {"Proficiency": 2, "Ability": 2, "Boost": 2, "Challenge": 2, "Difficulty": 2, "Setback": 2},
    16: {"Proficiency": 3, "Ability": 2, "Boost": 3, "Challenge": 3, "Difficulty": 2, "Setback": 3},
}


def rulebook_odds(engine: Engine, pool: dict) -> Fraction:
    yellow, green = pool["Proficiency"], pool["Ability"]
    sheet = engine.sheet({"Agility": yellow + green, "skills": {"Piloting": yellow}})
    red, purple = pool["Challenge"], pool["Difficulty"]
    params = {"characteristic": "Agility", "skill": "Piloting", "upgrades": red}
    params |= {"boost": pool["Boost"], "setback": pool["Setback"]}
    names = {0: "Simple", 1: "Easy", 2: "Average", 3: "Hard", 4: "Daunting", 5: "Formidable"}
    params["difficulty"] = names[red + purple]
    odds = engine.odds("skill_check", sheet, params, field="success", seconds=600)
    assert odds.exact
    return odds.probabilities.get(True, Fraction(0))


def icepool_odds(icepool, pool: dict, full: bool) -> Fraction:
    def vector(face: str):
        counts = [face.count(c) for c in "satfhd"]
        if full:
            return icepool.Vector(counts)
        s, a, t, f, h, d = counts
        return icepool.Vector((s + t - f - d, a - h))

    total = None
    for name, count in pool.items():
        die = icepool.Die([vector(face) for face in FACES[name]])
        for _ in range(count):
            total = die if total is None else total + die
    if full:
        net = total.map(lambda v: v[0] + v[2] - v[3] - v[5] >= 1)
    else:
        net = total.map(lambda v: v[0] >= 1)
    return Fraction(net.quantity(True), net.denominator())


def best(function, repeat: int, before=None):
    times, answer = [], None
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        answer = function()
        times.append(time.perf_counter() - start)
    return min(times), answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", default="4,8,12,16", help="of 4, 8, 12, 16")
    args = parser.parse_args()
    try:
        import icepool
    except ImportError:
        icepool = None
        print("icepool is not installed: rulebook alone")
    clear = getattr(icepool, "clear_cache", None) if icepool else None
    book = dsl.load(GAME)
    print(f"{'dice':>4}  {'rulebook':>10}  {'icepool full':>12}  {'icepool sums':>12}  ratios")
    for size in map(int, args.sizes.split(",")):
        pool = POOLS[size]

        def ours(pool=pool):
            return rulebook_odds(Engine(book), pool)  # a fresh engine: nothing remembered

        ours_time, ours_answer = best(ours, args.repeat)
        row = f"{size:>4}  {ours_time:>9.3f}s"
        if icepool is not None:
            repeat = args.repeat
            full_time, full = best(lambda p=pool: icepool_odds(icepool, p, True), repeat, clear)
            sums_time, sums = best(lambda p=pool: icepool_odds(icepool, p, False), repeat, clear)
            assert full == sums == ours_answer, (size, ours_answer, full, sums)
            row += f"  {full_time:>11.3f}s  {sums_time:>11.3f}s"
            row += f"  {ours_time / full_time:.2f} {ours_time / sums_time:.2f}"
        print(row, f"  (P(success) = {float(ours_answer):.6f})", flush=True)


if __name__ == "__main__":
    main()
