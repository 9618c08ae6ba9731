"""The HTTP API's handlers: a request's JSON in, the public API called, the `--json` out.

Each handler reads and checks its body (interpreter.web.body), does the engine's work in
a worker thread (interpreter.web.work), and answers with the same JSON as the command
line's `--json`: `describe` for a rulebook, `Outcome.to_json()` for a run,
`Odds.to_json()` for odds (`{"a", "b", "names"}` when two are compared).
"""

from __future__ import annotations

import re
from importlib import resources

from starlette.responses import JSONResponse, StreamingResponse

from dsl.errors import RulebookError, RulebookInvalid
from dsl.messages import language_for, tr
from interpreter.choices import Chooser
from interpreter.dice import ForcedDice, SeededDice
from interpreter.engine import Engine
from interpreter.errors import ParameterError, SheetError
from interpreter.json_data import (
    Writer,
    comparison_data,
    describe_data,
    odds_data,
    run_data,
    step_data,
)
from interpreter.odds import BUDGET, TRIALS, expression_odds
from interpreter.sheet import Sheet
from interpreter.values import to_json
from interpreter.web import saving
from interpreter.web.body import faces, field, json_body, unknown_fields
from interpreter.web.errors import RequestError, diagnostic_json
from interpreter.web.library import Library, version_of
from interpreter.web.replay import ChoiceNeeded, DieNeeded, TypedAnswers, TypedSoFar
from interpreter.web.saving import Subject
from interpreter.web.words import page_words

#: the most exact work and trials a client may ask of one odds computation
MAX_BUDGET = 10 * BUDGET
MAX_TRIALS = 10 * TRIALS
#: characters of rulebook text a request may carry (the largest shipped one has 77 000)
MAX_TEXT = 256_000

_RUN_FIELDS = {"rulebook", "text", "action", "character", "sheet", "params", "targets"}
_RUN_FIELDS |= {"seed", "dice", "ask", "choices", "answers", "save", "expect", "lang"}
_ODDS_FIELDS = {"expression", "rulebook", "text", "action", "character", "sheet", "params"}
_ODDS_FIELDS |= {"field", "compare", "budget", "trials", "seed", "progress", "lang"}
_ODDS_FIELDS |= {"targets", "choices", "best"}
_EXPRESSION_FIELDS = {"expression", "budget", "trials", "seed", "progress", "lang"}


