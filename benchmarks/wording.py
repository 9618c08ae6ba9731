"""Time the same rules worded two ways: symbols face by face or packed, a loop or its arithmetic.

    python benchmarks/wording.py [--repeat 3] [--only symbols|dice|counts|loop]

Issue 24 asks that cost follow the number of distinct states, not the wording: the two
wordings of each table must stay within 2x of each other.

- symbols N: a Genesys pool of N dice (benchmarks/symbol_dice.py's POOLS), the chance of
  success. `faces`: an action as the book reads the dice, six counters (`let success =
  0`, ...) and, for each kind of die, `repeat n times { let f = 1dAbility  set success
  to success + f.success ... }`; `packed`: examples/games/genesys.rules' `skill_check`,
  the pool rolled at once (`(green)dAbility + ...`) and its sums read. icepool's best
  formulation of this question (the success alone) beside them: each face mapped to
  its net successes, one number, `n @` each die, summed (`icepool_net`; before
  2026-12-07 this column was symbol_dice.py's `icepool sums`, (net successes, net
  advantages) vectors: about 0.22 s at 16 dice against 0.002 s, not icepool's best).
- dice N: the same pool with numbered dice (a d8 for each Ability, a d12 for each
  Proficiency, ...: symbol_dice.FACES' faces by number), counted as a book would say
  it, a pool a kind (`let pAbility = (ability)d8`) and a `for each d in pAbility.dice
  { if d = 2 { set success to success + 1 } ... }` (interpreter.odds.die_loops),
  against `packed` (the symbol dice, as in `symbols`) and icepool's best formulation
  for this question: each face mapped to its net successes (one number), `n @` each
  die, summed.
- counts N: the same numbered dice, each pool rolled once and asked how many of its dice
  show each face (`let ab_2 = count(pAbility, 2)`, ...), the counts added into the
  symbols (`let success = ab_2 + ab_3 + 2 * ab_4 + ...`: interpreter.odds.convolved),
  against `packed` and icepool's best formulation, as `dice`.
- loop N: the hits of N checks of a d10 (benchmarks/scaling.py's `repeated`: `repeat n
  times { let c = simple(m)  if c.success { set hits to hits + 1 } }`) against the
  arithmetic it amounts to, `(n)d10cs>=(t)` (a count of successes); icepool's `n @` of
  the yes/no die beside them.

Times are this process's CPU seconds (`time.process_time`), the best of --repeat rounds,
each round the mean of calls made until it has taken MIN_SECONDS (as
benchmarks/scaling.py measures: one call of a fraction of a millisecond is mostly the
machine's noise), each call on a new Engine (nothing remembered from the call before but
what the engine keeps between computations for either wording: dice terms' and symbol
pools' distributions, remembered.remembered_term); the answers of the two wordings (and
icepool's) are checked equal. Below 1, the first wording is faster.

This is a benchmark, not a test: CI does not run it.

Measured 2026-12-07 (shared 2-core machine, --repeat 3, two runs: ranges), dice N in
milliseconds; before (main: no die by die), the loop walked every sequence of each
pool: 4 dice 60 ms, 8 dice 0.8 s, 12 and 16 dice sampled after 6-8 s CPU:

    dice N      loop   packed  icepool  loop/packed  /icepool
       4     8.3-8.7  1.4-1.5     0.75    5.8         11.1-11.5
       8     9.7-10.0 2.2         1.26    4.4-4.6     7.7-8.0
      12     9.7-9.8  2.9         1.57    3.3         6.1-6.2
      16     9.8-10.3 3.9         1.96    2.5-2.6     5.0-5.2

The counts table, 2026-12-07 (--repeat 3, two runs: ranges), milliseconds; before
(every joint value of every pool a world of its own): 4 dice 1,333-1,341 ms, 8 dice
sampled after 23 s CPU (the budget spent), 12 and 16 dice sampled:

    counts N  counts     packed   icepool  counts/packed  /icepool
       4      1.9-2.1    1.5-1.6   0.78-0.79  1.24-1.36   2.44-2.63
       8      5.45-5.46  2.25-2.29 1.30-1.33  2.38-2.42   4.11-4.20
      12      8.07       3.00-3.12 1.63       2.59-2.69   4.94
      16     25.6-25.7   4.07-4.22 2.01-2.02  6.08-6.27  12.69-12.72

(load about 11 on 2 cores; before the sums read alone were added as one, odds.linear,
16 dice took 48-49 ms, 12 dice 16 ms.)

After a pool read only as sums of its answers is counted by them, die by die
(interpreter.odds.per_die; 2026-12-07, main and that branch alternating, two runs each,
load 3-5), milliseconds:

    counts N  counts     packed     icepool    counts/packed  /icepool
       4      1.12-1.14  0.66-0.67  0.74-0.76  1.69           1.47-1.53
       8      1.27       0.87       1.28-1.30  1.46           0.98-0.99
      12      1.44-1.50  1.06-1.09  1.61-1.63  1.36-1.37      0.90-0.92
      16      1.64-1.76  1.23-1.28  1.99-2.01  1.34-1.38      0.82-0.89

(main in those runs: counts/packed 2.60-2.70 / 5.86-5.96 / 7.37-7.46 / 20.1-20.8.)

The symbols table's icepool column, its best formulation (one number a face) since
that date: at 16 dice 1.9-2.0 ms, packed/icepool about 2 (faces 0.65 of packed).

Measured again 2026-12-07 (branch genesys against 21ab945, sides alternating, two rounds,
load 8-12), after a block that rolls nothing runs whole (odds.direct) and a check's pool
read once is kept whole (odds.roller.read_once); milliseconds:

    dice N      loop   packed  icepool  loop/packed  /icepool
       4     1.9      0.72     0.79     2.6-2.7      2.4
      16     2.7      1.34-1.39 2.07-2.10 1.9-2.1    1.3
    symbols N  faces   packed  icepool  faces/packed
       4     2.2-2.4   0.7-0.8  0.8     2.9-3.1
      16     3.0-3.1   1.4      2.1     2.2

Measured again 2026-12-07 (branch wording2 against 3db52ad, the two trees alternating,
two rounds each, a test suite running beside), ratios to packed, after a pass that rolls
one value then nothing runs once per value and a pass over a pool's dice once per face
(odds.one_roll), a pass's ends alike mixed once (odds.carried), and a kept term's cuts
onto fields kept with it (distribution.KEPT: since then, what the engine keeps between
computations includes those cuts):

    ratio to packed   4 dice      8 dice      12 dice     16 dice
    faces   before    2.41-2.47   2.38-2.47   1.98-2.01   1.80-1.85
            after     1.64        1.59-1.85   1.38-1.42   1.24-1.29
    dice    before    2.54-2.56   2.56-2.57   2.14-2.18   1.94-2.01
            after     1.94-2.01   2.06-2.14   1.79-1.80   1.63-1.65
    loop N (1..64)    before 1.80-2.02, after 1.70-1.85; counts unchanged

(faces at 4 dice 1.7 ms → 1.1 ms; the numbered dice at 8 dice 2.2 ms → 2.0 ms: there
most of what is left is the rules' own `if d = k` tests, some 400 a question.)

Measured again 2026-12-07 (branch loop4), after a pass over a die's faces that writes
no sheet runs once per face with no world made (odds.one_roll.face_outcomes), a result
in merged worlds of runs that took steps apart runs once from the most (Explorer.each,
odds.worlds.EACH) and `d = 2` compares without calling for the 2 (compile.expressions.
compared_to): the dice table's ratio to packed, its switches off and on in one process
taking turns (three runs of five rounds, medians; load 0.8-1.0):

    dice N      4           8           12          16
    before      2.11-2.17   2.23-2.24   1.98-2.01   1.77-1.78
    after       1.95-1.98   1.97-2.04   1.82-1.84   1.60-1.68

(this script against ac081c91, three runs each taking turns, load 0.5-0.7: 4 dice
2.13-2.27 → 1.94-2.06, 8 dice 2.13-2.25 → 2.03-2.15; instructions a question
(cachegrind), 4 dice 5.92 → 5.13 million, 8 dice 7.92 → 6.97, packed 3.0 and 4.2.) Not
yet clearly under 2 at 4 and 8 dice: what is left is spread thin (cProfile, 8 dice):
the pools' `let`s and loops but their runs per face (a world explored for each `let`,
another for a loop's header, the groups cut and merged after each statement) about
45% of a question, the runs per face about 30%, the rules' own tests some 40% of those.

Measured again 2026-12-08 (branch loop5 against 469766b7, the two trees alternating,
five runs each, load 1.8-3.5), after a row of `if d = k` run by a lookup of d
(odds.switched), a pass's ends per face kept by the values they leave, a pool loop's
static parts found once and its pool read without a run, and one group's rest found
once per the names it holds (odds.packing.rest_kept): the dice table's ratio to packed,

    dice N      4           8           12          16
    before      2.03-2.15   2.01-2.13   1.71-1.85   1.56-1.70
    after       1.47-1.54   1.56-1.70   1.44-1.51   1.27-1.39

(the loop 0.75-0.80 ms -> 0.56-0.59 ms at 4 dice; cachegrind, 5.44-5.49 -> 4.08-4.21
million instructions a question at 4 dice, 7.29-7.30 -> 5.71 at 8, packed 2.97 and
4.19-4.24).
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dsl
from benchmarks import scaling, symbol_dice
from interpreter import Engine

SYMBOLS = ("success", "advantage", "triumph", "failure", "threat", "despair")
KINDS = ("Proficiency", "Ability", "Boost", "Challenge", "Difficulty", "Setback")
LOOP_SIZES = (1, 4, 16, 64)
MIN_SECONDS = 0.02  # each round: calls until this much CPU time (at least one)


def faces_action() -> str:
    """The Genesys check counted face by face, as the book reads the dice."""
    params = ", ".join(f"{kind.lower()}: int = 0" for kind in KINDS)
    lines = [f'action faces({params}) "Faces" {{']
    lines += [f"  let {symbol} = 0" for symbol in SYMBOLS]
    for kind in KINDS:
        lines.append(f"  repeat {kind.lower()} times {{")
        lines.append(f"    let f = 1d{kind}")
        lines += [f"    set {symbol} to {symbol} + f.{symbol}" for symbol in SYMBOLS]
        lines.append("  }")
    lines.append("  result { success: success + triumph - failure - despair >= 1 }")
    lines.append("}")
    return "\n".join(lines)


def dice_action() -> str:
    """The Genesys check with numbered dice, a loop over each kind's pool."""
    params = ", ".join(f"{kind.lower()}: int = 0" for kind in KINDS)
    lines = [f'action numbered({params}) "Numbered" {{']
    lines += [f"  let {symbol} = 0" for symbol in SYMBOLS]
    for kind in KINDS:
        faces = symbol_dice.FACES[kind]
        lines.append(f"  let p{kind} = ({kind.lower()})d{len(faces)}")
        lines.append(f"  for each d in p{kind}.dice {{")
        for number, face in enumerate(faces, 1):
            adds = [
                f"set {symbol} to {symbol} + {face.count(letter)}"
                for symbol, letter in zip(SYMBOLS, "satfhd")
                if letter in face
            ]
            if adds:
                lines.append(f"    if d = {number} {{ {'  '.join(adds)} }}")
        lines.append("  }")
    lines.append("  result { success: success + triumph - failure - despair >= 1 }")
    lines.append("}")
    return "\n".join(lines)


