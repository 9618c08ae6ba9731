"""The trace: what happened, step by step, in the rulebook's own names; and its renderings.

A trace is data (a list of `Step`); turning it into text or JSON is done here, apart.
"""

from __future__ import annotations

import attrs

from interpreter.dice import DROPPED, KEPT, REROLLED, PoolRoll
from interpreter.values import show, to_json

#: words the text rendering uses, by the rulebook's `language`
WORDS = {
    "es": {
        "success": "éxito",
        "failure": "fallo",
        "vs": "vs",
        "tie": "empate",
        "wins": "gana",
        "loses": "pierde",
        "forced": "dados forzados",
        "typed": "dados introducidos a mano",
        "forced_mark": "forzado",
        "typed_mark": "a mano",
        "line": "línea",
        "successes": "éxitos",
        "failures": "fallos",
    },
    "en": {
        "success": "success",
        "failure": "failure",
        "vs": "vs",
        "tie": "tie",
        "wins": "wins",
        "loses": "loses",
        "forced": "forced dice",
        "typed": "dice typed in",
        "forced_mark": "forced",
        "typed_mark": "typed in",
        "line": "line",
        "successes": "successes",
        "failures": "failures",
    },
}


@attrs.frozen
class Step:
    """One thing that happened: a roll, a check, a lookup, a cost, a change, a note.

    `kind` names it; `text` is its rendering in the rulebook's words; `line` is the
    rulebook line it came from; `data` carries the numbers for JSON consumers.
    """

    kind: str
    text: str
    line: int | None = None
    data: dict = attrs.field(factory=dict)
    depth: int = 0
    file: str | None = None  # the rulebook file of the line (a house rule has two)

    @classmethod
    def at(cls, kind: str, text: str, span, data: dict, depth: int) -> Step:
        if span is None:
            return cls(kind, text, None, data, depth)
        return cls(kind, text, span.line, data, depth, span.source.name)

    def to_json(self) -> dict:
        out = {"kind": self.kind, "text": self.text, "line": self.line, "file": self.file}
        out.update({k: to_json(v) for k, v in self.data.items()})
        return out


def faces_text(roll: PoolRoll) -> str:
    """`[6, 5, 3, ~~1~~]`: struck faces were dropped or rerolled; `6!` exploded."""
    parts = []
    for face, status, exploded in roll.faces:
        text = str(face)
        if exploded:
            text += "!"
        if status in (DROPPED, REROLLED):
            text = f"~~{text}~~"
        parts.append(text)
    return "[" + ", ".join(parts) + "]"


def roll_text(roll: PoolRoll, words: dict | None = None) -> str:
    """`4d6kh3 [6, 5, 3, ~~1~~]`, with successes counted where the term counts them."""
    words = words or WORDS["en"]
    text = f"{roll.label} {faces_text(roll)}"
    if roll.successes is not None:
        text += f" ({roll.successes} {words['successes']}"
        text += f" - {roll.failures} {words['failures']})" if roll.failures else ")"
    return text


def render_text(steps, words=None) -> str:
    """One line per step: the rulebook line it came from, then the step, indented by how
    deep in calls it happened (a check's rolls under the check)."""
    lines = []
    main = steps[0].file if steps else None
    for step in steps:
        where = str(step.line or "")
        if step.file is not None and step.file != main and step.line:
            where = f"{step.file.rsplit('/', 1)[-1]}:{step.line}"
        gutter = f"{where:>5} │ " if where else "      │ "
        lines.append(gutter + "  " * (step.depth + 1) + step.text)
    return "\n".join(lines)


def origin_mark(origin: str, words: dict) -> str:
    """` (forced)`, ` (typed in)`: dice nobody should mistake for a random roll."""
    return f" ({words[origin + '_mark']})" if origin != "generated" else ""


def dice_step(roll: PoolRoll, span, depth: int, words: dict, origin: str) -> Step:
    kept = [f[0] for f in roll.faces if f[1] == KEPT]
    return Step.at(
        "roll",
        f"{roll_text(roll, words)} = {show(roll.total)}{origin_mark(origin, words)}",
        span,
        {
            "dice": roll.label,
            "faces": [f[0] for f in roll.faces],
            "kept": kept,
            "value": roll.total,
            "origin": origin,
        },
        depth,
    )
