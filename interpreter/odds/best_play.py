"""Odds under a policy that chooses: the best choice for a goal at every `choose`, exactly.

A `choose` decides after seeing what was rolled. Its best choice depends on what is still
to come, so the action is searched as a game tree (expectimax): the run is repeated with
the values it has needed so far pinned, as the explorer does (interpreter.odds.explore);
where a value is needed, a chance node averages its outcomes; where a choice is asked, a
decision node takes the option whose outcomes score best for the goal (the first listed,
of equal ones; a choice made `by` another character takes the worst for the goal: the
other side plays against it). Every decision sees exactly what was rolled before it: a
`choose` is a statement, and every value bound before one is a known value.

The answer is the distribution of the field asked for under that policy, and how often
each option is taken (`Odds.decisions`).
"""

from __future__ import annotations

from fractions import Fraction

from dsl.messages import tr
from interpreter.choosers import Chooser
from interpreter.errors import EvaluationError
from interpreter.odds.answer import Odds, field_outcome, text_orders
from interpreter.odds.budget import Deadline, SafetyStop, checked, watch
from interpreter.odds.decide import Decide, Nested, Unread, WorldSearch, add_to
from interpreter.odds.distribution import LIFTS
from interpreter.odds.explore import STEPS_PER_WORK, STOPS, stopped
from interpreter.odds.goals import Goal
from interpreter.odds.marginals import field_asked
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import Branch, LiftMemory, OddsRoller
from interpreter.surface import option

#: how deep the tree of values and decisions may go (each level is one pinned value)
MAX_DEPTH = 400


class BestChoices(Chooser):
    """The odds engine's chooser: answers given in advance stand; otherwise the decision
    pinned for this run (the search's), or a new decision node."""

    def __init__(self, roller: OddsRoller, answers: dict | None = None):
        super().__init__(answers)
        self.roller = roller

    def choose(self, question) -> tuple:
        if self.given(question) or len(question.options) == 1:
            return super().choose(question)
        roller = self.roller
        if roller.cursor < len(roller.pins):
            value = roller.pins[roller.cursor]
            roller.cursor += 1
            return value, "policy"
        raise Decide(question)


def best_odds(
    engine,
    action: str,
    sheet,
    params: dict,
    field,
    goal: Goal,
    *,
    answers: dict | None = None,
    epsilon: Fraction,
    budget: int,
    progress=None,
    seconds: float | None = None,
) -> Odds:
    """The distribution of an action's result field when every choice is the best for
    `goal` (answers given in advance stand), within `budget` units of work (what decides,
    the same on any machine); `seconds` of computing (by default the engine's
    odds_seconds) only as a safety stop (interpreter.odds.budget.SafetyStop)."""
    if action not in engine.rulebook.actions:
        raise EvaluationError(tr("{name} makes no choices: only an action does", name=action))
    # the field shown, or a plain goal's, that neither the result nor the sheet has: refused
    field_asked(engine.rulebook, action, sheet, field)
    if goal.expression is None:
        field_asked(engine.rulebook, action, sheet, goal.field)
    limits = engine.limits  # each run within steps_per_run, as a real one
    seconds = checked(budget, 1, seconds or limits.odds_seconds)
    safety = Deadline.answering(seconds).exact_stop(budget)  # nothing to sample after it
    roller = OddsRoller(epsilon, budget, limits, progress, safety)
    token = LIFTS.set(LiftMemory(roller))
    try:
        try:  # over worlds, merged, when every choice is a statement of the body itself
            over = WorldSearch(engine, action, sheet, params, field, goal, answers, roller, limits)
            outcomes = over.outcomes()
        except Nested:  # else run by run
            roller.work, roller.pins, roller.cursor = 0, (), 0
            search = Search(engine, action, sheet, params, field, goal, answers, roller, limits)
            outcomes = search.value((), 0)
    except TooComplex as error:
        raise too_complex(error) from None
    except Unread as unread:
        raise unread.error from None
    finally:
        LIFTS.reset(token)
    probabilities: dict = {}
    decisions: dict = {}
    for (reported, _, chosen), p in outcomes.items():
        add_to(probabilities, reported, p)
        for made in chosen:  # every choice on the way, the only options open included
            add_to(decisions, made, p)
    omitted = 1 - sum(probabilities.values(), Fraction(0))
    odds = Odds(
        {"action": action}, field, probabilities, True, omitted, orders=text_orders(engine.rulebook)
    )
    odds.decisions = decisions
    odds.goal = goal
    odds.goal_worth = goal.score(outcomes)
    return odds


