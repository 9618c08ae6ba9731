"""Start-up and loading: whole processes of `rulebook` against d20's, in one run.

    python benchmarks/startup.py               # 7 rounds, every side
    python benchmarks/startup.py --rounds 15   # more rounds
    python benchmarks/startup.py --only roll   # the sides whose name holds this text

What a person meets first is a process that starts, does one thing and ends. Each side
here is such a process, timed whole by the CPU time it and its children used
(`resource.getrusage(RUSAGE_CHILDREN)` before and after; CPU, not wall time, so that a
shared, busy machine taking the CPU away now and then does not count against a side):

- `d20`: `python -c "import d20; d20.roll('1d20')"`, in a virtual environment of its own
  (.bench/d20-venv, git-ignored, made with `python -m venv` and `pip install d20`, as
  benchmarks/roll.py does: d20 pins an old `lark` that must not meet ours);
- `roll d20`, `roll 3d6+2`, `roll 4d6kh3`, `roll floor(3d6/2)`: `rulebook roll EXPR`, the
  installed script's own code (`from interpreter.cli import main`) run from this
  repository (PYTHONPATH);
- `--help`: `rulebook --help`;
- `load warm` / `load cold`: a process that loads the largest shipped rulebook with
  `dsl.load`, with the cache folder filled by an earlier load, or emptied before; the
  number is the load's own CPU time (`time.process_time` around `dsl.load`, the import
  of `dsl.load` excluded; what it imports itself, the parser and the checker when it
  needs them, included), printed by the process;
- `python -c pass`: each interpreter started and stopped, for scale (ours pays the
  site-packages of the machine's Python, `.pth` files included; d20's venv has its own).

Every side runs once before timing (Python's bytecode written, the cache filled); then the
sides take turns, round after round, and each side's median is reported, with its ratio
to d20's whole process. Targets (issue 25): `roll d20` at most 1.2x d20; `--help` at most
150 ms; a warm load at most 20 ms, a cold one at most 400 ms.

This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.roll import DEFAULT_VENV, ensure_d20  # noqa: E402

#: what the installed `rulebook` script runs
SCRIPT = "import sys; from interpreter.cli import main; sys.exit(main())"
#: a process that loads a rulebook and prints the load's CPU time in seconds
LOADER = (
    "import sys, time; import dsl.load; start = time.process_time(); dsl.load(sys.argv[1]); "
    "print(time.process_time() - start)"
)
#: the targets, in seconds or as a ratio to d20's whole process
TARGETS = {"roll d20": "<= 1.2x d20", "--help": "<= 0.150 s", "load warm": "<= 0.020 s",
           "load cold": "<= 0.400 s"}  # fmt: skip


def largest_rulebook() -> str:
    folder = ROOT / "rulebooks"
    return max(folder.glob("*.rules"), key=lambda p: p.stat().st_size).stem


def child_cpu(command: list[str], env: dict) -> tuple[float, str]:
    """The CPU time a whole process took (user + system), and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{command} failed:\n{done.stderr}")
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return spent, done.stdout


def sides(d20_python: Path, cache: Path) -> dict:
    """Each side: a function that runs it once and returns its time in seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache)}
    bare = {k: v for k, v in env.items() if k != "PYTHONPATH"}  # d20's: no `lark` of ours
    ours = [sys.executable, "-c", SCRIPT]
    book = largest_rulebook()

    def whole(command, environment=env):
        return lambda: child_cpu(command, environment)[0]

    def load(empty: bool):
        def run():
            if empty:
                shutil.rmtree(cache / "rulebook", ignore_errors=True)
            return float(child_cpu([sys.executable, "-c", LOADER, book], env)[1])

        return run

    return {
        "d20": whole([str(d20_python), "-c", "import d20; d20.roll('1d20')"], bare),
        "python -c pass (d20's)": whole([str(d20_python), "-c", "pass"], bare),
        "python -c pass (ours)": whole([sys.executable, "-c", "pass"]),
        "roll d20": whole([*ours, "roll", "d20"]),
        "roll 3d6+2": whole([*ours, "roll", "3d6+2"]),
        "roll 4d6kh3": whole([*ours, "roll", "4d6kh3"]),
        "roll floor(3d6/2)": whole([*ours, "roll", "floor(3d6/2)"]),
        "--help": whole([*ours, "--help"]),
        "load warm": load(False),
        "load cold": load(True),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default=None, help="the sides whose name holds this text")
    parser.add_argument("--d20-venv", type=Path, default=DEFAULT_VENV)
    args = parser.parse_args(argv)
    d20_python = ensure_d20(args.d20_venv)
    with tempfile.TemporaryDirectory() as cache:
        chosen = sides(d20_python, Path(cache))
        names = [
            n
            for n in chosen
            if n.startswith(("d20", "python")) or args.only is None or args.only in n
        ]
        for name in names:  # bytecode written, the cache filled
            chosen[name]()
        times: dict = {name: [] for name in names}
        for _ in range(args.rounds):
            for name in names:
                times[name].append(chosen[name]())
    script = Path(sysconfig.get_path("scripts")) / "rulebook"
    print(f"Python {sys.version.split()[0]}; ours: {script.name} from {ROOT.name}; "
          f"{args.rounds} rounds, CPU time, medians; rulebook: {largest_rulebook()}")  # fmt: skip
    d20 = statistics.median(times["d20"])
    print(f"{'side':20s} {'median':>9s} {'x d20':>7s}  target")
    for name in names:
        median = statistics.median(times[name])
        ratio = f"{median / d20:6.2f}x" if not name.startswith("load") else "      -"
        if name.startswith("python"):
            ratio = "      -"
        print(f"{name:20s} {median * 1000:7.1f}ms {ratio}  {TARGETS.get(name, '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
