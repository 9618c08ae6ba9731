"""The trace: what happened, step by step, in the rulebook's own names; and its renderings.

A trace is data (a list of `Step`); turning it into text or JSON is done here, apart.
"""

from __future__ import annotations

import attrs

from dsl.errors import Span
from dsl.messages import Message, tr, tr_n, translate
from interpreter.dice import DROPPED, KEPT, REROLLED, PoolRoll
from interpreter.values import to_json

#: how a roll's dice are marked when nobody should take them for a random roll
ORIGIN_MARKS = {"forced": tr("forced"), "typed": tr("typed in")}


@attrs.frozen
class Step:
    """One thing that happened: a roll, a check, a lookup, a cost, a change, a note.

    `kind` names it; `text` is what it says, in the rulebook's words (a `Message`:
    `translate(step.text, language)` gives it in a language); `line` is the rulebook line
    it came from; `data` carries the numbers for JSON consumers. `detail` is the step as
    the rules compute it (the expression behind a value), shown with `--verbose`;
    a `verbose` step (a condition tested, a maximum computed again) only then.
    """

    kind: str
    text: str
    line: int | None = None
    data: dict = attrs.field(factory=dict)
    depth: int = 0
    file: str | None = None  # the rulebook file of the line (a house rule has two)
    detail: str | None = None
    verbose: bool = False

    @classmethod
    def at(
        cls,
        kind: str,
        text: str,
        span: Span | None,
        data: dict,
        depth: int,
        detail: str | None = None,
        verbose: bool = False,
    ) -> Step:
        """A step at a span of the rulebook (its line and file)."""
        if span is None:
            return cls(kind, text, None, data, depth, None, detail, verbose)
        return cls(kind, text, span.line, data, depth, span.source.name, detail, verbose)

    def deeper(self, by: int = 1) -> Step:
        """The same step, `by` levels deeper (under a heading inserted above it)."""
        return attrs.evolve(self, depth=self.depth + by)

    def to_json(self, language: str | None = None) -> dict:
        """The step as JSON data (as in a run's JSON document: schema run, `trace`)."""
        return {
            "kind": self.kind,
            "text": translate(self.text, language),
            "file": self.file,
            "line": self.line,
            "depth": self.depth,
            "detail": translate(self.detail, language) if self.detail is not None else None,
            "verbose": self.verbose,
            "data": to_json(self.data),
        }


class Trace(list):
    """The steps of a run, in order, and the language they are shown in by default (the
    rulebook's)."""

    def __init__(self, steps=(), language: str | None = None):
        super().__init__(steps)
        self.language = language


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


def roll_text(roll: PoolRoll) -> Message:
    """`4d6kh3 [6, 5, 3, ~~1~~]`, with successes counted where the term counts them."""
    text = f"{roll.label} {faces_text(roll)}"
    if roll.successes is None:
        return Message.joined([text], "")
    counts = [tr_n("{n} success", "{n} successes", roll.successes)]
    if roll.failures:
        counts.append(tr_n("{n} failure", "{n} failures", roll.failures))
    return Message.joined([text, " (", Message.joined(counts, " - "), ")"], "")


def render_text(steps: list[Step], language: str | None = None, verbose: bool = False) -> str:
    """One line per step: the rulebook line it came from, then the step, indented by how
    deep in calls it happened (a check's rolls under the check). In `language`, by
    default the trace's own. `verbose`: every step, each as the rules compute it."""
    language = language or getattr(steps, "language", None)
    lines = []
    main = steps[0].file if steps else None
    for step in steps:
        if step.verbose and not verbose:
            continue
        text = step.detail if verbose and step.detail is not None else step.text
        where = str(step.line or "")
        if step.file is not None and step.file != main and step.line:
            where = f"{step.file.rsplit('/', 1)[-1]}:{step.line}"
        gutter = f"{where:>5} │ " if where else "      │ "
        lines.append(gutter + "  " * (step.depth + 1) + translate(text, language))
    return "\n".join(lines)


def call_text(label: str, params) -> Message:
    """`Usar una númina(numina=Grito Báquico, preces=no)`: values in the output's language."""
    parts: list = [label, "("]
    for i, (name, value) in enumerate(params):
        parts += [", " if i else "", name, "=", value]
    return Message.joined([*parts, ")"])


def origin_mark(origin: str) -> Message:
    """` (forced)`, ` (typed in)`: dice nobody should mistake for a random roll."""
    mark = ORIGIN_MARKS.get(origin)
    return Message.joined([" (", mark, ")"] if mark is not None else [], "")


def dice_step(roll: PoolRoll, span, depth: int, origin: str) -> Step:
    kept = [f[0] for f in roll.faces if f[1] == KEPT]
    return Step.at(
        "roll",
        Message.joined([roll_text(roll), " = ", roll.total, origin_mark(origin)], ""),
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
