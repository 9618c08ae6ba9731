"""What one step costs at the dearest: actions made of the costliest operations there are,
each run until it passes `Limits.steps_per_run`; the CPU time per step, run and traced.

    python benchmarks/step_cost.py              # every case at the default limit
    python benchmarks/step_cost.py --only text  # the cases whose name has the word

A step is bounded in cost: building or going through a value counts its cells (an item,
64 characters of a text, 77 digits of a number), a called definition its body, a table
cell its parts (README: "what a step is"). The promise the default limit makes is that
`steps_per_run` × the dearest step stays within a server's bound on a run (`rulebook
serve`: 10 s), the trace of the run (built by running it again: `Outcome.trace`) too.
Each case is an action that repeats one costly operation (a text of 92,000 characters
built, two lists of 5,000 items joined, 10,000 fractions added up or written in a text,
lists of 10,000 compared, looked through, sorted, a 1,000-digit fraction divided,
formulas calling two formulas each, a table whose cells call formulas, a named roll, ...)
until a limit stops it (the steps', or for dice `dice_per_evaluation`); its line: the
steps counted, CPU seconds of the run and of its trace, and microseconds per step. The
summary: the dearest step of the cases the step limit stopped, the limit times it, and
the longest case.
Time is CPU time (`time.process_time`). This is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, SeededDice

#: a loop of a million passes, for the operation in it
MANY = "repeat 1000 times {{ repeat 1000 times {{ {body} }} }}"

HEADER = """
sheet {
  attribute Fuerza in 1..10
  list Dones
  effects Efectos on acciones time turno
}
table T by k { 1: "uno" { a: f(1), b: f(2) }  else: "otro" { a: f(3) } }
formula f(x: int) = x * 2 + 1
formula g0(x: int) = x + 1
""" + "".join(f"formula g{i}(x: int) = g{i - 1}(x) + g{i - 1}(x)\n" for i in range(1, 31))

#: name → (what it builds first, the operation repeated)
CASES = {
    "text doubled": (
        'let s = "' + "x" * 90 + '"  repeat 9 times { set s to "{s}{s}" }',
        'let t = "{s}{s}"',
    ),
    "lists joined": ("let l = [1, 2, 3, 4, 5]  repeat 9 times { set l to l + l }", "let m = l + l"),
    "sum of fractions": (
        "let l = [1/3, 2/7]  repeat 12 times { set l to l + l }",
        "let t = sum(l)",
    ),
    "fractions in a text": (
        "let l = [1/3, 2/7]  repeat 12 times { set l to l + l }",
        'let t = "{l}"',
    ),
    "lists compared": (
        "let l = [1, 2]  let m = [1, 2]  repeat 12 times { set l to l + l  set m to m + m }",
        "let t = l = m",
    ),
    "records looked through": (
        "let r = T[1]  let l = [r, r]  repeat 11 times { set l to l + l }",
        "let t = 5 in l",
    ),
    "highest of a list": (
        "let l = [3, 1, 2, 5]  repeat 11 times { set l to l + l }",
        "let t = highest(l, 4000)",
    ),
    "max of a list": ("let l = [1/3, 2/7]  repeat 12 times { set l to l + l }", "let t = max(l)"),
    "long fractions divided": (
        "let a = 10 ** 998 + 7  let b = 10 ** 98 + 3  let c = a / b",
        "let t = c * 7 / 3 + c",
    ),
    "long fractions multiplied": (
        "let c = (10 ** 499 + 7) / (10 ** 49 + 3)  let d = (10 ** 499 + 9) / (10 ** 49 + 1)",
        "let t = c * d + c - d",
    ),
    "dice kept and dropped": ("let x = 1", "let t = 100d6kh50 + 100d10x>=10"),
    "nested list built": (
        "let l = [1, 2, 3, 4, 5]  repeat 10 times { set l to l + l }",
        "let m = [l]",
    ),
    "formulas doubling": ("let x = 1", "let t = g30(x)"),
    "table cells": ("let x = 1", "let t = T[1].a + T[2].a"),
    "effects read": (
        "repeat 10 times { repeat 1000 times {"
        ' effect "e{size(Dones)}" on acciones for 5 turno  add "x" to Dones } }',
        'let t = effects("acciones")',
    ),
    "lists on the sheet": (
        'repeat 50 times { repeat 40 times { add "una cosa más larga que otras" to Dones } }',
        'let t = "x" in Dones',
    ),
}


def book() -> str:
    actions = []
    for i, (setup, body) in enumerate(CASES.values()):
        actions.append(
            f"action case{i}() {{ {setup}  {MANY.format(body=body)}  result {{ n: 1 }} }}"
        )
    return HEADER + "\n".join(actions) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="a word of the cases' names")
    args = parser.parse_args(argv)
    engine = Engine(dsl.load_text(book(), "steps.rules"))
    limit = engine.limits.steps_per_run
    sheet = engine.sheet({"Fuerza": 5})
    print(f"steps_per_run {limit:,}")
    print(
        f"{'case':26} {'steps':>9} {'run s':>7} {'µs/step':>8} {'trace s':>8} {'µs/step':>8}  end"
    )
    dearest = longest = 0.0
    for i, name in enumerate(CASES):
        if args.only not in name:
            continue
        started = time.process_time()
        try:
            out = engine.run(f"case{i}", sheet, {}, SeededDice(1))
            steps, ended, trace = out.steps, "ok", lambda out=out: out.trace
        except RulebookError as error:
            steps, ended = getattr(error, "steps", 0), str(error.message)
            trace = lambda error=error: error.trace  # noqa: E731
        ran = time.process_time() - started
        started = time.process_time()
        trace()
        traced = time.process_time() - started
        each, each_traced = ran / max(steps, 1) * 1e6, traced / max(steps, 1) * 1e6
        if steps > limit:  # (a case another limit stops first: its time below)
            dearest = max(dearest, each, each_traced)
        longest = max(longest, ran, traced)
        print(
            f"{name:26} {steps:9,} {ran:7.2f} {each:8.3f} {traced:8.2f} {each_traced:8.3f}  "
            f"{ended[:60]}",
            flush=True,
        )
    print(
        f"\nthe dearest step: {dearest:.3f} µs; steps_per_run × it: {limit * dearest / 1e6:.2f} s"
        f"; the longest case (run or trace): {longest:.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
