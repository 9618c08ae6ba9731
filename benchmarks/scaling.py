"""Scaling tables: an action's size against the time of its exact odds, beside icepool, dyce
and a hand-written function computing the same distribution, in one run.

    /tmp/venv/bin/python benchmarks/scaling.py                  # every table, N up to 32
    /tmp/venv/bin/python benchmarks/scaling.py --only repeat --max 64 --rounds 5

Four ways an action grows, each at N = 1, 2, 4, 8, 16, 32 (up to --max):

- checks N: an action with N checks written out one after another (`let c1 = simple(m)`,
  `set hits to hits + (if c1.success then 1 else 0)`, ... with modifiers m, m+1, m+2 in
  turn); its `hits`: a sum of N different yes/no dice;
- lets N: N `let`s, each adding a d6 to the one before (`let s2 = s1 + d6`); its total;
- repeat N: `repeat n times { let c = simple(m)  if c.success { set hits to hits + 1 } }`,
  n a parameter: N passes of one check, the binomial distribution of its successes;
- pool N: a check whose roll is a pool of N dice (`roll (n)d6 >= 3 * n + 1 + m`): its
  success.

The rulebook side is `Engine.odds(action, sheet, params, field)` (the action run by the
odds engine: parameters bound, the explorer's worlds, the answer); icepool 2.1.3 and dyce
build the same distribution from dice directly, and the hand-written function counts it
with dictionaries of integer weights (what one would write for this one distribution). All
four are checked to agree exactly at every size before timing (but for what the odds
engine leaves out as too unlikely to matter, its omitted mass: 0.2**32 for no success
in 32 checks of 80%, say). Every call uses another
modifier (cycling through 6), so that no side answers from a cache of its previous call.
The sides take turns, round after round; each time is the best round's mean CPU time per
call (`time.process_time`). Ratios below 1: rulebook is faster. dyce's times are left out
where it takes over a second.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl
from benchmarks.corpus import peers
from interpreter import Engine
from interpreter.odds import Odds

SIZES = (1, 2, 4, 8, 16, 32, 64, 128)
MODIFIERS = range(-2, 4)
SHEET = {"Strength": 3, "Athletics": 2}
BASE = 2 * SHEET["Strength"] + SHEET["Athletics"]  # the check's constant part
MIN_SECONDS = 0.02  # each measurement: calls until this much CPU time, at least 2 calls

HEAD = """
rulebook "Scaling benchmark" {
  system "actions of every size"
  language "en"
}

sheet {
  attribute Strength in 1..10
  skill Athletics in 0..10
}

check simple(modifier: int = 0) "Simple check" {
  roll d10 + 2 * Strength + Athletics + modifier >= 9
}
check pool(n: int, modifier: int = 0) "A pool" {
  roll (n)d6 >= 3 * n + 1 + modifier
}

action repeated(n: int, modifier: int = 0) "Repeated" {
  let hits = 0
  repeat n times {
    let c = simple(modifier)
    if c.success {
      set hits to hits + 1
    }
  }
  result { hits: hits }
}
action pool_check(n: int, modifier: int = 0) "Pool check" {
  let c = pool(n, modifier)
  result { success: c.success }
}
"""


def checks_action(n: int) -> str:
    lines = [f'action checks_{n}(modifier: int = 0) "{n} checks" {{', "  let hits = 0"]
    for i in range(1, n + 1):
        lines.append(f"  let c{i} = simple(modifier + {(i - 1) % 3})")
        lines.append(f"  set hits to hits + (if c{i}.success then 1 else 0)")
    lines += ["  result { hits: hits }", "}"]
    return "\n".join(lines)


def lets_action(n: int) -> str:
    lines = [f'action lets_{n}(modifier: int = 0) "{n} lets" {{', "  let s1 = d6 + modifier"]
    lines += [f"  let s{i} = s{i - 1} + d6" for i in range(2, n + 1)]
    lines += [f"  result {{ total: s{n} }}", "}"]
    return "\n".join(lines)


def book(sizes) -> str:
    return "\n".join([HEAD, *map(checks_action, sizes), *map(lets_action, sizes)])


# ─── the same distributions, by hand ────────────────────────────────────────


def hand_yes(modifier: int) -> dict:
    """{1: ways, 0: ways} of d10 + BASE + modifier >= 9, over 10."""
    yes = sum(1 for face in range(1, 11) if face + BASE + modifier >= 9)
    return {1: yes, 0: 10 - yes}


def hand_sum(parts) -> tuple:
    """The distribution of a sum of independent parts, each {value: weight}: (weights, total)."""
    weights, total = {0: 1}, 1
    for part in parts:
        out: dict = {}
        for a, wa in weights.items():
            for b, wb in part.items():
                out[a + b] = out.get(a + b, 0) + wa * wb
        weights, total = out, total * sum(part.values())
    return {k: v for k, v in weights.items() if v}, total


def hand_checks(n, m):
    return hand_sum(hand_yes(m + (i % 3)) for i in range(n))


def hand_lets(n, m):
    weights, total = hand_sum([{face: 1 for face in range(1, 7)}] * n)
    return {k + m: v for k, v in weights.items()}, total


def hand_repeat(n, m):
    return hand_sum([hand_yes(m)] * n)


def hand_pool(n, m):
    weights, total = hand_sum([{face: 1 for face in range(1, 7)}] * n)
    yes = sum(w for k, w in weights.items() if k >= 3 * n + 1 + m)
    return {True: yes, False: total - yes}, total


# ─── the tables ─────────────────────────────────────────────────────────────


def tables(icepool, dyce):
    """name → (our (action(n), params(n, m), field), icepool(n, m), dyce(n, m), hand(n, m))."""
    d10, d6 = icepool.d10, icepool.d6

    def ice_yes(m):
        return ((d10 + BASE + m) >= 9).map({True: 1, False: 0})

    def dyce_yes(m):
        return (dyce.H(10) + BASE + m).ge(9)

    def dyce_sum(parts):
        out = dyce.H({0: 1})
        for part in parts:
            out = out + part
        return out

    return {
        "checks": (
            (lambda n: f"checks_{n}", lambda n, m: {"modifier": m}, "hits"),
            lambda n, m: sum((ice_yes(m + (i % 3)) for i in range(n)), icepool.Die([0])),
            lambda n, m: dyce_sum(dyce_yes(m + (i % 3)) for i in range(n)),
            hand_checks,
        ),
        "lets": (
            (lambda n: f"lets_{n}", lambda n, m: {"modifier": m}, "total"),
            lambda n, m: (n @ d6) + m,
            lambda n, m: (n @ dyce.H(6)) + m,
            hand_lets,
        ),
        "repeat": (
            (lambda n: "repeated", lambda n, m: {"n": n, "modifier": m}, "hits"),
            lambda n, m: n @ ice_yes(m),
            lambda n, m: n @ dyce_yes(m),
            hand_repeat,
        ),
        "pool": (
            (lambda n: "pool_check", lambda n, m: {"n": n, "modifier": m}, "success"),
            lambda n, m: (n @ d6) >= 3 * n + 1 + m,
            lambda n, m: (n @ dyce.H(6)).ge(3 * n + 1 + m),
            hand_pool,
        ),
    }


def as_fractions(answer) -> dict:
    """Any side's answer as {outcome: Fraction}, yes/no as 1/0, zero weights left out."""
    if isinstance(answer, Odds):
        pairs = answer.probabilities.items()
    elif hasattr(answer, "denominator"):  # icepool
        total = answer.denominator()
        pairs = ((o, Fraction(answer.quantity(o), total)) for o in answer.outcomes())
    elif isinstance(answer, tuple):  # by hand: (weights, total)
        weights, total = answer
        pairs = ((o, Fraction(w, total)) for o, w in weights.items())
    else:  # dyce
        total = answer.total
        pairs = ((o, Fraction(c, total)) for o, c in answer.items())
    out: dict = {}
    for outcome, p in pairs:
        if p:
            key = int(outcome) if isinstance(outcome, bool) else outcome
            out[key] = out.get(key, 0) + p
    return out


