"""Entry points: the odds of a dice expression, and of an action's, check's or roll's result."""

from __future__ import annotations

import weakref
from fractions import Fraction

from dsl.errors import TOO_DEEP
from dsl.messages import tr
from interpreter.choosers import chooser_for
from interpreter.errors import EvaluationError, LimitExceeded
from interpreter.expression import compile_expression
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.odds.answer import Odds, field_outcome, pick, text_orders
from interpreter.odds.budget import Deadline, SafetyStop, checked, watch
from interpreter.odds.contest import Contest
from interpreter.odds.cuts import flat
from interpreter.odds.distribution import LIFTS, NOTHING, Dist, weighed
from interpreter.odds.explore import Explorer, Live, World
from interpreter.odds.forks import Whole, copied, explore_fields
from interpreter.odds.marginals import (
    PER_FIELD,
    JointTooLarge,
    PerField,
    field_asked,
    result_fields,
    whole_or_by_field,
)
from interpreter.odds.plain import lone_die, plain_distribution
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.roller import Branch, LiftMemory, OddsRoller
from interpreter.odds.sampling import sample_action, sample_expression, sampled, sampled_fields
from interpreter.odds.sheet_ends import Ends
from interpreter.odds.sheet_live import live_of
from interpreter.odds.spread import Spread, field_value, spread_result
from interpreter.odds.weights import ONE, Mass, times
from interpreter.odds.worlds import (
    STOPS,
    Failure,
    Liveness,
    block_steps,
    certain_limit,
    plus,
    stopped,
)
from interpreter.runtime import Context, Unknown, known
from interpreter.state import State
from interpreter.surface import option

#: probability an open-ended roll may leave out
EPSILON = Fraction(1, 10**12)
#: work (statement runs and the statements they execute, distributions combined) the
#: exact computation may do before falling back to sampling (a few seconds)
BUDGET = 100_000
#: trials of the Monte Carlo fallback
TRIALS = 20_000


def expression_odds(
    text: str,
    *,
    epsilon: Fraction = EPSILON,
    budget: int = BUDGET,
    limits=None,
    trials: int = TRIALS,
    seed: int = 0,
    progress=None,
    seconds: float | None = None,
) -> Odds:
    """The exact distribution of a dice expression such as `3d6` or `10d10cs>=6df=1`;
    sampled when counting would pass the budget (counted work: the same on any machine),
    within the time limit (`seconds`, by default `limits.odds_seconds`, which bounds
    sampling; the exact phase meets it only as a safety stop: interpreter.odds.budget)."""
    limits = limits or DEFAULT_LIMITS
    seconds = checked(budget, trials, seconds or limits.odds_seconds)
    lone = lone_die(text, limits)  # (no work: no deadline to set up)
    if lone is not None:
        return Odds({"expression": text}, None, lone, True, NOTHING)
    deadline = Deadline.answering(seconds)
    try:
        plain = plain_distribution(text, epsilon, limits, deadline.exact_stop(budget), budget)
        if plain is not None:
            return Odds({"expression": text}, None, plain, True, plain.omitted)
        _node, value = compile_expression(text)
        deadline = Deadline.answering(seconds)  # from here: reading the text is the front end's
        return _exact_expression(text, value, epsilon, budget, limits, deadline.exact_stop(budget))
    except RecursionError:
        raise LimitExceeded(TOO_DEEP) from None
    except TooComplex as reason:
        deadline = deadline.for_sampling()
        counts, done = sample_expression(text, trials, seed, limits, progress, deadline)
        return sampled({"expression": text}, None, counts, done, trials, deadline, reason)


def _exact_expression(text, value, epsilon, budget, limits, deadline) -> Odds:
    dist = at_once(value, epsilon, budget, limits, deadline)
    if dist is None:  # it branches, or stops in some runs: world by world
        dist = by_worlds(value, epsilon, budget, limits, deadline)
    certain_limit(dist.weights)
    return Odds({"expression": text}, None, dist, True, dist.omitted)