def too_complex(error: TooComplex) -> EvaluationError:
    """The best play given up: past its budget (--budget), or stopped by its time limit
    (--timeout), the safety stop for work the budget does not count."""
    if isinstance(error, SafetyStop):
        return EvaluationError(
            tr("the best choices take more time than allowed ({reason})", reason=str(error)),
            None,
            tr(
                "allow more with {timeout}, or answer some choices with {choose}",
                timeout=option("timeout"),
                choose=option("choose", "NAME"),
            ),
        )
    return EvaluationError(
        tr("the best choices take more work than the budget allows ({reason})", reason=str(error)),
        None,
        tr(
            "allow more with {budget}, or answer some choices with {choose}",
            budget=option("budget"),
            choose=option("choose", "NAME"),
        ),
    )


class Search:
    """The expectimax over one action's values and decisions."""

    def __init__(self, engine, action, sheet, params, field, goal, answers, roller, limits):
        self.engine, self.sheet, self.field, self.goal = engine, sheet, field, goal
        self.compiled, self.args, _ = engine.prepare(action, sheet, params)
        self.roller, self.limits = roller, limits
        self.chooser = BestChoices(roller, answers)
        self.aim = goal.aimer(self.compiled, sheet)

    def run(self, pins: tuple):
        """One run with these values and decisions pinned: its outcome, (the field
        reported, the goal's field, the choices made)."""
        engine, roller, compiled = self.engine, self.roller, self.compiled
        roller.charge(1)  # the budget, and a look at the deadline
        ctx = engine.context(roller, self.sheet)
        ctx.limits = self.limits
        watch(ctx, lambda: roller.deadline.check())  # the safety stop within a run too
        ctx.chooser = self.chooser
        roller.pins, roller.cursor = pins, 0
        try:
            result = compiled(ctx, self.args, compiled.node.span)
            new_sheet, _ = engine.commit(ctx, self.sheet)
        except STOPS as error:
            failure = stopped(error)
            return failure, failure, _made(ctx)
        finally:
            roller.work += ctx.steps // STEPS_PER_WORK
        reported = field_outcome(result, new_sheet, self.field, compiled)
        return reported, self.aim(result, new_sheet), _made(ctx)

    def value(self, pins: tuple, depth: int) -> dict:
        """{outcome: probability}, given that the run got this far with these pins."""
        if depth > MAX_DEPTH:
            raise TooComplex(tr("more than {depth} values and choices in one run", depth=MAX_DEPTH))
        try:
            return {self.run(pins): Fraction(1)}
        except Branch as branch:
            return self.chance(branch, pins, depth)
        except Decide as decide:
            return self.decision(decide.question, pins, depth)

    def chance(self, branch: Branch, pins: tuple, depth: int) -> dict:
        """A value the run needs: its outcomes, each weighed by its probability."""
        outcomes: dict = {}
        for error, probability in branch.stops:
            failure = stopped(error)
            add_to(outcomes, (failure, failure, ()), probability)
        dist = branch.dist
        for value, weight in dist.weights.items():
            p = Fraction(weight, dist.total)
            for outcome, q in self.value((*pins, value), depth + 1).items():
                add_to(outcomes, outcome, p * q)
        return outcomes

    def decision(self, question, pins: tuple, depth: int) -> dict:
        """A choice: the outcomes of the option that scores best (of ties, the first)."""
        outcomes = (self.value((*pins, option), depth + 1) for option in question.options)
        return self.goal.best(question, outcomes)


def _made(ctx) -> tuple:
    return tuple((c.name, c.value) for c in ctx.choices)
