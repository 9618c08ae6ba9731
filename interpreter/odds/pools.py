"""The exact distribution of one dice term, counted combinatorially (never by listing rolls)."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dsl.messages import tr
from interpreter.errors import (
    EXPLODED_PAST,
    FACES_EXPLODE,
    FACES_REROLLED,
    REROLLED_PAST,
    EvaluationError,
)
from interpreter.limits import DEFAULT_LIMITS
from interpreter.odds.distribution import Dist
from interpreter.odds.exploding import exploding_answers
from interpreter.odds.keeps import PLAIN, Keeps, keep_ends, keep_range
from interpreter.odds.multiset import Constant, evaluate, evaluate_mixed, evaluator, extreme
from interpreter.odds.polynomials import (
    LOW,
    SHIFT,
    Budget,
    TooComplex,
    mix,
    power_counts,
    power_sum,
)
from interpreter.odds.walker import CHAINS, ESCAPE, GROWS, OPEN_ENDED, Walker
from interpreter.pool import Total

# ─── the distribution of one dice term ──────────────────────────────────────
#
# The term's value depends only on the multiset of faces it keeps, and every explosion or
# reroll acts on one die at a time. So the work is done on *summaries* of groups of dice
# that merge associatively: a running total (sums, and success/failure counts packed into
# one int), one face (dice about to be kept or dropped by an order-statistics pass), the
# top or bottom few faces (keeps over pools that explosions make larger), or the whole
# sorted pool (the general method, for modifiers in unusual orders, under a work budget).
#
# A term's modifiers split at its keeps: the dice before the first keep evolve one by one
# (each base die becomes a distribution over summaries), the keeps select among the
# pooled summaries, and what comes after the last keep turns each kept face into a
# distribution of values. Weights are exact ints over one denominator throughout.

#: units of work (about 0.1 µs each: one dictionary update) a term may take before TooComplex
#: when no caller's budget is given
DEFAULT_BUDGET = 10_000_000
#: a term's units of work for one unit of the odds engine's budget (`--budget`; its
#: default, interpreter.odds.compute's BUDGET of 100,000, gives a term DEFAULT_BUDGET)
TERM_UNITS = 100


def term_budget(budget: int) -> int:
    """The units of work a dice term may take under the caller's budget (`--budget`)."""
    return budget * TERM_UNITS


#: the mass an open-ended roll may leave out, when the caller does not say
DEFAULT_EPSILON = Fraction(1, 10**12)


def pool_distribution(
    die,
    count: int,
    steps: tuple,
    epsilon=DEFAULT_EPSILON,
    budget: int | Budget = DEFAULT_BUDGET,
    limit: int = DEFAULT_LIMITS.extra_per_die,
    net: bool = False,
) -> Dist:
    """The exact distribution of one dice term.

    Outcomes are (total, successes, failures) triples; successes and failures are None
    unless the term counts successes (`cs`), and then total = successes - failures.
    `steps` are the compiled modifiers of interpreter.compile.dice (the same tuples
    interpreter.dice.roll_pool takes), with their meaning exactly as roll_pool gives it.
    Explosions are followed until the probability left out of the whole term is below
    `epsilon`; that mass is missing from the weights (`Dist.omitted` reports it). Raises
    TooComplex when the term would take more than `budget` units of work (the caller
    can sample instead) and EvaluationError for a roll that could never end.

    `limit` is the roller's extra_per_die: a die that would explode or be rerolled more
    often makes the real roller fail. A chain that can get there with more than a sliver
    of epsilon (`may_fail`) is followed exactly to the limit, and the mass missing from
    the weights is then the chance that the roll fails (and what epsilon leaves out of
    the other chains, less than a sliver of it).

    `net`: only the total is wanted; a term that takes failures from its successes is
    then counted by their difference alone (2n + 1 outcomes, not (n + 1)(n + 2) / 2),
    and its outcomes are (total, None, None).
    """
    epsilon = Fraction(epsilon)
    if epsilon <= 0:
        raise ValueError("epsilon must be positive")
    work = budget if isinstance(budget, Budget) else Budget(budget)
    term = Term(die, count, steps, work, limit, net)
    if count <= 0:  # as roll_pool: no dice, whatever the modifiers
        return term.outcomes({0: 1}, 1)
    if term.may_fail(epsilon):
        delta = epsilon / (4 * max(count, 1) * max(term.open_ended, 1))
        return term.outcomes(*term.compute(delta))
    if not term.open_ended:
        return term.outcomes(*term.compute(None))
    delta = epsilon / (4 * max(count, 1) * term.open_ended)
    for _ in range(8):
        weights, total = term.compute(delta)
        missing = total - sum(weights.values())  # over total: compared, never reduced
        if missing * epsilon.denominator < epsilon.numerator * total:
            return term.outcomes(weights, total)
        delta = delta * epsilon / (4 * Fraction(missing / total))  # (a float aims well enough)
    raise TooComplex(tr("the explosions of this term do not settle within epsilon"))