def at_once(value, epsilon, budget, limits, deadline) -> Dist | None:
    """The value's own distribution, from one run that needs no branch (most
    expressions: `3d6`, `4d6kh3 + 2`): what the explorer's only world would give, without
    the explorer. None when the run branches or stops."""
    roller = OddsRoller(epsilon, budget, limits, deadline=deadline)
    ctx = Context(roller, limits, State({}))
    watch(ctx, deadline.check)  # the safety stop read within the run too
    roller.work += 1  # the run, as the explorer counts it
    deadline.check()
    token = LIFTS.set(LiftMemory(roller))
    try:
        result = value(ctx)
    except (Branch, *STOPS):
        return None
    finally:
        LIFTS.reset(token)
    return result if type(result) is Dist else Dist.point(result)


def by_worlds(value, epsilon, budget, limits, deadline) -> Dist:
    roller = OddsRoller(epsilon, budget, limits, deadline=deadline)
    ctx = Context(roller, limits)
    explorer = Explorer(ctx, roller)
    parts = []
    token = LIFTS.set(LiftMemory(roller))
    try:
        for world, result in explorer.explore(World({}, State({}), ONE), value):
            dist = result if type(result) is Dist else Dist.point(result)
            parts.append((world.weight, dist))  # (as whole numbers: no gcd of them yet)
        if len(parts) == 1 and parts[0][0][0] == parts[0][0][1]:  # no branch: the value's
            return parts[0][1]  # own distribution
        return weighed(parts)
    finally:
        LIFTS.reset(token)


def action_odds(
    engine,
    action: str,
    sheet,
    params: dict,
    field=None,
    *,
    epsilon: Fraction = EPSILON,
    budget: int = BUDGET,
    trials: int = TRIALS,
    seed: int = 0,
    progress=None,
    seconds: float | None = None,
    choices=None,
) -> Odds:
    """The distribution of an action's (or a check's) result field for a sheet and
    parameters; exact when it fits the budget (counted work: the same answer on any
    machine), else sampled from real runs within the time limit (`seconds`, by default
    the engine's `limits.odds_seconds`; the exact phase meets it only as a safety stop).
    `choices` answers the action's `choose` statements (a mapping: interpreter.choosers)."""
    subject = {"action": action}
    field_asked(engine.rulebook, action, sheet, field)  # (a name of neither: refused now)
    seconds = checked(budget, trials, seconds or engine.limits.odds_seconds)
    orders = text_orders(engine.rulebook)
    shared: dict = {}  # the fields of one whole result share what each computed
    deadline = Deadline.answering(seconds)  # sampling's, and all the answer's
    safety = deadline.exact_stop(budget)  # the exact phases', as a last resort
    spent = [0]  # the work done so far, every exact phase of this answer

    def count(field, work=None, cap=None, worlds=None, exact_only=False):
        """The exact odds of `field` within `work` units of work (None: the budget), else
        sampled. A `cap` on the outcomes (the whole result's): past it, or past the work,
        or past `worlds` made by one `let`, never sampled (TooComplex); nor `exact_only`."""
        try:
            outcomes, omitted = _exact(
                engine, action, sheet, params, field, epsilon, min(work or budget, budget),
                progress, safety, choices, cap, shared, worlds, spent,
            )  # fmt: skip
            per = outcomes.get(PER_FIELD)
            if per is not None:  # past the cap: each field's, from this one exploration
                return per.answer(subject, omitted, cap, orders)
            certain_limit(outcomes)  # outcome → its Mass: whole weights, made when read
            return Odds(subject, field, outcomes, True, omitted, orders=orders)
        except TooComplex as reason:
            if cap is not None or exact_only:
                raise
            late = deadline.for_sampling()
            counts, done = sample_action(
                engine, action, sheet, params, field, trials, seed, progress, late, choices
            )
            return sampled(subject, field, counts, done, trials, late, reason, orders)

    def count_fields(names, work, joint=None):
        """Each of `names` (result fields of an action) exactly, from one exploration
        within `work` units (interpreter.odds.forks): ({field: Odds}, None); past them,
        the fields counted before, and the TooComplex that stopped the others. With
        `joint` (the whole result's bounds: its work, its outcomes, a let's worlds), the
        whole result first, in the same exploration: ({None: its Odds}, None) when it
        is counted within them, else the fields, and `whole.reason` why not."""
        whole = None if joint is None else Whole(None, joint[0], joint[2], joint[1])
        found, reason = _exact(
            engine, action, sheet, params, names, epsilon, min(work, budget), progress,
            safety, choices, whole, shared, None, spent,
        )  # fmt: skip
        out = {}
        for name, (outcomes, omitted) in found.items():
            certain_limit(outcomes)
            out[name] = Odds(subject, name, outcomes, True, omitted, orders=orders)
        if whole is not None:
            return out, reason, whole.reason
        return out, reason

    def sample(names, reason):
        """`names`, each from one sample of whole results in the time left."""
        late = deadline.for_sampling()
        counts, done = sample_action(
            engine, action, sheet, params, None, trials, seed, progress, late, choices
        )
        return sampled_fields(subject, names, counts, done, trials, late, reason, orders)

    if field is None:  # the whole result; field by field when its joint is too large
        at_once = count_fields if action in engine.rulebook.actions else None
        found = whole_or_by_field(
            engine.rulebook, action, count, subject, orders, budget, lambda: spent[0], sample,
            at_once,
        )  # fmt: skip
        if found is not None:
            found.explorations, found.work = shared.get("explorations", 0), spent[0]
            return found
    found = count(field)
    found.explorations, found.work = shared.get("explorations", 0), spent[0]
    return found


