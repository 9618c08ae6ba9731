"""A whole result too large to read: each result field's exact distribution on its own.

The whole result of an action is the joint distribution of its fields. For an action
that reports several independent rolls (five open-ended rolls: some 10^9 combinations)
that joint has more outcomes than anyone can read, and more than can be counted in a
second. Such an action is answered field by field: each field's own distribution (its
marginal), exact, with the ways the action stops (its failures) in every one of them.
"""

from __future__ import annotations

import weakref
from fractions import Fraction

from dsl import nodes as n
from dsl.errors import did_you_mean
from dsl.messages import tr
from interpreter.describe import result_fields
from interpreter.errors import EvaluationError, ParameterError
from interpreter.odds.answer import Odds
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.weights import Mass
from interpreter.odds.worlds import Failure
from interpreter.state import MISSING
from interpreter.values import Record

#: the most outcomes a whole result is shown with; past it, each field on its own
JOINT_OUTCOMES = 2_000
#: the share of the budget the joint may use before the fields are counted one by one
#: (what it computed serves them: interpreter.odds.compute). A joint stopped short that
#: the fields then show small is counted again, in the budget they left: a quarter lets
#: the small joints of the shipped and example games finish (their costs:
#: benchmarks/all_actions.py), and a large one pairing rolls stops at JOINT_WORLDS before it
JOINT_SHARE = 4
#: the most worlds one `let` of that first try may make: ten times the outcomes shown
#: (Arcana Mundi's combat pairs two open rolls, some 82,000 worlds; the largest joint
#: counted whole, some 4,500)
JOINT_WORLDS = 20_000
#: the work (interpreter.odds.roller: a statement run, some outcomes combined) the joint
#: may use first when the result reads both sides of an opposed check: enough for small
#: sides (a d6 against a d6: 15 units; Cthulhu's opposed roll: 850), not for Brujería's
#: 120 totals against 120 (1,600), and little work where it runs out
SIDES_WORK = 1_250


class JointTooLarge(TooComplex):
    """The whole result has more than JOINT_OUTCOMES outcomes (seen while counting)."""


def field_asked(book, action: str, sheet, field: str | None) -> None:
    """Refuse at once (before any counting) a field asked of an action that is neither
    one of its result's nor the sheet's, naming the result's fields and the nearest one."""
    if field is None or action not in book.actions:
        return
    names = result_fields(book, action)
    root = field.partition(".")[0]
    if field in names or root in book.fields or root == "skills":
        return
    if sheet is not None and sheet.get(field, MISSING) is not MISSING:
        return
    raise ParameterError(
        tr(
            "{name} gives no field {field} and the sheet has no {field}",
            name=action,
            field=repr(field),
        ),
        None,
        did_you_mean(field, names)
        or tr("its result's fields: {fields}", fields=", ".join(names) or tr("none")),
    )


class ByField(Odds):
    """The whole result of an action, answered field by field: `fields` maps each result
    field to its own answer (an Odds of that field alone, its failures included: the
    refusal's probability is the same in each). The joint of them has more than `limit`
    outcomes (`proven`), or more than the budget could count (not `proven`).

    `probabilities` of the whole is empty: a whole record's probability is not known
    here (`probability` of one says so); each field's are in `fields[name]`."""

    def __init__(self, subject: dict, fields: dict, limit: int, proven: bool, orders=()):
        exact = all(odds.exact for odds in fields.values())
        omitted = max((odds.omitted for odds in fields.values()), default=Fraction(0))
        note = (
            tr("each field on its own; the joint has more than {limit} outcomes", limit=limit)
            if proven
            else tr("each field on its own; the joint is more than the budget can count")
        )
        super().__init__(subject, None, {}, exact, omitted, orders=orders, note=note)
        self.fields = fields
        self.limit = limit
        self.proven = proven

    def probability(self, outcome) -> Fraction:
        if isinstance(outcome, Failure):
            return self.failures.get(outcome, Fraction(0))
        raise EvaluationError(
            tr(
                "the whole result is answered field by field: ask one of {fields}",
                fields=", ".join(self.fields),
            )
        )

    @property
    def failures(self) -> dict:
        """Each way the action stops, with its probability (as in every field's answer)."""
        first = next(iter(self.fields.values()), None)
        if first is None:
            return {}
        return {o: p for o, p in first.probabilities.items() if isinstance(o, Failure)}


#: where an exploration's outcomes hold each field's, past the joint's cap
PER_FIELD = ("per field",)


class PerField:
    """Each result field's outcomes (field → {value or Failure: Mass}) from one
    exploration of the whole result: what its joint is read as once it has more than
    JOINT_OUTCOMES outcomes (the worlds are the joint's; each end adds its record's field
    values, field by field, and a failure to every field)."""

    def __init__(self, names: tuple):
        self.fields: dict = {name: {} for name in names}

    @staticmethod
    def fits(outcome, names: tuple) -> bool:
        """Whether an outcome is a record of these fields, or a failure."""
        return isinstance(outcome, Failure) or (
            type(outcome) is Record and all(name in outcome for name in names)
        )

    def add(self, outcome, weight: tuple) -> None:
        failed = isinstance(outcome, Failure)
        for name, outcomes in self.fields.items():
            value = outcome if failed else outcome[name]
            found = outcomes.get(value)
            if found is None:
                outcomes[value] = Mass(weight)
            else:
                found.add(weight)

    def answer(self, subject: dict, omitted, limit: int, orders=()) -> ByField:
        """The whole result's answer, field by field (each field's exact odds)."""
        fields = {
            name: Odds(subject, name, outcomes, True, omitted, orders=orders)
            for name, outcomes in self.fields.items()
        }
        return ByField(subject, fields, limit, True, orders)