class Api:
    """The handlers, over one Library (the folder) and one set of worker threads."""

    def __init__(self, library: Library, workers, language: str | None = None):
        self.library = library
        self.workers = workers
        self.page_language = language  # `serve --lang`: before each rulebook's own

    # ─── rulebooks and characters ───────────────────────────────────────────

    async def rulebooks(self, request):
        return JSONResponse({"rulebooks": await self.workers.run(self._rulebooks)})

    def _rulebooks(self) -> list[dict]:
        out = []
        for name, (path, source) in self.library.rulebook_files().items():
            item = {"name": name, "source": source, "path": str(path)}
            try:
                book = self.library.rulebook(name)
            except RulebookError as error:
                item.update(title=None, extends=None, language=None, error=error.message)
            else:
                base = self.library.name_of(book.base) if book.base is not None else None
                item.update(title=book.title, extends=base, language=book.language)
                item["files"] = _files_of(book, self.library)
            out.append(item)
        return out

    async def rulebook(self, request):
        name = request.path_params["name"]
        book = await self.workers.run(self.library.rulebook, name)
        return JSONResponse(describe_data(book, self._language(request.query_params, book)))

    async def rulebook_source(self, request):
        name = request.path_params["name"]
        path = self.library.rulebook_path(name)
        source = self.library.rulebook_files()[name][1]
        text = await self.workers.run(path.read_text, "utf-8")
        version = version_of(text)  # what a save over it names (If-Match)
        out = {"name": name, "source": source, "path": str(path), "text": text, "version": version}
        return JSONResponse(out, headers={"etag": version, "cache-control": "no-cache"})

    async def save_rulebook(self, request):
        body = await json_body(request)
        unknown_fields(body, {"text"})
        text = _text(body, "text", required=True)
        name = request.path_params["name"]
        if_match = request.headers.get("if-match")
        saved = await self.workers.run(saving.save_rulebook, self.library, name, text, if_match)
        return JSONResponse(saved, headers={"etag": saved["version"]})

    async def characters(self, request):
        reference = request.query_params.get("rulebook")

        def listing():
            book = self.library.rulebook(reference) if reference else None
            return self.library.characters(book)

        return JSONResponse({"characters": await self.workers.run(listing)})

    async def character(self, request):
        name = request.path_params["name"]
        reference = request.query_params.get("rulebook")
        if not reference:
            raise RequestError(tr("which rulebook reads this character? add ?rulebook=NAME"))

        def read():
            book = self.library.rulebook(reference)
            engine = Engine.of(book)
            sheet = engine.load_sheet(self.library.character_path(name))
            out = {
                "name": name,
                "source": self.library.character_files()[name][1],
                "saves_to": self.library.save_target(name).name,
            }
            out.update(_sheet_json(engine, sheet))
            return out

        return JSONResponse(await self.workers.run(read))

    async def sheet(self, request):
        """A sheet given as data, read by a rulebook: completed, with its resources'
        bounds (the page shows the sheet a run left, before it is saved)."""
        body = await json_body(request)
        unknown_fields(body, {"rulebook", "text", "sheet"})
        field(body, "sheet", dict, required=True)

        def read():
            engine = Engine.of(self._book(body))
            return _sheet_json(engine, self._sheet(body, engine))

        return JSONResponse(await self.workers.run(read))

    async def history(self, request):
        name = request.path_params["name"]
        return JSONResponse({"entries": await self.workers.run(saving.history, self.library, name)})

    async def undo(self, request):
        body = await json_body(request)
        unknown_fields(body, {"entry"})
        number = field(body, "entry", int, required=True)
        return JSONResponse(await self.workers.run(saving.undo_entry, self.library, number))

    # ─── running ────────────────────────────────────────────────────────────

    async def run(self, request):
        body = await json_body(request)
        unknown_fields(body, _RUN_FIELDS)
        return JSONResponse(await self.workers.run(self._run, body))

    def _run(self, body: dict) -> dict:
        action = field(body, "action", str, required=True)
        params = field(body, "params", dict, default={})
        save = field(body, "save", bool, default=False)
        character = field(body, "character", str)
        if save and character is None:
            raise RequestError(tr("saving needs a character: the sheet to write back"))
        if save:
            saving.refuse_unsaved(body)
        dice = self._dice(body)
        engine = self.workers.bounded(Engine.of(self._book(body)))
        language = self._language(body, engine.rulebook)
        answered = self._answered(body)
        chooser = Chooser(field(body, "choices", dict, default={}), answered)
        expect = field(body, "expect", dict)
        try:
            if save:
                outcome, saved = saving.save(
                    self.library,
                    engine,
                    Subject(character, action, params, self._target_names(body)),
                    dice,
                    chooser,
                    expect,
                    answered,
                )
            else:
                sheet = self._sheet(body, engine, action)
                targets = self._targets(body, engine)
                outcome = engine.run(action, sheet, params, dice, targets=targets, choices=chooser)
                if answered is not None:
                    answered.finish()
                saved = None
        except (DieNeeded, ChoiceNeeded) as need:
            return _needed(need, language)
        out = run_data(outcome, language)
        if saved is not None:
            out["saved"] = saved
        return out

    def _answered(self, body: dict) -> TypedAnswers | None:
        """The answers given so far to the choices asked in the page (`answers`: a choice
        not answered yet stops the run and is asked for), or None (a choice of several
        options not answered in advance is an error, as with the Python API)."""
        answers = field(body, "answers", list)
        return TypedAnswers(answers) if answers is not None else None

    def _target_names(self, body: dict) -> dict:
        """The other characters of a run by the parameter they are: role → character name."""
        targets = field(body, "targets", dict, default={})
        for role, name in targets.items():
            if not isinstance(name, str):
                raise RequestError(
                    tr(
                        "targets: {role} is a character's name (GET /api/characters) when "
                        "the run is saved",
                        role=role,
                    )
                )
        return targets

    def _targets(self, body: dict, engine) -> dict:
        """role → Sheet: a character of the folder by name, or a sheet given as data."""
        out = {}
        for role, given in field(body, "targets", dict, default={}).items():
            if isinstance(given, str):
                out[role] = engine.load_sheet(self.library.character_path(given))
            elif isinstance(given, dict):
                out[role] = engine.sheet(given)
            else:
                raise RequestError(
                    tr(
                        "targets: {role} is a character's name or a sheet (an object)",
                        role=role,
                    )
                )
        return out

    def _dice(self, body: dict):
        seed = field(body, "seed", int)
        typed = faces(body, "dice")
        ask = field(body, "ask", bool, default=False)
        if seed is not None and (typed is not None or ask):
            raise RequestError(tr("give a seed or dice, not both"))
        if ask:
            return TypedSoFar(typed or [])
        if typed is not None:
            return ForcedDice(typed)
        return SeededDice(seed)

    # ─── odds ───────────────────────────────────────────────────────────────

    async def odds(self, request):
        body = await json_body(request)
        unknown_fields(body, _ODDS_FIELDS)
        job = await self.workers.run(self._odds_job, body)
        if field(body, "progress", bool, default=False):
            return StreamingResponse(
                self.workers.odds_stream(job, getattr(request.state, "lang", None)),
                media_type="application/x-ndjson",
            )
        return JSONResponse(await self.workers.odds_json(job))

    def _odds_job(self, body: dict):
        """The computation a request asks for, as `job(progress)`; its fields, rulebooks
        and sheets are checked here, before the work starts (and before a stream's status
        line goes out)."""
        options = {
            "budget": _bounded(body, "budget", BUDGET, MAX_BUDGET),
            "trials": _bounded(body, "trials", TRIALS, MAX_TRIALS),
            "seed": field(body, "seed", int, default=0),
        }
        expression = field(body, "expression", str)
        if expression is not None:
            extra = set(body) & (_ODDS_FIELDS - _EXPRESSION_FIELDS)
            if extra:
                raise RequestError(
                    tr("an expression's odds take no {fields}", fields=", ".join(sorted(extra))),
                    tr("for an action's odds, leave out expression"),
                )
            if len(expression) > 1000:
                raise RequestError(tr("the expression is longer than {most} characters", most=1000))
            language = language_for(field(body, "lang", str))
            return lambda progress: odds_data(
                expression_odds(expression, progress=progress, **options), language
            )
        action = field(body, "action", str, required=True)
        params = field(body, "params", dict, default={})
        target = field(body, "field", str)
        compare = field(body, "compare", dict)
        book = self._book(body)
        engine = Engine.of(book)
        sheet = self._sheet(body, engine, action)
        params = {**params, **self._targets(body, engine)}  # the other characters' sheets
        if action in book.actions:
            engine.prepare(action, sheet, params)  # an unknown parameter: a 400 now
        else:
            engine.runnable(action)  # not a check, opposed check nor roll either: a 400 now
        # The action's choices: answered in advance, the others the best for a goal.
        options["choices"] = field(body, "choices", dict)
        best = field(body, "best", str)
        if best is not None:
            options["best"] = best
        other = None
        if compare is not None:
            unknown_fields(compare, {"rulebook", "text", "params"})
            other, names = self._other(compare, book, engine, sheet, params)

        language = self._language(body, book)

        def job(progress):
            odds = engine.odds(action, sheet, params, target, progress=progress, **options)
            if other is None:
                return odds_data(odds, language)
            b = other[0].odds(action, other[1], other[2], target, progress=progress, **options)
            return comparison_data(odds, b, names, language)

        return job

    def _other(self, compare: dict, book, engine, sheet, params):
        """What to compare with: another rulebook (a house rule, the editor's text) for the
        same sheet, or other parameters; ((engine, sheet, params), (name A, name B))."""
        changed = field(compare, "params", dict)
        if changed is not None and len(compare) == 1:
            names = (tr("the parameters as given"), tr("the changed parameters"))
            return (engine, sheet, {**params, **changed}), names
        other = self._book(compare)
        other_engine = Engine.of(other)
        try:
            other_sheet = other_engine.sheet(sheet.to_data(), sheet.path)
            # the other characters' sheets, read by the other rulebook too
            params = {
                k: other_engine.sheet(v.to_data(), v.path) if isinstance(v, Sheet) else v
                for k, v in params.items()
            }
        except RulebookError as error:
            raise ParameterError(
                tr(
                    "the sheet does not fit {title} ({problem})",
                    title=other.title,
                    problem=error.message,
                )
            ) from None
        return (other_engine, other_sheet, {**params, **(changed or {})}), (
            book.title,
            tr("{title} (edited)", title=other.title)
            if field(compare, "text", str)
            else other.title,
        )

    # ─── checking ───────────────────────────────────────────────────────────

    async def check(self, request):
        body = await json_body(request)
        unknown_fields(body, {"text", "name"})
        text = _text(body, "text", required=True)
        name = field(body, "name", str, default="<editor>")
        return JSONResponse(await self.workers.run(self._check, text, name))

    def _check(self, text: str, name: str) -> dict:
        try:
            book = self.library.rulebook_text(text, name)
        except RulebookInvalid as invalid:
            return {"ok": False, "diagnostics": [diagnostic_json(d) for d in invalid.diagnostics]}
        except RulebookError as error:
            return {"ok": False, "diagnostics": [diagnostic_json(error)]}
        warnings = [diagnostic_json(w) for w in book.warnings]
        return {"ok": True, "title": book.title, "diagnostics": warnings}

    async def language(self, request):
        return JSONResponse({"keywords": KEYWORDS, "comment": "#"})

    async def words(self, request):
        """The page's words in its language: `?lang=`, else `serve --lang`, else the
        rulebook's (`?rulebook=`), else English."""
        query = request.query_params
        reference = query.get("rulebook")
        book = await self.workers.run(self.library.rulebook, reference) if reference else None
        language = language_for(
            query.get("lang"), self.page_language, book.language if book is not None else None
        )
        return JSONResponse({"language": language, "words": page_words(language)})

    # ─── shared ─────────────────────────────────────────────────────────────

    def _language(self, body, book=None) -> str:
        """The language of the answer's texts: `lang`, else the rulebook's, else English."""
        lang = body.get("lang")
        return language_for(
            lang if isinstance(lang, str) else None, book.language if book else None
        )

    def _book(self, body: dict):
        """The rulebook a request names, or gives as text (an edit not yet saved)."""
        name = field(body, "rulebook", str)
        text = _text(body, "text")
        if (name is None) == (text is None):
            raise RequestError(tr("give the rulebook's name (rulebook) or its text (text)"))
        if text is not None:
            return self.library.rulebook_text(text, "<editor>")
        return self.library.rulebook(name)

    def _sheet(self, body: dict, engine, action: str | None = None):
        """The character's sheet: named, given as data, or none (an empty sheet, when the
        rulebook's sheet needs nothing given or `action` reads no sheet)."""
        character = field(body, "character", str)
        data = field(body, "sheet", dict)
        if character is not None and data is not None:
            raise RequestError(tr("give a character's name or a sheet, not both"))
        if character is not None:
            return engine.load_sheet(self.library.character_path(character))
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