def counts_action() -> str:
    """The Genesys check with numbered dice, each pool rolled once and asked how many of
    its dice show each face (`count(pAbility, 2)`), the counts added into the symbols."""
    params = ", ".join(f"{kind.lower()}: int = 0" for kind in KINDS)
    lines = [f'action counts({params}) "Counts" {{']
    for kind in KINDS:
        lines.append(f"  let p{kind} = ({kind.lower()})d{len(symbol_dice.FACES[kind])}")
    terms: dict = {symbol: [] for symbol in SYMBOLS}
    for kind in KINDS:
        for number, face in enumerate(symbol_dice.FACES[kind], 1):
            if not face:
                continue
            name = f"{kind[:2].lower()}_{number}"  # (`d2` would read as dice)
            lines.append(f"  let {name} = count(p{kind}, {number})")
            for symbol, letter in zip(SYMBOLS, "satfhd"):
                times = face.count(letter)
                if times:
                    terms[symbol].append(name if times == 1 else f"{times} * {name}")
    lines += [f"  let {symbol} = {' + '.join(terms[symbol]) or '0'}" for symbol in SYMBOLS]
    lines.append("  result { success: success + triumph - failure - despair >= 1 }")
    lines.append("}")
    return "\n".join(lines)


def icepool_net(icepool, pool: dict) -> Fraction:
    """icepool's best formulation of the success alone: each face as its net successes."""
    total = None
    for kind, count in pool.items():
        nets = [
            f.count("s") + f.count("t") - f.count("f") - f.count("d")
            for f in symbol_dice.FACES[kind]
        ]
        if count:
            part = count @ icepool.Die(nets)
            total = part if total is None else total + part
    net = total >= 1
    return Fraction(net.quantity(True), net.denominator())


