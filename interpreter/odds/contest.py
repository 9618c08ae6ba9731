"""Opposed checks counted: both sides' distributions combined, ties as a geometric series.

A real run of an opposed check rolls both sides, compares them, and on a tie (with
`tie reroll`) rolls both again, at most `tie_rerolls` times before it stops with an
error. Counted, the two sides are independent distributions A and B. A pair (a, b) is
decided with probability A(a)·B(b), and a comparison ties with probability t (the sum
over tied pairs). The run ends with the pair (a, b) after exactly k rerolls with
probability t^k · A(a)·B(b), for k = 0 … tie_rerolls; it stops at the limit with
probability t^(tie_rerolls + 1). So the records are those of the decided pairs, each
weighted by the sum of the geometric series when nothing reads `rerolls` (the usual
case), or one record per number of rerolls when something does.

Terms of the series below the engine's pruning threshold are left out and reported as
omitted mass, as the explorer leaves out branches that small; the stop at the limit is
an outcome of its own (a Failure, as a run would stop there) whenever it is not that
small, so a small `tie_rerolls` is honoured exactly.
"""

from __future__ import annotations

from fractions import Fraction
from math import floor, gcd

from interpreter.odds.cuts import names_of, project
from interpreter.odds.distribution import Dist, remembered
from interpreter.odds.keys import Same, next_number
from interpreter.odds.riders import SWITCH as RIDERS
from interpreter.odds.riders import riding
from interpreter.odds.sides import SIDED, Sides
from interpreter.runtime import Unknown
from interpreter.values import Record


class Contest(Unknown):
    """An opposed check's record, counted: the decided records and what the ties do.

    `decided` holds the records of decided pairs (with `rerolls` 0), each with the weight
    of that pair; `series` the weight of each number of rerolls (None once the rerolls are
    in the records themselves); `stops` the (error, probability) of stopping at the
    limit. Only the explorer looks at `stops`: a value computed from a Contest by other
    operations counts that mass as omitted.

    The records of every pair are made only when something reads more of them than the
    verdict and the sides: `sides` (interpreter.odds.sides.Sides) gives `won`, `tie` and
    the sides (cut down to what is read of them) without a record per pair."""

    __slots__ = (
        "_decided",
        "_full",
        "number",
        "prune",
        "roller",
        "series",
        "sides",
        "stops",
        "whole",
    )

    def __init__(self, decided, series: tuple | None, stops: tuple = (), prune=0, sides=None,
                 roller=None, whole=None):  # fmt: skip
        self._decided = decided  # a Dist, or a function making it when first read
        self.series = series
        # the series' sum as (numerator, denominator), over a power of the pairs' count
        # and not reduced: the records of the same check counted with other modifiers
        # (each in a world of its own) then have weights over one denominator, which the
        # explorer adds up without finding a common one
        self.whole = whole
        self.stops = stops
        self.prune = prune  # records less likely than this are left out (omitted mass)
        self.sides = sides
        self.roller = roller  # whose budget and deadline the records are counted against
        self._full: Dist | None = None
        self.number = next_number()  # what is computed of it is remembered by

    @property
    def decided(self) -> Dist:
        found = self._decided
        if type(found) is not Dist:
            found = self._decided = found()
        return found

    def dist(self) -> Dist:
        """Every record with its number of rerolls, as one distribution."""
        if self.series is None:
            return self.decided
        if self._full is None:
            self._full = _with_rerolls(self.decided, self.series, self.prune, self.roller)
        return self._full

    def map(self, function) -> Contest:
        return Contest(self.dist().map(function), None, self.stops)

    def lift(self, function, values: tuple) -> Dist | Contest:
        """function(*values) over the records; where the run may stop at the tie limit
        (and no other opposed check is among the values), a Contest still, holding that
        stop (`not r.won`, `r.margin + 1`: read where the explorer sees it)."""
        full = self.dist()
        contests = {v.number: v for v in values if type(v) is Contest}  # (self among them)
        if len(contests) == 1:
            lifted = full.lift(function, tuple(full if v is self else v for v in values))
            stops = self.stops
        else:  # `a.margin + b.margin`: each check's records, and where either stops
            lifted = full.lift(
                function, tuple(v.dist() if type(v) is Contest else v for v in values)
            )
            stops = _either_stops(contests.values())
        if not stops:
            return lifted
        held = lifted.number if type(lifted) is Dist else Same(lifted)
        return remembered(("stops", held), (lifted,), lambda: Contest(lifted, None, stops))

    def project(self, cut: tuple, rider: str | None = None) -> Contest:
        """The records cut down to `cut` (interpreter.odds.cuts); without `rerolls` among
        its fields, each decided pair once, weighted by the whole series. With a `rider`
        (interpreter.odds.riders), that field riding in them (as riders.riding makes it:
        of a side read with the verdict alone, from the sides at once)."""
        key = ("contest", self.number, cut, rider)
        return remembered(key, (self,), lambda: self._project(cut, rider))

    def _project(self, cut: tuple, rider: str | None = None) -> Contest:
        if rider is not None and "rerolls" in names_of(cut):  # (ridden after the rerolls)
            return Contest(riding(self.project(cut).dist(), rider), None, self.stops)
        part = self._cut(cut, rider)
        if self.series is None:
            return Contest(part, None, self.stops)
        if "rerolls" in names_of(cut):  # cut first, then one record per number of rerolls
            rerolled = _with_rerolls(part, self.series, self.prune, self.roller)
            return Contest(rerolled, None, self.stops)
        numerator, denominator = self.whole
        weights = {record: weight * numerator for record, weight in part.weights.items()}
        return Contest(Dist(weights, part.total * denominator), None, self.stops)

    def _cut(self, cut: tuple, rider: str | None = None) -> Dist:
        """The decided records cut down to `cut`: of the verdict and the sides alone,
        from the sides (interpreter.odds.sides) without a record per pair."""
        unmade = type(self._decided) is not Dist
        if unmade and self.sides is not None and SIDED.issuperset(names_of(cut)):
            if rider is None:
                return self.sides.dist(cut)
            if rider in SIDE_NAMES and rider in names_of(cut) and RIDERS.sides:
                return self.sides.ridden(cut, rider)  # (a record per class, not per pair)
            return riding(self.sides.dist(cut), rider)
        part = project(self.decided, cut)
        return part if rider is None else riding(part, rider)