def reaches(h: int, n: int, limit: int, share: Fraction) -> bool:
    """(h/n)^limit >= share, by logarithms (exactly when they cannot tell)."""
    if h == 0:
        return False
    power = limit * (math.log(h) - math.log(n))
    bound = math.log(share.numerator) - math.log(share.denominator)
    if abs(power - bound) > 1e-6 * (1 + abs(bound)) or limit > 100_000:
        return power >= bound
    return h**limit * share.denominator >= share.numerator * n**limit


def may_fail(die, count: int, steps: tuple, epsilon, limit: int, work=None) -> bool:
    """Whether this term may go past `limit` (extra_per_die) with more than a sliver of
    epsilon: pool_distribution then counts to the limit, and misses that chance. (`work`:
    a Budget whose deadline it looks at, reading a die of many faces.)"""
    term = Term(die, count, steps, work or Budget(DEFAULT_BUDGET), limit)
    return count > 0 and term.may_fail(Fraction(epsilon))


def limit_failures(
    die, count: int, steps: tuple, epsilon, limit: int, missing: Fraction, budget_of=None
):
    """(the roller's error, its chance) for each way this term may fail at the limit,
    given the chance `missing` that it fails at all. The roller applies the modifiers
    one after another, each over every die, so the first modifier whose chain goes too
    far says why: the chance of failing by the first k modifiers is what the term misses
    when only their chains are followed to the limit. (`budget_of()`: a Budget for each
    count, with the caller's deadline.)"""
    epsilon = Fraction(epsilon)
    budget_of = budget_of or (lambda: Budget(DEFAULT_BUDGET))
    term = Term(die, count, steps, budget_of(), limit)
    term.may_fail(epsilon)
    binding = [op for op in term.ops if op in term.to_limit]
    groups: list = []  # (kind, the binding ops up to the end of this group)
    for index, op in enumerate(binding):
        kind = "reroll" if op[0] == "reroll" else "explode"  # as the roller words it
        if groups and groups[-1][0] == kind:
            groups[-1] = (kind, frozenset(binding[: index + 1]))
        else:
            groups.append((kind, frozenset(binding[: index + 1])))
    out, before = [], Fraction(0)
    delta = epsilon / (4 * max(count, 1) * max(term.open_ended, 1))
    for number, (kind, upto) in enumerate(groups):
        if number == len(groups) - 1:
            failing = missing
        else:
            part = Term(die, count, steps, budget_of(), limit)
            part.to_limit = upto
            weights, total = part.compute(delta)
            failing = Fraction(total - sum(weights.values()), total)
        message = (EXPLODED_PAST if kind == "explode" else REROLLED_PAST).fill(limit=limit)
        out.append((message, failing - before))
        before = failing
    return out


# ─── one term ───────────────────────────────────────────────────────────────


class Hits(frozenset):
    """The faces an op's test holds for; `face in hits` asks the test itself, so that a
    die showing what no face shows (a compounded 12) is tested too."""

    test: Callable[[Any], object]

    def __new__(cls, faces, test, work: Budget | None = None):
        hits = super().__new__(cls, (face for face in polled(faces, work) if test(face)))
        hits.test = test
        return hits

    def __contains__(self, face) -> bool:
        return bool(self.test(face))

    def __hash__(self) -> int:
        return frozenset.__hash__(self)


def polled(faces, work: Budget | None):
    """The faces, with a look at the deadline every 4,096 (a die may have a million)."""
    if work is None or len(faces) <= 4096:
        return faces
    return (face for i, face in enumerate(faces) if i & 4095 or _look(work))


def _look(work: Budget) -> bool:
    work.poll()  # (TooComplex once the deadline has passed)
    return True


class FaceValues(dict):
    """What each face adds to the term's value, computed for any face when first asked."""

    def __init__(self, of):
        super().__init__()
        self.of = of

    def __missing__(self, face):
        value = self[face] = self.of(face)
        return value


