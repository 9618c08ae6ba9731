"""Dice, the sources they come from, and the rolling of one dice term.

A dice source answers one question: what does the next die show? Three sources:

- `SeededDice(seed)`: reproducible on every run and platform. The generator is MT19937
  (Python's `random.Random(seed)`), read only through `getrandbits`; a face is drawn by
  rejection sampling (`k = n.bit_length()` bits, again while the number is >= n), so the
  same seed gives the same faces on any Python 3.
- `ForcedDice(values)`: the faces given, in draw order (worked examples, tests).
- `TypedDice(ask)`: a person rolls physical dice and types each face in.

Order of draws, which is what forced dice follow: a term's N base dice left to right;
then each modifier in the order written, going over the dice left to right and drawing
extra dice as it reaches each one (an exploding die's chain is drawn at once, before
the next die's).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dsl.errors import Span
from dsl.messages import Message, tr, tr_n
from interpreter.errors import (
    EXPLODED_PAST,
    FACES_EXPLODE,
    FACES_REROLLED,
    REROLLED_PAST,
    ChainTooLong,
    DiceError,
    EvaluationError,
    LimitExceeded,
)
from interpreter.limits import Limits
from interpreter.pool import DROPPED, KEPT, REROLLED, Rolled

_COMPARE = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "=": operator.eq,
    "!=": operator.ne,
}


class Die:
    """A die whose faces are the whole numbers from `low` to `high`, or the faces it
    lists (`d{1,1,2,3}`: a face listed twice comes up twice as often)."""

    __slots__ = ("bits", "high", "key", "label", "listed", "low", "size")

    def __init__(self, low: int, high: int, label: str, listed: tuple | None = None):
        self.low, self.high, self.label, self.listed = low, high, label, listed
        self.size = high - low + 1 if listed is None else len(listed)
        self.bits = self.size.bit_length()
        self.key: tuple[Any, ...] = (low, high, listed)  # dice with equal keys roll alike

    @classmethod
    def of(cls, sides) -> Die:
        if sides == "F":
            return FUDGE
        if isinstance(sides, tuple):
            return cls.listing(sides)
        return _STANDARD.get(sides) or cls(1, sides, f"d{sides}")

    @classmethod
    def listing(cls, faces: tuple) -> Die:
        """A die of listed faces; `d{0..9}` (whole numbers in a row) rolls as a range."""
        low, high = min(faces), max(faces)
        if faces == tuple(range(low, high + 1)):
            label = f"d{{{low}..{high}}}" if high - low > 2 else f"d{{{','.join(map(str, faces))}}}"
            return cls(low, high, label)
        return cls(low, high, f"d{{{','.join(map(str, faces))}}}", faces)

    def faces(self):
        return range(self.low, self.high + 1) if self.listed is None else self.listed

    def has(self, value) -> bool:
        """Whether `value` is a face of this die."""
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        if self.listed is None:
            return self.low <= value <= self.high
        return value in self.listed

    def read(self, value):
        """The face `value` names (forced or typed in), or None if it names none."""
        return value if self.has(value) else None

    def faces_text(self) -> str:
        """Its faces as a message lists them: `1..6`."""
        return f"{self.low}..{self.high}"

    def __repr__(self) -> str:
        return self.label


FUDGE = Die(-1, 1, "dF")
_STANDARD = {s: Die(1, s, f"d{s}") for s in (2, 3, 4, 6, 8, 10, 12, 20, 100)}


# ─── sources ────────────────────────────────────────────────────────────────


class DiceSource:
    """Where faces come from. `origin` says how: generated, forced or typed."""

    origin = "generated"

    def draw(self, die: Die, position: int) -> int:
        """The face of the `position`-th die drawn (1-based), within the die's range."""
        raise NotImplementedError

    def finish(self) -> None:
        """Called when an evaluation is over (forced dice check that none is left)."""

    def fresh(self) -> DiceSource:
        """A source for one more evaluation (forced dice start again from the first)."""
        return self


