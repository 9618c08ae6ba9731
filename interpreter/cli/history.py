"""Journal entries as text: one line per run for `log`, the details `show` adds."""

from __future__ import annotations

from dsl.messages import EFFECT_FIELDS, path_shown, tr
from interpreter.values import show

#: widest result summary on a log line, in characters
RESULT_WIDTH = 60

#: where a run's dice came from, as `show` says it
ORIGINS = {"seeded": tr("seeded"), "forced": tr("forced"), "typed": tr("typed in")}


def when(entry) -> str:
    """`2026-05-14 21:03` in UTC, as the journal keeps it."""
    return entry.at[:16].replace("T", " ")


def params_text(params: dict, language: str | None = None) -> str:
    return ", ".join(f"{k}={show_json(v, language)}" for k, v in params.items())


def result_text(result, width: int | None = RESULT_WIDTH, language: str | None = None) -> str:
    if result is None:
        return tr("no result").render(language)
    if not isinstance(result, dict):
        return show_json(result, language)
    text = ", ".join(f"{k} {show_json(v, language)}" for k, v in result.items())
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return text


def changes_text(changes, separator: str = ", ", language: str | None = None) -> str:
    """`Vida 5 → 3, objetivo.Vida 7 → 1`: another character's values by its role."""
    from interpreter.journal.rerun import changed_path

    if not changes:
        return tr("no changes").render(language)
    return separator.join(
        f"{path_shown(changed_path(c), language)} {show_json(c['before'], language)} → "
        f"{show_json(c['after'], language)}"
        for c in changes
    )


def choices_text(choices, separator: str = ", ", language: str | None = None) -> str:
    """`invocar=sí, defensa=esquivar (by objetivo, asked)`: each choice, who and how."""
    out = []
    for c in choices:
        notes = []
        if c.get("chooser") not in (None, "self"):
            notes.append(tr("by {chooser}", chooser=c["chooser"]).render(language))
        if c.get("how") in HOW:
            notes.append(HOW[c["how"]].render(language))
        note = f" ({', '.join(notes)})" if notes else ""
        out.append(f"{c['name']}={show_json(c['value'], language)}{note}")
    return separator.join(out) or tr("none").render(language)


#: how a choice was made, as `show` says it
HOW = {
    "given": tr("answered in advance"),
    "asked": tr("chosen at the table"),
    "only": tr("the only option open"),
    "recorded": tr("as recorded"),
    "policy": tr("a policy"),
}


def show_json(value, language: str | None = None) -> str:
    """A value as the journal stores it (JSON), printed as a run prints it."""
    if isinstance(value, list):
        return "[" + ", ".join(show_json(v, language) for v in value) + "]"
    if isinstance(value, dict) and not EFFECT_FIELDS.issubset(value):  # (an effect: in words)
        label = value.get("label")
        inner = ", ".join(
            f"{k}: {show_json(v, language)}" for k, v in value.items() if k != "label"
        )
        return f"{label} {{{inner}}}" if label is not None else "{" + inner + "}"
    return show(value, language)


def log_line(entry, undone_by: dict, language: str | None = None) -> str:
    sheet = ", ".join(s.path for s in entry.sheets)
    if entry.kind == "undo":
        what = tr("undo of run {number}", number=entry.undoes).render(language)
        tail = changes_text(entry.changes, language=language)
    elif entry.kind == "rulebook":  # a rulebook file saved from `rulebook serve`'s editor
        what = tr("rulebook {name} saved", name=entry.action).render(language)
        tail = tr("its text before kept").render(language)
    elif entry.kind == "sheet":  # a character made or edited by hand in the page
        made = entry.action == "create"
        what = (tr("character made") if made else tr("sheet edited")).render(language)
        tail = changes_text(entry.changes, language=language)
    else:
        what = entry.action
        result = result_text(entry.result, language=language)
        tail = f"{result} · {changes_text(entry.changes, language=language)}"
    notes = []
    if entry.id in undone_by:
        notes.append(tr("undone by {number}", number=undone_by[entry.id]).render(language))
    if entry.state == "pending":
        notes.append(tr("interrupted: run `rulebook journal verify`").render(language))
    note = f"  ({'; '.join(notes)})" if notes else ""
    return f"{entry.id:>5}  {when(entry)}  {sheet}  {what}  {tail}{note}"


def dice_text(entry, language: str | None = None) -> str:
    faces = ", ".join(map(str, entry.dice)) or tr("none").render(language)
    origin = ORIGINS.get(entry.origin, entry.origin)
    origin = origin.render(language) if hasattr(origin, "render") else origin
    seed = f" {entry.seed}" if entry.seed is not None else ""
    return f"{faces}  ({origin}{seed})"