def agree(mine: dict, omitted: Fraction, answer) -> bool:
    """Our probabilities against another side's: equal, but for what the odds engine
    left out as too unlikely to matter (below 10**-18 a world: its `omitted` mass, exact),
    which may only be missing from ours."""
    theirs = as_fractions(answer)
    if not omitted:
        return mine == theirs
    missing = Fraction(0)
    for outcome, p in theirs.items():
        found = mine.get(outcome, Fraction(0))
        if found > p:
            return False
        missing += p - found
    return missing == omitted and set(mine) <= set(theirs)


def timed(function, n) -> float:
    """Mean CPU seconds per call, calls cycling through the modifiers."""
    modifiers = list(MODIFIERS)
    calls, start = 0, time.process_time()
    while True:
        function(n, modifiers[calls % len(modifiers)])
        calls += 1
        elapsed = time.process_time() - start
        if calls >= 2 and elapsed >= MIN_SECONDS:
            return elapsed / calls


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--max", type=int, default=32, help="the largest N")
    parser.add_argument("--only", default=None, help="one table: checks, lets, repeat, pool")
    args = parser.parse_args(argv)
    found = peers()
    if found is None:
        return 1
    icepool, dyce = found
    sizes = [n for n in SIZES if n <= args.max]
    engine = Engine(dsl.load_text(book(sizes)))
    sheet = engine.sheet(SHEET)
    print(f"icepool {icepool.__version__}; ms per call (CPU), best of {args.rounds} rounds")
    for name, (ours_of, ice, dy, hand) in tables(icepool, dyce).items():
        if args.only and args.only != name:
            continue
        action_of, params_of, field = ours_of

        def ours(n, m, action_of=action_of, params_of=params_of, field=field):
            return engine.odds(action_of(n), sheet, params_of(n, m), field)

        print(f"\n{name} N")
        columns = ("N", "rulebook", "icepool", "dyce", "by hand", "/icepool", "/dyce", "/hand")
        print(" ".join(f"{c:>9s}" for c in columns))
        slow_dyce = False
        for n in sizes:
            sides = {"rulebook": ours, "icepool": ice, "by hand": hand}
            if not slow_dyce:
                sides["dyce"] = dy
            for m in MODIFIERS:  # the sides mean the same, at this size, for every modifier
                answer = ours(n, m)
                mine = as_fractions(answer)
                for side, function in sides.items():
                    if side != "rulebook" and not agree(mine, answer.omitted, function(n, m)):
                        print(f"{name} {n}: rulebook and {side} disagree at modifier {m}")
                        return 1
            best: dict = {}
            for _ in range(args.rounds):
                for side, function in sides.items():
                    elapsed = timed(function, n)
                    best[side] = min(best.get(side, elapsed), elapsed)
            slow_dyce = best.get("dyce", 0) > 1.0
            cells = [f"{n:9d}"]
            for side in ("rulebook", "icepool", "dyce", "by hand"):
                cells.append(f"{best[side] * 1e3:9.3f}" if side in best else f"{'-':>9s}")
            for side in ("icepool", "dyce", "by hand"):
                ratio = best["rulebook"] / best[side] if side in best else None
                cells.append(f"{ratio:9.2f}" if ratio is not None else f"{'-':>9s}")
            print(" ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
