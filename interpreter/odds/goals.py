"""What the best play is best for: a goal, from a field's value to an expression of costs.

A goal scores the outcomes of a choice's option; the best option scores highest. The
plain goals read one field: `success` (the chance it is yes), `degree=critical` (the
chance of that value), `mean damage` (its expectation). A goal that is an expression
(`success - spent(Effort)/10`, `mean rank + left(momentum)/3`) is worth its value's
expectation: it reads the result's fields by name, the sheet after the run
(`left(Momentum)`, or the bare name when no result field has it) and what the run spent
(`spent(Effort)`: the value before minus the value after; a gain is a negative spending)
or gained (`gained(Stress)`: after minus before, for what a cost adds to: stress, trauma).
A yes counts 1 and a no 0; `/` is exact. A run that stops (a failed `require`) is worth 0.
The expression is the language's own (dsl.parse_expression), evaluated here over a few
node kinds, never by Python: nothing but numbers, yes/no and texts comes out of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

import attrs

from dsl import nodes as n
from dsl.build import parse_expression
from dsl.errors import did_you_mean
from dsl.messages import tr
from interpreter.choosers import Question
from interpreter.errors import EvaluationError, ParameterError
from interpreter.odds.answer import field_outcome
from interpreter.odds.weights import Mass
from interpreter.odds.worlds import Failure
from interpreter.state import MISSING
from interpreter.values import Record

#: the name a goal's text is shown under in an error (`best:1:11: error: ...`)
SOURCE = "best"

#: what a goal reads of the sheet: a value's change (`spent`: before minus after;
#: `gained`: after minus before) or its value after the run (`left`)
SHEET_FUNCTIONS = ("spent", "gained", "left")
#: the functions a goal's expression may call, besides SHEET_FUNCTIONS
FUNCTIONS = {"min", "max", "abs"}

#: a goal's text longer than this is refused (the expression parser bounds its nesting)
MAX_GOAL_TEXT = 1000


@attrs.frozen
class Goal:
    """The probability that `field` is `value` (yes by default); with `mean`, the
    expectation of a numeric field; with `expression` (its text), the expectation of that
    expression over the result and the sheet before and after the run (`field` None)."""

    field: str | None
    value: object = True
    mean: bool = False
    expression: str | None = None
    node: object = attrs.field(default=None, eq=False, repr=False)

    @classmethod
    def parse(cls, text: str) -> Goal:
        """`success`, `degree=critical`, `mean damage` (also `mean:damage`), or an
        expression: `success - spent(Effort)/10` (`mean` before it changes nothing)."""
        if not isinstance(text, str):
            raise ParameterError(tr("best: the goal is a text, such as success"))
        if len(text) > MAX_GOAL_TEXT:
            raise ParameterError(
                tr("best: the goal is longer than {most} characters", most=MAX_GOAL_TEXT)
            )
        text = whole = text.strip()
        mean = False
        for prefix in ("mean ", "mean:"):
            if text.startswith(prefix):
                text, mean = text[len(prefix) :].strip(), True
        if not _reads_as_expression(text):
            if mean:
                return cls(text, None, True)
            field, equals, value = text.partition("=")
            if not equals:
                return cls(field.strip())
            return cls(field.strip(), _read(value.strip()))
        node = parse_expression(text, SOURCE)  # its errors point into the goal's text
        plain = _plain_goal(node, mean)
        if plain is not None:
            return plain
        _check_kinds(node)
        return cls(None, None, True, whole, node)

    def aimer(self, compiled: Any, sheet: Any) -> Callable:
        """`aim(result, new_sheet)`: what a run that ended with them is worth to the goal
        (the field's value, or the expression's), for one action (`compiled`) run on
        `sheet`; the expression's names are checked here, once."""
        if self.expression is None:
            field = self.field
            return lambda result, new_sheet: field_outcome(result, new_sheet, field, compiled)
        result_names = tuple(name for name, _ in compiled.result or ())
        value = _Compiler(result_names, sheet, compiled.node.name).expr(self.node)

        def aim(result, new_sheet):
            return value(result, new_sheet)

        return aim

    def worth(self, aimed: object) -> Fraction:
        """What one outcome's aimed value counts for (of a run that stopped: 0)."""
        return Fraction(*self.worth_parts(aimed))

    def worth_parts(self, aimed: object) -> tuple[int, int]:
        """worth(aimed) as (numerator, denominator), no Fraction made."""
        if isinstance(aimed, Failure):
            return 0, 1
        if self.mean:
            if isinstance(aimed, int):  # a yes 1, a no 0
                return int(aimed), 1
            if isinstance(aimed, Fraction):
                return aimed.numerator, aimed.denominator
            return 0, 1
        if aimed == self.value and type(aimed) is type(self.value):
            return 1, 1
        if isinstance(self.value, str) and not isinstance(aimed, bool):
            return int(str(aimed) == self.value), 1
        return 0, 1

    def score(self, outcomes: dict) -> Fraction:
        """The goal's value over (reported, aimed, choices) outcomes."""
        return sum((p * self.worth(aimed) for (_, aimed, _), p in outcomes.items()), Fraction(0))

    def score_weights(self, outcomes: dict) -> Fraction:
        """score(), of outcomes whose probabilities are weights (numerator, denominator):
        their products added by denominator, one Fraction made."""
        total = Mass()
        worth = self.worth_parts
        for (_, aimed, _), (numerator, denominator) in outcomes.items():
            top, bottom = worth(aimed)
            if top:
                total.add((numerator * top, denominator * bottom))
        return total.value()

    def best(self, question: Question, candidates: Iterable[dict], weighed: bool = False) -> dict:
        """Of the outcomes of each option (`candidates`, in the options' order), those of
        the option that scores best for whoever chooses (the other side chooses against
        the goal); of ties, the first. No candidate: the run's own error for a choice
        with no option open (EvaluationError). `weighed`: the outcomes' probabilities are
        weights (numerator, denominator), not Fractions."""
        best: tuple[Fraction, dict] | None = None
        score_of = self.score_weights if weighed else self.score
        for outcomes in candidates:
            score = score_of(outcomes)
            if question.by is not None:
                score = -score
            if best is None or score > best[0]:
                best = (score, outcomes)
        if best is None:
            raise EvaluationError(
                tr("{name}: no option is open", name=question.name), question.span
            )
        return best[1]

    @property
    def shown(self) -> str:
        """The goal as asked for: `success`, `degree = critical`, `mean damage`, or the
        expression's text."""
        if self.expression is not None:
            return self.expression
        if self.mean:
            return tr("mean {field}", field=self.field)
        field = self.field or ""  # (None only with an expression, shown above)
        if self.value is True:
            return field
        return tr("{field} = {value}", field=field, value=self.value)


