"""What a sheet keeps beyond its schema: resources within computed bounds, `ensure` rules.

Both are formulas of the rulebook, so they are checked by running compiled rules: when a
sheet is loaded (`complete`: a resource left out starts at its maximum) and at the end of
every run that wrote to the sheet (`settle`: a resource above a maximum that fell is
brought down to it, and a broken `ensure` fails the run).
"""

from __future__ import annotations

from dsl import nodes as n
from dsl.messages import tr
from interpreter.dice import ForcedDice
from interpreter.errors import EvaluationError, SheetError
from interpreter.limits import Limits
from interpreter.runtime import Context, Roller
from interpreter.state import State, place_text


def complete(compiler, values: dict, limits: Limits, path: str | None) -> None:
    """Fill in the resources a sheet file leaves out (at their maximum), and check every
    resource against its bounds and the sheet against every `ensure` rule."""
    book = compiler.book
    if not book.ensures and not any(isinstance(f, n.Resource) for f in book.fields.values()):
        return  # (nothing to fill in nor check: no context made)
    state = State(values, compiler.open_default)
    ctx = Context(Roller(ForcedDice(()), limits), limits, state)
    for name, field in book.fields.items():
        if not isinstance(field, n.Resource):
            continue
        try:
            if field.key_group is None:
                _complete_resource(compiler, ctx, values, name, name, path)
            else:
                pools = values.setdefault(name, {})
                for key in book.groups[field.key_group].members:
                    _complete_resource(compiler, ctx, pools, key, (name, key), path)
        except EvaluationError as error:
            raise SheetError(f"{name}: {error.message}", name, path=path) from None
    for ensure in book.ensures:
        try:
            holds = _ensure(compiler, ensure)(ctx)
        except EvaluationError as error:
            raise SheetError(error.message, path=path) from None
        if holds is not True:
            raise SheetError(ensure.message, path=path)


def _complete_resource(compiler, ctx, container: dict, key, place, path) -> None:
    where = key if isinstance(place, str) else f"{place[0]}.{place[1]}"
    high = compiler.resource_bound(ctx, place, "max")
    low = compiler.resource_bound(ctx, place, "min")
    if key not in container:
        container[key] = high
    value = container[key]
    if value > high:
        raise SheetError(
            tr("{where}: {value} is above its maximum {high}", where=where, value=value, high=high),
            where,
            path=path,
        )
    if value < low:
        raise SheetError(
            tr("{where}: {value} is below its minimum {low}", where=where, value=value, low=low),
            where,
            path=path,
        )


def resource_bounds(compiler, values: dict, limits: Limits) -> list[tuple]:
    """Every resource of a sheet as (path, value, minimum, maximum): for bars in a UI."""
    state = State(values, compiler.open_default)
    ctx = Context(Roller(ForcedDice(()), limits), limits, state)
    out = []
    for _field, place in resource_places(compiler.book):
        path = place if isinstance(place, str) else f"{place[0]}.{place[1]}"
        low = compiler.resource_bound(ctx, place, "min")
        high = compiler.resource_bound(ctx, place, "max")
        out.append((path, state.read(place), low, high))
    return out


def resource_places(book):
    """Every place a resource of the sheet holds, with its field: the resource's name, or
    (name, key) for each key of a resource kept per group."""
    for name, field in book.fields.items():
        if not isinstance(field, n.Resource):
            continue
        if field.key_group is None:
            yield field, name
        else:
            for key in book.groups[field.key_group].members:
                yield field, (name, key)


def settle(compiler, ctx: Context) -> None:
    """End of a run that wrote to the sheet: keep resources within their new maximum;
    check the `ensure` rules (a broken one fails the run, which then changes nothing)."""
    book = compiler.book
    state = ctx.state
    if state is None:  # (a run that wrote has its sheet)
        raise AssertionError("a run settled without its working sheet")
    places = compiler.memo(("resource places",), lambda: tuple(resource_places(book)))
    for field, place in places:
        mark = len(ctx.trace) if ctx.trace is not None else 0
        high = compiler.resource_bound(ctx, place, "max")
        value = state.read(place)
        if value > high:
            state.write(place, high)
            if ctx.trace is not None:
                ctx.step(
                    "change",
                    tr(
                        "{place}: {before} → {after} (its maximum is now {max})",
                        place=place_text(place),
                        before=value,
                        after=high,
                        max=high,
                    ),
                    field.span,
                )
        elif ctx.trace is not None and len(ctx.trace) > mark:  # changed nothing: --verbose only
            ctx.trace[mark:] = [s.shown_verbose() for s in ctx.trace[mark:]]
    for ensure in book.ensures:
        if _ensure(compiler, ensure)(ctx) is not True:
            raise EvaluationError(
                tr("the sheet would break a rule: {message}", message=ensure.message), ensure.span
            )


def _ensure(compiler, ensure: n.Ensure):
    """The compiled condition of an `ensure` rule (compiled once)."""
    return compiler.memo(("ensure", id(ensure)), lambda: compiler.expr(ensure.condition))