class SeededDice(DiceSource):
    """Reproducible random dice: MT19937 seeded with `seed`, read with getrandbits."""

    def __init__(self, seed: int | None = None):
        if seed is None:
            seed = random.SystemRandom().getrandbits(63)
        self.seed = seed
        #: the generator's `getrandbits`, every face drawn from it (generated code draws a
        #: plain die straight from it, as `draw` does: interpreter.compile.codegen)
        self.random_bits = random.Random(seed).getrandbits

    def draw(self, die: Die, position: int) -> int:  # noqa: ARG002 (a DiceSource draws with (die, position))
        """The face of the `position`-th die drawn (1-based), within the die's range."""
        n, k = die.size, die.bits  # k = n.bit_length()
        r = self.random_bits(k)
        while r >= n:
            r = self.random_bits(k)
        return die.low + r if die.listed is None else die.listed[r]


def zero_hint(die: Die, value) -> Message | None:
    """A 0 typed for a d10 or a d100 (the 0 and the 00 their physical faces show):
    typed as the 10 or the 100 it stands for."""
    physical = die.listed is None and die.low == 1 and die.high in (10, 100)
    if physical and value == 0 and type(value) is int:
        return tr("the {label}'s 0 is typed {high}", label=die.label, high=die.high)
    return None


class ForcedDice(DiceSource):
    """Exactly these faces, consumed in draw order."""

    origin = "forced"

    def __init__(self, values: Iterable[int]):
        self.values = tuple(values)
        self._next = 0

    def draw(self, die: Die, position: int) -> int:  # noqa: ARG002 (a DiceSource draws with (die, position))
        """The face of the `position`-th die drawn (1-based), within the die's range."""
        if self._next >= len(self.values):
            raise DiceError(
                tr_n(
                    "die {value} ({label}) is needed, but only {n} forced value was given",
                    "die {value} ({label}) is needed, but only {n} forced values were given",
                    len(self.values),
                    value=self._next + 1,
                    label=die.label,
                )
            )
        value = self.values[self._next]
        self._next += 1
        face = die.read(value)
        if face is None:
            raise DiceError(
                tr(
                    "forced value {next} is {value}, which is not a face of {label} ({faces})",
                    next=self._next,
                    value=value,
                    label=die.label,
                    faces=die.faces_text(),
                ),
                None,
                zero_hint(die, value),
            )
        return face

    def finish(self) -> None:
        left = len(self.values) - self._next
        if left > 0:
            raise DiceError(
                tr_n(
                    (
                        "{n} forced value left over: the roll used {next}, and "
                        "value {value} ({value2}) was never needed"
                    ),
                    (
                        "{n} forced values left over: the roll used {next}, and "
                        "value {value} ({value2}) was never needed"
                    ),
                    left,
                    next=self._next,
                    value=self._next + 1,
                    value2=self.values[self._next],
                )
            )

    def fresh(self) -> ForcedDice:
        return ForcedDice(self.values)


class Asked:
    """What a die asked of a person is for: where it is rolled (`span`), why (`why`: the
    face that exploded, the rule that rolls it), whose (`who`: another character's name,
    None for the acting one's), and the term as rolled (`rolled`: `2d6` for `(pool)d6`;
    None when it is rolled as written)."""

    __slots__ = ("rolled", "span", "who", "why")

    def __init__(
        self, span: Span | None, why: Message | None, who: str | None, rolled: str | None = None
    ):
        self.span, self.why, self.who, self.rolled = span, why, who, rolled


class AskingDice(DiceSource):
    """A source that asks a person: the tray tells it, before each die, what the die is
    for (`asking`), so that the person is told whose die it is and why. A term whose
    count or die is an expression tells it, while it rolls, the term as rolled
    (`rolling`: the person rolls 2d6, not `(pool)d6`)."""

    asking: Asked | None = None
    rolling: str | None = None


class TypedDice(AskingDice):
    """Dice rolled by hand: `ask(die, position)` returns the face a person read; with
    `tell`, `ask(die, position, asked)` is also told what the die is for (`Asked`)."""

    origin = "typed"

    def __init__(self, ask: Callable[..., int], tell: bool = False):
        self.ask = ask
        self.tell = tell

    def draw(self, die: Die, position: int) -> int:
        """The face of the `position`-th die drawn (1-based), within the die's range."""
        value = self.ask(die, position, self.asking) if self.tell else self.ask(die, position)
        face = die.read(value)
        if face is None:
            raise DiceError(
                tr(
                    "die {position}: {value} is not a face of {label}",
                    position=position,
                    value=value,
                    label=die.label,
                )
            )
        return face


# ─── the tray: every draw of one evaluation goes through it ─────────────────


