"""A called check's frame written inline, without its count of calls where nothing in it reads it.

A check written inline into its caller's function (`Steps.inline_check`) enters a frame:
it tests `call_depth`, then raises `ctx.calls` by one and lowers it again whatever happens.
Only a definition's entry reads `ctx.calls` (the closures', or generated code's own test).
Where the check's body calls nothing that may enter a definition (the generator's own
helpers, a plain die's roll, a lookup of a table of plain constants: `quiet`), the raise
and the lowering can tell nothing: they are left out (`LEAN_FRAMES`), the test kept. Its
steps, counted right after its caller's own on entry, are then counted with them at once
(`MERGED_COUNTS`): past the bound, or too deep, each is counted again as written apart
(`counted_apart`), so that the same error is raised at the same place with the same steps.
The lines given are the finished function's (its `env` lines already left out or not).
A check's total made a number (`as_number`) right after the sum that gives it is made so
only where the sum was not whole numbers (`SETTLED_TOTALS`), and a `+ - *` of the value
just made by another is written, where both are whole numbers, inside the other's fast
path, without testing that value again (`NESTED_WHOLES`).
"""

from __future__ import annotations

import re
from typing import Any

from dsl import nodes as n
from interpreter.bounds import bounded_value, too_long
from interpreter.compile.arithmetic import arith, as_number
from interpreter.compile.codegen.emit_values import Values, plain_die
from interpreter.compile.codegen.emitted import Emitted
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

#: what the generator's own code calls that never enters a definition
QUIET_HELPERS = (count_past_bound, too_long, added, as_number, bounded_value, Record)
QUIET_MORE = (compared, negated, ordered, as_bool)
#: a value made a number just after the `+ - *` that gives it, only off that operation's
#: fast path (on it, a whole number: nothing to test); False: tested after either
SETTLED_TOTALS = True
#: a `+ - *` right after the one giving one of its sides written again inside that one's
#: fast path, where that side is a whole number: not tested; False: tested again
NESTED_WHOLES = True
#: the deepest level such a nested `+ - *` is written at (Python allows 20 blocks)
NESTED_LEVELS = 12
#: the code of every `arith` closure (`compute(a, b, limits)`: numbers and lists only)
ARITH_CODE = arith("+", None, None, None).__code__
#: the built-in functions, and the methods, generated code calls that enter nothing
QUIET_WORDS = frozenset({"type", "len", "abs", "int", "dict", "zip", "range"})
QUIET_METHODS = frozenset({"face", "random_bits", "append", "get", "read"})
CALL = re.compile(r"(\.?)(?<!\w)(\w+)\(")  # (a name starts where no name goes on: linear)

DEPTH_TEST = "if ctx.calls >= limits.call_depth:"
COUNT = re.compile(r"ctx\.steps = (_k[0-9]+) \+ ctx\.steps\Z")
BOUND_TEST = "if ctx.steps > ctx.step_bound:"
MERGED_TEST = "if ctx.steps > ctx.step_bound or ctx.calls >= limits.call_depth:"


class QuietConstants(Values):
    """The values writer, for the steps writer (emit_steps.Steps): the constants it makes
    that never enter a definition (a plain die's roll, a lookup of a table of plain
    constants), kept in `quiet`: what a lean frame may call."""

    quiet: set[str]

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


def leaner(out: Emitted, quiet: set[str], too_deep: Any) -> None:
    """`out`'s lines with each inline check's frame made lean where it can be, then the
    function's own, and each total made a number off its sum's fast path only (above)."""
    if SETTLED_TOTALS:
        out.lines = settled(out.lines, out.namespace)
    if NESTED_WHOLES:
        out.lines = nested(out.lines)
    if not LEAN_FRAMES:
        return
    quiet = quiet | {name for name, value in out.namespace.items() if value is too_deep}
    one = out.constant(1)
    lines, done, at = out.lines, [], 0
    replaced = []
    while at < len(lines):
        end = _lean_end(lines, at, one, out.namespace, quiet)
        if end is None:
            done.append(lines[at])
            at += 1
            continue
        indent = _indent(lines[at])
        body = [line[4:] for line in lines[at + 4 : end]]
        entry = lines[at : at + 2]
        merged = _merged(out, done, entry, body, indent) if MERGED_COUNTS else None
        if merged is None:
            done += entry
        else:
            replaced.append(merged)
        done += body
        at = end + 2
    out.lines = done
    for name in replaced:
        out.forget(name)
    if LEAN_OWN:
        _lean_own(out, quiet, one)


