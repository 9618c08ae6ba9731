"""Rolls per second: our dice expressions against d20 (Avrae's roller), in one run.

    python benchmarks/roll.py              # 5 rounds of ~1 s per side
    python benchmarks/roll.py --quick      # 2 rounds of ~0.3 s per side
    python benchmarks/roll.py --by-expression   # also each expression on its own
    python benchmarks/roll.py --check      # first check that both spellings mean the same

Both sides roll the same corpus of expressions, each spelled the way its tool reads it.
Both draw from one generator seeded once per measurement: ours is
`interpreter.roll(expr, dice=dice)` with one `SeededDice(seed)`, d20's is `d20.roll(expr)`
(its parse cache on, as in ordinary use) with the global `random` seeded once. A new
`SeededDice` for every roll adds the few microseconds of seeding MT19937 to every roll,
which d20 never pays: `--seed-per-roll` measures that too.

Each side runs in a subprocess of its own: d20 pins `lark-parser~=0.9`, which installs an
old module under the same name `lark` as ours, so its side runs in a virtual environment
this script creates (.bench/d20-venv, git-ignored) with `python -m venv` and
`pip install d20`. Ours runs with the interpreter running this script, which must have the
project's dependencies (the project itself is found from the repository root). The two
sides are measured in turn (ours, d20, ours, d20, ...) and the medians of the rounds are
compared: the target is ours >= 2x d20's rolls per second. Time is the worker's CPU time
(`time.process_time`), so that a shared, busy machine taking the CPU away from one side
now and then does not count against it.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VENV = ROOT / ".bench" / "d20-venv"
D20_REQUIREMENT = "d20>=1.1,<2"
TARGET = 2.0

# (ours, d20, how the spellings map). Only forms whose meaning is the same in both:
# d20 has no success counting (`cs`), its `/` gives floats where ours is exact, its
# comparisons give 0/1 where ours give yes/no, its `d%` is a tens die (0, 10, ... 90)
# where ours is a d100, and its `mi`/`ma` have no counterpart here: none of those is in.
CORPUS: tuple[tuple[str, str, str], ...] = (
    ("1d20", "1d20", ""),
    ("d20+d4", "d20+d4", "the count defaults to 1 in both"),
    ("1d20+5", "1d20+5", ""),
    ("2d20kh1", "2d20kh1", "advantage"),
    ("2d20kl1", "2d20kl1", "disadvantage"),
    ("4d6kh3", "4d6kh3", ""),
    ("4d6dl1", "4d6pl1", "drop the lowest: d20's drop operator is `p`"),
    ("3d8dh1", "3d8ph1", "drop the highest"),
    ("8d6", "8d6", ""),
    ("10d10", "10d10", ""),
    ("1d100", "1d100", "not d%: d20's d% is a tens die"),
    ("3d6+2d4-1", "3d6+2d4-1", ""),
    ("1d8+1d6+3", "1d8+1d6+3", ""),
    ("(1d4+1)*2", "(1d4+1)*2", "d20 reads (x) without a comma as a parenthesis, not a set"),
    ("2d8*2+4", "2d8*2+4", ""),
    ("-1d4+10", "-1d4+10", "unary minus"),
    ("4d6ro=1", "4d6ro1", "reroll once on a 1: d20's bare number selects that face"),
    ("1d20ro<3", "1d20ro<3", "reroll once below 3: the same selector in both"),
    ("4d6ro=1kh3", "4d6ro1kh3", "operators in the order written in both"),
    ("2d6rr=1", "2d6rr1", "reroll while 1"),
    ("2d6x", "2d6e6", "explode on the top face, again and again: d20's `e` chains too"),
    ("3d10x>=9", "3d10e>8", "d20 has no >=: >8 on whole faces is the same"),
    ("8d6x=6kh3", "8d6e6kh3", "explode, then keep 3 of all the dice"),
    ("1d10xo", "1d10ra10", "explode once; on one die only: d20's `ra` adds one die per term"),
)


# ─── the workers (each in its own process) ──────────────────────────────────


def _ours_roller():
    sys.path.insert(0, str(ROOT))
    from interpreter import SeededDice, roll

    if os.environ.get("ROLL_BENCH_SEED_PER_ROLL"):

        def roll_one(expr: str, n: int) -> int:
            return roll(expr, dice=SeededDice(n)).total

        def reseed(seed: int) -> None:  # every roll has its own seed
            pass

        return roll_one, reseed, [ours for ours, _, _ in CORPUS]

    dice = [SeededDice(0)]

    def roll_one(expr: str, n: int) -> int:
        return roll(expr, dice=dice[0]).total

    def reseed(seed: int) -> None:  # one generator per measurement, as d20's
        dice[0] = SeededDice(seed)

    return roll_one, reseed, [ours for ours, _, _ in CORPUS]


def _d20_roller():
    import d20

    def roll_one(expr: str, n: int) -> int:
        return d20.roll(expr).total

    return roll_one, random.seed, [theirs for _, theirs, _ in CORPUS]


def _describe(side: str) -> str:
    version = platform.python_version()
    if side == "ours":
        how = (
            "SeededDice(n) per roll"
            if os.environ.get("ROLL_BENCH_SEED_PER_ROLL")
            else "one SeededDice per measurement"
        )
        return f"interpreter.roll(expr, dice=...), {how}, Python {version}"
    from importlib.metadata import version as package_version

    return (
        f"d20.roll(expr), d20 {package_version('d20')} with lark-parser "
        f"{package_version('lark-parser')}, Python {version}"
    )


def _timed(roll_one, exprs: list[str], seconds: float, first: int) -> tuple[int, float]:
    """Roll the expressions over and over for about `seconds` of CPU time; the rolls and
    the CPU time they took."""
    n = first
    start = time.process_time()
    deadline = start + seconds
    while True:
        for expr in exprs:
            roll_one(expr, n)
            n += 1
        now = time.process_time()
        if now >= deadline:
            return n - first, now - start


def _moments(roll_one, expr: str, count: int, first: int) -> tuple[float, float]:
    totals = [roll_one(expr, first + i) for i in range(count)]
    return statistics.fmean(totals), statistics.pvariance(totals)


def worker(side: str) -> None:
    """Answer one JSON command a line on stdin, one JSON answer a line on stdout."""
    roll_one, reseed, exprs = _ours_roller() if side == "ours" else _d20_roller()
    for expr in exprs:  # warm up: parse and compile every expression once
        roll_one(expr, 0)
    _answer({"ready": len(exprs), "describe": _describe(side)})
    for line in sys.stdin:
        command = json.loads(line)
        reseed(command["seed"])
        if command["do"] == "time":
            chosen = [exprs[i] for i in command["exprs"]]
            rolls, elapsed = _timed(roll_one, chosen, command["seconds"], command["seed"])
            _answer({"rolls": rolls, "elapsed": elapsed})
        else:
            _answer(
                {
                    "moments": [
                        _moments(roll_one, expr, command["count"], command["seed"])
                        for expr in exprs
                    ]
                }
            )


def _answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


# ─── the parent ─────────────────────────────────────────────────────────────


def check_ours(python: str) -> None:
    """Stop with a clear message if `python` cannot run the project."""
    probe = subprocess.run(
        [python, "-c", "import interpreter"], cwd=ROOT, capture_output=True, text=True
    )
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["?"])[-1]
        sys.exit(
            f"{python} cannot import the project ({last}): run this script with the "
            "project's environment (pip install -e .), or name one with --python"
        )


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_d20(venv: Path) -> Path:
    """The python of a virtual environment with d20 in it, made if it is missing."""
    python = venv_python(venv)
    if (
        python.exists()
        and subprocess.run([python, "-c", "import d20"], capture_output=True).returncode == 0
    ):
        return python
    print(f"making {venv} for d20 (python -m venv, pip install {D20_REQUIREMENT})", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", D20_REQUIREMENT],
        check=True,
    )
    return python


class Side:
    """One worker process, measuring one tool."""

    def __init__(self, name: str, python: Path | str):
        self.name = name
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # d20's side must not see our `lark`
        self.process = subprocess.Popen(
            [str(python), str(Path(__file__).resolve()), "--worker", name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env=env,
        )
        hello = self._read()
        self.description = hello["describe"]

    def ask(self, **command) -> dict:
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        return self._read()

    def rate(self, seconds: float, seed: int, exprs: list[int]) -> float:
        answer = self.ask(do="time", seconds=seconds, seed=seed, exprs=exprs)
        return answer["rolls"] / answer["elapsed"]

    def _read(self) -> dict:
        line = self.process.stdout.readline()
        if not line:
            code = self.process.wait()
            sys.exit(f"the {self.name} worker stopped (exit code {code}); see above")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def check_meanings(ours: Side, d20: Side, count: int) -> bool:
    """Each entry's mean over `count` rolls, on both sides: do the spellings agree?"""
    print(f"checking meanings: {count} rolls of each expression on each side")
    mine = ours.ask(do="moments", count=count, seed=1)["moments"]
    theirs = d20.ask(do="moments", count=count, seed=1)["moments"]
    fine = True
    for (spelled, spelled_d20, _), (m1, v1), (m2, v2) in zip(CORPUS, mine, theirs):
        error = ((v1 + v2) / count) ** 0.5 or 1.0
        z = (m1 - m2) / error
        verdict = "ok" if abs(z) < 4 else "DIFFERENT"
        fine = fine and verdict == "ok"
        print(
            f"  {spelled:<12} {spelled_d20:<12} mean {m1:8.3f} vs {m2:8.3f}  z {z:+5.1f}  {verdict}"
        )
    return fine