def _exact(
    engine, action, sheet, params, field, epsilon, budget, progress, deadline, choices, cap,
    shared=None, worlds=None, spent=None,
):  # fmt: skip
    limits = counting_limits(engine.limits)
    if not shared:
        roller = OddsRoller(epsilon, budget, limits, progress, deadline)
        memory = LiftMemory(roller)
        if shared is not None:
            shared.update(roller=roller, memory=memory, calls={})
    else:  # another field of the same action: the distributions, records and calls found
        roller, memory = shared["roller"], shared["memory"]  # so far serve it too
        roller.restart(budget, deadline)
    if shared is not None:  # the explorations of the action this answer made
        shared["explorations"] = shared.get("explorations", 0) + 1
    token = LIFTS.set(memory)
    try:
        return _explore_action(
            engine, action, sheet, params, field, roller, limits, choices, cap,
            shared.get("calls") if shared else None, worlds,
        )  # fmt: skip
    finally:
        LIFTS.reset(token)
        if spent is not None:  # (past the budget too: what it took to find out)
            spent[0] += min(roller.work, roller.budget)


def _explore_action(
    engine, action, sheet, params, field, roller, limits, choices=None, cap=None,
    calls=None, worlds=None,
):  # fmt: skip
    ctx = engine.context(roller, sheet)
    ctx.limits = limits
    ctx.chooser = chooser_for(choices)  # answers given in advance (interpreter.choosers)
    explorer = Explorer(ctx, roller, Liveness.of(engine.compiler, limits))
    if type(field) is tuple:  # several fields, from one exploration
        return _explore_fields(engine, action, sheet, params, field, explorer, calls, cap)
    if calls is not None:
        explorer.calls = calls  # what called actions gave, for other fields of the action
    explorer.most_worlds = worlds  # (a whole result's first try: see marginals)
    start = World({}, ctx.state, ONE)  # every run in it starts from a copy
    outcomes: dict = {}
    book = engine.rulebook
    # (the fields, read only past a cap on the whole result's outcomes)
    names = result_fields(book, action) if field is None and cap is not None else ()
    add = _outcome_adder(outcomes, explorer, cap, names)
    if action in book.checks or action in book.opposed or action in book.rolls:
        run = _check_or_roll(engine, action, sheet, params, field)
        for world, outcome in explorer.explore(start, run):
            add(outcome, world.weight)
        return outcomes, explorer.omitted
    compiled, args, _shown = engine.prepare(action, sheet, params)
    explorer.sums = explorer.sums_of(compiled.node)
    start.env = dict(zip(compiled.names, args))
    start.steps = plus(start.steps, compiled.cost - block_steps(compiled.body))  # (on entry)
    wanted = _wanted(explorer, compiled, (field,))[field]
    worlds, failures = explorer.block(compiled.body, [start], wanted)
    for world, failure in failures:
        add(failure, world.weight)
    finish = _finisher(engine, compiled, sheet, field, explorer)
    for weight, outcome in explorer.each(worlds, finish):
        add(outcome, weight)
    return outcomes, explorer.omitted


