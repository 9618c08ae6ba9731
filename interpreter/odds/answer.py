"""The answer of an odds computation: each outcome's probability, exact or sampled."""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

from dsl import nodes as n
from dsl.messages import show_value, tr
from dsl.nodes.walk import walk
from interpreter.errors import EvaluationError
from interpreter.json_data import odds_data
from interpreter.odds.distribution import Dist
from interpreter.odds.listing import (
    LISTED_OUTCOMES,
    Fractions,
    Listing,
    Table,
    listing,
    table_of,
)
from interpreter.odds.worlds import Failure
from interpreter.state import MISSING
from interpreter.values import YES_NO, Record, decimal_of, is_number, rounded, show


class AskedGoal(Protocol):
    """What an answer shows of the goal it was played for: interpreter.odds.goals.Goal
    (goals imports this module, so the type is this protocol, not the class)."""

    @property
    def field(self) -> str | None: ...
    @property
    def value(self) -> object: ...
    @property
    def mean(self) -> bool: ...
    @property
    def expression(self) -> str | None: ...
    @property
    def shown(self) -> str: ...


# ─── answers ────────────────────────────────────────────────────────────────


class Odds:
    """The distribution of one quantity: exact fractions, or a sample's estimates."""

    def __init__(
        self,
        subject: dict,
        field,
        probabilities: dict | Dist | Callable[[], dict | Dist],
        exact: bool,
        omitted: Fraction = Fraction(0),
        trials: int | None = None,
        orders: tuple = (),
        note: str | None = None,
    ):
        self.subject = subject
        self.note = note  # why it is sampled, and whether it stopped at the time limit
        self.field = field
        self.orders = orders  # the rulebook's orders of texts (text_orders)
        # outcome → probability, or a Dist, or outcome → its Mass (interpreter.odds.weights):
        # made into a Table (whole weights, in order) when first read, and into Fractions
        # only when `probabilities` is
        self._given = probabilities
        self._table: Table | None = None
        self._probabilities: dict | None = None
        self.exact = exact
        self.omitted = omitted
        self.trials = trials
        #: under the best play for a goal (interpreter.odds.best_play): the goal, and how
        #: often each option of each choice is taken, {(choice, option): probability},
        #: and what the play is worth to the goal (its probability, or its mean)
        self.goal: AskedGoal | None = None
        self.decisions: dict = {}
        self.goal_worth: Fraction | None = None
        #: the explorations of the action counted for this answer (compute.action_odds)
        self.explorations = 0
        #: the units of work its exact phases counted (interpreter.odds.budget; sampled
        #: too: what it took to find the budget too small): the same on any machine
        self.work = 0

    # ─── reading ────────────────────────────────────────────────────────────

    @property
    def table(self) -> Table:
        """The outcomes in the order shown, with whole weights over one denominator
        (interpreter.odds.listing): what the summaries and the listing read."""
        found = self._table
        if found is None:
            given = self._given
            if callable(given):
                given = given()
            orders = self.orders
            found = self._table = table_of(given, lambda outcomes: in_order(outcomes, orders))
        return found

    @property
    def probabilities(self) -> dict:
        """Each outcome's probability (a Fraction), in the order outcomes are shown:
        the whole distribution (an answer shows at most LISTED_OUTCOMES: `listing`)."""
        found = self._probabilities
        if found is None:
            table = self.table
            found = self._probabilities = {
                o: table.fraction(w) for o, w in zip(table.outcomes, table.weights)
            }
        return found

    @property
    def size(self) -> int:
        """How many outcomes the answer has."""
        return len(self.table)

    def listing(self, limit: int = LISTED_OUTCOMES) -> Listing:
        """The outcomes to show: all, or the `limit` side by side that hold the most
        probability and the action's failures, with what was left out (listing.Listing)."""
        return listing(self.table, limit, _is_failure)

    def fractions(self) -> Fractions | None:
        """The exact fractions an answer writes of its outcomes, within FRACTION_CHARS in
        all (listing.Fractions); None when sampled (estimates are not exact fractions)."""
        return Fractions(self.table.total) if self.exact else None

    def probability(self, outcome) -> Fraction:
        """P(outcome); yes/no may be asked as True/False or in words ("yes", "sí", "no")."""
        table = self.table
        found = table.weight(outcome)
        if found is None and isinstance(outcome, str):
            found = table.weight(as_outcome(outcome))
        return table.fraction(found) if found is not None else Fraction(0)

    def refused(self) -> Failure | None:
        """When every way the action can go ends in a failure (a `require` that no dice
        change, a resource the sheet lacks): the likeliest of them; else None."""
        table = self.table
        if not table.outcomes or not all(isinstance(o, Failure) for o in table.outcomes):
            return None
        return table.outcomes[max(range(len(table)), key=table.weights.__getitem__)]

    def numeric(self) -> bool:
        outcomes = self.table.outcomes
        return bool(outcomes) and all(is_number(o) and not isinstance(o, bool) for o in outcomes)

    def at_least(self, x) -> Fraction:
        """P(outcome >= x), for numbers (and yes/no, where no < yes)."""
        key = outcome_order(as_outcome(x))
        return self._sum(lambda o: outcome_order(o) >= key)

    def at_most(self, x) -> Fraction:
        """P(outcome <= x)."""
        key = outcome_order(as_outcome(x))
        return self._sum(lambda o: outcome_order(o) <= key)

    def _sum(self, holds) -> Fraction:
        table = self.table
        return table.fraction(sum(w for o, w in zip(table.outcomes, table.weights) if holds(o)))

    def _moments(self) -> tuple | None:
        """(mass, Σ weight × outcome, Σ weight × outcome²) of a numeric answer, in whole
        numbers where the outcomes are (one Fraction at the end, not one per outcome)."""
        if not self.numeric():
            return None
        table = self.table
        first = second = 0
        for o, w in zip(table.outcomes, table.weights):
            moved = o * w
            first += moved
            second += moved * o
        return table.mass, first, second

    @property
    def mean(self) -> Fraction | None:
        """The mean over the outcomes computed (the omitted mass is left out)."""
        moments = self._moments()
        if moments is None:
            return None
        mass, first, _ = moments
        return Fraction(first) / mass

    @property
    def variance(self) -> Fraction | None:
        """The exact variance over the outcomes computed (None unless numeric)."""
        moments = self._moments()
        if moments is None:
            return None
        mass, first, second = moments
        return Fraction(mass * second - first * first) / (mass * mass)

    def spread(self, places: int = 4) -> tuple[Decimal, Decimal] | None:
        """(mean, standard deviation) for showing, each rounded to `places` decimals
        exactly: the mean half to even, the standard deviation (a square root) half up.
        Whole numbers and one integer square root, so an outcome of a thousand digits
        neither overflows a float nor shows digits a float made up; None unless numeric."""
        moments = self._moments()
        if moments is None:
            return None
        mass, first, second = moments
        scale = 10**places
        spread = Fraction(mass * second - first * first)  # the variance × mass²
        # √(p / q) / mass = √(p·q) / (q·mass), in units of 10^-places
        root = _rounded_root(
            spread.numerator * spread.denominator * scale * scale, spread.denominator * mass
        )
        return rounded(Fraction(first) / mass, places), decimal_of(root, places)

    @property
    def stdev(self) -> float | None:
        """The standard deviation: the square root of `variance`, so a float."""
        variance = self.variance
        if variance is None:
            return None
        try:
            return math.sqrt(variance)
        except OverflowError:  # a variance past a float's range (outcomes of 300 digits)
            return math.inf

    def quantile(self, q) -> object:
        """The smallest outcome x with P(outcome <= x) >= q."""
        table = self.table
        target = Fraction(q) * table.total
        running = 0
        for outcome, w in zip(table.outcomes, table.weights):
            running += w
            if running >= target:
                return outcome
        return table.outcomes[-1] if table.outcomes else None

    def stderr(self, outcome) -> float | None:
        """The standard error of a sampled probability (None when exact)."""
        if self.exact or not self.trials:
            return None
        p = float(self.probability(outcome))
        return math.sqrt(p * (1 - p) / self.trials)

    def to_json(self, language: str | None = None) -> dict:
        """The plain JSON data of this answer (schema: odds)."""
        return odds_data(self, language)


