"""Questions about a pool answered by counting multisets, never rolls (as icepool evaluates).

A pool of N independent dice with the same face weights is a multiset of faces. Walking the
faces from the lowest up, a state is (dice not yet placed, what the questions have seen so
far); at each face, c of the r dice left show it, with C(r, c) · w^c ways, and the kept
ones among them are those whose sorted positions fall in the kept window [lo, hi). The
questions see each face once, with how many kept dice show it, so their states stay small
(a count, the highest face so far, the largest set so far), and the work is about
faces × N² × states, whatever the number of ordered rolls (6^20 for 20d6).

Four refinements: neighbouring faces every question treats alike (2, 3 and 4 for "count
the 1s and the 5s and 6s") are walked as one; once every kept position is filled, the
dice left cannot matter, and their weight is taken at once (so too once every question
has its answer: the n lowest seen, `filled`); when every die is kept and
every question takes the faces in any order, they come in the order that keeps the states
few (most_sets: a face beside the face it pairs with).

Each question's evaluator here must agree with `Question.of_kept` (interpreter.pool), which
defines it; tests hold the two together.
"""

from __future__ import annotations

import itertools
from operator import add

from dsl.messages import tr
from interpreter.grouping import Grouping, TooMuchGrouping
from interpreter.odds.polynomials import TooComplex, binomials
from interpreter.pool import (
    Count,
    Failures,
    Highest,
    LargestSet,
    Lowest,
    MostSets,
    Sets,
    Sorted,
    Successes,
    Summed,
    Total,
    set_record,
)

# ─── evaluators: one per question, over faces from the lowest up ────────────
# key(face): faces with equal keys, side by side, may be walked as one;
# step(state, face, c): c > 0 kept dice show `face`; final(state): the answer;
# any_order: the faces may come in any order (every die kept), and order(face, faces),
# where given, is the order that keeps the states few (interpreter.grouping's pairs side
# by side).


class CountOf:
    any_order = True
    additive = True  # each kept die adds step(0, face, 1), the answer is the sum: `added`
    fills = False  # (True: filled(state) says when no face to come can change the answer)

    def __init__(self, test):
        self.test = test
        self.start = 0

    def key(self, face):
        return bool(self.test(face))

    def step(self, state, face, c):
        return state + c if self.test(face) else state

    def final(self, state):
        return state


class SumOf:
    """The total, successes or failures: each kept face adds its value."""

    any_order = True
    additive = True
    fills = False

    def __init__(self, value):
        self.value = value
        self.start = 0

    def key(self, face):
        return self.value(face)

    def step(self, state, face, c):
        return state + self.value(face) * c

    def final(self, state):
        return state


class ByFace:
    """Questions that tell faces apart (highest, lowest, sorted, sets)."""

    any_order = False
    additive = False
    fills = False

    def key(self, face):
        return face


class HighestOf(ByFace):
    def __init__(self, n):
        self.n = n
        self.start = () if n is not None else None

    def step(self, state, face, c):
        if self.n is None:
            return face
        if self.n == 0:
            return state
        return (state + (face,) * min(c, self.n))[-self.n :]

    def final(self, state):
        return state if self.n is None else tuple(reversed(state))


class LowestOf(ByFace):
    fills = True

    def __init__(self, n):
        self.n = n
        self.start = () if n is not None else None

    def step(self, state, face, c):
        if self.n is None:
            return face if state is None else state
        room = self.n - len(state)
        return state + (face,) * min(c, room) if room > 0 else state

    def filled(self, state) -> bool:  # the n lowest seen: the higher faces change nothing
        return state is not None if self.n is None else len(state) >= self.n

    def final(self, state):
        return state