class Term(Keeps):
    """A dice term's die, count and modifiers, read once, and the ways to compute it."""

    def __init__(self, die, count: int, steps: tuple, work: Budget, limit: int, net=False):
        work.spend(die.size)
        faces = tuple(die.faces())
        self.faces, self.n, self.count, self.work = faces, len(faces), count, work
        self.limit = limit
        self.to_limit: frozenset = frozenset()  # ops followed to the roller's limit
        ops = []
        success: Any = None  # a face's test, once read
        failure: Any = None
        self.as_failures = False  # `cf`: the dice counted are failures
        escapes = False  # an op may leave a die showing what no face shows (12 for 1d6!!)
        for step in steps:
            kind = step[0]
            if kind == "keep":
                ops.append(("keep", step[1], step[2]))
            elif kind in CHAINS:
                once, test = step[1], step[2]
                if not once and all(test(face) for face in polled(faces, work)):
                    what = FACES_REROLLED if kind == "reroll" else FACES_EXPLODE
                    raise EvaluationError(
                        tr(
                            (
                                "every face of {label} {what} under this "
                                "condition, so the roll would never end"
                            ),
                            label=die.label,
                            what=what,
                        ),
                        step[3],
                    )
                hits = Hits(faces, test, work)
                if hits or escapes:
                    ops.append((kind, once, hits))
                escapes = escapes or kind in ("compound", "penetrate")
            elif kind == "clamp":
                ops.append(step)
                escapes = True
            elif kind == "successes":
                success = step[1]
            elif kind == "fail_count":
                success, self.as_failures = step[1], True
            elif kind == "failures":
                failure = step[1]
        self.ops = tuple(ops)
        self.distinct = len(set(faces)) == len(faces)
        self.counts = success is not None
        # the additive value of one kept face: the face; or its success (1 or 0); or, when
        # failures count too, successes << 32 | failures (both add up independently)
        self.packed = self.counts and failure is not None and not net
        if net and self.counts and failure is not None:  # the difference alone
            self.counts = False
            self.value = FaceValues(lambda f: int(bool(success(f))) - int(bool(failure(f))))
        elif self.packed:
            self.value = FaceValues(lambda f: (bool(success(f)) << SHIFT) | bool(failure(f)))
        elif self.counts:
            self.value = FaceValues(lambda f: int(bool(success(f))))
        else:
            self.value = FaceValues(lambda f: f)
        self.open_ended = sum(1 for op in ops if op[0] in OPEN_ENDED and not op[1])

    def may_fail(self, epsilon) -> bool:
        """Whether the dice may go past the limit with a chance of epsilon or more (a
        chain goes on with the chance that a fresh die meets the test, hits / n); those
        chains are then followed to the limit (`to_limit`)."""
        chains = [op for op in self.ops if op[0] in CHAINS]
        if not chains:
            return False
        if self.limit <= 0:
            self.to_limit = frozenset(chains)
            return True
        # below epsilon, a failure is as much left out as any chain epsilon cuts short
        share = epsilon / max(self.count, 1)
        n = self.n
        binding = set()
        for op in chains:
            if op[1]:  # once: one extra die, within any limit but 0
                continue
            h = sum(1 for face in self.faces if face in op[2])
            if reaches(h, n, self.limit, share):
                binding.add(op)
        self.to_limit = frozenset(binding)
        return bool(binding)

    def outcomes(self, weights: dict, total: int) -> Dist:
        if self.packed:
            out = {}
            for key, weight in weights.items():
                s, f = key >> SHIFT, key & LOW
                out[(s - f, s, f)] = weight
        elif self.as_failures:
            out = {(key, None, key): weight for key, weight in weights.items()}
        elif self.counts:
            out = {(key, key, 0): weight for key, weight in weights.items()}
        else:
            out = {(key, None, None): weight for key, weight in weights.items()}
        return Dist(out, total).reduced()

    # ── the plan ──

    def compute(self, delta):
        ops, count = self.ops, self.count
        keeps = [i for i, op in enumerate(ops) if op[0] == "keep"]
        if not keeps:
            per_die = self.per_die(ops, self.add_leaf, None, delta)
            power = power_counts if self.packed else power_sum
            return power(per_die, count, self.work)
        first, last = keeps[0], keeps[-1]
        before, middle, after = ops[:first], ops[first : last + 1], ops[last + 1 :]
        if after:
            walker = Walker(self, after, self.add_leaf, None, delta)
            value: Any = {face: walker.face(0, face) for face in self.kept_faces(before, delta)}
        else:
            value = PLAIN  # each kept face adds its own value
        only_keeps = all(op[0] == "keep" for op in middle)
        if only_keeps and not any(op[0] in GROWS for op in before):
            lo, hi = keep_range(middle, count)
            faces = self.per_die(before, self.face_leaf, None, delta)
            return self.order_statistics(faces, lo, hi, value)
        single = len(before) == 1 and before[0][0] == "explode" and not before[0][1]
        single = single and self.distinct and not self.to_limit  # the limit is per die
        if only_keeps and single:
            found = self.split_explosion(before[0][2], middle, value, delta)
            if found is not None:
                return found
        if only_keeps:
            ends = keep_ends(middle, count)
            if ends is not None:
                return self.extremes(before, *ends, value, delta)
        return self.general(before, middle, value, delta)

    def kept_faces(self, before, delta):
        """What a die may show after the ops before the keeps (its faces, unless an op
        such as `!!` or `min` makes it show something else)."""
        if not any(op[0] in ESCAPE for op in before):
            return self.faces
        # every face a die of the pool may show: a die's own and its extra dice's (a
        # penetrating one shows one less)
        walker = Walker(self, before, lambda face: ({(face,): 1}, 1), _union, delta)
        shown: set = set()
        for face in self.faces:
            for faces in walker.face(0, face)[0]:
                shown.update(faces)
        return tuple(sorted(shown))

    def add_leaf(self, face):
        return {self.value[face]: 1}, 1

    def face_leaf(self, face):
        return {face: 1}, 1

    def per_die(self, ops, leaf, merge, delta):
        """The distribution of one base die's summary after `ops`."""
        if not ops and leaf == self.add_leaf:
            out: dict = {}
            for face in self.faces:
                key = self.value[face]
                out[key] = out.get(key, 0) + 1
            return out, self.n
        if not ops and leaf == self.face_leaf:
            return face_weights(self.faces), self.n
        walker = Walker(self, ops, leaf, merge, delta)
        return mix([(1, walker.face(0, face)) for face in self.faces], self.n, self.work)


