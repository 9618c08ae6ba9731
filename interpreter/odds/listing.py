"""What an answer shows: its outcomes in order with whole weights, at most LISTED_OUTCOMES of them.

A distribution may hold up to `odds_outcomes` outcomes (100,000: `d100000`), each
probability a fraction of thousands of digits. Nobody reads such a table, and making a
Fraction of each (a gcd of two numbers of thousands of digits) would take longer than the
answer itself. So an answer keeps its outcomes as whole weights over one denominator (a
`Table`): the mean, the spread and P(at least x) are sums of whole numbers, and a
Fraction is made only for an outcome shown. What is shown is a `Listing`: the
LISTED_OUTCOMES outcomes side by side that hold the most probability (the failures of an
action always among them), and how many outcomes were left out before and after, with
their probability. The whole distribution stays in the Python API (`Odds.probabilities`).
"""

from __future__ import annotations

from fractions import Fraction

from interpreter.odds.distribution import Dist
from interpreter.odds.weights import Mass, least_common

#: outcomes an answer lists at most (its text table, its JSON); past it, the window of
#: that many outcomes side by side that holds the most probability, and a count of the rest
LISTED_OUTCOMES = 200
#: characters of exact fractions one answer writes at most (its JSON's `fractions`,
#: the text's `--fractions` column); past it, probabilities are written as numbers only
FRACTION_CHARS = 100_000
#: bits of a common denominator past which no outcome's fraction is reduced to be
#: written (each would be a gcd of numbers of thousands of digits, and longer than
#: values.FRACTION_BITS allows written anyway)
REDUCED_BITS = 20_000


class Table:
    """An answer's outcomes in the order shown, each with a whole-number weight over one
    denominator `total` (`mass`: their sum; below `total` when an open-ended roll left
    some out, which `omitted` of the answer says)."""

    __slots__ = ("_index", "mass", "outcomes", "total", "weights")

    def __init__(self, outcomes: list, weights: list, total: int):
        self.outcomes, self.weights, self.total = outcomes, weights, total
        self.mass = sum(weights)
        self._index: dict | None = None

    def __len__(self) -> int:
        return len(self.outcomes)

    def weight(self, outcome) -> int | None:
        """The weight of one outcome (None: not an outcome)."""
        if self._index is None:
            self._index = {o: i for i, o in enumerate(self.outcomes)}
        try:
            found = self._index.get(outcome)
        except TypeError:  # not hashable: not an outcome
            return None
        return None if found is None else self.weights[found]

    def fraction(self, weight: int) -> Fraction:
        return Fraction(weight, self.total)


