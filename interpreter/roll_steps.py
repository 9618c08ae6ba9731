"""A roll's trace step and its words: its faces, its successes, where its dice came from."""

from __future__ import annotations

from dsl.messages import Message, tr, tr_n
from interpreter.dice import DROPPED, KEPT, REROLLED, PoolRoll
from interpreter.shown import more_items
from interpreter.trace import JOINED, Later, Step, made, new_step

#: how a roll's dice are marked when nobody should take them for a random roll
ORIGIN_MARKS = {"forced": tr("forced"), "typed": tr("typed in")}


def faces_text(roll: PoolRoll, length: int | None = None) -> str:
    """`[6, 5, 3, ~~1~~]`: struck faces were dropped or rerolled; `6!` exploded. With a
    `length`, the faces that fit in about that many characters, then how many more."""
    parts: list[str] = []
    used = 0
    for i, (face, status, exploded) in enumerate(roll.faces):
        if length is not None and used > length:
            return "[" + ", ".join(parts) + f", {more_items(len(roll.faces) - i)}]"
        text = str(face)
        if exploded:
            text += "!"
        if status in (DROPPED, REROLLED):
            text = f"~~{text}~~"
        parts.append(text)
        used += len(text) + 2
    return "[" + ", ".join(parts) + "]"


def roll_text(roll: PoolRoll, length: int | None = None) -> Message:
    """`4d6kh3 [6, 5, 3, ~~1~~]`, with successes counted where the term counts them."""
    text = f"{roll.label} {faces_text(roll, length)}"
    if roll.successes is None:
        return Message.joined([text], "")
    counts = [tr_n("{n} success", "{n} successes", roll.successes)]
    if roll.failures:
        counts.append(tr_n("{n} failure", "{n} failures", roll.failures))
    return Message.joined([text, " (", Message.joined(counts, " - "), ")"], "")


def origin_mark(origin: str) -> Message:
    """` (forced)`, ` (typed in)`: dice nobody should mistake for a random roll."""
    mark = ORIGIN_MARKS.get(origin)
    return Message.joined([" (", mark, ")"] if mark is not None else [], "")


def dice_step(
    roll: PoolRoll, span, depth: int, origin: str, length: int | None = None, bounded=None
) -> Step:
    """A roll's step (its faces cut to about `length` characters, when given; `bounded`:
    a bounded trace's `shown_length`, `Trace.bounded`)."""
    step = new_step(Step)
    step._r = dice_parts(roll, span, depth, origin, length, bounded)
    return step


def dice_parts(roll: PoolRoll, span, depth: int, origin: str, length, bounded) -> tuple:
    """A roll's step's parts (`Step._r`, of `dice_step`): its text and data made when read."""
    text, data = Later(_dice_text, roll, origin, length), Later(_dice_data, roll, origin)
    return ("roll", text, None, data, depth, None, None, False, span, bounded)


def _dice_data(roll: PoolRoll, origin: str) -> dict:
    """A roll's step's data: its dice, every face, the faces kept, its value, their origin."""
    faces = roll.faces
    return {
        "dice": roll.label,
        "faces": [f[0] for f in faces],
        "kept": [f[0] for f in faces if f[1] == KEPT],
        "value": roll.total,
        "origin": origin,
    }


def _dice_text(roll: PoolRoll, origin: str, length: int | None) -> Message:
    """A roll's step: `4d6kh3 [6, 5, 3, ~~1~~] = 14`, and where its dice came from."""
    return Message.joined(_dice_text_parts(roll, origin, length), "")


def _dice_text_parts(roll: PoolRoll, origin: str, length: int | None) -> list:
    return [roll_text(roll, length), " = ", roll.total, origin_mark(origin)]


def chain_text(name: str, roll, origin: str, length: int | None, brief: bool) -> Message:
    """A named roll's step (a `runtime.ChainRoll`): `abierta: 10 + (6−1) = 15` with each
    extra's own arithmetic when it went on (`brief`), else its faces (`abierta: [10] + [6]
    = 15`; the arithmetic's detail, --verbose)."""
    return Message.joined(chain_text_parts(name, roll, origin, length, brief))


def chain_text_parts(name: str, roll, origin: str, length: int | None, brief: bool) -> list:
    shown = made(roll.arithmetic) if brief else None
    if shown is None:
        shown = roll.faces_text(length)
    return [f"{name}: {shown} = ", roll.total, origin_mark(origin)]


JOINED[_dice_text], JOINED[chain_text] = _dice_text_parts, chain_text_parts


def chain_parts(name: str, roll, origin: str, length: int, span, depth: int, bounded) -> tuple:
    """A named roll's step's parts (`Step._r`): each extra with its own arithmetic, when
    it went on; its faces, --verbose (`chain_text`); made when read."""
    text = Later(chain_text, name, roll, origin, length, True)
    detail = (
        None if roll.arithmetic is None else Later(chain_text, name, roll, origin, length, False)
    )
    data = {"roll": name, "value": roll.total, "origin": origin}
    return ("roll", text, None, data, depth, None, detail, False, span, bounded)