# ─── questions about the pool's kept dice (interpreter.pool) ────────────────


def pool_answers(
    die,
    count: int,
    steps: tuple,
    questions: tuple,
    epsilon=DEFAULT_EPSILON,
    budget: int | Budget = DEFAULT_BUDGET,
    limit: int = DEFAULT_LIMITS.extra_per_die,
):
    """The joint distribution of order-free questions' answers about one dice term, as a
    Dist of answer tuples, counted over multisets (interpreter.odds.multiset). Raises
    Explosions, in any order with the other modifiers, are counted in parts of
    independent dice (interpreter.odds.exploding). NotImplementedError for a reroll or
    clamp after a keep in a pool that does not explode: the caller enumerates those.
    A term that may fail at the roller's limit (limit_failure) is counted in the worlds
    where it does not: the answers are conditioned on the roll finishing."""
    work = budget if isinstance(budget, Budget) else Budget(budget)
    term = Term(die, count, steps, work, limit)
    if count > 0:
        term.may_fail(Fraction(epsilon))
    ops = term.ops
    keeps = [i for i, op in enumerate(ops) if op[0] == "keep"]
    before, middle = (ops[: keeps[0]], ops[keeps[0] :]) if keeps else (ops, ())
    success = failure = None
    for step in steps:
        if step[0] == "successes":
            success = step[1]
        elif step[0] == "failures":
            failure = step[1]
    evaluators = [evaluator_for(q, success, failure) for q in questions]
    if count <= 0:  # as roll_pool: no dice, whatever the modifiers (nothing to count)
        return Dist({tuple(e.final(e.start) for e in evaluators): 1}, 1)
    if any(op[0] in GROWS for op in ops):  # explosions change how many dice there are
        return exploding_answers(term, evaluators, epsilon)
    if any(op[0] != "keep" for op in middle):
        raise NotImplementedError("a reroll after a keep")
    lo, hi = 0, count
    if middle:
        top_lo, top_hi = keep_range(middle, count)
        lo, hi = count - top_hi, count - top_lo
    if not before:
        out, den = evaluate(face_weights(term.faces), max(count, 0), lo, hi, evaluators, work)
        return Dist(out, den).reduced()
    # each die's face after its rerolls, compounding or clamps: an open-ended one (`!!`)
    # followed until less than epsilon is left out of the pool, and that mass omitted; a
    # chain that may reach the roller's limit (to_limit) counted where it does not
    epsilon = Fraction(epsilon)
    delta = epsilon / (4 * max(count, 1) * max(term.open_ended, 1))
    for _ in range(8):
        weights, total = term.per_die(before, term.face_leaf, None, delta)
        kept = sum(weights.values())
        if term.to_limit or not term.open_ended:
            total = kept
        missing = 1 - Fraction(kept, total) ** max(count, 0)
        if missing < epsilon:
            out, _ = evaluate(weights, max(count, 0), lo, hi, evaluators, work)
            return Dist(out, total ** max(count, 0)).reduced()
        delta = delta * epsilon / (4 * missing)
    raise TooComplex(tr("the explosions of this term do not settle within epsilon"))


