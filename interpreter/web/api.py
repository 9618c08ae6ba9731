"""The HTTP API's handlers: a request read, its job given to the workers, the answer out.

Each handler reads and checks its body (interpreter.web.body) and hands the work to a
worker process (interpreter.web.work): the jobs (interpreter.web.jobs and .play) answer
with the same JSON as the command line's `--json`: `describe` for a rulebook,
`Outcome.to_json()` for a run, `Odds.to_json()` for odds (`{"a", "b", "names"}` when two
are compared). Nothing here parses a rulebook, reads a sheet or runs anything.
"""

from __future__ import annotations

import re
from importlib import resources

from starlette.responses import JSONResponse

from interpreter.version import versioned
from interpreter.web.body import json_body, unknown_fields
from interpreter.web.jobs import MAX_TEXT
from interpreter.web.play import MAX_BUDGET, MAX_TRIALS, ODDS_FIELDS, RUN_FIELDS

__all__ = ["KEYWORDS", "MAX_BUDGET", "MAX_TEXT", "MAX_TRIALS", "Api"]


class Api:
    """The handlers, over one set of worker processes (one folder)."""

    def __init__(self, workers):
        self.workers = workers

    # ─── rulebooks and characters ───────────────────────────────────────────

    async def rulebooks(self, request):
        return await self.workers.answer(request, "rulebooks", {})

    async def rulebook(self, request):
        args = {"name": request.path_params["name"], "lang": request.query_params.get("lang")}
        return await self.workers.answer(request, "rulebook", args)

    async def rulebook_source(self, request):
        return await self.workers.answer(
            request, "rulebook_source", {"name": request.path_params["name"]}
        )

    async def save_rulebook(self, request):
        body = await json_body(request)
        unknown_fields(body, {"text"})
        args = {
            "name": request.path_params["name"],
            "body": body,
            "if_match": request.headers.get("if-match"),  # the version it replaces
        }
        return await self.workers.answer(request, "save_rulebook", args, writes=True)

    async def characters(self, request):
        args = {"rulebook": request.query_params.get("rulebook")}
        return await self.workers.answer(request, "characters", args)

    async def character(self, request):
        args = {
            "name": request.path_params["name"],
            "rulebook": request.query_params.get("rulebook"),
        }
        return await self.workers.answer(request, "character", args)

    async def create_character(self, request):
        """A new character in the folder, from the page's form (interpreter.web.by_hand)."""
        body = await json_body(request)
        return await self.workers.answer(request, "create_character", {"body": body}, writes=True)

    async def edit_character(self, request):
        """Values of a character set by hand, journaled (interpreter.web.by_hand)."""
        body = await json_body(request)
        args = {"name": request.path_params["name"], "body": body}
        return await self.workers.answer(request, "edit_character", args, writes=True)

    async def sheet(self, request):
        """A sheet given as data, read by a rulebook: completed, with its resources'
        bounds (the page shows the sheet a run left, before it is saved)."""
        body = await json_body(request)
        unknown_fields(body, {"rulebook", "text", "sheet"})
        return await self.workers.answer(request, "sheet", {"body": body})

    async def history(self, request):
        return await self.workers.answer(request, "history", {"name": request.path_params["name"]})

    async def undo(self, request):
        body = await json_body(request)
        unknown_fields(body, {"entry"})
        return await self.workers.answer(request, "undo", {"body": body}, writes=True)

    # ─── running and odds ───────────────────────────────────────────────────

    async def run(self, request):
        body = await json_body(request)
        unknown_fields(body, RUN_FIELDS)
        saves = body.get("save") is True
        return await self.workers.answer(request, "run", {"body": body}, writes=saves)

    async def odds(self, request):
        body = await json_body(request)
        unknown_fields(body, ODDS_FIELDS)
        return await self.workers.odds(request, body)

    async def sweep(self, request):
        """The odds of an action over a grid (interpreter.web.sweeping), bounded in cases."""
        body = await json_body(request)
        return await self.workers.answer(request, "sweep", {"body": body})

    async def encounter(self, request):
        """A whole encounter's odds (interpreter.web.encountering)."""
        body = await json_body(request)
        return await self.workers.answer(request, "encounter", {"body": body})

    # ─── checking ───────────────────────────────────────────────────────────

    async def check(self, request):
        body = await json_body(request)
        unknown_fields(body, {"text", "name"})
        return await self.workers.answer(request, "check", {"body": body})

    async def language(self, request):  # noqa: ARG002 (Starlette calls every endpoint with its request)
        return JSONResponse(versioned({"keywords": KEYWORDS, "comment": "#"}))

    async def words(self, request):
        """The page's words in its language: `?lang=`, else `serve --lang`, else the
        rulebook's (`?rulebook=`), else English."""
        query = request.query_params
        args = {"rulebook": query.get("rulebook"), "lang": query.get("lang")}
        return await self.workers.answer(request, "words", args)


def _keywords() -> list[str]:
    grammar = resources.files("grammar").joinpath("rulebook.lark").read_text(encoding="utf-8")
    return sorted(set(re.findall(r'"([a-z_]+)"', grammar)))


#: the words of the grammar, for the editor's highlighting
KEYWORDS = _keywords()