def _explore_fields(
    engine, action, sheet, params, names: tuple, explorer, calls, joint=None
) -> tuple:
    """({field: (its outcomes, omitted)}, None) for each of an action's result fields
    `names`, from one exploration of its body (interpreter.odds.forks); past the budget,
    those whose exploration ended before it, and the reason (TooComplex). With `joint`
    (a forks.Whole, its `key` None: the work, the worlds; and the cap on its outcomes),
    the whole result first, within those: its (outcomes, omitted) under `joint.key`
    when it is answered (the fields not), else the fields' and `joint.reason` why not."""
    if calls is not None:
        explorer.calls = calls
    ctx = explorer.ctx
    start = World({}, ctx.state, ONE)
    compiled, args, _shown = engine.prepare(action, sheet, params)
    explorer.sums = explorer.sums_of(compiled.node)
    start.env = dict(zip(compiled.names, args))
    start.steps = plus(start.steps, compiled.cost - block_steps(compiled.body))  # (on entry)
    asked = names if joint is None else (None, *names)
    wanted = _wanted(explorer, compiled, asked)
    out: dict = {}

    def ended(group) -> None:
        roller = explorer.roller
        for name in group.fields:
            if name in out:  # (read from the whole result's ends, below)
                continue
            explorer.lost = copied(group.lost)  # (what this field's ends lose: its own)
            outcomes: dict = {}
            whole = name is None  # past its cap, each field of its records (PerField)
            add = _outcome_adder(outcomes, explorer, joint.cap if whole else None,
                                 names if whole else ())  # fmt: skip
            budget = roller.budget
            if whole:  # its ends too within its share of the work
                roller.budget = min(budget, joint.start + joint.work)
            try:
                for world, failure in group.failures:
                    add(failure, world.weight)
                finish = _finisher(engine, compiled, sheet, name, explorer)
                for weight, outcome in explorer.each(group.worlds, finish):
                    add(outcome, weight)
            except TooComplex as reason:  # (the fields of its group go on)
                if not whole or isinstance(reason, SafetyStop) or roller.work > budget:
                    raise
                joint.reason = too_large(joint.cap) if PER_FIELD in outcomes else reason
                continue
            finally:
                roller.budget = budget
            per = outcomes.get(PER_FIELD)
            if per is not None:  # the fields riding with it, from these same ends (not
                # each run again in all its worlds: issue 24, pentagrama's atacar)
                joint.reason = too_large(joint.cap)
                for field in group.fields:
                    if field in per.fields:
                        out[field] = (per.fields[field], explorer.omitted)
                continue
            out[name] = (outcomes, explorer.omitted)
            if name is None:  # the whole result: the answer
                raise Answered

    try:
        explore_fields(explorer, compiled.body, [start], wanted, ended, joint)
    except Answered:
        return {None: out[None]}, None
    except TooComplex as reason:  # the fields done so far, and why the others are not
        return {name: out[name] for name in names if name in out}, reason
    return {name: out[name] for name in names}, None


def too_large(cap) -> JointTooLarge:
    return JointTooLarge(tr("more than {cap} outcomes", cap=cap))


class Answered(Exception):
    """The whole result counted within its bounds: the exploration's answer."""