def _lean_own(out: Emitted, quiet: set[str], one: str) -> None:
    """The function's own frame (`ctx.calls` raised on entry, lowered in its last
    `finally`) left out where its body calls nothing that enters a definition and reads
    `ctx.calls` only in its checks' depth tests, which then count the call it is."""
    lines = out.lines
    entry = f"    ctx.calls += {one}"
    if entry not in lines:
        return
    at = lines.index(entry)
    if lines[at + 1] != "    try:" or lines[-2:] != ["    finally:", f"        ctx.calls -= {one}"]:
        return
    apart = [name for name, value in out.namespace.items() if value is counted_apart]
    body = []
    for line in lines[at + 2 : -2]:
        if _indent(line) < 8:
            return
        text = line.strip()
        if text in (DEPTH_TEST, MERGED_TEST):
            line = line.replace("ctx.calls >=", f"ctx.calls + {one} >=")
        elif apart and text.startswith(f"{apart[0]}(ctx, "):
            line = f"{line[:-1]}, {one})"  # (its depth test: one call more)
        elif not _quiet(line, out.namespace, quiet, returns=True):
            return
        body.append(line[4:])
    out.lines = [*lines[:at], *body]


def settled(lines: list[str], namespace: dict[str, Any]) -> list[str]:
    """The lines with each `if type(X) is not int: X = as_number(...)` that follows the
    `+ - *` giving X (`Values.arithmetic`: whole numbers inline, else its slow path)
    moved into that slow path."""
    done: list[str] = []
    for line in lines:
        done.append(line)
        if len(done) < 8:
            continue
        test, made = done[-2], done[-1]
        found = NOT_WHOLE.fullmatch(test)
        if found is None or _indent(made) != len(found.group(1)) + 4:
            continue
        pad, value = found.groups()
        called = re.fullmatch(rf" *{value} = (_k[0-9]+)\({value}, .*\)", made)
        if called is None or namespace.get(called.group(1)) is not as_number:
            continue
        fast, bound, raised, otherwise, slow = done[-7:-2]
        if (
            not done[-8].startswith(f"{pad}if ")
            or not fast.startswith(f"{pad}    {value} = ")
            or bound != f"{pad}    if abs({value}) >= limits.number_bound:"
            or not raised.startswith(f"{pad}        raise ")
            or otherwise != f"{pad}else:"
            or not slow.startswith(f"{pad}    {value} = ")
        ):
            continue
        done[-2:] = ["    " + test, "    " + made]
    return done


def nested(lines: list[str]) -> list[str]:
    """The lines with each `+ - *` (`Values.arithmetic`: a test of whole numbers, the
    operation and its bound, else its slow path) that right follows the one giving one of
    its sides written twice: at the end of that one's fast path without that side's test,
    and at the end of its slow path as it was (the same operations in the same order on
    either path)."""
    done, at = list(lines), 0
    while at < len(done):
        made = _arithmetic(done, at)
        after = _arithmetic(done, made[2]) if made is not None else None
        if made is None or after is None or _indent(done[at]) // 4 >= NESTED_LEVELS:
            at += 1
            continue
        (value, otherwise, end), block = made, done[made[2] : after[2]]
        pad = " " * _indent(done[at])
        tests = block[0][len(pad) + 3 : -1].split(" and ")
        if _indent(block[0]) != len(pad) or f"type({value}) is int" not in tests:
            at += 1
            continue
        kept = [test for test in tests if test != f"type({value}) is int"]
        if kept:  # (the other side's test, then the operation as written, one level in)
            fast = [f"{pad}    if {' and '.join(kept)}:", *("    " + line for line in block[1:])]
        else:  # (nothing left to test: the operation and its bound alone)
            fast = block[1 : block.index(f"{pad}else:")]
        slow = ["    " + line for line in block]
        done[at : after[2]] = [*done[at:otherwise], *fast, *done[otherwise:end], *slow]
        at = otherwise + len(fast) + (end - otherwise) + len(slow)
    return done


