"""What generated code calls off its fast path: the closures' own rules for rarer values.

Each function here is what the closure of the same construct does, in a real run (no
value unknown), where the generated code's inline fast path (whole numbers, yes or no)
does not apply: fractions, rolls, lists, and the errors a wrong value gives. The
messages are the closures' own (the same `Message`s, imported from their modules).
"""

from __future__ import annotations

from typing import Any

from dsl.messages import tr
from interpreter.bounds import bounded_list, bounded_value, cells
from interpreter.compile.arithmetic import LEFT_SIDE, RIGHT_SIDE, THE_ARGUMENT, as_number
from interpreter.compile.expressions import NEGATED
from interpreter.errors import EvaluationError
from interpreter.values import PLAIN_TYPES, Record


def added(ctx: Any, a: Any, b: Any, compute: Any, span: Any) -> Any:
    """`a + b` off the whole numbers: two lists joined (counted), else `compute`."""
    if type(a) is tuple and type(b) is tuple:
        return bounded_value(ctx, bounded_list(a + b, ctx.limits, span), span)
    return compute(a, b, ctx.limits)


def ordered(compare: Any, op: str, a: Any, b: Any, lspan: Any, rspan: Any) -> bool:
    """`a >= b` (and the others) off the whole numbers: each side as a number."""
    if type(a) is not int:
        a = as_number(a, lspan, LEFT_SIDE, op=op)
    if type(b) is not int:
        b = as_number(b, rspan, RIGHT_SIDE, op=op)
    result: bool = compare(a, b)
    return result


def compared(ctx: Any, compare: Any, a: Any, b: Any, span: Any) -> bool:
    """`=`, `!=`: going through a list or a record compared counts its cells."""
    kind = type(a)
    if kind is tuple or kind is Record or (kind not in PLAIN_TYPES and isinstance(a, Record)):
        ctx.count(cells(a, ctx.limits.value_size), span)
    elif kind is str and len(a) > 64:
        ctx.count(len(a) >> 6, span)
    result: bool = compare(a, b)
    return result


def rounded(function: Any, value: Any, span: Any, name: str) -> Any:
    """`floor(x)`, `ceil(x)` of a value computed (`builtin_functions.rounding`)."""
    return function(as_number(value, span, THE_ARGUMENT, name=name))


def negated(value: Any, span: Any) -> Any:
    """`-x` off the whole numbers."""
    return -as_number(value, span, NEGATED)


def not_yes_or_no(value: Any, span: Any) -> bool:
    """`not x` of a value that is not yes or no: refused (`Expressions.ex_unary`)."""
    raise EvaluationError(tr("`not` needs yes or no, not {value}", value=value), span)
