"""The lean forms the emitter writes: frames without a count of calls, counts and sums merged.

Written by the emitter as it goes (`Steps.inline_check`, `emit_steps._left`,
`QuietConstants.operation`), from what it knows it wrote, not found again in finished
source. A check written inline into its caller's function enters a frame: it tests
`call_depth`, then raises `ctx.calls` by one and lowers it again whatever happens. Only a
definition's entry reads `ctx.calls` (the closures', or generated code's own test). Where
the body the emitter just wrote for the check calls nothing that may enter a definition
(the generator's own helpers, a plain die's roll, a lookup of a table of plain constants:
`quiet`), the raise and the lowering can tell nothing: they are not written
(`LEAN_FRAMES`), the test kept. Its steps, counted right after its caller's own count (the
emitter's last), are then counted with them at once (`MERGED_COUNTS`): past the bound, or
too deep, each is counted again as written apart (`counted_apart`), so that the same error
is raised at the same place with the same steps. The function's own frame is left out as
well where all it wrote is as quiet (`LEAN_OWN`): its lean checks' depth tests, written
with a mark (`LIFT`, `LIFT_ARG`), then count the call it no longer adds. Such frames are
written only where `env` is not kept (`Steps.keep_env`: a frame then restores it).
A check's total made a number (`as_number`) is written inside the slow path of the sum
that gives it only (`SETTLED_TOTALS`), and a `+ - *` of the value the one written just
before gives is written, where both are whole numbers, inside that one's fast path too,
without testing that value again (`NESTED_WHOLES`).
"""

from __future__ import annotations

import re
from typing import Any

from dsl import nodes as n
from interpreter.bounds import bounded_value, too_long
from interpreter.compile.arithmetic import arith, as_number
from interpreter.compile.codegen.emit_values import Values, plain_die
from interpreter.compile.codegen.slow_paths import added, compared, negated, ordered
from interpreter.runtime import as_bool, count_past_bound
from interpreter.values import Record

#: an inline check's frame without its raise and lowering of `ctx.calls` where its body
#: calls nothing that enters a definition; False: every frame as written
LEAN_FRAMES = True
#: then the function's own frame too, where all it calls is as quiet: its checks' depth
#: tests read one call more (`ctx.calls + 1`, the one it no longer adds); False: kept
LEAN_OWN = True
#: such a check's entry count made one with its caller's count just before it; False:
#: counted apart
MERGED_COUNTS = True
#: a value made a number just after the `+ - *` that gives it, only off that operation's
#: fast path (on it, a whole number: nothing to test); False: tested after either
SETTLED_TOTALS = True
#: a `+ - *` right after the one giving one of its sides written again inside that one's
#: fast path, where that side is a whole number: not tested; False: tested again
NESTED_WHOLES = True
#: the deepest level such a nested `+ - *` is written at (Python allows 20 blocks)
NESTED_LEVELS = 12

#: what the generator's own code calls that never enters a definition
QUIET_HELPERS = (
    count_past_bound,
    too_long,
    added,
    as_number,
    bounded_value,
    Record,
    object.__new__,
)
QUIET_MORE = (compared, negated, ordered, as_bool)
#: the code of every `arith` closure (`compute(a, b, limits)`: numbers and lists only)
ARITH_CODE = arith("+", None, None, None).__code__
#: the built-in functions, and the methods, generated code calls that enter nothing
QUIET_WORDS = frozenset({"type", "len", "abs", "int", "dict", "zip", "range"})
QUIET_METHODS = frozenset({"face", "random_bits", "append", "get", "read"})
CALL = re.compile(r"(\.?)(?<!\w)(\w+)\(")  # (a name starts where no name goes on: linear)
#: the marks a lean check's depth test (after `ctx.calls`) and its counts' `counted_apart`
#: (its last argument's end) are written with: the call the function's own lean frame
#: does not add, or nothing (never left in finished source: `Emitted.function` refuses)
LIFT, LIFT_ARG = "\x00", "\x01"