def _outcome_adder(outcomes: dict, explorer, cap, names=()):
    """add(outcome, weight) into `outcomes` (outcome → its Mass); a distribution still,
    each of its values. Past `cap` outcomes, each of the result's fields `names` on its
    own from then on (outcomes["per field"]: a PerField, each failure in every field);
    with no names, JointTooLarge."""

    def add(outcome, weight):
        if type(outcome) is Dist:  # a distribution still: each of its values, weighted
            for value, w in outcome.weights.items():
                add(value, times(weight, w, outcome.total))
            missing = outcome.missing()
            if missing:
                explorer.lost.add(times(weight, missing, outcome.total))
            return
        per = outcomes.get(PER_FIELD)
        if per is not None:
            if not PerField.fits(outcome, names):
                raise JointTooLarge(tr("more than {cap} outcomes", cap=cap))
            per.add(outcome, weight)
            return
        found = outcomes.get(outcome)
        if found is None:
            outcomes[outcome] = Mass(weight)
            if cap is not None and len(outcomes) > cap:
                if not names or not all(PerField.fits(o, names) for o in outcomes):
                    raise too_large(cap)
                per = PerField(names)
                for seen, mass in outcomes.items():
                    per.add(seen, mass.weight())
                outcomes.clear()
                outcomes[PER_FIELD] = per
        else:
            found.add(weight)

    return add


def _finisher(engine, compiled, sheet, field, explorer):
    """finish(ctx): the end of one run of an explored action, its outcome (the field
    asked for, or the whole result; the failure it stops with)."""
    chosen = tuple(
        (name, fn) for name, fn in compiled.result or () if field is None or name == field
    )
    # the field asked for is one of the result's: the value itself (the new sheet is
    # needed only when the run wrote to it: its resources settled, its `ensure` rules)
    direct = field is not None and len(chosen) == 1
    # the other fields a run computes, that may stop it (`k1: 6 / (n - 1)` beside the
    # `k2` asked for): computed too, in the run's order, their values left unread
    before, after = _watched(compiled, field, explorer.safe)

    committed: dict = {}  # what the run wrote → the new sheet, or the error it stops with

    def finish(ctx):
        for fn in before:
            fn(ctx)
        if direct and not ctx.state.own:
            value = field_value(ctx, chosen[0][1], True)
            for fn in after:
                fn(ctx)
            return value
        result = None
        if compiled.result is not None:
            result = spread_result(ctx, chosen, direct)
        for fn in after:
            fn(ctx)
        # the end of a run depends only on what it wrote: settled once per sheet written
        written = ctx.state.snapshot()
        found = committed.get(written)
        if found is None:
            try:
                found = committed[written] = engine.commit(ctx, sheet)[0]
            except EvaluationError as error:  # a broken `ensure` too: the run fails there
                found = committed[written] = stopped(error)
        if type(found) is Failure:
            return found
        if type(result) is Spread:  # (a field still a distribution: its records at once)
            return result.dist(ctx.roller)
        return field_outcome(result, found, field, compiled)

    return finish


def _check_or_roll(engine, name: str, sheet, params: dict, field):
    """A check's or an opposed check's record (or one field of it), or a named roll's
    total, as a run(ctx)."""
    if name in engine.rulebook.rolls:
        procedure = engine.compiler.roll_definition(name)
        args = engine.roll_arguments(name, sheet, params)
        if field is not None:
            given = tr("roll {name} gives a number: leave out {f}", name=name, f=option("field"))
            raise EvaluationError(given)
        return lambda ctx: procedure.call(ctx, args).total
    book = engine.rulebook
    check = engine.compiler.check(name) if name in book.checks else engine.compiler.opposed(name)
    args = engine.check_arguments(name, sheet, params)
    if name in book.opposed and field is not None:
        _opposed_has(check, field)  # a cut by a name it lacks would read `none` everywhere

    cuts = engine.compiler.form_cuts(name, field)  # the forms only other fields read

    def run(ctx):
        roller = ctx.roller
        roller.form_cuts = cuts
        try:
            record = check(ctx, args, check.node.span)
        finally:
            roller.form_cuts = {}
        if type(record) is Contest and field is not None:
            record = record.project(flat((field,)))  # the verdict, a side: from the sides
        if isinstance(record, Unknown) and type(record) is not Dist:
            record = known(ctx, record)  # an opposed check's records: its ties, its failures
        if type(record) is Dist:
            return record.map(lambda r: pick(r, field))
        return pick(record, field)

    return run


