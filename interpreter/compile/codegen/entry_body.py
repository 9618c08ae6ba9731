"""An action's generated function for one set of limits, called by its entry on a fresh context.

An action's entry (interpreter.run_entries) calls it with a context that has counted nothing
and entered nothing (`ctx.steps` and `ctx.calls` 0), under limits known when it is made.
It is the action's untraced function (`emit_steps.generated_action`, lean: no `env`, its
own frame left out) with what those make known decided once, when it is written: the
call depth of its entry (0, under a `call_depth` of at least 1) not tested, its count on
entry given (not added), the bound of that count tested here (the steps past the bound,
or a check inside too deep, leave the test in place: the run raises as it would), its
whole-number limits read as constants, and its context, a `Run`, its dice's roller.
Everything else is the function as written; any other shape of it: none is made (its
entry calls the action's own generated function).
"""

from __future__ import annotations

import re
from typing import Any

from interpreter.compile.codegen.emit_steps import Steps, compile_function, write_action
from interpreter.compile.codegen.emitted import HOISTED, WORD, Emitted
from interpreter.runtime import STEPS_BETWEEN_CLOCKS, Run

#: how a lean action's generated function begins, line by line (`emit_steps._entered`,
#: `_counted_on_entry` and `lean_frames.lean_own`)
_LIMITS = "    limits = ctx.limits"
_DEPTH = "    if ctx.calls >= limits.call_depth:"
_TOO_DEEP = re.compile(r"        raise _k[0-9]+\(ctx, span\)\Z")
_COUNT = re.compile(r"    ctx\.steps = (_k[0-9]+) \+ ctx\.steps\Z")
_BOUND = re.compile(
    r"    if ctx\.steps > ctx\.step_bound(?: or ctx\.calls \+ (_k[0-9]+) >= limits\.call_depth)?:\Z"
)
_PAST = re.compile(r"        _k[0-9]+\(ctx, [^\n]*\)\Z")
#: a test of two constants (a die's faces against `faces_per_die`)
_KNOWN = re.compile(r" and (_k[0-9]+) <= (_k[0-9]+)(?=:| and)")
#: a die's roller read, and tested to be a real run's (`emit_values.Values.face`)
_ROLLER = "roller = ctx.roller"
_IS_RUN = re.compile(r"\bif type\(roller\) is (_k[0-9]+) and ")
#: the lines between the depth test and the count: the parameters unpacked, at most
_FRAME = 4


def generated_entry_body(compiler: Any, action: Any, too_deep: Any, limits: Any) -> Any:
    """(the function an entry calls for `action` under `limits`, its source), or None."""
    if limits.call_depth < 1:  # (a first call already too deep: the general function)
        return None
    steps = Steps(Emitted(), compiler, too_deep)
    if not write_action(steps, compiler, too_deep, action) or steps.reads_env():
        return None
    lean = Steps(Emitted(), compiler, too_deep, keep_env=False)
    if not write_action(lean, compiler, too_deep, action):
        return None
    out = lean.out
    out.lines = lean.unbuilt(list(out.lines))
    if "env" in WORD.findall(out.source()) or not fresh(out, limits):
        return None
    return compile_function(out, "_f1")


def fresh(out: Emitted, limits: Any) -> bool:
    """The lines of a lean action's function made those of its entry's (False: not of
    the shape they are written in, left as they are)."""
    lines = out.lines
    if len(lines) < 6 or lines[1] != _LIMITS or lines[2] != _DEPTH:
        return False
    if not _TOO_DEEP.match(lines[3]):
        return False
    at = next((i for i in range(4, 5 + _FRAME) if i < len(lines) and _COUNT.match(lines[i])), 0)
    if not at or at + 2 >= len(lines):
        return False
    count, bound = _COUNT.match(lines[at]), _BOUND.match(lines[at + 1])
    if count is None or bound is None or not _PAST.match(lines[at + 2]):
        return False
    if at + 3 < len(lines) and lines[at + 3].startswith("        "):
        return False  # (more than the one call under the test: not as written here)
    cost = out.namespace.get(count.group(1))
    deeper = out.namespace.get(bound.group(1)) if bound.group(1) else 0
    if type(cost) is not int or type(deeper) is not int:
        return False
    step_bound = limits.steps_per_run  # (`runtime.Run`'s, on a context made or kept)
    if limits.run_seconds != float("inf"):
        step_bound = min(step_bound, STEPS_BETWEEN_CLOCKS)
    lines[at] = f"    ctx.steps = {count.group(1)}"
    past = cost > step_bound or deeper >= limits.call_depth
    tested = lines[at + 1 : at + 3] if past else []
    lines = [*lines[:2], *lines[4 : at + 1], *tested, *lines[at + 3 :]]
    for name in HOISTED:  # (its limits known: each whole number read as a constant)
        value = getattr(limits, name)
        if type(value) is int:
            read = re.compile(rf"\blimits\.{name}\b")
            lines = [read.sub(out.constant(value), line) for line in lines]
    lines[1] = f"    limits = {out.constant(limits)}"
    out.lines = [_ran(_folded(line, out.namespace), out.namespace) for line in lines]
    return True


def _ran(line: str, namespace: dict) -> str:
    """A line of a die drawn (`emit_values.Values.face`) on the entry's context, which is
    its own roller (a `Run`: `ctx.roller is ctx` throughout the run): read as itself."""
    if line.endswith(_ROLLER) and not line[: -len(_ROLLER)].strip():
        return line[: -len(_ROLLER)] + "roller = ctx"
    test = _IS_RUN.search(line)
    if test is not None and namespace.get(test.group(1)) is Run:
        line = line.replace(test.group(0), "if ", 1)
    return line


def _folded(line: str, namespace: dict) -> str:
    """A line with each test `and A <= B` of two whole numbers known true left out."""
    for test in _KNOWN.finditer(line):
        low, high = namespace.get(test.group(1)), namespace.get(test.group(2))
        if type(low) is int and type(high) is int and low <= high:
            line = line.replace(test.group(0), "", 1)
    return line