class QuietConstants(Values):
    """The values writer, for the steps writer (emit_steps.Steps): the constants it makes
    that never enter a definition (a plain die's roll, a lookup of a table of plain
    constants), kept in `quiet`: what a lean frame may call; the last `+ - *` and count
    it wrote, for the next to be written leaner."""

    quiet: set[str]
    built: dict[str, tuple[int, int | None, str]]
    #: written untraced without `env` kept (set by `emit_steps.Steps`)
    keep_env: bool
    #: the last `+ - *` written and nested into none: (its value, where it begins, its
    #: level, where it ends); the last count: (where, level, steps, the span it gives)
    last_sum: tuple[str, int, int, int] | None = None
    last_count: tuple[int, int, int, str] | None = None
    #: the roll of a check whose total is made a number in its sum's slow path, and what
    #: `as_number` is told; the total so made (`made_number`)
    settling: tuple[Any, Any, Any] | None = None
    settled: str | None = None
    #: the constants of counts merged into others (`lean_check`)
    merged: list[str]

    def dice(self, node: n.Dice) -> str:
        before = len(self.out.namespace)
        made = super().dice(node)
        if plain_die(node):  # (every constant it made: its roll, one die, nothing computed)
            self.quiet.update(list(self.out.namespace)[before:])
        return made

    def index(self, node: n.Index) -> str | None:
        made = super().index(node)
        binding = self.compiler.bindings.get(id(node))
        if made is not None and binding is not None and binding.kind == "table":
            rows = self.compiler.remembered_rows(binding.name)
            if rows.plain():  # (its cells: constants, computed when compiled)
                lookup, remembered = self.compiler.table(binding.name), rows.remembered
                for name, value in self.out.namespace.items():  # (a method: made anew)
                    if value is lookup or (callable(value) and value == remembered):
                        self.quiet.add(name)
        return made

    def count(self, steps: int, span: Any, always: bool = False) -> None:
        at = len(self.out.lines)
        super().count(steps, span, always)
        if steps:
            self.counted(at, steps, self.k(span))

    def counted(self, at: int, steps: int, given: str) -> None:
        """A count written at `at` (its bound's `count_past_bound(ctx, given)`)."""
        self.last_count = (at, self.out.level, steps, given)

    def made_number(self, value: str, span: Any, what: Any) -> None:
        """`value` made a number if it is not a whole number (`as_number`)."""
        out, k = self.out, self.k
        out.line(f"if type({value}) is not int:")
        out.line(f"    {value} = {k(as_number)}({value}, {k(span)}, {k(what)})")

    def settle(self, check: Any) -> None:
        """A check's total about to be written: made a number in its sum's slow path
        (`SETTLED_TOTALS`) where nothing is written between (no target, or a whole number
        written as it)."""
        node, target = check.node, check.node.target
        written = target is None or (isinstance(target, n.Literal) and type(target.value) is int)
        self.settled = None
        if SETTLED_TOTALS and written and not self.traced:
            self.settling = (node.roll, node.roll.span, check.refusals[0])

    def operation(self, node: n.Binary, a: str, b: str) -> str:
        out = self.out
        previous, self.last_sum = self.last_sum, None
        start, level = len(out.lines), out.level
        target = super().operation(node, a, b)
        if self.traced:
            return target
        settling = self.settling
        if settling is not None and settling[0] is node:  # (the check's total)
            out.level += 1
            self.made_number(target, settling[1], settling[2])
            out.level -= 1
            self.settled, self.settling = target, None
        tests = [test for test in (self.whole(node.left, a), self.whole(node.right, b)) if test]
        if (
            NESTED_WHOLES
            and previous is not None
            and previous[2:] == (level, start)
            and level < NESTED_LEVELS
            and f"type({previous[0]}) is int" in tests
        ):
            self.nest(previous, start, tests)
        else:
            self.last_sum = (target, start, level, len(out.lines))
        return target

    def nest(self, previous: tuple[str, int, int, int], start: int, tests: list[str]) -> None:
        """The `+ - *` just written (from `start`) written again at the end of the fast
        path of the one before it (`previous`), without that one's test, and moved to the
        end of its slow path: the same operations in the same order on either path."""
        lines, pad = self.out.lines, "    " * previous[2]
        block = lines[start:]
        kept = [test for test in tests if test != f"type({previous[0]}) is int"]
        if kept:  # (the other side's test, then the operation as written, one level in)
            fast = [f"{pad}    if {' and '.join(kept)}:", *("    " + line for line in block[1:])]
        else:  # (nothing left to test: the operation and its bound alone)
            fast = block[1:4]
        del lines[start:]
        otherwise = previous[1] + 4  # (its `else:`)
        lines[otherwise:otherwise] = fast
        self.moved(otherwise, len(fast))
        lines.extend("    " + line for line in block)

    def moved(self, at: int, by: int) -> None:
        """Lines from `at` moved by `by` (lines put in, or left out): what was written
        there is found where it is now; nothing written before is made leaner."""
        self.built = {
            record: (build + by if build >= at else build, bounded, instead)
            for record, (build, bounded, instead) in self.built.items()
        }
        for record, (build, bounded, instead) in self.built.items():
            if bounded is not None and bounded >= at:
                self.built[record] = (build, bounded + by, instead)
        self.last_sum = self.last_count = None