class SummedOf(ByFace):
    """The n highest (lowest) kept dice added up: the state is how many kept dice came so
    far and their sum within the window of the n, which bind() places among the kept."""

    start = (0, 0)
    fills = True

    def __init__(self, n: int, highest: bool):
        self.n, self.highest = n, highest
        self.window = (0, n)

    def bind(self, kept: int) -> None:
        """The kept dice's number, this walk's: the n highest are the last n of them."""
        self.window = (max(kept - self.n, 0), kept) if self.highest else (0, self.n)

    def step(self, state, face, c):
        seen, total = state
        low, high = self.window
        inside = min(seen + c, high) - max(seen, low)
        return (seen + c, total + face * inside if inside > 0 else total)

    def final(self, state):
        return state[1]

    def filled(self, state) -> bool:
        return state[0] >= self.window[1]


class SortedFaces(ByFace):
    start = ()

    def step(self, state, face, c):
        return state + (face,) * c

    def final(self, state):
        return state


class SetsOf(ByFace):
    start = ()

    def step(self, state, face, c):
        return (*state, (face, c))

    def final(self, state):
        ordered = sorted(state, key=lambda item: (-item[1], -item[0]))
        return tuple(set_record(face, size) for face, size in ordered)


class LargestSetOf(ByFace):
    start = (0, None)  # (size, face)

    def step(self, state, face, c):
        return (c, face) if c >= state[0] else state  # a later face is higher: it wins ties

    def final(self, state):
        return set_record(state[1], state[0])