ARITHMETIC = """
action counted(n: int, modifier: int = 0) "Counted" {
  let hits = (n)d10cs>=(9 - 2 * Strength - Athletics - modifier)
  result { hits: hits }
}
"""


def cpu(function, repeat: int):
    """(the best round's CPU seconds per call, the answer)."""
    times, answer = [], None
    for _ in range(repeat):
        calls, start = 0, time.process_time()
        while True:
            answer = function()
            calls += 1
            elapsed = time.process_time() - start
            if elapsed >= MIN_SECONDS:
                break
        times.append(elapsed / calls)
    return min(times), answer


def symbols_table(icepool, repeat: int) -> None:
    text = symbol_dice.GAME.read_text(encoding="utf-8") + "\n" + faces_action() + "\n"
    book = dsl.load_text(text, "genesys_faces.rules")
    print("symbols N: seconds (CPU)")
    print(
        f"{'N':>4} {'faces':>9} {'packed':>9} {'icepool':>9} {'faces/packed':>13} {'/icepool':>9}"
    )
    _against_packed(icepool, repeat, book, "faces", (1, ".4f", 13))


def dice_table(icepool, repeat: int) -> None:
    text = symbol_dice.GAME.read_text(encoding="utf-8") + "\n" + dice_action() + "\n"
    book = dsl.load_text(text, "genesys_dice.rules")
    print("\ndice N: milliseconds (CPU)")
    print(f"{'N':>4} {'loop':>9} {'packed':>9} {'icepool':>9} {'loop/packed':>12} {'/icepool':>9}")
    _against_packed(icepool, repeat, book, "numbered", (1000, ".3f", 12))