def lean_check(
    steps: Any, at: tuple[int, int], first: Any, check: Any, span: Any, where: Any
) -> bool:
    """A check written inline (its depth test, then its count at `at`, its body after)
    made lean where its body is quiet (see the module), its count made one with `first`
    (the last count written before it: `QuietConstants.last_count`) where that ends
    right before it; False: its frame is to be left as written."""
    depth_at, count_at = at
    out, k = steps.out, steps.k
    lines = out.lines
    if not LEAN_FRAMES or steps.traced or steps.keep_env:
        return False
    quiet = quiet_names(steps)
    if not all(quiet_line(line, out.namespace, quiet) for line in lines[count_at:]):
        return False
    body = [line[4:] for line in lines[count_at:]]
    pad = "    " * out.level
    if MERGED_COUNTS and first is not None and first[:2] == (depth_at - 3, out.level):
        begun, _, steps_before, given = first
        steps.merged.append(k(steps_before))  # (read no more, unless elsewhere: `lean_own`)
        deep, cost = (k(steps.too_deep), k(span)), k(check.cost)
        lines[begun] = f"{pad}ctx.steps = {k(steps_before + check.cost)} + ctx.steps"
        tests = f"ctx.steps > ctx.step_bound or ctx.calls{LIFT} >= limits.call_depth"
        lines[begun + 1] = f"{pad}if {tests}:"
        apart = f"{k(counted_apart)}(ctx, {cost}, {given}, {deep[0]}, {deep[1]}, {k(where)}"
        lines[begun + 2] = f"{pad}    {apart}{LIFT_ARG})"
        del lines[depth_at:]
        lines += body[3:]  # (its own count: made one with the caller's above)
        steps.moved(count_at, depth_at - count_at - 3)
    else:
        lines[depth_at] = f"{pad}if ctx.calls{LIFT} >= limits.call_depth:"
        del lines[depth_at + 2 :]
        lines += body
        steps.moved(count_at, depth_at + 2 - count_at)
    return True


def lean_own(steps: Any, entry: int | None) -> bool:
    """The function's own frame (`ctx.calls` raised at `entry`, then `try:`) left out where
    all after it calls nothing that enters a definition and reads `ctx.calls` only in its
    lean checks' depth tests, which then count the call it is; the marks written (as the
    call, or as nothing). False: its frame is to be left as written."""
    out = steps.out
    one = out.constant(1)
    lines = out.lines
    lean = LEAN_FRAMES and LEAN_OWN and not steps.traced and not steps.keep_env
    if lean and entry is not None:
        quiet = quiet_names(steps)
        lean = all(
            LIFT in line or LIFT_ARG in line or quiet_line(line, out.namespace, quiet, True)
            for line in lines[entry + 2 :]
        )
    if not lean or entry is None:
        out.lines = [line.replace(LIFT, "").replace(LIFT_ARG, "") for line in lines]
        forget_merged(steps)
        return False
    body = [
        line[4:].replace(LIFT, f" + {one}").replace(LIFT_ARG, f", {one}")
        for line in lines[entry + 2 :]
    ]
    out.lines = [*lines[:entry], *body]
    steps.moved(entry + 2, -2)
    forget_merged(steps)
    return True


def forget_merged(steps: Any) -> None:
    """The constants of the counts merged into others (`lean_check`) that no line reads
    left out of the namespace, once the function's lines are written."""
    for name in steps.merged:
        steps.out.forget(name)


def quiet_names(steps: Any) -> set[str]:
    """The constants the function calls that enter no definition (`quiet`, `too_deep`)."""
    too_deep = steps.too_deep
    return steps.quiet | {name for name, value in steps.out.namespace.items() if value is too_deep}


def quiet_line(
    line: str, namespace: dict[str, Any], quiet: set[str], returns: bool = False
) -> bool:
    """Whether a line the emitter wrote neither reads `ctx.calls` nor calls anything that
    may (nor returns, unless `returns`): every call in it one of the generator's own
    helpers, a quiet constant, a built-in or a method known to enter nothing."""
    if "ctx.calls" in line or (not returns and "return" in line):
        return False
    for dot, name in CALL.findall(line):
        if dot:
            if name not in QUIET_METHODS:
                return False
        elif name not in QUIET_WORDS and name not in quiet:
            value = namespace.get(name)
            if not (
                any(value is helper for helper in QUIET_HELPERS + QUIET_MORE)
                or getattr(value, "__code__", None) is ARITH_CODE
            ):
                return False
    return True


def counted_apart(
    ctx: Any,
    second: int,
    first_span: Any,
    too_deep: Any,
    deep_span: Any,
    second_span: Any,
    lifted: int = 0,
) -> None:
    """Two counts made one, past the bound or too deep: each counted as written apart
    (the caller's, the check's depth test, the check's), in order; `lifted`: the call
    its caller's lean frame did not add (`LEAN_OWN`)."""
    ctx.steps -= second
    if ctx.steps > ctx.step_bound:
        count_past_bound(ctx, first_span)
    if ctx.calls + lifted >= ctx.limits.call_depth:
        raise too_deep(ctx, deep_span)
    ctx.steps += second
    if ctx.steps > ctx.step_bound:
        count_past_bound(ctx, second_span)
