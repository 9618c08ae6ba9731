"""The exact distribution of one dice term, counted combinatorially (never by listing rolls)."""

from __future__ import annotations

from fractions import Fraction

from dsl.messages import tr
from interpreter.errors import EvaluationError
from interpreter.odds.distribution import Dist
from interpreter.odds.keeps import PLAIN, Keeps, keep_ends, keep_range
from interpreter.odds.multiset import Constant, evaluate, evaluator
from interpreter.odds.polynomials import (
    LOW,
    SHIFT,
    Budget,
    TooComplex,
    mix,
    power_counts,
    power_sum,
)
from interpreter.odds.walker import Walker

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
DEFAULT_BUDGET = 10_000_000
#: the mass an open-ended roll may leave out, when the caller does not say
DEFAULT_EPSILON = Fraction(1, 10**12)


def pool_distribution(
    die, count: int, steps: tuple, epsilon=DEFAULT_EPSILON, budget: int = DEFAULT_BUDGET
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
    """
    epsilon = Fraction(epsilon)
    if epsilon <= 0:
        raise ValueError("epsilon must be positive")
    work = Budget(budget)
    term = Term(die, count, steps, work)
    if count <= 0:  # as roll_pool: no dice, whatever the modifiers
        return term.outcomes({0: 1}, 1)
    if not term.open_ended:
        return term.outcomes(*term.compute(None))
    delta = epsilon / (4 * max(count, 1) * term.open_ended)
    for _ in range(8):
        weights, total = term.compute(delta)
        missing = Fraction(total - sum(weights.values()), total)
        if missing < epsilon:
            return term.outcomes(weights, total)
        delta = delta * epsilon / (4 * missing)
    raise TooComplex("the explosions of this term do not settle within epsilon")


# ─── one term ───────────────────────────────────────────────────────────────


class Term(Keeps):
    """A dice term's die, count and modifiers, read once, and the ways to compute it."""

    def __init__(self, die, count: int, steps: tuple, work: Budget):
        work.spend(die.size)
        faces = tuple(die.faces())
        self.faces, self.n, self.count, self.work = faces, len(faces), count, work
        ops = []
        success = failure = None
        for step in steps:
            kind = step[0]
            if kind == "keep":
                ops.append(("keep", step[1], step[2]))
            elif kind == "explode" or kind == "reroll":
                once, test = step[1], step[2]
                hits = frozenset(face for face in faces if test(face))
                if not once and len(hits) == len(faces):
                    what = "explodes" if kind == "explode" else "is rerolled"
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
                if hits:
                    ops.append((kind, once, hits))
            elif kind == "successes":
                success = step[1]
            else:
                failure = step[1]
        self.ops = tuple(ops)
        self.counts = success is not None
        # the additive value of one kept face: the face; or its success (1 or 0); or, when
        # failures count too, successes << 32 | failures (both add up independently)
        self.packed = self.counts and failure is not None
        if self.packed:
            self.value = {
                face: (bool(success(face)) << SHIFT) | bool(failure(face)) for face in faces
            }
        elif self.counts:
            self.value = {face: int(bool(success(face))) for face in faces}
        else:
            self.value = {face: face for face in faces}
        self.open_ended = sum(1 for op in ops if op[0] == "explode" and not op[1])

    def outcomes(self, weights: dict, total: int) -> Dist:
        if self.packed:
            out = {}
            for key, weight in weights.items():
                s, f = key >> SHIFT, key & LOW
                out[(s - f, s, f)] = weight
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
            value = {face: walker.face(0, face) for face in self.faces}
        else:
            value = PLAIN  # each kept face adds its own value
        only_keeps = all(op[0] == "keep" for op in middle)
        if only_keeps and not any(op[0] == "explode" for op in before):
            lo, hi = keep_range(middle, count)
            faces = self.per_die(before, self.face_leaf, None, delta)
            return self.order_statistics(faces, lo, hi, value)
        if only_keeps and len(before) == 1 and before[0][0] == "explode" and not before[0][1]:
            found = self.split_explosion(before[0][2], middle, value, delta)
            if found is not None:
                return found
        if only_keeps:
            ends = keep_ends(middle, count)
            if ends is not None and (ends[2] is not None or not after):
                return self.extremes(before, *ends, value, delta)
        return self.general(before, middle, value, delta)

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
            return dict.fromkeys(self.faces, 1), self.n
        walker = Walker(self, ops, leaf, merge, delta)
        return mix([(1, walker.face(0, face)) for face in self.faces], self.n)


# ─── questions about the pool's kept dice (interpreter.pool) ────────────────


def pool_answers(die, count: int, steps: tuple, questions: tuple, budget: int = DEFAULT_BUDGET):
    """The joint distribution of order-free questions' answers about one dice term, as a
    Dist of answer tuples, counted over multisets (interpreter.odds.multiset). Raises
    NotImplementedError for terms whose dice are not independent draws kept at fixed
    sorted positions (explosions; rerolls after a keep): the caller enumerates those."""
    work = Budget(budget)
    term = Term(die, count, steps, work)
    ops = term.ops
    if any(op[0] == "explode" for op in ops):
        raise NotImplementedError("explosions change how many dice there are")
    keeps = [i for i, op in enumerate(ops) if op[0] == "keep"]
    before, lo, hi = ops, 0, count
    if keeps:
        before, middle = ops[: keeps[0]], ops[keeps[0] :]
        if any(op[0] != "keep" for op in middle):
            raise NotImplementedError("a reroll after a keep")
        top_lo, top_hi = keep_range(middle, count)
        lo, hi = count - top_hi, count - top_lo
    success = failure = None
    for step in steps:
        if step[0] == "successes":
            success = step[1]
        elif step[0] == "failures":
            failure = step[1]
    evaluators = [evaluator_for(q, success, failure) for q in questions]
    if before:
        weights, _ = term.per_die(before, term.face_leaf, None, None)
    else:
        weights = face_weights(term.faces)
    out, den = evaluate(weights, max(count, 0), lo, hi, evaluators, work)
    return Dist(out, den).reduced()


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
