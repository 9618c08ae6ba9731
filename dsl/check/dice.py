"""Checks of dice terms and groups: their values' types, pointless modifiers, other readings."""

from __future__ import annotations

from dsl import nodes as n
from dsl import types as t
from dsl.check.host import CheckerHost
from dsl.check.scope import Scope
from dsl.messages import tr
from dsl.nodes.base import Number, is_number

#: comparisons that read as a count of dice in Roll20 (`10d10>6`: dice showing 6 or more)
COUNTED_IN_ROLL20 = {">=": ">=", ">": ">=", "<=": "<=", "<": "<=", "=": "="}
NUMBER_OF_DICE = tr("the number of dice")
NUMBER_OF_FACES = tr("the number of faces")
HOW_MANY_KEPT = tr("how many dice to keep or drop")
MIN_OR_MAX = tr("the value of min or max")
WHOLE = tr("{what} should be a whole number, not {value}")
KEEPS_ALL = tr("`{modifier}` keeps {k} of {count} dice: all of them, so it changes nothing")
DROPS_ALL = tr("`{modifier}` drops {k} of {count} dice: none is left, so the term is always 0")


class DiceChecks(CheckerHost):
    """The dice terms' checks (part of the Checker)."""

    def ex_dice(self, node: n.Dice, scope: Scope) -> t.Type:
        if node.count is not None:
            self.want(node.count, scope, t.NUMBER, NUMBER_OF_DICE)
            self.whole(node.count, NUMBER_OF_DICE)
        if not isinstance(node.sides, int | str | tuple):
            self.want(node.sides, scope, t.NUMBER, NUMBER_OF_FACES)
            self.whole(node.sides, NUMBER_OF_FACES)
        for modifier in node.modifiers:
            value = getattr(modifier, "count", None)
            condition = getattr(modifier, "condition", None)
            if value is not None:
                self.want(value, scope, t.NUMBER, HOW_MANY_KEPT)
                self.kept(value)
            if condition is not None and condition.value is not None:
                self.want(condition.value, scope, t.NUMBER, tr("a face to compare with"))
            if isinstance(modifier, n.Clamp):  # a face: whole, as faces are
                self.want(modifier.value, scope, t.NUMBER, MIN_OR_MAX)
                self.whole(modifier.value, MIN_OR_MAX)
        for message, hint, span in node.notes:
            self.warning(message, span, hint)
        if node.sides == 66:  # Traveller's and Warhammer's d66: two d6, tens and units
            self.warning(
                tr(
                    "`{term}` rolls dice of 66 faces; a d66 of two d6 read as tens and units "
                    "is 11 to 66",
                    term=node.span.text,
                ),
                node.span,
                tr(
                    "for that, write {ours}; a die of 66 faces written d{{1..66}} says "
                    "so without this warning",
                    ours="10 * d6 + d6",
                ),
            )
        self.pointless(node)
        return t.ROLL

    def ex_rollgroup(self, node: n.RollGroup, scope: Scope) -> t.Type:
        for item in node.items:
            self.want(item, scope, t.NUMBER, tr("a roll of a group"))
        if len(node.items) == 1 and not all(isinstance(d, n.Dice) for d in added(node.items[0])):
            self.error(
                tr(
                    "a group of one roll keeps dice across its dice terms, which it adds up: "
                    "{example} (several rolls are written with commas: {other})",
                    example="{4d6+3d8}k4",
                    other="{1d20+5, 1d20+3}kh1",
                ),
                node.items[0].span,
            )
        for modifier in node.modifiers:
            if isinstance(modifier, n.Keep) and modifier.count is not None:
                self.want(modifier.count, scope, t.NUMBER, HOW_MANY_KEPT)
                self.kept(modifier.count)
            elif not isinstance(modifier, n.Keep) and modifier.condition.value is not None:
                self.want(modifier.condition.value, scope, t.NUMBER, tr("a value to compare with"))
        return t.ROLL

    def whole(self, node, what) -> None:
        """A number written where a whole number goes (`d(1.5)`, `4d6kh(1.5)`): an error
        here, rather than when the rule runs (or a wrong answer from the odds)."""
        if isinstance(node, n.Literal) and is_number(node.value) and type(node.value) is not int:
            self.error(
                WHOLE.fill(what=what, value=node.value),
                node.span,
                tr("round it explicitly with floor, ceil or round"),
            )

    def kept(self, node) -> None:
        """How many dice to keep or drop, when written: a whole number, not below 0."""
        self.whole(node, HOW_MANY_KEPT)
        if isinstance(node, n.Literal) and is_number(node.value) and node.value < 0:
            self.error(tr("cannot keep or drop {k} dice", k=node.value), node.span)

    def pointless(self, node: n.Dice) -> None:
        """Warnings for modifiers that can change nothing: `2d6kh5`, `10d10cs>=11`."""
        faces = faces_of(node.sides)
        count: Number | None = None  # how many dice there are, when written
        if node.count is None:
            count = 1
        elif isinstance(node.count, n.Literal) and is_number(node.count.value):
            count = node.count.value
        grown = False  # an explosion may have added dice: counts are not known
        for modifier in node.modifiers:
            if isinstance(modifier, n.Explode) and modifier.style != "compound":
                grown = True
            if isinstance(modifier, n.Keep) and count is not None and not grown:
                written = modifier.count
                k: Number = 1  # none written: one
                if written is not None:
                    if not (isinstance(written, n.Literal) and is_number(written.value)):
                        continue
                    k = written.value
                keeps = modifier.mode in ("kh", "kl")
                if k >= count:
                    pointless = KEEPS_ALL if keeps else DROPS_ALL
                    found = pointless.fill(modifier=modifier.span.text, k=k, count=count)
                    self.warning(found, modifier.span)
                count = min(count, k) if keeps else max(count - k, 0)
            condition = getattr(modifier, "condition", None)
            if faces is None or condition is None or not isinstance(condition.value, n.Literal):
                continue
            if not some_face_meets(faces, condition.op, condition.value.value):
                self.warning(
                    tr(
                        "no face of this die is {condition}: `{modifier}` never applies",
                        condition=condition.op + str(condition.value.value),
                        modifier=modifier.span.text,
                    ),
                    modifier.span,
                )

    def note_counted(self, node: n.Binary) -> None:
        """`10d10>=6` compares the total here; in Roll20 it counts the dice: say so."""
        left, right = node.left, node.right
        if not (isinstance(left, n.Dice) and isinstance(right, n.Literal)):
            return
        text = left.span.source.text
        follows = text[left.span.end : left.span.end + 1]
        if follows not in ("<", ">", "=") or left.modifiers or left.count is None:
            return  # `2d6 >= 7`, with a space, is plainly a comparison
        if isinstance(left.count, n.Literal) and left.count.value == 1:
            return
        spelled = f"{left.span.text}cs{COUNTED_IN_ROLL20[node.op]}{right.span.text}"
        self.warning(
            tr(
                "`{text}` compares the total of the dice with {value}; in Roll20 it counts "
                "the dice instead",
                text=node.span.text,
                value=right.span.text,
            ),
            node.span,
            tr("to count the dice, write {spelled}", spelled=spelled),
        )


def added(node) -> list:
    """The terms of a sum: `4d6+3d8` → [4d6, 3d8]."""
    if isinstance(node, n.Binary) and node.op == "+":
        return added(node.left) + added(node.right)
    return [node]


def faces_of(sides):
    if isinstance(sides, int):
        return range(1, sides + 1)
    if isinstance(sides, tuple):
        return sides
    if sides == "F":
        return (-1, 0, 1)
    return None


def some_face_meets(faces, op: str, value) -> bool:
    """Whether any face meets `op value`: the faces 1..N decided by their ends (a die of
    a million faces, or of more than any limit, is not gone through one by one)."""
    if isinstance(faces, range):
        low, high = faces.start, faces.stop - 1
        if low > high:
            return False
        return {
            ">=": high >= value,
            "<=": low <= value,
            ">": high > value,
            "<": low < value,
            "=": low <= value <= high and value == int(value),
        }[op]
    return any(compare(op, face, value) for face in faces)


def compare(op: str, face, value) -> bool:
    return {
        ">=": face >= value,
        "<=": face <= value,
        ">": face > value,
        "<": face < value,
        "=": face == value,
    }[op]