def _arithmetic(lines: list[str], at: int) -> tuple[str, int, int] | None:
    """(the value, where its `else:` is, where the block ends) if a `+ - *` of
    `Values.arithmetic` begins at `at`."""
    if at + 5 >= len(lines) or not lines[at].lstrip().startswith("if "):
        return None
    pad = " " * _indent(lines[at])
    found = re.fullmatch(rf"{pad}    (_v[0-9]+) = \S+ [-+*] \S+", lines[at + 1])
    if found is None:
        return None
    value = found.group(1)
    if (
        lines[at + 2] != f"{pad}    if abs({value}) >= limits.number_bound:"
        or not lines[at + 3].startswith(f"{pad}        raise ")
        or lines[at + 4] != f"{pad}else:"
        or not lines[at + 5].startswith(f"{pad}    {value} = ")
    ):
        return None
    end = at + 5
    while end < len(lines) and _indent(lines[end]) > len(pad):
        end += 1
    return value, at + 4, end


NOT_WHOLE = re.compile(r"( *)if type\((_v[0-9]+)\) is not int:")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _lean_end(
    lines: list[str], at: int, one: str, namespace: dict[str, Any], quiet: set[str]
) -> int | None:
    """Where the frame entered at `at` ends (its `finally:`), if it can be made lean."""
    if lines[at].strip() != DEPTH_TEST or at + 4 >= len(lines):
        return None
    indent = _indent(lines[at])
    pad = " " * indent
    if lines[at + 2] != f"{pad}ctx.calls += {one}" or lines[at + 3] != f"{pad}try:":
        return None
    end = at + 4
    while end < len(lines) and _indent(lines[end]) > indent:
        end += 1
    if (
        end + 1 >= len(lines)
        or lines[end] != f"{pad}finally:"
        or lines[end + 1] != f"{pad}    ctx.calls -= {one}"
        or (end + 2 < len(lines) and _indent(lines[end + 2]) > indent)  # (more to restore)
    ):
        return None
    body = lines[at + 4 : end]
    if not all(_quiet(line, namespace, quiet) for line in body):
        return None
    return end


def _quiet(line: str, namespace: dict[str, Any], quiet: set[str], returns: bool = False) -> bool:
    """Whether a line of a check's body reads `ctx.calls` or calls anything that may
    (or returns, unless `returns`)."""
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


def _merged(
    out: Emitted, done: list[str], entry: list[str], body: list[str], indent: int
) -> str | None:
    """The check's entry count (the first lines of `body`) made one with the count that
    ends `done`, at the same indentation, with the depth test (`entry`) between; the
    constant of the count replaced (None: nothing merged)."""
    if len(done) < 3 or len(body) < 3:
        return None
    pad = " " * indent
    first, second = COUNT.match(done[-3][indent:]), COUNT.match(body[0][indent:])
    if (
        first is None
        or second is None
        or _indent(done[-3]) != indent
        or _indent(body[0]) != indent
        or done[-2] != pad + BOUND_TEST
        or body[1] != pad + BOUND_TEST
    ):
        return None
    counted = re.fullmatch(r" *(_k[0-9]+)\(ctx, (.+)\)", done[-1])
    again = re.fullmatch(r" *(_k[0-9]+)\(ctx, (_k[0-9]+)\)", body[2])
    deep = re.fullmatch(r" *raise (_k[0-9]+)\(ctx, (_k[0-9]+)\)", entry[1])
    if counted is None or again is None or deep is None:
        return None
    k = out.constant
    count = out.namespace
    if count.get(counted.group(1)) is not count_past_bound or count.get(again.group(1)) is not (
        count_past_bound
    ):
        return None
    a, b = count[first.group(1)], count[second.group(1)]
    if type(a) is not int or type(b) is not int or a < 0 or b < 0:
        return None
    apart = f"{k(counted_apart)}(ctx, {second.group(1)}, {counted.group(2)}, "
    apart += f"{deep.group(1)}, {deep.group(2)}, {again.group(2)})"
    done[-3:] = [
        f"{pad}ctx.steps = {k(a + b)} + ctx.steps",
        pad + MERGED_TEST,
        f"{pad}    {apart}",
    ]
    del body[:3]
    return first.group(1)


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