class MostSetsOf(ByFace):
    """The reductions of interpreter.grouping made face by face (the state: what they
    counted, and the faces left to place, as sorted (face, how many) pairs); the search,
    with one memory, for what is left at the end."""

    start = (0, ())
    any_order = True

    def __init__(self, thresholds):
        self.grouping = Grouping(thresholds)
        self.solved: dict = {}  # the faces left → their best split

    def bind(self, work) -> None:
        """Count the search's steps as work (and look at the deadline)."""
        self.grouping.spend = lambda: work.spend(SEARCH_STEP_WORK)

    def order(self, face, faces):
        """A face beside the face it pairs with (1, 9, 2, 8, ... for sets of 10), and the
        faces that pair with none of `faces` last: the states then hold what is left of
        each pair, and every multiset of the others only at the end."""
        grouping = self.grouping
        other = grouping.ts[-1] - face
        if grouping.worth(face) == grouping.top or (grouping.pairs and other in faces):
            return (0, min(face, other), face)
        return (1, face, face)

    def step(self, state, face, c):
        # grouping.add on the state's tuple itself (its faces sorted, each once): a face
        # takes the dice it pairs with from the faces before it, then joins them
        score, pairs = state
        grouping = self.grouping
        if face <= 0:
            return state
        if grouping.worth(face) == grouping.top:
            return score + grouping.top * c, pairs
        if grouping.pairs:
            other = grouping.ts[-1] - face
            if other == face:
                score, c = score + grouping.top * (c // 2), c % 2
            else:
                for i, (held, k) in enumerate(pairs):
                    if held == other:
                        paired = min(c, k)
                        score, c = score + grouping.top * paired, c - paired
                        kept = ((held, k - paired),) if k > paired else ()
                        pairs = pairs[:i] + kept + pairs[i + 1 :]
                        break
        if not c:
            return score, pairs
        at = 0
        while at < len(pairs) and pairs[at][0] < face:
            at += 1
        return score, (*pairs[:at], (face, c), *pairs[at:])

    def final(self, state):
        score, pairs = state
        solved = self.solved.get(pairs)
        if solved is not None:
            return score + solved
        try:
            solved = self.grouping.solve_left(tuple(f for f, c in pairs for _ in range(c)))
            self.solved[pairs] = solved
            return score + solved
        except TooMuchGrouping:
            raise TooComplex(tr("more sets to try than most_sets looks at")) from None


def evaluator(question, value, success, failure):
    """The evaluator of one order-free question, for a term whose kept faces add
    value(face) to its total, and count success(face) and failure(face)."""
    kind = type(question)
    if kind is Count:
        return CountOf(question.test)
    if kind is Total:
        return SumOf(value)
    if kind is Successes:
        return SumOf(success) if success is not None else None
    if kind is Failures:
        return SumOf(failure) if failure is not None else None
    if kind is Highest:
        return HighestOf(question.n)
    if kind is Lowest:
        return LowestOf(question.n)
    if kind is Summed:
        if type(question.of) is Sorted:  # (every kept die: each adds its face)
            return SumOf(_itself)
        return SummedOf(question.of.n, type(question.of) is Highest)
    if kind is Sorted:
        return SortedFaces()
    if kind is Sets:
        return SetsOf()
    if kind is LargestSet:
        return LargestSetOf()
    if kind is MostSets:
        return MostSetsOf(question.thresholds)
    raise NotImplementedError(kind.__name__)


def _itself(face):
    return face


class Constant:
    """A question the term answers the same way whatever falls (`successes` of a term
    that does not count them: none)."""

    start = None
    any_order = True
    additive = False
    fills = True

    def filled(self, state) -> bool:  # noqa: ARG002 (as every evaluator's)
        return True

    def key(self, face):  # noqa: ARG002 (a pool question's key, step and final)
        return None

    def step(self, state, face, c):  # noqa: ARG002 (a pool question's key, step and final)
        return state

    def final(self, state):  # noqa: ARG002 (a pool question's key, step and final)
        return None


# ─── the walk ───────────────────────────────────────────────────────────────

#: work (units of about 0.1 µs) one step of most_sets' search counts for
SEARCH_STEP_WORK = 30
#: work one way of placing dice at a face counts for (the evaluators' steps, two products
#: of big weights, a dictionary update: 1.2-2.6 µs measured; counted as 1, `highest(8d10!!,
#: 2)` cost 204 µs a unit of the odds budget, the safety stop's 300 near: odds_units.py)
PLACING_WORK = 4
#: work one split of a mixed pool's state counts for (a tuple of counts, a product of big
#: binomial weights, a dictionary update: about 2 µs)
SPLIT_WORK = 5


def bind(evaluators: list, work, kept: int) -> None:
    """Evaluators that work at the end (most_sets' search) count it in the budget; those
    that take some of the kept dice (sums of the highest) are told how many are kept."""
    for e in evaluators:
        if isinstance(e, MostSetsOf):  # (the one evaluator with a search of its own)
            e.bind(work)
        elif type(e) is SummedOf:
            e.bind(kept)


#: whether a walk whose every question has its answer (the lowest n seen) stops there,
#: the dice left taking their weight at once, whatever they show
FILLING = True


def filling(evaluators: list) -> bool:
    """Whether every evaluator can say its answer is settled before the last face."""
    return FILLING and all(e.fills for e in evaluators)


def filled(evaluators: list, state: tuple) -> bool:
    return all(e.filled(s) for e, s in zip(evaluators, state))


def evaluate(weights: dict, count: int, lo: int, hi: int, evaluators: list, work) -> tuple:
    """The joint answers of `evaluators` over `count` dice with these face weights, kept
    at sorted positions [lo, hi) counted from the lowest: (answers → weight, denominator).
    (evaluate_mixed for one kind of die, written out: the commonest case, and the hot
    loop of every pool question.)"""
    full = lo <= 0 and hi >= count
    if ADDED and full and all(e.additive for e in evaluators):
        return added(weights, count, evaluators, work)
    bind(evaluators, work, min(hi, count) - max(lo, 0))
    fills = filling(evaluators)
    groups = [(face, ws[0]) for face, ws in face_groups([weights], evaluators, full)]
    den = sum(weights.values())
    states = {(count, tuple(e.start for e in evaluators)): 1}
    done: dict = {}
    rest = den
    rows: dict = {}
    for face, w in groups:
        rest -= w
        new: dict = {}
        moves: dict = {}  # (state, kept) → the state after this face
        powers = [1]
        for (left, state), x in states.items():
            work.spend((left + 1) * PLACING_WORK)  # (and a look at the deadline)
            placed = count - left
            if placed >= hi or left == 0 or (fills and filled(evaluators, state)):
                # no kept position left to fill, or none that could change an answer
                done[state] = done.get(state, 0) + x * (w + rest) ** left
                continue
            row = rows.get(left)
            if row is None:
                row = rows[left] = binomials(left, left + 1, work)
            while len(powers) <= left:
                powers.append(powers[-1] * w)
            for c in range(left + 1) if rest else (left,):
                kept = min(placed + c, hi) - max(placed, lo)
                moved = state
                if kept > 0:
                    found = moves.get((state, kept))
                    if found is None:
                        found = moves[(state, kept)] = tuple(
                            e.step(s, face, kept) for e, s in zip(evaluators, state)
                        )
                    moved = found
                key = (left - c, moved)
                new[key] = new.get(key, 0) + x * row[c] * powers[c]
        states = new
    return answers(states, done, evaluators), den**count


#: whether every die kept and asked only what each die adds (counts, totals, successes)
#: is counted by the amounts the faces add (`added`), not face by face
ADDED = True


def added(weights: dict, count: int, evaluators: list, work) -> tuple:
    """evaluate's answers where every die is kept and each evaluator adds an amount per
    die (`additive`): the faces grouped by the amounts they add, wherever they lie (for
    "count the 1s and the 6s", the 1s, the 6s, and 2 to 5 adding nothing), and c of the
    r dice left given to each group in turn, C(r, c) · w^c ways; the faces adding
    nothing take the dice left at the end, with no step of their own."""
    zero = tuple(e.start for e in evaluators)  # (0: what no die has added)
    classes: dict = {}
    for face, w in weights.items():
        if w:
            amounts = tuple(e.step(s, face, 1) for e, s in zip(evaluators, zero))
            classes[amounts] = classes.get(amounts, 0) + w
    last, rest = zero, classes.pop(zero, 0)
    if not rest and classes:  # (every face adds: the last group takes the dice left)
        last = next(reversed(classes))
        rest = classes.pop(last)
    states = {(count, zero): 1}  # (dice left, the amounts added so far) → ways
    rows: dict = {}
    for amounts, w in classes.items():
        new: dict = {}
        added_by = [tuple(c * a for a in amounts) for c in range(count + 1)]  # c dice's
        for (left, sums), x in states.items():
            work.spend(left + 1)
            row = rows.get(left)
            if row is None:
                row = rows[left] = binomials(left, left + 1, work)
            new[(left, sums)] = new.get((left, sums), 0) + x  # (none of them here)
            ways = x
            for c in range(1, left + 1):
                ways *= w
                key = (left - c, tuple(map(add, sums, added_by[c])))
                new[key] = new.get(key, 0) + ways * row[c]
        states = new
    out: dict = {}
    for (left, sums), x in states.items():
        if left:
            sums = tuple(s + left * a for s, a in zip(sums, last))
            x *= rest**left
        out[sums] = out.get(sums, 0) + x  # (an additive evaluator's answer: its state)
    return out, sum(weights.values()) ** count


def evaluate_mixed(pools: list, lo: int, hi: int, evaluators: list, work) -> tuple:
    """The same for a pool of several kinds of dice, (face weights, how many) each (as
    `{4d6+3d8}k4`): at each face, c_t of the r_t dice of each kind show it."""
    count = sum(n for _, n in pools)
    bind(evaluators, work, min(hi, count) - max(lo, 0))
    fills = filling(evaluators)
    full = lo <= 0 and hi >= count
    groups = face_groups([weights for weights, _ in pools], evaluators, full)
    kinds = range(len(pools))
    den = 1
    for weights, n in pools:
        den *= sum(weights.values()) ** n
    starts = tuple(e.start for e in evaluators)
    states = {(tuple(n for _, n in pools), starts): 1}
    done: dict = {}
    rest = [sum(weights.values()) for weights, _ in pools]  # weight of the faces still to come
    rows: dict = {}
    for face, ws in groups:
        rest = [r - w for r, w in zip(rest, ws)]
        new: dict = {}
        moves: dict = {}  # (state, kept) → the state after this face: many lefts share one
        for (lefts, state), x in states.items():
            placed = count - sum(lefts)
            if placed >= hi or placed == count or (fills and filled(evaluators, state)):
                work.spend(len(lefts))
                settled = x
                for t in kinds:
                    settled *= (ws[t] + rest[t]) ** lefts[t]
                done[state] = done.get(state, 0) + settled
                continue
            ways = SPLIT_WORK  # the splits below (and a look at the deadline)
            for t in kinds:
                if rest[t] and ws[t]:  # (else one way: splits)
                    ways *= lefts[t] + 1
            work.spend(ways)
            for i, (shown, ways) in enumerate(splits(lefts, ws, rest, rows, work)):
                if not i & 1023:  # a state of several kinds may split a million ways
                    work.poll()
                c = sum(shown)
                kept = min(placed + c, hi) - max(placed, lo)
                moved = state
                if kept > 0:
                    found = moves.get((state, kept))
                    if found is None:
                        found = moves[(state, kept)] = tuple(
                            e.step(s, face, kept) for e, s in zip(evaluators, state)
                        )
                    moved = found
                key = (tuple(left - k for left, k in zip(lefts, shown)), moved)
                new[key] = new.get(key, 0) + x * ways
        states = new
    return answers(states, done, evaluators), den


def answers(states: dict, done: dict, evaluators: list) -> dict:
    """The answers of the states every die has been placed in, with their weights."""
    for (_, state), x in states.items():
        done[state] = done.get(state, 0) + x
    out: dict = {}
    for state, x in done.items():
        answer = tuple(e.final(s) for e, s in zip(evaluators, state))
        out[answer] = out.get(answer, 0) + x
    return out


def splits(lefts: tuple, ws: list, rest: list, rows: dict, work):
    """How many dice of each kind show this face, and the ways: Π C(r, c) · w^c. A kind
    with no face after this one puts all its dice here."""
    choices = []
    for left, w, after in zip(lefts, ws, rest):
        if not after:
            choices.append([(left, w**left)])
        elif not w:
            choices.append([(0, 1)])
        else:
            row = rows.get(left)
            if row is None:
                row = rows[left] = binomials(left, left + 1, work)
            taken, power = [], 1
            for c in range(left + 1):
                taken.append((c, row[c] * power))
                power *= w
                if not c & 255:
                    work.poll()
            choices.append(taken)
    if len(choices) == 1:
        for c, ways in choices[0]:
            yield (c,), ways
        return
    for combo in itertools.product(*choices):
        ways = 1
        for _, w in combo:
            ways *= w
        yield tuple(c for c, _ in combo), ways


def face_groups(pools: list, evaluators: list, full: bool = False) -> list:
    """(face, [weight in each kind of die]) from the lowest face up, neighbours every
    evaluator treats alike walked as one (the first face of a group stands for it).
    `full`: every die is kept; if every evaluator takes the faces in any order, they
    come in the order the evaluators prefer."""
    groups: list = []
    last = None
    faces = sorted({f for weights in pools for f, w in weights.items() if w})
    if full and all(e.any_order for e in evaluators):
        ordering = [e.order for e in evaluators if isinstance(e, MostSetsOf)]
        if ordering:
            present = frozenset(faces)
            faces.sort(key=lambda f: (*(order(f, present) for order in ordering), f))
    for face in faces:
        ws = [weights.get(face, 0) for weights in pools]
        key = tuple(e.key(face) for e in evaluators)
        if groups and key == last:
            groups[-1][1] = [a + b for a, b in zip(groups[-1][1], ws)]
        else:
            groups.append([face, ws])
            last = key
    return [tuple(g) for g in groups]


def extreme(weights: list, highest: bool) -> dict:
    """The highest (or lowest) of independent numbers, each {value: weight}: the ways it
    is at most x are the product of each one's ways to be at most x (at least x, for the
    lowest), so each value's ways are that product less the one of the value before.
    Values times numbers, where their multiset would walk every split of them."""
    values = sorted({value for each in weights for value in each}, reverse=not highest)
    running = [0] * len(weights)  # each number's ways up to the value reached
    out: dict = {}
    before = 0
    for value in values:
        product = 1
        for i, each in enumerate(weights):
            running[i] += each.get(value, 0)
            product *= running[i]
        if product != before:
            out[value] = product - before
            before = product
    return out
