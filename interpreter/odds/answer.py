"""The answer of an odds computation: each outcome's probability, exact or sampled."""

from __future__ import annotations

import math
from fractions import Fraction

from interpreter.errors import EvaluationError
from interpreter.odds.explore import Failure
from interpreter.runtime import MISSING
from interpreter.values import Record, is_number, show

# ─── answers ────────────────────────────────────────────────────────────────


class Odds:
    """The distribution of one quantity: exact fractions, or a sample's estimates."""

    def __init__(
        self,
        subject: dict,
        field,
        probabilities: dict,
        exact: bool,
        omitted: Fraction = Fraction(0),
        trials: int | None = None,
        note: str | None = None,
    ):
        self.subject = subject
        self.note = note  # why it is sampled, and whether it stopped at the time limit
        self.field = field
        self.probabilities = dict(
            sorted(probabilities.items(), key=lambda kv: outcome_order(kv[0]))
        )
        self.exact = exact
        self.omitted = omitted
        self.trials = trials

    # ─── reading ────────────────────────────────────────────────────────────

    def probability(self, outcome) -> Fraction:
        return self.probabilities.get(outcome, Fraction(0))

    def numeric(self) -> bool:
        return bool(self.probabilities) and all(
            is_number(o) and not isinstance(o, bool) for o in self.probabilities
        )

    def at_least(self, x) -> Fraction:
        """P(outcome >= x), for numbers (and yes/no, where no < yes)."""
        key = outcome_order(x)
        return sum(
            (p for o, p in self.probabilities.items() if outcome_order(o) >= key), Fraction(0)
        )

    def at_most(self, x) -> Fraction:
        """P(outcome <= x)."""
        key = outcome_order(x)
        return sum(
            (p for o, p in self.probabilities.items() if outcome_order(o) <= key), Fraction(0)
        )

    @property
    def mean(self) -> Fraction | None:
        """The mean over the outcomes computed (the omitted mass is left out)."""
        if not self.numeric():
            return None
        mass = sum(self.probabilities.values())
        return sum(o * p for o, p in self.probabilities.items()) / mass

    @property
    def stdev(self) -> float | None:
        mean = self.mean
        if mean is None:
            return None
        mass = sum(self.probabilities.values())
        variance = sum(p * (o - mean) ** 2 for o, p in self.probabilities.items()) / mass
        return math.sqrt(variance)

    def quantile(self, q) -> object:
        """The smallest outcome x with P(outcome <= x) >= q."""
        running = Fraction(0)
        for outcome, p in self.probabilities.items():
            running += p
            if running >= q:
                return outcome
        return next(reversed(self.probabilities)) if self.probabilities else None

    def stderr(self, outcome) -> float | None:
        """The standard error of a sampled probability (None when exact)."""
        if self.exact or not self.trials:
            return None
        p = float(self.probability(outcome))
        return math.sqrt(p * (1 - p) / self.trials)

    def to_json(self) -> dict:
        out = dict(self.subject)
        out["field"] = self.field
        out["exact"] = self.exact
        out["distribution"] = {outcome_key(o): float(p) for o, p in self.probabilities.items()}
        out["fractions"] = (
            {outcome_key(o): fraction_text(p) for o, p in self.probabilities.items()}
            if self.exact
            else None
        )
        out["mean"] = float(self.mean) if self.mean is not None else None
        out["stdev"] = self.stdev
        out["omitted_mass"] = float(self.omitted)
        out["trials"] = self.trials
        out["note"] = self.note
        if not self.exact:
            out["stderr"] = {outcome_key(o): self.stderr(o) for o in self.probabilities}
        return out


#: bits of an exact probability's denominator written out (about 3,000 digits: Python
#: will not turn an int of more than 4,300 digits into text, and nobody reads one)
FRACTION_BITS = 10_000


def fraction_text(p: Fraction) -> str | None:
    """An exact probability as `num/den`, or None when it is too long to write out."""
    if p.denominator.bit_length() > FRACTION_BITS:
        return None
    return f"{p.numerator}/{p.denominator}"


def outcome_key(outcome) -> str:
    if isinstance(outcome, Record):
        return ", ".join(f"{k}={show(v)}" for k, v in outcome.items())
    if isinstance(outcome, bool):
        return "true" if outcome else "false"
    if isinstance(outcome, Failure):
        return str(outcome)
    return show(outcome) if not isinstance(outcome, str) else outcome


def numeric_outcome(outcome) -> bool:
    return is_number(outcome) and not isinstance(outcome, bool)


def outcome_order(outcome):
    if isinstance(outcome, bool):
        return (1, int(outcome), "")
    if numeric_outcome(outcome):
        return (0, outcome, "")
    if isinstance(outcome, Failure):
        return (3, 0, outcome.message)
    return (2, 0, outcome_key(outcome))


def pick(record, field):
    """A record's field (or the whole record, when no field is asked for)."""
    if field is None:
        return record
    if isinstance(record, Record) and field in record:
        return record[field]
    raise EvaluationError(
        f"the result has no field {field!r}"
        + (f"; it has {', '.join(record.keys())}" if isinstance(record, Record) else "")
    )


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
            f"{compiled.node.name} gives no field {field!r} and the sheet "
            f"has no {field!r}" + (f"; fields: {', '.join(names)}" if names else "")
        )
    return value