class Tray:
    """Draws from a source under the limits, and records every face in draw order.

    Its state is in its subclasses' slots: a `DiceTray`'s, or (interpreter.runtime) a
    `Roller`'s, or those of a real run's context, `Run`, which is its own roller."""

    if TYPE_CHECKING:  # (what its subclasses' slots hold, as mypy reads them)
        __slots__ = ("drawn", "limits", "source", "who", "why")
    else:
        __slots__ = ()

    def __init__(self, source: DiceSource, limits: Limits):
        self.source, self.limits = source, limits
        self.drawn: list[int] = []
        #: whose dice are rolled now (another character's name; None: the acting one's),
        #: and why (a rule of a roll procedure), for a source that asks a person
        self.who: str | None = None
        self.why: Message | None = None

    def draw(self, die: Die, span: Span | None, why: Message | None = None) -> int:
        if len(self.drawn) >= self.limits.dice_per_evaluation:
            raise LimitExceeded(
                tr(
                    (
                        "more than {dice_per_evaluation} dice in one "
                        "evaluation (limit dice_per_evaluation)"
                    ),
                    dice_per_evaluation=self.limits.dice_per_evaluation,
                ),
                span,
            )
        if isinstance(self.source, AskingDice):
            self.source.asking = Asked(span, why or self.why, self.who, self.source.rolling)
        try:
            face = self.source.draw(die, len(self.drawn) + 1)
        except DiceError as error:
            if error.span is None:
                error.span = span
            raise
        self.drawn.append(face)
        return face


class DiceTray(Tray):
    """A tray of its own (a dice term rolled outside a run)."""

    __slots__ = ("drawn", "limits", "source", "who", "why")


# ─── one dice term ──────────────────────────────────────────────────────────


class PoolRoll(Rolled):
    """What one dice term showed: every face with its fate, and the term's value.

    `faces` is a list of [face, status, exploded] in display order (a die's explosion
    or reroll follows it); `successes`/`failures` are None unless the term counts.
    """

    __slots__ = ("faces", "failures", "label", "successes", "total")
    successes: Any  # (a slot: the count of successes, or None)
    failures: Any

    def __init__(self, label, faces, total, successes=None, failures=None):
        self.label, self.faces, self.total = label, faces, total
        self.successes, self.failures = successes, failures

    def __repr__(self) -> str:
        return f"PoolRoll({self.label} = {self.total})"


def predicate(op: str, value) -> Callable[[int], bool]:
    if op == "even":
        return lambda face: face % 2 == 0
    if op == "odd":
        return lambda face: face % 2 == 1
    compare = _COMPARE[op]
    return lambda face: compare(face, value)


def roll_pool(
    tray: Tray, die: Die, count: int, steps: tuple, span: Span | None, label: str
) -> PoolRoll:
    """Roll `count` dice of `die`, then apply `steps` (compiled modifiers) in order.

    Each step is one of ("keep", mode, k, span), ("explode", once, test, span),
    ("reroll", once, test, span), ("successes", test), ("failures", test).
    """
    limits = tray.limits
    check_term(die, count, limits, span)
    draw = tray.draw
    faces: list[list[Any]] = [[draw(die, span), KEPT, False] for _ in range(count)]
    success_test = failure_test = None
    counted_as_failures = False
    for step in steps:
        kind = step[0]
        if kind == "keep":
            keep_dice(faces, step[1], step[2])
        elif kind in CHAINS:
            faces = _explode(tray, die, faces, step[1], step[2], step[3], kind)
        elif kind == "reroll":
            faces = _reroll(tray, die, faces, step[1], step[2], step[3])
        elif kind == "clamp":
            _clamp(faces, step[1], step[2])
        elif kind == "sort":
            faces = _sort(faces, step[1])
        elif kind == "successes":
            success_test = step[1]
        elif kind == "fail_count":
            success_test, counted_as_failures = step[1], True
        else:
            failure_test = step[1]
    if success_test is None:
        total = 0
        for face in faces:
            if face[1] == KEPT:
                total += face[0]
        return PoolRoll(label, faces, total)
    kept = [f[0] for f in faces if f[1] == KEPT]
    counted = sum(1 for f in kept if success_test(f))
    if counted_as_failures:  # `cf`: the term is how many failures it shows
        return PoolRoll(label, faces, counted, None, counted)
    failures = sum(1 for f in kept if failure_test(f)) if failure_test else 0
    return PoolRoll(label, faces, counted - failures, counted, failures)


