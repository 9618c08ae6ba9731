"""The server's work as plain functions of plain data, run in a worker process.

A job is a name and JSON arguments (a request's body, or its path and query values); it
runs with the worker's own Library over the server's folder and returns the JSON answer,
the same as the command line's `--json`: `describe` for a rulebook, the diagnostics of
a check, a sheet with its resources' bounds. Runs and odds are in interpreter.web.play.
Every field is checked here, in the order the answer names the first one wrong.
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal, cast, overload

from dsl.errors import RulebookError, RulebookInvalid
from dsl.load import read
from dsl.messages import Number, available_languages, language_for, number_signs, tr
from interpreter.engine import Engine
from interpreter.errors import LimitExceeded, ParameterError, SheetError
from interpreter.json_data import describe_data
from interpreter.values import to_json
from interpreter.web import saving
from interpreter.web.body import field
from interpreter.web.errors import RequestError, diagnostic_json
from interpreter.web.library import Library, version_of
from interpreter.web.words import page_words

#: characters of rulebook text a request may carry (the largest shipped one has 77 000)
MAX_TEXT = 256_000
#: seconds between two progress reports sent to the page
PROGRESS_EVERY = 0.1


class Work:
    """What a job is given: the folder, the server's bounds, and its way back to the
    server (`ready` once its inputs are checked; `progress` as an odds computation goes)."""

    def __init__(self, library: Library, settings: dict, tell=None, hold=None):
        self.library = library
        self.run_seconds = settings["run_seconds"]
        self.odds_seconds = settings["odds_seconds"]
        self.page_language = settings.get("language")
        self.tell = tell or (lambda kind, payload=b"": None)
        # () → None: the notice that the work started held back (interpreter.web.worker:
        # sent with the answer, or once the work has run a while), else None (told at once)
        self.hold = hold
        self.stream = False
        # (key, engine, sheet) of a run whose answer is remembered once rendered
        # (interpreter.web.kept_answers), else None
        self.remember: tuple | None = None
        self.started: float | None = None
        self.last = 0.0

    def ready(self) -> None:
        """The job's inputs are checked: its time bound starts now (a stream's status
        line goes out when the server hears it; a quick answer's notice goes with it)."""
        if self.started is None:
            self.started = time.monotonic()
            if self.hold is not None and not self.stream:
                self.hold()
            else:
                self.tell(b"Y")

    def progress(self, done: int, total: int, elapsed: float, what: str = "sampling") -> None:  # noqa: ARG002 (the odds report progress as (done, total, elapsed, what))
        """An odds computation's report: past the time bound, the project's own error;
        for a stream, a line of progress now and then."""
        now = time.monotonic()
        self.ready()
        seconds = self.odds_seconds
        if now - cast(float, self.started) > seconds:  # (set by ready() above)
            raise odds_too_long(seconds)
        if self.stream and (now - self.last >= PROGRESS_EVERY or done >= total):
            self.last = now
            phase = "exact" if what == "exact" else "sampling"
            self.tell(b"P", line({"progress": {"phase": phase, "done": done, "total": total}}))


class Answer:
    """A job's answer with headers of its own (an ETag): `document` is what is sent."""

    def __init__(self, document: dict, headers: dict):
        self.document, self.headers = document, headers


def odds_too_long(seconds: float) -> LimitExceeded:
    return LimitExceeded(
        tr(
            "the odds took longer than {seconds} seconds (the server's time limit)",
            seconds=Number(seconds, "g"),
        ),
        None,
        tr("ask for fewer trials or a smaller budget, or simplify the question"),
    )


