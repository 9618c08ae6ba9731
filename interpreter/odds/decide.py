"""The best play searched over worlds: an action whose choices are statements of its own body.

A run of the action is explored statement by statement, as for its plain odds
(interpreter.odds.explore): the worlds that agree on everything still to be read are
merged, so a choice is decided once per distinct situation (a few degrees of success,
say), not once per sequence of dice that led there. At a `choose` of the action's own body
each world (with every value it holds drawn: a player sees what was rolled) goes on once
per open option, to the end, and the option that scores best for the goal is kept (of
equal ones, the first; against the goal for a choice made `by` another character).
Merged worlds hold the same future, so their best option is the same. A choice anywhere
else (in a branch, a loop, a called action) or whose options hang on a value not drawn
yet raises Nested: the search by runs (interpreter.odds.best_play) makes it then.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from dsl import nodes as n
from interpreter.choosers import Chooser
from interpreter.errors import EvaluationError
from interpreter.odds.answer import field_outcome
from interpreter.odds.distribution import Dist
from interpreter.odds.explore import Explorer, Live, World
from interpreter.odds.failing import sums_may_fail
from interpreter.odds.weights import ONE, fraction, plus, times, times_fraction
from interpreter.odds.worlds import (
    NO_STEPS,
    Failure,
    Liveness,
    cuts_of,
    key_of,
    stopped,
)
from interpreter.runtime import Unknown, known
from interpreter.values import Record

#: a world's end (its result, its sheet committed) remembered by what the result and the
#: goal read of it: the options of different choices that come to the same dice (a die
#: rerolled out of one pool or another) end once (switch off to compare)
ENDS = True
#: ... and by that alone, whatever steps the world counted, where its end's runs (counted
#: once from no steps) stay within the step limit from them too: the options of a choice
#: that count different steps before the same dice end once (switch off to compare)
ANY_STEPS = True
#: the search's tables of outcomes hold whole-number weights (numerator, denominator),
#: added over a common denominator and multiplied without looking for a common factor,
#: made Fractions once, at the end: not a Fraction made, reduced and added per outcome
#: of every option of every world (switch off to compare: Fractions throughout)
WEIGHTS = True


class Decide(Exception):
    """A choice to make where no decision is pinned yet: the search tries each option."""

    def __init__(self, question):
        super().__init__()
        self.question = question


class Nested(Exception):
    """A choice the search over worlds does not make (see the module's docstring)."""


class Unread(Exception):
    """An error reading the field asked for, or the goal, at the end of a run (a field
    the result does not hold, a goal that divides by zero): the question's error."""

    def __init__(self, error: EvaluationError):
        super().__init__()
        self.error = error


class WorldChooser(Chooser):
    """Asks the search at the `choose` statement it is running (`expected`), and answers
    there with the option it is trying (`forced`); any other question is Nested."""

    def __init__(self, answers: dict | None = None):
        super().__init__(answers)
        self.expected = None
        self.forced = None

    def choose(self, question) -> tuple:
        if question.name != self.expected:
            raise Nested
        if self.forced is None:
            raise Decide(question)
        if self.given(question):
            return self.forced, "given"
        return self.forced, ("only" if len(question.options) == 1 else "policy")


class WorldSearch:
    """The expectimax over one action's worlds and the decisions of its own `choose`s."""

    def __init__(self, engine, action, sheet, params, field, goal, answers, roller, limits):
        self.engine, self.sheet, self.field, self.goal = engine, sheet, field, goal
        self.compiled, args, _ = engine.prepare(action, sheet, params)
        ctx = engine.context(roller, sheet)
        ctx.limits = limits
        self.chooser = ctx.chooser = WorldChooser(answers)
        if self.chooser.by_occurrence:  # answers by the time a choice is asked: run by run
            raise Nested
        self.aim = goal.aimer(self.compiled, sheet)
        # a Liveness of its own: its blocks are keyed by the statements' ids, and the
        # one-statement blocks below live only as long as this search
        liveness = Liveness(engine.compiler, sums_may_fail(limits), limits)
        self.explorer = Explorer(ctx, roller, liveness)
        compiled = self.compiled
        wanted = Live({})
        if compiled.result is not None:
            for _, expr in compiled.node.body[-1].fields:
                wanted = wanted.union(self.explorer.names_read(expr))
        self.body = tuple((statement,) for statement in compiled.body)
        self.live = self.explorer.live_after(compiled.body, wanted)
        self.start = World(dict(zip(compiled.names, args)), ctx.state, ONE)
        self.memory: dict = {}  # (statement, what a world holds) → its outcomes, given it
        self.before: dict = {}  # statement → what it and the rest may read
        # the end's memory: what the result reads, by name (the goal reads the result
        # and the sheet, which the key holds whole)
        self.ended: dict = {}
        self.ended_by_steps: dict = {}  # ... and by the steps counted before it too
        self.read_at_end = tuple(sorted(wanted.needs))
        self.cut_at_end = cuts_of(self.read_at_end, wanted.needs)

    def outcomes(self) -> dict:
        """{(the field reported, the goal's field, the choices made): probability}."""
        outcomes = self.go(0, [self.start])
        if WEIGHTS:
            return {outcome: fraction(weight) for outcome, weight in outcomes.items()}
        return outcomes

    def go(self, index: int, worlds: list, made: tuple = ()) -> dict:
        """The outcomes of these worlds from the statement `index` of the body on (the
        choices `made` before it, then those made from there on)."""
        out: dict = {}
        explorer, chooser = self.explorer, self.chooser
        while index < len(self.body):
            statement = self.body[index]
            if isinstance(statement[0].node, n.Choose):
                for world in self.drawn(worlds):
                    weight: Any = world.weight if WEIGHTS else fraction(world.weight)
                    for (reported, aimed, then), p in self.decide(index, world).items():
                        p = times(weight, *p) if WEIGHTS else weight * p
                        _add(out, (reported, aimed, made + then if made else then), p)
                return out
            chooser.expected = chooser.forced = None
            worlds, failures = explorer.block(statement, worlds, self.live[index])
            for world, failure in failures:
                _add(out, (failure, failure, made), _value(world.weight))
            index += 1
        for weight, ended in self.ends(worlds):
            # (a result that fails to compute: a Failure, reported and aimed at alike)
            reported, aimed = (ended, ended) if isinstance(ended, Failure) else ended
            _add(out, (reported, aimed, made), _value(weight))
        return out

    def ends(self, worlds: list):
        """(weight, the end of its run) of each world, a unit of work each (the options
        of every world run to their ends: uncounted, they were most of a search's time);
        a world that holds what one before held of what the result reads, on the same
        sheet, ends as it did, for nothing (ANY_STEPS: whatever steps it counted, where
        the end's runs stay within the step limit from them; else on the same steps)."""
        explorer, memory, by_steps = self.explorer, self.ended, self.ended_by_steps
        names, cuts = self.read_at_end, self.cut_at_end
        limit = explorer.ctx.limits.steps_per_run
        for world in worlds:
            if not ENDS:
                explorer.work()
                yield from explorer.each([world], self.finish)
                continue
            key = key_of(world.env, names, cuts, world.state)
            found = None
            if ANY_STEPS:  # counted once from no steps: its ends, and their reach
                found = memory.get(key)
                if found is None:
                    found = memory[key] = self.ended_from(world, NO_STEPS)
            if found is None or world.steps[1] + found[1] > limit:
                # (it may pass the step limit from this world's steps: from them, then)
                found = by_steps.get((key, world.steps))
                if found is None:
                    found = by_steps[key, world.steps] = self.ended_from(world, world.steps)
            else:
                explorer.peak = max(explorer.peak, world.steps[1] + found[1])
            weight = world.weight
            for p, ended in found[0]:
                yield (times(weight, *p) if WEIGHTS else times_fraction(weight, p)), ended

    def ended_from(self, world: World, steps: tuple) -> tuple:
        """([(probability, the end of its run)], the most steps a run took from `steps`)
        of a world's end, counted from `steps`: a unit of work."""
        explorer = self.explorer
        explorer.work()
        peak, explorer.peak = explorer.peak, steps[1]
        try:
            each = explorer.each([World(world.env, world.state, ONE, steps)], self.finish)
            ended = [(_value(weight), end) for weight, end in each]
            return ended, explorer.peak - steps[1]
        finally:
            explorer.peak = max(peak, explorer.peak)

    def decide(self, index: int, world: World) -> dict:
        """A `choose` statement in one world: the outcomes of its best option, given the
        world (the same for every world that holds the same of what is still read)."""
        key = (index, self.key(index, world), world.steps)
        found = self.memory.get(key)
        if found is None:
            start = World(world.env, world.state, ONE, world.steps)
            found = self.memory[key] = self.best(index, start)
        return found

    def key(self, index: int, world: World) -> tuple:
        """What a world holds of what the `choose` statement and the rest still read."""
        before = self.before.get(index)
        if before is None:
            before = self.before[index] = self.explorer.live_before(
                self.body[index][0], self.live[index]
            )
        names = tuple(sorted(k for k in world.env if k in before.needs))
        return key_of(world.env, names, cuts_of(names, before.needs), world.state)

    def best(self, index: int, world: World) -> dict:
        statement, live = self.body[index], self.live[index]
        name = statement[0].node.name
        chooser, explorer = self.chooser, self.explorer
        chooser.expected, chooser.forced = name, None
        try:
            explorer.block(statement, [world], live)
        except Decide as decide:
            if explorer.roller.pins:  # its options hang on a value the world holds not
                raise Nested from None
            question = decide.question
        else:
            raise Nested  # never asked (no option open is an error before the question)
        if chooser.given(question):
            options = (question.option(chooser.answers[name]),)
        else:
            options = question.options

        def below(option) -> dict:
            chooser.expected, chooser.forced = name, option
            went, failures = explorer.block(statement, [world], live)
            made = ((name, option),)  # (the outcomes keyed so from the first: not again)
            outcomes = self.go(index + 1, went, made)
            for failed, failure in failures:
                _add(outcomes, (failure, failure, made), _value(failed.weight))
            return outcomes

        if len(options) == 1:
            return below(options[0])
        return self.goal.best(question, (below(option) for option in options), WEIGHTS)

    def drawn(self, worlds: list) -> list:
        """The worlds with every value they hold drawn (one still a distribution, kept
        for the one place that reads it, is one world per value): a choice sees them."""
        out = []
        for world in worlds:
            pending = [k for k, v in world.env.items() if isinstance(v, Unknown)]
            if any(type(world.env[k]) is not Dist for k in pending):
                raise Nested  # a value of another kind not known yet (an opposed check's)
            if not pending:
                out.append(world)
                continue
            name = pending[0]
            split = [
                World({**world.env, name: value}, world.state, weight, world.steps)
                for value, weight in self.explorer.weighted(world.env[name], world.weight)
            ]
            out.extend(self.drawn(split))
        return out

    def finish(self, ctx) -> tuple:
        """The end of a run: (the field reported, the goal's field)."""
        compiled = self.compiled
        result = None
        if compiled.result is not None:
            values = {name: known(ctx, fn(ctx)) for name, fn in compiled.result}
            result = Record(values, kind="result")
        try:
            new_sheet = self.engine.commit(ctx, self.sheet)[0]
        except EvaluationError as error:  # a broken `ensure` too: the run fails there
            failure = stopped(error)
            return failure, failure
        try:  # the question's errors, not the run's: past the explorer, which stops on these
            reported = field_outcome(result, new_sheet, self.field, compiled)
            return reported, self.aim(result, new_sheet)
        except EvaluationError as error:
            raise Unread(error) from None


def _value(weight: tuple):
    """A world's weight as the search's tables hold it (WEIGHTS: as it is)."""
    return weight if WEIGHTS else fraction(weight)


def _add(table: dict, key, p) -> None:
    """p (a weight, WEIGHTS; else a Fraction) added to the table's entry for key."""
    if not WEIGHTS:
        add_to(table, key, p)
        return
    found = table.get(key)
    table[key] = p if found is None else plus(found, p)


def add_to(table: dict, key, p: Fraction) -> None:
    found = table.get(key)  # (a new key takes p as it is: 0 + p is a Fraction made again)
    table[key] = p if found is None else found + p