def _text(body: dict, name: str, required: bool = False) -> str | None:
    text = field(body, name, str, required=required)
    if text is not None and len(text) > MAX_TEXT:
        raise RequestError(
            tr("the {field} is longer than {most} characters", field=name, most=MAX_TEXT),
            status=413,
        )
    return text


def _needed(need: DieNeeded | ChoiceNeeded, language: str) -> dict:
    """A run stopped for a die or a choice: what it needs, and its trace so far (what was
    rolled before the choice), in the run's language."""
    writer = Writer(language)
    out = need.to_json(language) if isinstance(need, ChoiceNeeded) else need.to_json()
    out["language"] = language
    steps = need.trace or []
    out["trace"] = [step_data(s, writer, f"/trace/{i}") for i, s in enumerate(steps)]
    return writer.finish(out)


def _bounded(body: dict, name: str, default: int, most: int) -> int:
    value = field(body, name, int, default=default)
    if not 1 <= value <= most:
        raise RequestError(tr("{field} is between 1 and {most}", field=name, most=most))
    return value


def _sheet_json(engine, sheet) -> dict:
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


def _keywords() -> list[str]:
    grammar = resources.files("grammar").joinpath("rulebook.lark").read_text(encoding="utf-8")
    return sorted(set(re.findall(r'"([a-z_]+)"', grammar)))


#: the words of the grammar, for the editor's highlighting
KEYWORDS = _keywords()