def counts_table(icepool, repeat: int) -> None:
    text = symbol_dice.GAME.read_text(encoding="utf-8") + "\n" + counts_action() + "\n"
    book = dsl.load_text(text, "genesys_counts.rules")
    print("\ncounts N: milliseconds (CPU)")
    print(
        f"{'N':>4} {'counts':>9} {'packed':>9} {'icepool':>9} {'counts/packed':>14} {'/icepool':>9}"
    )
    _against_packed(icepool, repeat, book, "counts", (1000, ".3f", 14))


def _against_packed(icepool, repeat: int, book, action: str, shown: tuple) -> None:
    """A row per pool size: `action`'s chance of success, the packed symbol dice's and
    icepool's (each answer checked equal), their times (`shown`: (the unit's scale, its
    format, the ratio column's width)) and the ratios."""
    scale, form, width = shown
    clear = getattr(icepool, "clear_cache", None) if icepool is not None else None
    for size, pool in symbol_dice.POOLS.items():

        def worded(pool=pool):
            engine = Engine(book)
            params = {kind.lower(): pool[kind] for kind in KINDS}
            odds = engine.odds(action, engine.sheet({}), params, "success", seconds=600)
            assert odds.exact
            return odds.probabilities.get(True, Fraction(0))

        worded_time, worded_answer = cpu(worded, repeat)
        packed_time, packed_answer = cpu(
            lambda pool=pool: symbol_dice.rulebook_odds(Engine(book), pool), repeat
        )
        assert worded_answer == packed_answer, (size, worded_answer, packed_answer)
        row = f"{size:>4} {worded_time * scale:>9{form}} {packed_time * scale:>9{form}}"
        ratio = f"{worded_time / packed_time:>{width}.2f}"
        if icepool is None:
            print(row, f"{'-':>9}", ratio)
            continue

        def ice(pool=pool):
            if clear is not None:
                clear()
            return icepool_net(icepool, pool)

        ice_time, ice_answer = cpu(ice, repeat)
        assert ice_answer == packed_answer, (size, ice_answer, packed_answer)
        print(row, f"{ice_time * scale:>9{form}}", ratio, f"{worded_time / ice_time:>9.2f}")