#: the fields of an opposed check's record that are its sides
SIDE_NAMES = ("ours", "theirs")


def contest(opposed, ctx, ours, theirs, roller, settle, negligible) -> Contest:
    """The record of `opposed` for sides distributed as `ours` and `theirs` (each a Dist,
    or a known value), in the opposed check's frame (its parameters in ctx.env). Pairs
    less likely than 2**-negligible are left out (omitted mass)."""
    a = ours if type(ours) is Dist else Dist.point(ours)
    b = theirs if type(theirs) is Dist else Dist.point(theirs)
    span_a, span_b = opposed.node.ours.span, opposed.node.theirs.span
    # (a known side is a new point each time: grouped as it comes, not remembered)
    sides_a = (
        _keyed(opposed, a, span_a, roller.records, 0)
        if a is ours
        else _grouped(opposed, a, span_a, 0)
    )
    sides_b = (
        _keyed(opposed, b, span_b, roller.records, 1)
        if b is theirs
        else _grouped(opposed, b, span_b, 1)
    )
    pairs = a.total * b.total
    # a pair less likely than this would be pruned by the explorer in this world
    negligible = pairs >> negligible
    rerolling = opposed.rerolls_ties
    tied = 0
    if rerolling:
        for key_a, (mass_a, _group) in sides_a.items():
            found = sides_b.get(key_a)
            if found is not None:
                tied += mass_a * found[0]

    def decided_records() -> Dist:
        decided: dict = {}
        counted = ctx.steps
        for key_a, (_mass, group_a) in sides_a.items():
            for key_b, (_mass, group_b) in sides_b.items():
                if rerolling and key_a == key_b:
                    continue
                keys = (key_a, key_b)
                for side_a, weight_a in group_a:
                    for side_b, weight_b in group_b:
                        weight = weight_a * weight_b
                        if weight < negligible:
                            continue
                        record = opposed.record(ctx, side_a, side_b, 0, settle, keys)
                        decided[record] = decided.get(record, 0) + weight
                        # each record counted on its own (a run makes one), from the
                        # steps the run had; their work, in the budget above
                        ctx.recount(counted)
        return Dist(decided, pairs).reduced()

    roller.work += 1 + len(sides_a) * len(sides_b) // 20
    limit = ctx.limits.tie_rerolls
    sides = None
    if opposed.fields:  # the author's fields read this frame: every record made now
        decided = decided_records()
    else:  # made when more than the verdict and the sides are read, in a frame of their own
        decided = _in_own_frame(ctx, decided_records)
        sides = Sides(opposed, sides_a, sides_b, pairs, rerolling, roller, negligible)
    if not rerolling or tied == 0:
        return Contest(decided, None, sides=sides)
    t = Fraction(tied, pairs)
    series = [Fraction(1)]
    while len(series) <= limit and series[-1] * t >= roller.prune:
        series.append(series[-1] * t)
    stops: tuple = ()
    if len(series) == limit + 1:  # the whole series: what is left stops at the limit
        stopped = series[-1] * t
        if stopped >= roller.prune:
            stops = ((opposed.still_tied(ctx), stopped),)
    if opposed.fields_read_rerolls:  # the author's fields differ with the rerolls
        return Contest(_recomputed(opposed, ctx, decided, series, settle), None, stops)
    # the sum of (tied / pairs)**k for k < terms, over pairs**power: the power rounded up
    # to a multiple of 8, so that checks whose ties are followed a few terms more or less
    # (another modifier) still share the denominator
    terms = len(series)
    power = -(-(terms - 1) // 8) * 8
    whole = (
        sum(tied**k * pairs ** (power - k) for k in range(terms)),
        pairs**power,
    )
    return Contest(decided, tuple(series), stops, roller.prune, sides, roller, whole)


def _in_own_frame(ctx, make):
    """`make` for later, run with an environment of its own (a record writes its fields
    there: the frame it was counted in is gone by then)."""

    def made():
        saved, ctx.env = ctx.env, {}
        try:
            return make()
        finally:
            ctx.env = saved

    return made


def _keyed(opposed, dist: Dist, span, memory: dict, which: int) -> dict:
    """A side's outcomes grouped by what the comparison looks at: key → (mass, [(record,
    weight)]); once per side's distribution in a computation (`memory`: the other side
    counted with several modifiers meets the same one each time). `which`: 0 ours, 1
    theirs (a side's keys follow its own direction)."""
    key = ("keyed", opposed.node.name, dist.number, span.start, which)
    found = memory.get(key)
    if found is not None:
        return found
    out = memory[key] = _grouped(opposed, dist, span, which)
    return out


def _either_stops(contests) -> tuple:
    """Where a value read from several opposed checks stops, as a run computing them in
    turn would: each check's stops, in the runs the ones before it did not stop."""
    stops = []
    going = Fraction(1)
    for contest in contests:
        stopped = Fraction(0)
        for error, probability in contest.stops:
            stops.append((error, going * probability))
            stopped += probability
        going *= 1 - stopped
    return tuple(stops)


def _grouped(opposed, dist: Dist, span, which: int) -> dict:
    out: dict = {}
    for value, weight in dist.weights.items():
        side = opposed.side(value, span)
        key = opposed.key(side, which)
        found = out.get(key)
        if found is None:
            out[key] = [weight, [(side, weight)]]
        else:
            found[0] += weight
            found[1].append((side, weight))
    return out


def _with_rerolls(decided: Dist, series: tuple, prune, roller=None) -> Dist:
    """One record per decided pair and number of rerolls k, weighted by t^k (those less
    likely than `prune` left out); each k counted against the roller's budget."""
    denominator = 1
    for term in series:
        denominator = denominator * term.denominator // gcd(denominator, term.denominator)
    total = decided.total * denominator
    negligible = floor(prune * total)
    weights: dict = {}
    for k, term in enumerate(series):
        scale = term.numerator * (denominator // term.denominator)
        if roller is not None:
            roller.charge(1 + len(decided.weights) // 20)
        for record, weight in decided.weights.items():
            weight *= scale
            if weight > negligible:
                weights[_rerolled(record, k)] = weight
    return Dist(weights, total).reduced()


def _rerolled(record: Record, k: int) -> Record:
    if k == 0:
        return record
    fields = dict(record.items())
    fields["rerolls"] = k
    return Record(fields, record.kind)


def _recomputed(opposed, ctx, decided: Dist, series: list, settle) -> Dist:
    """Records whose author fields read `rerolls`: each computed again for every k."""
    denominator = 1
    for term in series:
        denominator = denominator * term.denominator // gcd(denominator, term.denominator)
    weights: dict = {}
    for k, term in enumerate(series):
        scale = term.numerator * (denominator // term.denominator)
        for record, weight in decided.weights.items():
            again = opposed.record(ctx, record["ours"], record["theirs"], k, settle)
            weights[again] = weights.get(again, 0) + weight * scale
    return Dist(weights, decided.total * denominator).reduced()