def both_sides(book, action: str) -> bool:
    """Whether the result is (or its fields read) both sides of one opposed check's
    record, `r.ours…` and `r.theirs…`: two rolls made independently, which its joint
    pairs (120 totals against 120: some 14,000 outcomes), while each side alone is cheap."""
    if action in book.opposed:
        return True
    definition = book.actions.get(action)
    body = definition.body if definition is not None else ()
    if not body or not isinstance(body[-1], n.Result):
        return False
    sides: dict = {}
    for _name, expr in body[-1].fields:
        while isinstance(expr, n.Field) and isinstance(expr.subject, n.Field):
            expr = expr.subject  # r.ours.total → r.ours
        if isinstance(expr, n.Field) and isinstance(expr.subject, n.Name):
            sides.setdefault(expr.subject.name, set()).add(expr.name)
    return any({"ours", "theirs"} <= read for read in sides.values())


#: whether an action's result fields and whether they read both sides of an opposed check
#: (`result_shape`) are read from its definition once per rulebook, not at every answer
SHAPES = True
#: rulebook → {action: (its result's fields, whether they read both sides)}, while the
#: rulebook lives (its definitions never change; an entry per action of it, at most)
_SHAPES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def result_shape(book, action: str) -> tuple:
    """(result_fields, and with two or more of them whether they read both sides of an
    opposed check: both_sides) of an action, found once per rulebook (`SHAPES`)."""
    per_book = _SHAPES.get(book) if SHAPES else None
    if per_book is None:
        per_book = {} if not SHAPES else _SHAPES.setdefault(book, {})
    found = per_book.get(action)
    if found is None:
        names = result_fields(book, action)
        found = per_book[action] = (names, len(names) >= 2 and both_sides(book, action))
    return found


def whole_or_by_field(
    book, action: str, count, subject: dict, orders, budget, spent, sample=None, at_once=None
):
    """The whole result's answer. `count(field, work=None, cap=None, worlds=None,
    exact_only=False)` counts the whole result (field None) or a field within `work` units
    (None: the whole `budget`): exactly, else sampled (never with an outcome cap, nor
    `exact_only`: TooComplex); `spent()`
    is the work every count has done so far. Every decision here is by counted work, so
    that the answer's form is the same on any machine.

    The whole result when its joint has at most JOINT_OUTCOMES outcomes and fits a share
    of the budget (SIDES_WORK when it pairs both sides of an opposed check: then no more
    unless the fields show it small), no `let` of it making more than JOINT_WORLDS worlds
    (two open rolls paired: then no more either, unless the fields show it small); else
    each field's on its own (a ByField), the fields sharing the budget left, each within
    what the others have left it. None when the action has fewer than two result fields
    (nothing to split: the caller counts it). Once a field cannot be counted (past the
    budget), `sample(names, reason)` answers it and the fields still to come from one
    sample of whole results, in the time left. `at_once(names, work, joint)`, when
    given, counts the whole result and the fields from one exploration
    (interpreter.odds.forks) within `work`, the whole result first, within `joint` (its
    share of the work, its cap on outcomes, on a let's worlds), its group going on for
    the fields past them: ({None: Odds}, None, None) for the whole result, else
    ({field: Odds}, None, why the whole result is not), or past `work` those it counted,
    the TooComplex that stopped the others (which then come from one sample), and why."""
    names, sides = result_shape(book, action)
    if len(names) < 2:
        return None
    first = SIDES_WORK if sides else budget // JOINT_SHARE
    fields: dict = {}
    proven = False
    if at_once is not None:  # the whole result first, the fields in the same exploration
        counted, reason, short = at_once(names, budget, (first, JOINT_OUTCOMES, JOINT_WORLDS))
        whole = counted.get(None)
        if whole is not None:
            return whole
        proven = isinstance(short, JointTooLarge)
        missing = [name for name in names if name not in counted]
        if reason is not None and (sample is None or not missing):
            raise reason
        if missing:  # past counting: those from one sample of whole results
            said = reason.args[0] if reason.args else str(reason)  # a Message: its language
            why = TooComplex(
                tr(
                    "{field} could not be counted exactly: {reason}",
                    field=", ".join(missing),
                    reason=said,
                )
            )
            counted = {**counted, **sample(missing, why)}
        fields = {name: counted[name] for name in names}
    else:
        try:
            return count(None, first, JOINT_OUTCOMES, worlds=JOINT_WORLDS)
        except JointTooLarge:
            proven = True
        except TooComplex:
            proven = False
    for i, name in enumerate(names if at_once is None else ()):
        left = max(budget - spent(), 1)  # the budget is the whole answer's, shared
        if sample is None:
            fields[name] = count(name, left)
            continue
        try:
            fields[name] = count(name, left, exact_only=True)
        except TooComplex as reason:
            # past counting: this field and the others from one sample of whole results
            # (each field sampled on its own would leave the next no time)
            said = reason.args[0] if reason.args else str(reason)  # a Message: its language
            why = TooComplex(
                tr("{field} could not be counted exactly: {reason}", field=name, reason=said)
            )
            fields.update(sample(names[i:], why))
            break
    if not proven:
        sizes = [odds.size for odds in fields.values()]
        proven = max(sizes) > JOINT_OUTCOMES  # (a field sampled: some of its outcomes)
        product = 1
        for odds, size in zip(fields.values(), sizes):
            product *= size if odds.exact else JOINT_OUTCOMES + 1
        left = budget - spent()
        if product <= JOINT_OUTCOMES and left > 0:  # small after all: the joint
            try:
                return count(None, left, JOINT_OUTCOMES)
            except TooComplex:  # (the fields are exact: they are the answer)
                pass
    return ByField(subject, fields, JOINT_OUTCOMES, proven, orders)