def _read(text: str):
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]  # `degree="critical"`: the text itself
    if text in ("yes", "true"):
        return True
    if text in ("no", "false"):
        return False
    try:
        number = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return text
    return number.numerator if number.denominator == 1 else number


def _reads_as_expression(text: str) -> bool:
    """Whether a goal is an expression: anything but a field's name, FIELD=VALUE (its
    value any text: `outcome=succeed with style`) or `mean` FIELD."""
    field, _, _ = text.partition("=")
    return any(c in field for c in "+-*/%()<>![]\"'") or " " in field.strip()


def _plain_goal(node, mean: bool) -> Goal | None:
    """The plain goal an expression spells (`success`, `degree = "critical"`), or None."""
    path = _path(node)
    if path is not None:
        return Goal(path, None, True) if mean else Goal(path)
    if not mean and isinstance(node, n.Binary) and node.op == "=":
        field = _path(node.left)
        if field is not None and isinstance(node.right, n.Literal):
            return Goal(field, node.right.value)
    return None


def _path(node) -> str | None:
    """`Virtus.dinamis` of a name or a chain of fields, or None."""
    if isinstance(node, n.Name):
        return node.name
    if isinstance(node, n.Field):
        subject = _path(node.subject)
        return None if subject is None else f"{subject}.{node.name}"
    return None


