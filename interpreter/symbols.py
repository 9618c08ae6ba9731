"""Dice of symbol faces (`die Boost { blank, success + advantage }`): rolled, read, shown.

A die of symbols rolls as a die of its faces' positions (1 to k): every dice source draws
it as it draws any die, and a face is a record of how many of each declared symbol it
shows. A pool of them (`2dBoost + 1dSetback`) is a record with one field per declared
symbol: how many the pool shows in all. A face is typed in, or forced, by its symbols
(`success+advantage`, `2 advantage`, `blank`) or by its position.
"""

from __future__ import annotations

import attrs

from dsl.messages import Message
from interpreter.dice import Die, check_term
from interpreter.roll_steps import origin_mark
from interpreter.values import Record

#: how a face with no symbol is written and shown
BLANK = "blank"
#: the kind of the records that pools of symbol dice are
SYMBOLS = "symbols"
#: longest text read as a face typed in (`success + advantage + advantage`)
MAX_FACE_TEXT = 400


class SymbolDie(Die):
    """A die whose faces are counts of symbols; drawn as its faces' positions 1..k."""

    __slots__ = ("counts", "names", "symbols")

    def __init__(self, name: str, symbols: tuple, faces: tuple):
        super().__init__(1, len(faces), name)
        self.symbols = symbols
        self.counts = tuple(tuple(face.get(s, 0) for s in symbols) for face in faces)
        self.names = tuple(face_name(symbols, c) for c in self.counts)
        self.key = (SYMBOLS, name, symbols, self.counts)

    @classmethod
    def of(cls, node, symbols: tuple) -> SymbolDie:  # type: ignore[override]  # (made from its declaration, not from sides)
        """The die a `die` definition declares, over the rulebook's symbols."""
        faces = []
        for face in node.faces:
            counts: dict = {}
            for symbol, how_many, _span in face.symbols:
                counts[symbol] = counts.get(symbol, 0) + how_many
            faces.append(counts)
        return cls(node.name, symbols, tuple(faces))

    def read(self, value):
        """The position of the face `value` names (its symbols, or its position), or None."""
        if isinstance(value, int) and not isinstance(value, bool):
            return value if 1 <= value <= self.size else None
        if not isinstance(value, str) or len(value) > MAX_FACE_TEXT:
            return None
        counts = parse_face(value, self.symbols)
        if counts is None:
            return None
        for position, face in enumerate(self.counts, 1):
            if face == counts:
                return position
        return None

    def faces_text(self) -> str:
        """Its faces as a person types them: `blank, success, success+advantage`."""
        return ", ".join(dict.fromkeys(self.names))


def face_name(symbols: tuple, counts: tuple) -> str:
    """`success+advantage+advantage`, or `blank`."""
    parts = [s for s, c in zip(symbols, counts, strict=True) for _ in range(c)]
    return "+".join(parts) if parts else BLANK


def parse_face(text: str, symbols: tuple) -> tuple | None:
    """The counts a typed face names: `success + advantage`, `2 advantage`, `blank`;
    None when it names no symbol, or one not declared."""
    text = text.strip()
    counts = dict.fromkeys(symbols, 0)
    if text.lower() == BLANK:
        return tuple(counts.values())
    for part in text.split("+"):
        words = part.split()
        how_many = 1
        if len(words) == 2 and words[0].isascii() and words[0].isdigit():
            how_many = int(words[0])
            words = words[1:]
        if len(words) != 1 or words[0] not in counts or not 1 <= how_many <= 99:
            return None
        counts[words[0]] += how_many
    return tuple(counts.values())


@attrs.frozen
class Forms:
    """What the odds hold of a pool of symbol dice whose rules read only sums of its
    symbols (interpreter.compile.symbol_forms): the value of each sum."""

    values: tuple


def joined_forms(a: Forms, b: Forms) -> Forms:
    return Forms(tuple(x + y for x, y in zip(a.values, b.values, strict=True)))


def pool_record(symbols: tuple, counts) -> Record:
    """A pool's value: how many of each symbol it shows."""
    return Record(dict(zip(symbols, counts, strict=True)), SYMBOLS)


def is_pool(value) -> bool:
    return isinstance(value, Record) and value.kind == SYMBOLS


def joined(a: Record, b: Record) -> Record:
    """Two pools of symbol dice as one: their symbols added up."""
    return Record({name: count + b.get(name, 0) for name, count in a.items()}, SYMBOLS)


def roll_symbols(tray, die: SymbolDie, count: int, span) -> tuple:
    """Roll `count` dice of `die` through the tray: (the pool's record, the faces' names)."""
    check_term(die, count, tray.limits, span)
    totals = [0] * len(die.symbols)
    names = []
    for _ in range(count):
        position = tray.draw(die, span)
        for i, c in enumerate(die.counts[position - 1]):
            totals[i] += c
        names.append(die.names[position - 1])
    return pool_record(die.symbols, totals), names


def shown(record: Record) -> str:
    """`success 2, advantage 1`: the symbols a pool shows (`blank` for none)."""
    parts = [f"{name} {count}" for name, count in record.items() if count]
    return ", ".join(parts) if parts else BLANK


def symbols_parts(label: str, names: list, record: Record, span, depth, origin, bounded) -> tuple:
    """The trace's step for a pool of symbol dice, its parts (`Step._r`; `bounded`: a
    bounded trace's length): each face by its symbols, then the sum."""
    faces = "[" + ", ".join(names) + "]"
    text = Message.joined([f"{label} {faces} = {shown(record)}", origin_mark(origin)], "")
    data = {
        "dice": label,
        "faces": list(names),
        "kept": list(names),
        "value": dict(record.items()),
        "origin": origin,
    }
    return ("roll", text, None, data, depth, None, None, False, span, bounded)


def pool_counts(face_values: tuple, count: int, poll=None) -> dict:
    """The exact distribution of the sum of `count` dice whose faces are `face_values`
    (tuples of whole numbers: a symbol die's counts, or sums of them): {sum: ways}, out of
    len(face_values)**count. Counted over multisets of faces, never ordered rolls: walking
    the distinct faces in turn, c of the r dice still to place show this face, in
    C(r, c) · w**c ways (w: how many of the die's faces show it). `poll(work, states)` is
    called before each face (the odds engine's budget and bound on outcomes)."""
    faces: dict = {}
    for counts in face_values:
        faces[counts] = faces.get(counts, 0) + 1
    width = len(face_values[0])
    states = {(count, (0,) * width): 1}
    distinct = list(faces.items())
    for index, (face, weight) in enumerate(distinct):
        last = index == len(distinct) - 1
        after: dict = {}
        if poll is not None:  # the work this face takes, and the states there are now
            poll(sum(left + 1 for left, _ in states), len(states))
        for (left, totals), ways in states.items():
            choices = range(left, left + 1) if last else range(left + 1)
            binomial = 1
            for c in choices:
                if c and not last:
                    binomial = binomial * (left - c + 1) // c
                shown = tuple(t + c * f for t, f in zip(totals, face, strict=True))
                key = (left - c, shown)
                after[key] = after.get(key, 0) + ways * (1 if last else binomial) * weight**c
        states = after
    return {totals: ways for (_left, totals), ways in states.items()}