def line(message: dict) -> bytes:
    """One line of a stream of JSON lines (its last line carries a document, and with it
    the package's version: `{"result": ...}` or the error's)."""
    return (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")


# ─── rulebooks and characters ───────────────────────────────────────────────


def rulebooks(work: Work, args: dict) -> dict:  # noqa: ARG001 (every job is called as job(work, args): worker.JOBS)
    library = work.library
    out = []
    for name, (path, source) in library.rulebook_files().items():
        item: dict[str, Any] = {"name": name, "source": source, "path": str(path)}
        try:
            book = library.rulebook(name)
        except RulebookError as error:
            item.update(title=None, extends=None, language=None, error=error.message)
        else:
            base = library.name_of(book.base) if book.base is not None else None
            item.update(title=book.title, extends=base, language=book.language)
            item["files"] = _files_of(book, library)
        out.append(item)
    return {"rulebooks": out}


def rulebook(work: Work, args: dict) -> dict:
    book = work.library.rulebook(args["name"])
    return describe_data(book, language_of(args, book))


def rulebook_source(work: Work, args: dict) -> Answer:
    name = args["name"]
    path = work.library.rulebook_path(name)
    source = work.library.rulebook_files()[name][1]
    text = read(path)  # (a named pipe put there meanwhile is refused, never waited on)
    version = version_of(text)  # what a save over it names (If-Match)
    out = {"name": name, "source": source, "path": str(path), "text": text, "version": version}
    return Answer(out, {"etag": version, "cache-control": "no-cache"})


def save_rulebook(work: Work, args: dict) -> Answer:
    body = args["body"]
    text = text_field(body, "text", required=True)
    name = args["name"]
    saved = saving.save_rulebook(work.library, name, text, args.get("if_match"))
    return Answer(saved, {"etag": saved["version"]})


def characters(work: Work, args: dict) -> dict:
    reference = args.get("rulebook")
    book = work.library.rulebook(reference) if reference else None
    return {"characters": work.library.characters(book)}


def character(work: Work, args: dict) -> dict:
    name, reference = args["name"], args.get("rulebook")
    if not reference:
        raise RequestError(tr("which rulebook reads this character? add ?rulebook=NAME"))
    library = work.library
    book = library.rulebook(reference)
    engine = Engine.of(book)
    sheet = library.sheet(engine, library.character_path(name))
    out = {
        "name": name,
        "source": library.character_files()[name][1],
        "saves_to": library.save_target(name).name,
    }
    out.update(sheet_json(engine, sheet))
    out["warnings"] = sheet_warnings([sheet], language_of(args, book))
    return out


def sheet(work: Work, args: dict) -> dict:
    """A sheet given as data, read by a rulebook: completed, with its resources' bounds
    (the page shows the sheet a run left, before it is saved)."""
    body = args["body"]
    field(body, "sheet", dict, required=True)
    engine = Engine.of(book_of(work, body))
    return sheet_json(engine, sheet_of(work, body, engine))


def history(work: Work, args: dict) -> dict:
    return {"entries": saving.history(work.library, args["name"])}


def undo(work: Work, args: dict) -> dict:
    number = field(args["body"], "entry", int, required=True)
    return saving.undo_entry(work.library, number)


# ─── checking and the page's words ──────────────────────────────────────────


def check(work: Work, args: dict) -> dict:
    body = args["body"]
    text = text_field(body, "text", required=True)
    name = field(body, "name", str, default="<editor>")
    try:
        book = work.library.rulebook_text(text, name)
    except RulebookInvalid as invalid:
        return {"ok": False, "diagnostics": [diagnostic_json(d) for d in invalid.diagnostics]}
    except RulebookError as error:
        return {"ok": False, "diagnostics": [diagnostic_json(error)]}
    warnings = [diagnostic_json(w) for w in book.warnings]
    return {"ok": True, "title": book.title, "diagnostics": warnings}


def words(work: Work, args: dict) -> dict:
    """The page's words in its language: `?lang=`, else `serve --lang`, else the
    rulebook's (`?rulebook=`), else English."""
    reference = args.get("rulebook")
    book = work.library.rulebook(reference) if reference else None
    language = language_for(
        args.get("lang"), work.page_language, book.language if book is not None else None
    )
    return {
        "language": language,
        "words": page_words(language),
        "numbers": number_signs(language),
        "languages": list(available_languages()),  # what the page may be shown in
    }


# ─── shared ─────────────────────────────────────────────────────────────────


def language_of(body: dict, book=None) -> str:
    """The language of the answer's texts: `lang`, else the rulebook's, else English."""
    lang = body.get("lang")
    return language_for(lang if isinstance(lang, str) else None, book.language if book else None)


def language_asked_of(work: Work, args) -> str | None:
    """The language of the rulebook of the journal entry a request undoes (`entry`), when
    it is known: what its errors speak (the page asks an undo without its `lang`)."""
    body = args.get("body") if isinstance(args, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("entry"), int):
        return None
    try:
        return saving.entry_language(work.library, body["entry"])
    except RulebookError:  # (no journal, no such entry: said in English)
        return None


@overload
def text_field(body: dict, name: str, required: Literal[True]) -> str: ...
@overload
def text_field(body: dict, name: str, required: bool = False) -> str | None: ...


def text_field(body: dict, name: str, required: bool = False) -> str | None:
    text = field(body, name, str, required=required)
    if text is not None and len(text) > MAX_TEXT:
        raise RequestError(
            tr("the {field} is longer than {most} characters", field=name, most=MAX_TEXT),
            status=413,
        )
    return text


def book_of(work: Work, body: dict):
    """The rulebook a request names, or gives as text (an edit not yet saved)."""
    name = field(body, "rulebook", str)
    text = text_field(body, "text")
    if (name is None) == (text is None):
        raise RequestError(tr("give the rulebook's name (rulebook) or its text (text)"))
    if text is not None:
        return work.library.rulebook_text(text, "<editor>")
    return work.library.rulebook(name)


def sheet_of(work: Work, body: dict, engine, action: str | None = None):
    """The character's sheet: named, given as data, or none (an empty sheet, when the
    rulebook's sheet needs nothing given or `action` reads no sheet)."""
    character = field(body, "character", str)
    data = field(body, "sheet", dict)
    if character is not None and data is not None:
        raise RequestError(tr("give a character's name or a sheet, not both"))
    if character is not None:
        return work.library.sheet(engine, work.library.character_path(character))
    if data is not None:
        return engine.sheet(data)
    try:
        return engine.sheet({})  # a rulebook whose sheet needs nothing given
    except SheetError as error:
        empty = engine.empty_sheet(action) if action is not None else None
        if empty is not None:  # a roll such as Brujería's open d10
            return empty
        raise ParameterError(
            tr(
                "{title} needs a character: {problem}",
                title=engine.rulebook.title,
                problem=error.message,
            ),
            None,
            tr("name one (character) or give its sheet (sheet)"),
        ) from None


def targets_of(work: Work, body: dict, engine) -> dict:
    """role → Sheet: a character of the folder by name, or a sheet given as data."""
    out = {}
    for role, given in field(body, "targets", dict, default={}).items():
        if isinstance(given, str):
            out[role] = work.library.sheet(engine, work.library.character_path(given))
        elif isinstance(given, dict):
            out[role] = engine.sheet(given)
        else:
            raise RequestError(
                tr("targets: {role} is a character's name or a sheet (an object)", role=role)
            )
    return out


def sheet_warnings(sheets, language: str | None) -> list[str]:
    """What the sheets of a request say that may not be what it seems (a key that only
    looks like a field's name, a direction control in one: `Sheet.warnings`), each as
    the command line prints it, in the answer's language."""
    return [warning.render(language) for sheet in sheets for warning in sheet.warnings]


def sheet_json(engine, sheet) -> dict:
    return {
        "sheet": to_json(sheet.to_data()),
        "resources": [
            {"path": path, "value": to_json(value), "min": to_json(low), "max": to_json(high)}
            for path, value, low, high in engine.resources(sheet)
        ],
    }


def _files_of(book, library: Library) -> dict:
    """The rulebook's files by path → the name they are offered under (a house rule's
    trace points at lines of its base too)."""
    out, current = {}, book
    while current is not None:
        out[current.path] = library.name_of(current)
        current = current.base
    return out
