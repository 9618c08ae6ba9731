"""Journal entries as text: one line per run for `log`, the details `show` adds."""

from __future__ import annotations

from interpreter.journal.rerun import changed_path
from interpreter.values import show

#: widest result summary on a log line, in characters
RESULT_WIDTH = 60


def when(entry) -> str:
    """`2026-05-14 21:03` in UTC, as the journal keeps it."""
    return entry.at[:16].replace("T", " ")


def params_text(params: dict) -> str:
    return ", ".join(f"{k}={show_json(v)}" for k, v in params.items())


def result_text(result, width: int | None = RESULT_WIDTH) -> str:
    if result is None:
        return "no result"
    if not isinstance(result, dict):
        return show_json(result)
    text = ", ".join(f"{k} {show_json(v)}" for k, v in result.items())
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return text


def changes_text(changes, separator: str = ", ") -> str:
    """`Vida 5 → 3, objetivo.Vida 7 → 1`: another character's values by its role."""
    if not changes:
        return "no changes"
    return separator.join(
        f"{changed_path(c)} {show_json(c['before'])} → {show_json(c['after'])}" for c in changes
    )


def choices_text(choices, separator: str = ", ") -> str:
    """`invocar=sí, defensa=esquivar (by objetivo, asked)`: each choice, who and how."""
    out = []
    for c in choices:
        notes = [f"by {c['chooser']}"] if c.get("chooser") not in (None, "self") else []
        notes += [HOW[c["how"]]] if c.get("how") in HOW else []
        note = f" ({', '.join(notes)})" if notes else ""
        out.append(f"{c['name']}={show_json(c['value'])}{note}")
    return separator.join(out) or "none"


#: how a choice was made, as `show` says it
HOW = {
    "given": "answered in advance",
    "asked": "chosen at the table",
    "only": "the only option open",
    "recorded": "as recorded",
    "policy": "a policy",
}


def show_json(value) -> str:
    """A value as the journal stores it (JSON), printed as a run prints it."""
    if isinstance(value, list):
        return "[" + ", ".join(show_json(v) for v in value) + "]"
    if isinstance(value, dict):
        label = value.get("label")
        inner = ", ".join(f"{k}: {show_json(v)}" for k, v in value.items() if k != "label")
        return f"{label} {{{inner}}}" if label is not None else "{" + inner + "}"
    return show(value)


def log_line(entry, undone_by: dict) -> str:
    sheet = ", ".join(s.path for s in entry.sheets)
    if entry.kind == "undo":
        what = f"undo of run {entry.undoes}"
        tail = changes_text(entry.changes)
    else:
        what = entry.action
        tail = f"{result_text(entry.result)} · {changes_text(entry.changes)}"
    notes = []
    if entry.id in undone_by:
        notes.append(f"undone by {undone_by[entry.id]}")
    if entry.state == "pending":
        notes.append("interrupted: run `rulebook journal verify`")
    note = f"  ({'; '.join(notes)})" if notes else ""
    return f"{entry.id:>5}  {when(entry)}  {sheet}  {what}  {tail}{note}"


def dice_text(entry) -> str:
    faces = ", ".join(map(str, entry.dice)) or "none"
    origin = {"seeded": "seeded", "forced": "forced", "typed": "typed in"}.get(
        entry.origin, entry.origin
    )
    seed = f" {entry.seed}" if entry.seed is not None else ""
    return f"{faces}  ({origin}{seed})"