def loop_table(icepool, repeat: int) -> None:
    book = dsl.load_text(scaling.book([1]) + ARITHMETIC, "wording_loop.rules")
    clear = getattr(icepool, "clear_cache", None) if icepool is not None else None
    print("\nloop N: milliseconds (CPU)")
    print(
        f"{'N':>4} {'loop':>9} {'counted':>9} {'icepool':>9} {'loop/counted':>13} {'/icepool':>9}"
    )
    for size in LOOP_SIZES:
        answers = {}

        def ours(action, size=size):
            engine = Engine(book)
            sheet = engine.sheet(scaling.SHEET)
            odds = engine.odds(action, sheet, {"n": size, "modifier": 0}, "hits")
            assert odds.exact
            return scaling.as_fractions(odds)

        loop_time, answers["loop"] = cpu(lambda: ours("repeated"), repeat)
        counted_time, answers["counted"] = cpu(lambda: ours("counted"), repeat)
        assert answers["loop"] == answers["counted"], size
        row = f"{size:>4} {loop_time * 1000:>9.3f} {counted_time * 1000:>9.3f}"
        ratio = f"{loop_time / counted_time:>13.2f}"
        if icepool is None:
            print(row, f"{'-':>9}", ratio)
            continue

        def ice(size=size):
            if clear is not None:
                clear()
            return size @ ((icepool.d10 + scaling.BASE) >= 9).map({True: 1, False: 0})

        ice_time, ice_answer = cpu(ice, repeat)
        assert scaling.as_fractions(ice_answer) == answers["loop"], size
        print(row, f"{ice_time * 1000:>9.3f}", ratio, f"{loop_time / ice_time:>9.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("symbols", "dice", "counts", "loop"), default=None)
    args = parser.parse_args(argv)
    try:
        import icepool
    except ImportError:
        icepool = None
        print("icepool is not installed: rulebook alone")
    if args.only in (None, "symbols"):
        symbols_table(icepool, args.repeat)
    if args.only in (None, "dice"):
        dice_table(icepool, args.repeat)
    if args.only in (None, "counts"):
        counts_table(icepool, args.repeat)
    if args.only in (None, "loop"):
        loop_table(icepool, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
