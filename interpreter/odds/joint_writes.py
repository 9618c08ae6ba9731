"""The exact joint odds of an action's result field and everything the run writes to sheets.

`action_effects` explores an action as `compute.action_odds` does (the same compiled
closures, the same worlds merged by what is still read), but each outcome is the pair
(the field's value, what the run wrote: the working sheets' snapshot), and what a snapshot
commits to is given beside it: the acting character's new sheet and each other
character's by its role. Whole encounters (interpreter.balance.encounters) carry these
from turn to turn: a resource spent in one round is short in the next.

Never sampled: past the budget it raises TooComplex; a run that stops (a failed
`require`, a short resource) is an outcome of its own, a Failure.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dsl.messages import tr
from interpreter.choosers import chooser_for
from interpreter.errors import EvaluationError
from interpreter.odds.budget import Deadline, checked
from interpreter.odds.compute import BUDGET, EPSILON, expression_odds
from interpreter.odds.distribution import LIFTS, Dist
from interpreter.odds.explore import Explorer, Live, World
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import LiftMemory, OddsRoller
from interpreter.odds.weights import ONE, Mass, times
from interpreter.odds.worlds import Liveness, stopped
from interpreter.runtime import known
from interpreter.sheets.character import Sheet
from interpreter.state import Character

#: what a run that wrote nothing wrote
NOTHING = ()


class Effects:
    """An action's joint odds: `outcomes` {(value or Failure, written): Fraction},
    `sheets` {written: (the actor's new sheet, {role: that character's new sheet})},
    `omitted` the probability an open-ended roll left out."""

    def __init__(self, outcomes: dict, sheets: dict, omitted: Fraction):
        self.outcomes, self.sheets, self.omitted = outcomes, sheets, omitted


def action_effects(
    engine, action, sheet, params: dict, field: str | None, *, epsilon, budget, seconds=None
) -> Effects:
    """The joint odds of `field` of the action's result (None: no field, its value 0)
    and what each run writes (module docstring); TooComplex past `budget`."""
    seconds = checked(budget, 1, seconds or engine.limits.odds_seconds)
    roller = OddsRoller(
        epsilon, budget, engine.limits, None, Deadline.answering(seconds).exact_stop(budget)
    )
    token = LIFTS.set(LiftMemory(roller))
    try:
        return _explore(engine, action, sheet, params, field, roller)
    finally:
        LIFTS.reset(token)


def _explore(engine, action, sheet, params, field, roller) -> Effects:
    ctx = engine.context(roller, sheet)
    ctx.chooser = chooser_for(None)
    explorer = Explorer(ctx, roller, Liveness.of(engine.compiler, engine.limits))
    compiled, args, _shown = engine.prepare(action, sheet, params)
    fields = dict(compiled.result or ())
    if field is not None and field not in fields:
        raise EvaluationError(
            tr(
                "{name} gives no result field {field}; fields: {fields}",
                name=action,
                field=repr(field),
                fields=", ".join(fields) or tr("none"),
            )
        )
    start = World(dict(zip(compiled.names, args)), ctx.state, ONE)
    wanted = _wanted(compiled, field, explorer)
    worlds, failures = explorer.block(compiled.body, [start], wanted)
    masses: dict = {}
    add = _adder(masses, explorer)
    for world, failure in failures:
        add((failure, NOTHING), world.weight)
    sheets: dict = {}
    finish = _finisher(engine, compiled, sheet, args, field, explorer, sheets)
    for weight, outcome in explorer.each(worlds, finish):
        add(outcome, weight)
    outcomes = {key: mass.value() for key, mass in masses.items()}
    return Effects(outcomes, sheets, explorer.omitted)


def _wanted(compiled, field, explorer) -> Live:
    """What the end of the run reads: the field, and every field that may stop it."""
    live = Live({})
    for name, expression in compiled.node.body[-1].fields if compiled.result else ():
        if name == field or not explorer.safe(expression):
            live = live.union(explorer.names_read(expression))
    return live


def _adder(masses: dict, explorer):
    def add(outcome, weight):
        value, written = outcome
        if type(value) is Dist:
            for each, w in value.weights.items():
                add((each, written), times(weight, w, value.total))
            missing = value.missing()
            if missing:
                explorer.lost.add(times(weight, missing, value.total))
            return
        found = masses.get(outcome)
        if found is None:
            masses[outcome] = Mass(weight)
        else:
            found.add(weight)

    return add


def _finisher(engine, compiled, sheet, args, field, explorer, sheets: dict):
    """finish(ctx): (the field's value, what was written); the sheets it commits to
    are kept in `sheets`, committed once per snapshot."""
    functions = tuple(
        fn
        for (name, fn), (_, expression) in zip(compiled.result or (), compiled.node.body[-1].fields)
        if name != field and not explorer.safe(expression)
    )  # the other fields that may stop the run: computed, their values left unread
    chosen = dict(compiled.result or ()).get(field)
    characters = {a.role: a.sheet for a in args if type(a) is Character}

    def finish(ctx):
        for fn in functions:
            fn(ctx)
        value = 0 if chosen is None else chosen(ctx)
        if type(value) is not Dist:
            value = known(ctx, value)
        state = ctx.state
        if not state.own and not any(s.own for s in state.others()):
            sheets.setdefault(NOTHING, (sheet, {}))
            return value, NOTHING
        written = state.snapshot()
        found = sheets.get(written)
        if found is None:
            try:
                new = engine.commit(ctx, sheet)[0]
            except EvaluationError as error:  # a broken `ensure`: the run fails there
                return stopped(error), NOTHING
            others = {}
            for other in state.others():
                before = characters.get(other.who.role)
                if other.own and before is not None:
                    others[other.who.role] = Sheet(
                        engine.rulebook, other.values, before.meta, before.path, before.text_format
                    )
            sheets[written] = (new, others)
        return value, written

    return finish


class Counting:
    """What the exact chain of an encounter asks the odds engine (through
    `Engine.counting`): a turn's effects, an initiative roll's distribution."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def effects(self, action, sheet, params, field, seconds=None) -> Effects | None:
        """action_effects within the odds engine's budget; None past it."""
        try:
            return action_effects(
                self.engine, action, sheet, params, field,
                epsilon=EPSILON, budget=BUDGET, seconds=seconds,
            )  # fmt: skip
        except TooComplex:
            return None

    def expression(self, text: str) -> dict | None:
        """{value: probability} of a dice expression, exact; None where it is not."""
        odds = expression_odds(text, limits=self.engine.limits)
        if not odds.exact or odds.omitted:
            return None
        return dict(odds.probabilities)