def measure(
    sides: list[Side], rounds: int, seconds: float, exprs: list[int], show: bool
) -> dict[str, list[float]]:
    """Alternate the sides round by round; every side's rate in each round."""
    rates: dict[str, list[float]] = {side.name: [] for side in sides}
    for number in range(rounds):
        for side in sides:
            rates[side.name].append(side.rate(seconds, seed=10_000_000 * number, exprs=exprs))
        if show:
            print(
                f"  round {number + 1}: "
                + "  ".join(f"{name} {values[-1]:>9,.0f}/s" for name, values in rates.items())
            )
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 rounds of ~0.3 s per side")
    parser.add_argument("--rounds", type=int, help="rounds per side (default 5)")
    parser.add_argument("--seconds", type=float, help="seconds per measurement (default 1)")
    parser.add_argument(
        "--by-expression", action="store_true", help="also time each expression on its own"
    )
    parser.add_argument(
        "--seed-per-roll", action="store_true", help="ours: a new SeededDice for every roll"
    )
    parser.add_argument(
        "--check", action="store_true", help="first compare each entry's mean roll on both sides"
    )
    parser.add_argument(
        "--d20-venv",
        type=Path,
        default=DEFAULT_VENV,
        help=f"virtual environment for d20 (default {DEFAULT_VENV})",
    )
    parser.add_argument(
        "--python", default=sys.executable, help="the interpreter for our side (default: this one)"
    )
    parser.add_argument("--worker", choices=("ours", "d20"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.seed_per_roll:  # the workers (subprocesses) read it from the environment
        os.environ["ROLL_BENCH_SEED_PER_ROLL"] = "1"
    if args.worker:
        worker(args.worker)
        return 0
    rounds = args.rounds or (2 if args.quick else 5)
    seconds = args.seconds or (0.3 if args.quick else 1.0)

    check_ours(args.python)
    d20_python = ensure_d20(args.d20_venv)
    ours, d20 = Side("ours", args.python), Side("d20", d20_python)
    try:
        print(
            f"roll benchmark: {len(CORPUS)} expressions, {rounds} rounds of "
            f"~{seconds:g} s per side, alternating"
        )
        print(f"  ours: {ours.description}")
        print(f"  d20:  {d20.description}")
        if args.check and not check_meanings(ours, d20, 20_000):
            print("some spellings do not mean the same: fix the corpus first")
            return 1
        everything = list(range(len(CORPUS)))
        rates = measure([ours, d20], rounds, seconds, everything, show=True)
        mine, theirs = statistics.median(rates["ours"]), statistics.median(rates["d20"])
        ratio = mine / theirs
        paired = [a / b for a, b in zip(rates["ours"], rates["d20"])]
        print(f"median: ours {mine:,.0f} rolls/s, d20 {theirs:,.0f} rolls/s")
        print(
            f"ratio ours/d20: {ratio:.2f}x (target >= {TARGET:g}x: "
            f"{'met' if ratio >= TARGET else 'NOT met'}); round by round "
            f"{min(paired):.2f}x .. {max(paired):.2f}x"
        )
        if args.by_expression:
            by_expression(ours, d20, max(1, rounds // 2), seconds / 4)
    finally:
        ours.close()
        d20.close()
    return 0


def by_expression(ours: Side, d20: Side, rounds: int, seconds: float) -> None:
    print(f"\neach expression on its own ({rounds} round(s) of ~{seconds:g} s per side):")
    print(f"  {'ours':<12} {'d20':<12} {'ours/s':>10} {'d20/s':>10} {'ratio':>6}")
    for index, (spelled, spelled_d20, _) in enumerate(CORPUS):
        rates = measure([ours, d20], rounds, seconds, [index], show=False)
        mine, theirs = statistics.median(rates["ours"]), statistics.median(rates["d20"])
        print(
            f"  {spelled:<12} {spelled_d20:<12} {mine:>10,.0f} {theirs:>10,.0f} "
            f"{mine / theirs:>5.2f}x"
        )


if __name__ == "__main__":
    sys.exit(main())