def table_of(given, sort) -> Table:
    """The table of what an Odds was given: a Dist (weights over a total), outcomes with
    their Mass (interpreter.odds.weights), or with their probability (a Fraction);
    `sort(outcomes)` puts them in the order shown."""
    if isinstance(given, Dist):
        weights = given.weights
        outcomes = sort(list(weights))
        return Table(outcomes, [weights[o] for o in outcomes], given.total)
    pairs = {}
    for outcome, value in given.items():
        if isinstance(value, Mass):
            pairs[outcome] = value.weight()
        else:
            value = Fraction(value)
            pairs[outcome] = (value.numerator, value.denominator)
    common = 1
    for denominator in {d for _, d in pairs.values()}:
        if common % denominator:
            common = least_common(common, denominator)
    outcomes = sort(list(pairs))
    numerators = []
    for outcome in outcomes:
        n, d = pairs[outcome]
        numerators.append(n * (common // d) if d != common else n)
    return Table(outcomes, numerators, common)


def side_by_side(a: Table, b: Table, sort) -> Table:
    """Two answers' outcomes in one table (`--compare`), each weighed by its probability
    in either: their sum, over one denominator."""
    common = least_common(a.total, b.total)
    scale_a, scale_b = common // a.total, common // b.total
    weights: dict = {}
    for table, scale in ((a, scale_a), (b, scale_b)):
        for outcome, w in zip(table.outcomes, table.weights):
            weights[outcome] = weights.get(outcome, 0) + w * scale
    outcomes = sort(list(weights))
    return Table(outcomes, [weights[o] for o in outcomes], 2 * common)


class Listing:
    """The outcomes an answer shows: `rows`, (outcome, weight, weight of the outcomes
    before it in the whole table) in order; `below` and `above`, (how many, their
    weight) of the outcomes left out before the rows and after them."""

    __slots__ = ("above", "below", "rows", "table")

    def __init__(self, table: Table, rows: list, below: tuple, above: tuple):
        self.table, self.rows, self.below, self.above = table, rows, below, above

    @property
    def left_out(self) -> int:
        return self.below[0] + self.above[0]


def listing(table: Table, limit: int = LISTED_OUTCOMES, is_failure=None) -> Listing:
    """At most `limit` outcomes of the table: all of them, or the window of that many side
    by side holding the most weight, and the outcomes for which `is_failure` holds (an
    action's failures, shown last: up to a quarter of the rows, the likeliest)."""
    outcomes, weights = table.outcomes, table.weights
    size = len(outcomes)
    before = [0] * (size + 1)  # before[i]: the weight of outcomes[:i]
    for i, w in enumerate(weights):
        before[i + 1] = before[i] + w
    if size <= limit:
        rows = [(o, w, before[i]) for i, (o, w) in enumerate(zip(outcomes, weights))]
        return Listing(table, rows, (0, 0), (0, 0))
    limit = max(limit, 1)
    failures = [i for i, o in enumerate(outcomes) if is_failure is not None and is_failure(o)]
    kept_failures = sorted(sorted(failures, key=lambda i: -weights[i])[: limit // 4])
    plain = size - len(failures)  # the failures come last (their order says so)
    width = min(limit - len(kept_failures), plain)
    start, best = 0, -1
    for i in range(plain - width + 1):
        held = before[i + width] - before[i]
        if held > best:
            start, best = i, held
    stop = start + width
    rows = [(outcomes[i], weights[i], before[i]) for i in range(start, stop)]
    rows += [(outcomes[i], weights[i], before[i]) for i in kept_failures]
    below = (start, before[start])
    after_count = size - stop - len(kept_failures)
    after_weight = table.mass - before[stop] - sum(weights[i] for i in kept_failures)
    return Listing(table, rows, below, (after_count, after_weight))


class Fractions:
    """Exact fractions for an answer's text or JSON, reduced one by one while they stay
    within FRACTION_CHARS in all (and the denominator within REDUCED_BITS): None past it."""

    __slots__ = ("left", "total")

    def __init__(self, total: int, chars: int = FRACTION_CHARS):
        self.total = total
        self.left = chars if total.bit_length() <= REDUCED_BITS else 0

    def of(self, weight: int) -> Fraction | None:
        """The fraction weight / total, or None (past the bound)."""
        if self.left <= 0:
            return None
        value = Fraction(weight, self.total)
        self.left -= (value.numerator.bit_length() + value.denominator.bit_length()) * 3 // 10 + 2
        return value if self.left >= 0 else None


#: a whole record's table longer than this opens with each field's own chances
SUMMARY_ABOVE = 12
#: a field with at most this many values is summed up value by value (`success`,
#: `degree`); a number field with more, by its range and mean (`total`)
SUMMARY_VALUES = 8


class FieldSummary:
    """One field of a table of records on its own: `values`, (value, weight) in the
    order the field's values first come in the table, when it takes at most
    SUMMARY_VALUES values; else None, and `low`, `high`, `mean` when it is a number."""

    __slots__ = ("high", "low", "mean", "name", "values")

    def __init__(self, name: str, values, low=None, high=None, mean=None):
        self.name, self.values = name, values
        self.low, self.high, self.mean = low, high, mean


def field_summaries(table: Table, record_type, is_number) -> list[FieldSummary]:
    """Each field of a table of records (instances of `record_type`; other outcomes,
    an action's failures, weigh in no field) on its own, in the first record's field
    order; empty for a table of SUMMARY_ABOVE outcomes or fewer, or of no records."""
    if len(table) <= SUMMARY_ABOVE:
        return []
    records = [(o, w) for o, w in zip(table.outcomes, table.weights) if type(o) is record_type]
    if not records:
        return []
    summaries = []
    for name in records[0][0]:
        weights: dict = {}
        for record, w in records:
            value = record.get(name)
            try:
                weights[value] = weights.get(value, 0) + w
            except TypeError:  # (a list or a record: not summed up)
                weights = {}
                break
        if not weights:
            continue
        if len(weights) <= SUMMARY_VALUES:
            summaries.append(FieldSummary(name, list(weights.items())))
        elif all(is_number(v) for v in weights):
            mass = sum(weights.values())
            mean = sum(Fraction(v) * w for v, w in weights.items()) / mass
            summaries.append(FieldSummary(name, None, min(weights), max(weights), mean))
    return summaries