def outcome_key(outcome, language: str | None = None) -> str:
    """An outcome as the text output shows it, in `language`: yes/no as the language
    writes them (as `rulebook run` shows them), an action's failure with its reason."""
    if isinstance(outcome, Record):
        return ", ".join(f"{k}={show_value(v, language)}" for k, v in outcome.items())
    if isinstance(outcome, Failure):
        return tr("fails: {reason}", reason=outcome.message).render(language)
    return show_value(outcome, language)


def as_outcome(outcome):
    """yes/no written as words ("yes", "sí", "true", "no", "false") as True/False."""
    if isinstance(outcome, str):
        word = YES_NO.get(outcome.strip().lower())
        if word is not None:
            return word
    return outcome


def outcome_order(outcome):
    """A sort key for a single value: numbers by size, no before yes, texts by their
    spelling (an Odds orders texts as its rulebook does: order_key)."""
    return order_key((outcome,), ())(outcome)


# ─── the order outcomes are shown in ────────────────────────────────────────

_ORDERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def text_orders(book) -> tuple:
    """The rulebook's own orders of texts, each a tuple: the labels of each table's rows
    and its text keys, in the order written; each list of choices; each check's degrees;
    each group's members;
    the sheet's fields. Outcomes that are texts are shown in the first of these orders
    that holds them all (else alphabetically)."""
    found = _ORDERS.get(book)
    if found is None:
        orders: list = []
        for table in book.tables.values():
            _table_orders(table.rows, orders)
        for definition in (
            *book.actions.values(),
            *book.checks.values(),
            *book.opposed.values(),
            *book.rolls.values(),
            *book.formulas.values(),
        ):
            for param in definition.params:
                if isinstance(param.type, n.EnumType) and param.type.choices:
                    orders.append(tuple(param.type.choices))
        # each check's degrees, as declared (`critical, fumble, extreme, ...`)
        orders.extend(tuple(check.degrees) for check in book.checks.values())
        orders.extend(tuple(group.members) for group in book.groups.values())
        orders.append(tuple(book.fields))
        orders.append(_written_texts(book))
        found = _ORDERS[book] = tuple(o for o in orders if o)
    return found