#: the fields every opposed check's record has, beside its author's (compile.checks)
OPPOSED_FIELDS = ("ours", "theirs", "won", "tie", "margin", "rerolls")


def _opposed_has(opposed, field: str) -> None:
    """Refuse a field the opposed check's record does not have, naming those it has."""
    names = [*OPPOSED_FIELDS, *(name for name, _value in opposed.fields)]
    if field not in names:
        raise EvaluationError(
            tr(
                "the result has no field {field}; it has {fields}",
                field=repr(field),
                fields=", ".join(names),
            )
        )


def counting_limits(limits: Limits) -> Limits:
    """The limits an exact computation runs under: the engine's (the explorer counts each
    world's steps afresh, `Context.recount`: each within steps_per_run, as a real run)."""
    return limits


#: compiled action → {field: what its result reads; ("ends", whether a field of the sheet
#: is asked): what the end reads of the sheet; ("wanted", field, those ends): the two
#: together}, while the action lives: the same for every call of the action
_RESULT_READS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _kept(compiled) -> dict:
    kept = _RESULT_READS.get(compiled)
    if kept is None:
        kept = _RESULT_READS[compiled] = {}
    return kept


def _result_names(compiled, field, names_read, safe) -> Live:
    """What the result (or its field, and the fields that may stop the run) reads."""
    kept = _kept(compiled)
    found = kept.get(field)
    if found is None:
        found = kept[field] = _reads_of_result(compiled, field, names_read, safe)
    return found


def _wanted(explorer, compiled, asked: tuple) -> dict:
    """{field: what is read of it after the body} for each of `asked` (None: the whole
    result): what the result reads of it, and the sheet's ends."""
    kept = _kept(compiled)
    ends = _sheet_ends(explorer, compiled, asked, kept)
    out = {}
    for name in asked:
        found = kept.get(("wanted", name, ends))
        if found is None:
            found = _result_names(compiled, name, explorer.names_read, explorer.safe)
            found = kept[("wanted", name, ends)] = found.union(ends)
        out[name] = found
    return out


def _sheet_ends(explorer, compiled, fields: tuple, kept: dict) -> Live:
    """What the end of a run reads of the sheet (odds.sheet_live): the result's
    expressions, the `ensure` rules and lasting effects; every field where a field of the
    sheet is asked for. Merges leave out the changes to the others (`explorer.drops`)."""
    sheet = explorer.sheet
    if sheet is None:
        return Live({})
    explorer.drops = Ends(sheet, explorer.ctx)
    result = compiled.node.body[-1] if compiled.result is not None else None
    names = kept.get(("names",))  # (None and the result's fields: once per action)
    if names is None:
        named = (name for name, _ in result.fields) if result is not None else ()
        names = kept[("names",)] = frozenset((None, *named))
    whole = not names.issuperset(fields)  # (a field of the sheet asked for)
    found = kept.get(("ends", whole))
    if found is None:
        read = sheet.fields_of(result) if result is not None else frozenset()
        if whole:
            read = None  # (a field of the sheet asked for: its new value)
        found = kept[("ends", whole)] = sheet.at_end.union(live_of(read))
    return found


def _reads_of_result(compiled, field, names_read, safe) -> Live:
    live = Live({})
    if compiled.result is None:
        return live
    for name, expr in compiled.node.body[-1].fields:
        if field is None or name == field or not safe(expr):
            live = live.union(names_read(expr))
    return live


def _watched(compiled, field, safe) -> tuple:
    """The result fields other than `field` that a run computes before it and after it
    (all of them before, for a field of the sheet), leaving out those that cannot fail;
    each a run(ctx). None for the whole result (every field is computed)."""
    if field is None or compiled.result is None:
        return (), ()
    before: list = []
    after: list = []
    seen = False
    for (name, fn), (_, expr) in zip(compiled.result, compiled.node.body[-1].fields):
        if name == field:
            seen = True
        elif not safe(expr):
            (after if seen else before).append(fn)
    return tuple(before), tuple(after)