#: steps that roll more dice for a die meeting their test: `x` (one more die each time),
#: `!!` (added to the die itself), `!p` (one more die, counting one less than it shows)
CHAINS = ("explode", "compound", "penetrate")


def check_term(die: Die, count: int, limits: Limits, span) -> None:
    """A term of `count` dice of `die` is within dice_per_term and faces_per_die, or
    LimitExceeded: the same check for a real roll and for its odds, before any work."""
    if count > limits.dice_per_term:
        raise LimitExceeded(
            tr(
                (
                    "{count} dice in one term is more than the limit of "
                    "{dice_per_term} (limit dice_per_term)"
                ),
                count=count,
                dice_per_term=limits.dice_per_term,
            ),
            span,
        )
    if die.size > limits.faces_per_die:
        raise LimitExceeded(
            tr(
                "a die of {faces} faces is more than {faces_per_die} (limit faces_per_die)",
                faces=die.size,
                faces_per_die=limits.faces_per_die,
            ),
            span,
        )


def keep_dice(faces: list, mode: str, k: int) -> None:
    kept = [i for i, f in enumerate(faces) if f[1] == KEPT]
    # Highest first for kh/dh, lowest first for kl/dl; equal faces: the earlier die first.
    high_first = mode in ("kh", "dh")
    order = sorted(kept, key=lambda i: (-faces[i][0] if high_first else faces[i][0], i))
    k = min(k, len(order))
    if mode in ("kh", "kl"):
        dropped = order[k:]
    else:
        dropped = order[:k]
    for i in dropped:
        faces[i][1] = DROPPED


def _explode(tray, die, faces, once, test, span, kind="explode") -> list:
    """Each kept die meeting the test rolls another (which may again, unless `once`); the
    test is of the face a die shows (a penetrating extra die counts one less)."""
    if not once:
        always_true(die, test, span, FACES_EXPLODE)
    limit = tray.limits.extra_per_die
    out = []
    for face in faces:
        out.append(face)
        if face[1] != KEPT:
            continue
        current, shown, extra = face, face[0], 0
        while test(shown):
            if extra >= limit:
                raise ChainTooLong(EXPLODED_PAST.fill(limit=limit), span)
            current[2] = True
            shown = tray.draw(die, span, tr("the {face} exploded", face=shown))
            extra += 1
            if kind == "compound":  # one die, its face the sum of all it rolled
                face[0] += shown
            else:
                current = [shown - 1 if kind == "penetrate" else shown, KEPT, False]
                out.append(current)
            if once:
                break
    return out


def _clamp(faces: list, bound: str, value) -> None:
    """`min`: a kept die below the value counts as the value; `max`: above it."""
    for face in faces:
        if face[1] == KEPT:
            face[0] = max(face[0], value) if bound == "min" else min(face[0], value)


def _sort(faces: list, descending: bool) -> list:
    """The dice listed by their faces; a die rolled again stays just before its new face."""
    groups, pending = [], []
    for face in faces:
        pending.append(face)
        if face[1] != REROLLED:
            groups.append(pending)
            pending = []
    groups.sort(key=lambda group: group[-1][0], reverse=descending)
    return [face for group in groups for face in group] + pending


def _reroll(tray, die, faces, once, test, span) -> list:
    if not once:
        always_true(die, test, span, FACES_REROLLED)
    limit = tray.limits.extra_per_die
    out = []
    for face in faces:
        out.append(face)
        if face[1] != KEPT:
            continue
        current, extra = face, 0
        while test(current[0]):
            if extra >= limit:
                raise ChainTooLong(REROLLED_PAST.fill(limit=limit), span)
            current[1] = REROLLED
            again = tr("the {face} is rolled again", face=current[0])
            current = [tray.draw(die, span, again), KEPT, False]
            out.append(current)
            extra += 1
            if once:
                break
    return out


def always_true(die: Die, test, span, what) -> None:
    """A condition every face meets would never stop: say so at once, not after 100 dice."""
    if die.size <= 1000 and all(test(face) for face in die.faces()):
        raise EvaluationError(
            tr(
                "every face of {label} {what} under this condition, so the roll would never end",
                label=die.label,
                what=what,
            ),
            span,
        )