def evaluator_for(question, success, failure):
    def counted(test):
        return (lambda face: 1 if test(face) else 0) if test is not None else None

    wins, losses = counted(success), counted(failure)
    if wins is not None and losses is None:
        losses = counted(lambda face: False)  # a term counting successes has 0 failures
    if wins is None:

        def value(face):  # each kept face adds itself
            return face

    else:

        def value(face):
            return wins(face) - losses(face)

    found = evaluator(question, value, wins, losses)
    return found if found is not None else Constant()


def face_weights(faces: tuple) -> dict:
    weights: dict = {}
    for face in faces:
        weights[face] = weights.get(face, 0) + 1
    return weights


def group_total(terms: list, keeps: tuple, epsilon, limit: int, budget=DEFAULT_BUDGET) -> Dist:
    """`{4d6+3d8}k4`: the distribution of the kept dice's sum over the dice of several
    terms (die, count, steps), counted as one mixed pool. NotImplementedError for terms
    whose dice are not independent draws (explosions, keeps, counts of their own)."""
    work = budget if isinstance(budget, Budget) else Budget(budget)
    pools = []
    for die, count, steps in terms:
        term = Term(die, count, steps, work, limit)
        if count > 0:
            term.may_fail(Fraction(epsilon))
        if term.counts or any(op[0] in GROWS or op[0] == "keep" for op in term.ops):
            raise NotImplementedError("a term of a group with keeps, counts or explosions")
        if term.ops:
            weights, _ = term.per_die(term.ops, term.face_leaf, None, None)
        else:
            weights = face_weights(term.faces)
        pools.append((weights, max(count, 0)))
    size = sum(count for _, count in pools)
    top_lo, top_hi = keep_range([step[:3] for step in keeps], size)
    total = evaluator(Total(), lambda face: face, None, None)
    out, den = evaluate_mixed(pools, size - top_hi, size - top_lo, [total], work)
    return Dist({answer[0]: weight for answer, weight in out.items()}, den).reduced()


def kept_values(dists: list, keeps: tuple, budget: Budget) -> Dist | None:
    """`{1d8x, 1d6x}kh1`: the sum kept of several independent numbers (each a Dist of
    ints) counted as a mixed pool of one die each, face by face from the highest, instead
    of over every combination of their values; None when a value is not a number or a
    step is not a keep. What each value leaves out (an explosion cut short) is left out of
    the product, over the product of their totals."""
    pools = []
    total = 1
    for dist in dists:
        if type(dist) is int:
            dist = Dist.point(dist)
        if type(dist) is not Dist or any(type(k) is not int for k in dist.weights):
            return None
        pools.append((dist.weights, 1))
        total *= dist.total
    if not keeps or any(step[0] != "keep" for step in keeps):
        return None
    size = len(pools)
    top_lo, top_hi = keep_range([step[:3] for step in keeps], size)
    if top_hi - top_lo == 1 and (top_lo == 0 or top_hi == size):  # the highest or lowest
        return Dist(extreme([weights for weights, _ in pools], top_lo == 0), total).reduced()
    summed = evaluator(Total(), lambda face: face, None, None)
    out, _ = evaluate_mixed(pools, size - top_hi, size - top_lo, [summed], budget)
    return Dist({answer[0]: weight for answer, weight in out.items()}, total).reduced()


# ─── terms counted before ───────────────────────────────────────────────────
def _union(a: tuple, b: tuple) -> tuple:
    """The faces either summary shows (kept_faces' merge)."""
    return tuple(sorted(set(a) | set(b)))
