"""Characters made and edited in the page: checked as a sheet file is, journaled, undoable.

`POST /api/characters` makes a character from the form the page builds from the
rulebook's sheet (describe's JSON Schema): its values are read by the very code that
reads a sheet file (`Engine.sheet`: interpreter.sheets.validation and .rules), the
first value wrong named by its `field`, in the rulebook's language; the file is
FOLDER/NAME.yaml, never one that exists. `PATCH /api/characters/NAME` sets values of a
character (healing between sessions, advancement): the sheet as it is now with those
values, read again by the same code, each resource the page did not set kept within its
new maximum (as a run's end keeps it: interpreter.sheets.rules.settle), written back into
the file's own text (only what changed). Both are journal entries of kind `sheet`, undone
like a run (interpreter.journal.save_by_hand); a shipped character's edit makes its copy
in the folder, as a run's save does.
"""

from __future__ import annotations

from dsl.errors import RulebookError
from dsl.messages import tr
from interpreter.engine import Engine
from interpreter.errors import ParameterError, SheetChanged, SheetError
from interpreter.journal import JOURNAL_NAME, save_by_hand
from interpreter.journal.undo import diff_data
from interpreter.sheets.character import Sheet, format_of
from interpreter.sheets.validation import META_KEYS
from interpreter.sheets.writer import render_new
from interpreter.values import to_json
from interpreter.web.body import field, unknown_fields
from interpreter.web.errors import NameTaken
from interpreter.web.jobs import Work, language_of, sheet_json
from interpreter.web.library import NAME

#: values one edit may set (and values it says were shown), at most
MAX_VALUES = 200
#: values wrong of a new sheet named in one answer, at most
MAX_WRONG = 50
CREATE_FIELDS = {"rulebook", "name", "sheet", "lang"}
EDIT_FIELDS = {"rulebook", "values", "shown", "lang"}


def create(work: Work, args: dict) -> dict:
    """A new character in the folder from the page's form; what was saved, and the sheet."""
    body = args["body"]
    unknown_fields(body, CREATE_FIELDS)
    library = work.library
    book = library.rulebook(field(body, "rulebook", str, required=True))
    language = language_of(body, book)
    try:
        name = _new_name(library, field(body, "name", str, required=True))
        given = field(body, "sheet", dict, required=True)
    except RulebookError as error:
        raise error.speak(language) from None
    engine = Engine.of(book)
    data = {"rulebook": library.name_of(book) or book.title}
    data.update((key, value) for key, value in given.items() if key != "rulebook")
    target = library.folder / f"{name}.yaml"
    sheet = _read_all(engine, data, str(target))  # as a sheet file is read
    text = render_new(data, "yaml")

    def make(current: str | None):
        if current is not None:  # made meanwhile by someone else
            raise _taken(name).speak(language)
        again = Sheet.from_text(text, book, str(target))
        if dict(again.values) != dict(sheet.values):  # (the file must read as checked)
            raise SheetError(tr("the sheet could not be written; nothing was saved"))
        values = {key: value for key, value in data.items() if key != "rulebook"}
        return text, [(path, None, after) for path, _, after in diff_data({}, to_json(values))]

    number = save_by_hand(library.folder / JOURNAL_NAME, target, make, book, "create")
    library.forget_sheets([target])
    out = {"created": name, "file": target.name, "entry": number}
    out.update(sheet_json(engine, library.sheet(engine, target)))
    return out


