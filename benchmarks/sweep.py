"""`rulebook sweep` at scale: cases of a shipped action on 1, 2 and 4 local workers, and
the per-case overhead of a sweep against calling `Engine.odds` in a loop.

    python benchmarks/sweep.py                 # about 10,000 cases (a long run)
    python benchmarks/sweep.py --cases 300     # a short one
    python benchmarks/sweep.py --cases 300 --workers 1,2

The grid is Brujería's `chequeo_sencillo` (an open-ended d10 + 2 × attribute + skill +
difficulty + modifier >= 9, its success asked) for the three shipped witches, Voluntad
1..10, every difficulty and a range of modifiers sized to the cases asked. Every case is
computed (no cache) and checked equal to the loop's answer. Times are wall-clock
(`time.perf_counter`: the workers run in other processes); the scaling efficiency on k
workers is T1 / (k × Tk). The loop and the one-worker sweep do the same work in one
process, so their difference per case is the sweep's own cost (building the grid,
checking each sheet, hashing each case, rebuilding the rulebook from its texts once,
the rows). That difference is small against the odds' own time and the machine's noise,
so it is also measured apart (`own_cost`): the same sweep and loop with `Engine.odds`
answering at once (one answer computed before), alternated, their medians compared.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl
from interpreter import Engine
from interpreter.sheets.character import parse_text

ROOT = Path(__file__).resolve().parent.parent
WITCHES = ("brujeria_bruja", "brujeria_investigadora", "brujeria_malherido")
DIFFICULTIES = 9  # every choice of Dificultad
ACTION, FIELD = "chequeo_sencillo", "éxito"


def grid(cases: int) -> tuple[dict, dict]:
    """(params, vary) with about `cases` cases over the three witches."""
    per_modifier = len(WITCHES) * DIFFICULTIES * 10
    if cases < per_modifier:
        voluntad = range(1, max(1, cases // (len(WITCHES) * DIFFICULTIES)) + 1)
        modifiers = [0]
    else:
        voluntad = range(1, 11)
        count = round(cases / per_modifier)
        modifiers = list(range(-(count // 2), count - count // 2))
    return {"dificultad": "all", "modificador": modifiers}, {"Voluntad": list(voluntad)}


def witches(engine) -> list:
    folder = ROOT / "rulebooks" / "characters"
    return [(name, engine.load_sheet(folder / f"{name}.yaml")) for name in WITCHES]


def loop(engine, rows) -> float:
    """The same cases through `Engine.odds`, one by one: the time, each checked."""
    sheets = {}
    started = time.perf_counter()
    for row in rows:
        key = (row["character"], row["Voluntad"])
        if key not in sheets:
            path = ROOT / "rulebooks" / "characters" / f"{row['character']}.yaml"
            data = parse_text(path.read_text(encoding="utf-8"), "yaml")
            sheets[key] = engine.sheet({**data, "Voluntad": row["Voluntad"]})
        params = {"dificultad": row["dificultad"], "modificador": row["modificador"]}
        odds = engine.odds(ACTION, sheets[key], params, FIELD)
        assert odds.probability(True) == row["P(éxito=yes)"], row
    return time.perf_counter() - started


def own_cost(engine, params, vary, repeats: int = 3) -> tuple[float, float, int]:
    """(the sweep's per-case time, the loop's, cases) with the odds left out: each
    `Engine.odds` answers with one answer computed before; alternated, medians."""
    answer = engine.odds(ACTION, witches(engine)[0][1], {}, FIELD)
    cls = type(engine)
    real = cls.odds
    cls.odds = lambda self, *a, **k: answer
    swept, looped = [], []
    try:
        for _ in range(repeats):
            started = time.perf_counter()
            rows = engine.sweep(ACTION, witches(engine), params=params, vary=vary, field=FIELD,
                                workers=1)  # fmt: skip
            swept.append((time.perf_counter() - started) / len(rows))
            started = time.perf_counter()
            for name, _ in witches(engine):
                path = ROOT / "rulebooks" / "characters" / f"{name}.yaml"
                data = parse_text(path.read_text(encoding="utf-8"), "yaml")
                for voluntad in vary["Voluntad"]:
                    sheet = engine.sheet({**data, "Voluntad": voluntad})
                    for row in rows[: len(rows) // (len(WITCHES) * len(vary["Voluntad"]))]:
                        engine.odds(ACTION, sheet, {"dificultad": row["dificultad"]}, FIELD)
            looped.append((time.perf_counter() - started) / len(rows))
    finally:
        cls.odds = real
    return statistics.median(swept), statistics.median(looped), len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--workers", default="1,2,4")
    args = parser.parse_args()
    engine = Engine.of(dsl.load("brujeria"))
    params, vary = grid(args.cases)
    # warm: the rules compiled and their memories made before anything is timed (else the
    # first sweep pays for them and the loop after it does not)
    engine.sweep(ACTION, witches(engine), params={"dificultad": "all"}, field=FIELD, workers=1)
    times, rows = {}, None
    for k in (int(w) for w in args.workers.split(",")):
        started = time.perf_counter()
        found = engine.sweep(
            ACTION, witches(engine), params=params, vary=vary, field=FIELD, workers=k
        )
        times[k] = time.perf_counter() - started
        assert rows is None or found == rows, "the same rows on any number of workers"
        rows = found
        print(f"{len(rows)} cases on {k} worker(s): {times[k]:.2f} s", flush=True)
    looped = loop(engine, rows)
    n = len(rows)
    print(f"{n} cases of Engine.odds in a loop: {looped:.2f} s ({1000 * looped / n:.2f} ms a case)")
    print(f"CPUs here: {os.cpu_count()}")
    alone, bare, cases = own_cost(engine, params, vary)
    print(
        f"with the odds left out ({cases} cases): sweep {1000 * alone:.3f} ms a case, loop "
        f"{1000 * bare:.3f} ms: the sweep's own cost {1000 * (alone - bare):+.3f} ms a case"
    )
    if 1 in times:
        overhead = (times[1] - looped) / n
        print(f"sweep's own cost per case (1 worker - loop): {1000 * overhead:+.2f} ms")
        for k, t in sorted(times.items()):
            if k > 1:
                speed = times[1] / t
                print(f"{k} workers: speed-up {speed:.2f}x, efficiency {speed / k:.0%}")


if __name__ == "__main__":
    main()