#: the node kinds a goal's expression is made of
KINDS = (n.Literal, n.Name, n.Field, n.Call, n.Unary, n.Binary, n.IfExpr)


def _check_kinds(node) -> None:
    """Every node of the goal one it evaluates (no dice, no lists, no texts with parts)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if not isinstance(node, KINDS) or (isinstance(node, n.Binary) and node.op == "**"):
            raise ParameterError(
                tr(
                    "a goal is made of numbers, yes/no, the result's fields, spent(...), "
                    "gained(...) and left(...), + - * / and comparisons"
                ),
                node.span,
            )
        if isinstance(node, n.Call):
            if node.named:
                raise ParameterError(tr("a goal's functions take no named arguments"), node.span)
            if node.function not in {*SHEET_FUNCTIONS, *FUNCTIONS}:
                raise ParameterError(
                    tr("a goal cannot call {name}", name=node.function),
                    node.name_span,
                    did_you_mean(node.function, [*SHEET_FUNCTIONS, *sorted(FUNCTIONS)]),
                )
            if node.function in SHEET_FUNCTIONS:
                continue  # its argument is a sheet path, checked when bound
        stack.extend(_children(node))


def _children(node) -> tuple:
    if isinstance(node, n.Field):
        return (node.subject,)
    if isinstance(node, n.Call):
        return node.args
    if isinstance(node, n.Unary):
        return (node.operand,)
    if isinstance(node, n.Binary):
        return (node.left, node.right)
    if isinstance(node, n.IfExpr):
        return (node.condition, node.then, node.otherwise)
    return ()


class _Compiler:
    """A goal's expression as a function of (result, new sheet), its names checked
    against the action's result fields and the sheet it runs on."""

    def __init__(self, result_names: tuple, sheet, action: str):
        self.result_names, self.sheet, self.action = result_names, sheet, action

    def expr(self, node):
        if isinstance(node, n.Literal):
            value = node.value
            return lambda result, after: value
        if isinstance(node, n.Name | n.Field):
            return self.read(node)
        if isinstance(node, n.Call):
            return self.call(node)
        if isinstance(node, n.Unary):
            operand = self.expr(node.operand)
            if node.op == "not":
                return lambda result, after: not _truth(operand(result, after), node)
            return lambda result, after: -_number(operand(result, after), node.operand)
        if isinstance(node, n.IfExpr):
            condition, then, otherwise = map(self.expr, (node.condition, node.then, node.otherwise))
            return lambda result, after: (
                then(result, after)
                if _truth(condition(result, after), node.condition)
                else otherwise(result, after)
            )
        return self.binary(node)

    def binary(self, node):
        op = node.op
        if op in ("=", "!="):
            left, right = self.compared(node.left, node.right), self.compared(node.right, node.left)
            if op == "=":
                return lambda result, after: _same(left(result, after), right(result, after))
            return lambda result, after: not _same(left(result, after), right(result, after))
        left, right = self.expr(node.left), self.expr(node.right)
        if op in ("and", "or"):
            want = op == "or"  # `and` stops at a no, `or` at a yes

            def logic(result, after):
                if _truth(left(result, after), node.left) is want:
                    return want
                return _truth(right(result, after), node.right)

            return logic
        function = ARITHMETIC.get(op)
        if function is None:  # `in`: a goal holds no ranges nor lists
            raise ParameterError(tr("a goal cannot use {op}", op=op), node.span)

        def arithmetic(result, after):
            a = _number(left(result, after), node.left)
            b = _number(right(result, after), node.right)
            if op in ("/", "%") and b == 0:
                raise EvaluationError(tr("the goal divides by zero"), node.op_span)
            return function(a, b)

        return arithmetic

    def compared(self, node, other):
        """A side of `=`: a word that names nothing (`degree = critical`) is that text."""
        named = _path(other) is not None or isinstance(other, n.Literal)
        if isinstance(node, n.Name) and self.where(node.name) is None and named:
            name = node.name
            return lambda result, after: name
        return self.expr(node)

    def where(self, path: str) -> str | None:
        """Where a name is read: "result", "sheet", or None (nowhere)."""
        if path.partition(".")[0] in self.result_names:
            return "result"
        if self.sheet.get(path, MISSING) is not MISSING:
            return "sheet"
        return None

    def read(self, node):
        path = _path(node)
        if path is None:  # a field of something not a name (`(a).b`)
            raise ParameterError(tr("a goal reads fields of names only"), node.span)
        where = self.where(path)
        if where is None:
            raise self.unknown(path, node)
        if where == "sheet":
            return lambda result, after: after.get(path)
        first, *rest = path.split(".")

        def field(result, after):  # noqa: ARG001 (a goal's reader is called with (result, after))
            value = result[first] if result is not None else None
            for key in rest:
                if not isinstance(value, Record) or key not in value:
                    raise EvaluationError(
                        tr("the goal reads {path}, which the result does not hold", path=path),
                        node.span,
                    )
                value = value[key]
            return value

        return field

    def call(self, node):
        name, args = node.function, node.args
        if name in SHEET_FUNCTIONS:
            if len(args) != 1:
                raise ParameterError(
                    tr("{name}(...) takes one value of the sheet", name=name), node.span
                )
            (arg,) = args
            path = (
                arg.value
                if isinstance(arg, n.Literal) and isinstance(arg.value, str)
                else _path(arg)
            )
            before = self.sheet.get(path, MISSING) if path is not None else MISSING
            if (
                before is MISSING
                or isinstance(before, bool)
                or not isinstance(before, int | Fraction)
            ):
                raise ParameterError(
                    tr(
                        "{name}(...) takes a number of the sheet (a resource, a counter): "
                        "the sheet has no number {path}",
                        name=name,
                        path=path if path is not None else "?",
                    ),
                    arg.span,
                    did_you_mean(path or "", self.numbers()),
                )
            if name == "left":
                return lambda result, after: after.get(path)
            if name == "gained":
                return lambda result, after: after.get(path) - before
            return lambda result, after: before - after.get(path)
        values = tuple(self.expr(a) for a in args)
        if not values or (name == "abs" and len(values) != 1):
            raise ParameterError(tr("{name}(...) takes its numbers", name=name), node.span)
        pick: Any = {"min": min, "max": max, "abs": lambda x: abs(x)}[name]
        return lambda result, after: pick(
            *(_number(v(result, after), a) for v, a in zip(values, args, strict=True))
        )

    def numbers(self) -> list:
        """The sheet's numeric values by path, for a hint."""
        out = []
        for key, value in self.sheet.to_data().items():
            if isinstance(value, int) and not isinstance(value, bool):
                out.append(key)
            elif isinstance(value, dict):
                out.extend(f"{key}.{k}" for k, v in value.items() if isinstance(v, int))
        return out

    def unknown(self, path: str, node) -> ParameterError:
        fields = ", ".join(self.result_names) or tr("none")
        return ParameterError(
            tr(
                "the goal reads {path}: {action} gives no field {path} and the sheet has "
                "no {path}; fields: {fields}",
                path=path,
                action=self.action,
                fields=fields,
            ),
            node.span,
            did_you_mean(path, [*self.result_names, *self.numbers()]),
        )


ARITHMETIC = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: Fraction(a) / b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def _number(value, node):
    """A number of the goal: a yes is 1 and a no 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | Fraction):
        return value
    raise EvaluationError(
        tr("the goal needs a number here, not {value}", value=repr(value)), node.span
    )


def _truth(value, node) -> bool:
    if isinstance(value, bool):
        return value
    raise EvaluationError(
        tr("the goal needs yes or no here, not {value}", value=repr(value)), node.span
    )


def _same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return str(a) == str(b)
    return a == b