def edit(work: Work, args: dict) -> dict:
    """Values of a character set by hand; what was saved (its entry, the changes), and
    the sheet as it is now. `shown`: the values the page showed (path → value): one that
    is not so any more refuses the edit (another page saved meanwhile)."""
    body = args["body"]
    unknown_fields(body, EDIT_FIELDS)
    library = work.library
    book = library.rulebook(field(body, "rulebook", str, required=True))
    language = language_of(body, book)
    name = args["name"]
    values = field(body, "values", dict, required=True)
    shown = field(body, "shown", dict, default={})
    if not values or len(values) > MAX_VALUES or len(shown) > MAX_VALUES:
        raise _at(ParameterError(tr("give from 1 to {most} values to set", most=MAX_VALUES)))
    engine = Engine.of(book)
    source, target = library.character_path(name), library.save_target(name)
    # checked first as the sheet is now (a value wrong opens no journal), again below
    _edited(
        engine, library.sheet(engine, target if target.exists() else source), values, str(target)
    )
    out: dict = {}

    def make(current: str | None):
        if current is None:  # a shipped character: its copy in the folder made now
            before = engine.load_sheet(source)
        else:
            before = Sheet.from_text(current, book, str(target), format_of(target))
        for path, value in shown.items():
            if to_json(before.get(path)) != value:
                raise SheetChanged(
                    tr(
                        "{character} is not as it was shown (saved elsewhere, or edited): "
                        "nothing was written",
                        character=name,
                    ),
                    hint=tr("look at the sheet as it is now and set the values again"),
                    path=target.name,
                ).speak(language)
        after = _edited(engine, before, values, str(target))
        changes = diff_data(to_json(before.to_data()), to_json(after.to_data()))
        if not changes:
            raise ParameterError(
                tr("{character} has these values already: nothing to save", character=name)
            ).speak(language)
        text = after.file_text(before, before.text)
        out["changes"] = [{"path": p, "before": b, "after": a} for p, b, a in changes]
        return text, changes

    try:
        number = save_by_hand(library.folder / JOURNAL_NAME, target, make, book, "edit")
    finally:
        library.forget_sheets([source, target])
    out.update({"edited": name, "file": target.name, "entry": number})
    out.update(sheet_json(engine, library.sheet(engine, target)))
    return out


def _read_all(engine, data: dict, path: str) -> Sheet:
    """The sheet of `data`, read as a sheet file is; else its first error, with every
    value wrong it found (`every_value`, the error document's `diagnostics`: each beside
    its field in the page). A read says every value wrong of its fields at once; those
    are left out to find what the rules of the sheet say of the rest."""
    found: list[SheetError] = []
    trial = dict(data)
    for _ in range(min(len(data) + 1, MAX_WRONG)):
        try:
            sheet = engine.sheet(trial, path)
        except SheetError as error:
            seen = {e.field for e in found}
            if found and (error.field is None or error.field in seen):
                break  # (a rule of the whole sheet, or a field left out now missing)
            news = [e for e in error.every_value or [error] if e.field not in seen]
            found.extend(news)
            if not all(e.field in trial for e in news):
                break
            for each in news:
                trial.pop(each.field)
        else:
            if not found:
                return sheet
            break
    first = found[0]
    first.every_value = found if len(found) > 1 else []
    raise first


def _edited(engine, before: Sheet, values: dict, path: str) -> Sheet:
    """The sheet with `values` set (path → value: `Fuerza`, `dinamis.Virtus`,
    `skills.Ocultismo`), read as a sheet file is; a resource not set is kept, brought
    down to its new maximum if that fell (a resource left out of the data reads full)."""
    data = before.to_data()
    for place, value in values.items():
        _set(data, place, value)
    given = {place.split(".")[0] for place in values}
    kept = {
        path: value
        for path, value, _low, _high in engine.resources(before)
        if path not in values and path.split(".")[0] not in given
    }
    for place in kept:  # read again at their new maximum...
        _drop(data, place)
    fresh = engine.sheet(data, path, before.text_format)
    for place, _value, _low, high in engine.resources(fresh):
        if place in kept:  # ...and kept as they were, within it
            _set(data, place, min(kept[place], high))
    return engine.sheet(data, path, before.text_format)


def _set(data: dict, place: str, value) -> None:
    if not place or place.partition(".")[0] in META_KEYS:  # (`rulebook`: not a value)
        raise _at(ParameterError(tr("{place}: not a field of the sheet", place=repr(place))))
    name, _, key = place.partition(".")
    if not key:
        data[name] = value
        return
    inner = data.get(name)
    if not isinstance(inner, dict):
        inner = {}
        data[name] = inner
    inner[key] = value


def _drop(data: dict, place: str) -> None:
    name, _, key = place.partition(".")
    if key and isinstance(data.get(name), dict):
        data[name].pop(key, None)
    else:
        data.pop(name, None)


def _new_name(library, name: str) -> str:
    if not NAME.fullmatch(name):
        raise _at(
            ParameterError(
                tr("{name} is not a name for a character", name=repr(name)),
                None,
                tr("a name is letters, digits, _ and -, starting with a letter or digit (no path)"),
            ),
            "name",
        )
    if name in library.character_files():
        raise _taken(name)
    return name


def _taken(name: str) -> RulebookError:
    taken = NameTaken(
        tr("there is a character named {name} already", name=name), None, tr("choose another name")
    )
    return _at(taken, "name")


def _at(error: RulebookError, name: str = "values") -> RulebookError:
    """The error with the request's field at fault (`field` of the error document)."""
    error.field = name  # type: ignore[attr-defined]
    return error