def _written_texts(book) -> tuple:
    """Every text the rulebook's actions, checks and formulas write, in the order written
    (Blades' `"critical"`, `"success"`, `"partial"`, `"failure"`), each once."""
    found = []
    for definition in (
        *book.checks.values(),
        *book.opposed.values(),
        *book.formulas.values(),
        *book.actions.values(),
    ):
        for node in walk(definition):
            if type(node) is n.Literal and type(node.value) is str and node.span is not None:
                found.append((node.span.source.name, node.span.start, node.value))
    return tuple(dict.fromkeys(text for _, _, text in sorted(found, key=lambda f: f[:2])))


def _table_orders(rows, orders: list) -> None:
    labels = tuple(
        row.value.value
        for row in rows
        if isinstance(row.value, n.Literal) and isinstance(row.value.value, str)
    )
    keys = tuple(row.key.low for row in rows if isinstance(row.key.low, str))
    orders.extend((labels, keys))
    for row in rows:
        if row.rows:
            _table_orders(row.rows, orders)


def in_order(outcomes: list, orders: tuple) -> list:
    """Outcomes in the order shown (order_key); whole numbers, the commonest, as they are."""
    if all(type(o) is int for o in outcomes):
        return sorted(outcomes)
    return sorted(outcomes, key=order_key(outcomes, orders))


def _is_failure(outcome) -> bool:
    return isinstance(outcome, Failure)


def order_key(outcomes, orders: tuple):
    """A sort key for these outcomes: numbers numerically, no before yes, texts in the
    rulebook's order (`orders`), records field by field in their fields' order, the
    action's failures last."""
    texts: dict = {}  # field (None: the outcome itself) → texts seen there
    for outcome in outcomes:
        if type(outcome) is Record:
            for name, value in outcome.items():
                if isinstance(value, str):
                    texts.setdefault(name, set()).add(value)
        elif isinstance(outcome, str):
            texts.setdefault(None, set()).add(outcome)
    ranks = {where: _ranks(seen, orders) for where, seen in texts.items()}
    empty: dict = {}

    def value_key(value, rank: dict):
        if value is None:
            return (0,)
        if value is True or value is False:
            return (1, int(value))
        if type(value) is int or type(value) is Fraction:
            return (2, value)
        if type(value) is str:
            return (3, rank.get(value, len(rank)), value)
        if type(value) is tuple:
            return (4, tuple(value_key(v, empty) for v in value))
        if type(value) is Record:
            return (5, tuple((k, value_key(v, empty)) for k, v in value.items()))
        if isinstance(value, Failure):
            return (9, value.message)
        return (8, show(value))

    def key(outcome):
        if type(outcome) is Record:
            return (6, tuple(value_key(v, ranks.get(k, empty)) for k, v in outcome.items()))
        return value_key(outcome, ranks.get(None, empty))

    return key


def _ranks(texts: set, orders: tuple) -> dict:
    for order in orders:
        if texts.issubset(order):
            return {text: order.index(text) for text in texts}
    return {text: i for i, text in enumerate(sorted(texts))}


def pick(record, field):
    """A record's field (or the whole record, when no field is asked for)."""
    if field is None:
        return record
    if isinstance(record, Record) and field in record:
        return record[field]
    if isinstance(record, Record):
        raise EvaluationError(
            tr(
                "the result has no field {field}; it has {fields}",
                field=repr(field),
                fields=", ".join(record.keys()),
            )
        )
    raise EvaluationError(tr("the result has no field {field}", field=repr(field)))


def field_outcome(result, sheet, field, compiled):
    """The field asked for, of an action's result, or else of its new sheet."""
    if field is None:
        return result
    if result is not None and field in result:
        return result[field]
    value = sheet.get(field, MISSING)
    if value is MISSING:
        names = list(result.keys()) if result is not None else []
        raise EvaluationError(
            tr(
                "{name} gives no field {field} and the sheet has no {field}; fields: {fields}",
                name=compiled.node.name,
                field=repr(field),
                fields=", ".join(names) or tr("none"),
            )
        )
    return value


def _rounded_root(square: int, divisor: int) -> int:
    """√square / divisor rounded to the nearest whole number (a half up), exactly:
    k = ⌊√square / divisor⌋, and k + 1 when √square ≥ divisor·(k + ½)."""
    low = math.isqrt(square) // divisor
    return low + (4 * square >= (divisor * (2 * low + 1)) ** 2)
