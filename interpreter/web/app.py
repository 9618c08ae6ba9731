"""The web app: the page, its static files and the API's routes, assembled on Starlette."""

from __future__ import annotations

import contextlib
import html
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from dsl.errors import RulebookError
from dsl.messages import language_for, tr
from interpreter.version import versioned
from interpreter.web.access import access_for
from interpreter.web.api import Api
from interpreter.web.editing import Editing
from interpreter.web.errors import RequestError, ServerFailed, error_json, status_of
from interpreter.web.guard import MAX_BODY, Guard
from interpreter.web.library import Library
from interpreter.web.openapi import document
from interpreter.web.paths import PublicPaths
from interpreter.web.tabletop.addresses import table_routes
from interpreter.web.tabletop.doors import TableDoors
from interpreter.web.tabletop.roles import make_table
from interpreter.web.work import ODDS_SECONDS, RUN_SECONDS, Workers

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("rulebook.web")


def create_app(
    folder: str | Path = ".",
    host: str = "127.0.0.1",
    odds_seconds: float = ODDS_SECONDS,
    max_body: int = MAX_BODY,
    run_seconds: float = RUN_SECONDS,
    language: str | None = None,
    token: str | None = None,
    allow_hosts: Iterable[str] = (),
    workers: dict | None = None,
    table: dict | None = None,
):
    """The ASGI app serving FOLDER's rulebooks and characters (and the shipped ones).

    `host` is the address the server listens on. A request's Host header must name
    it, localhost, one of this machine's names or addresses, or one of `allow_hosts`.
    Bound to anything but loopback, the server asks every request for a token: `token`,
    or one made here (the app's `access.token`, for the address to print). `odds_seconds`
    and `run_seconds` bound the time of one odds computation and of one run; `language`
    (`serve --lang`) is the page's language instead of each rulebook's own; `workers`
    the worker processes' options (interpreter.web.work.Workers: `quick`, `heavy`);
    `table` the shared table's `name` (default: the folder's), `code` (default: one made
    here, `app.table.code`) and `address` (the join link's base, as printed).
    """
    access = access_for(host, token, allow_hosts)
    library = Library(folder)  # the folder checked here; each worker process has its own
    pool = Workers(library.folder, odds_seconds, run_seconds, language, **(workers or {}))
    api = Api(pool)
    shared = make_table(library.folder, **(table or {}))

    @contextlib.asynccontextmanager
    async def lifespan(app):  # noqa: ARG001 (Starlette calls the lifespan with its app)
        await pool.start()
        shared.listen()
        yield
        shared.stop_listening()
        await pool.stop()

    async def page(request):  # noqa: ARG001 (Starlette calls every endpoint with its request)
        # The page carries the CSRF token its scripts send with every request that posts.
        text = (STATIC / "index.html").read_text(encoding="utf-8")
        text = text.replace("{{csrf_token}}", html.escape(access.csrf), 1)
        return HTMLResponse(text, headers={"cache-control": "no-store"})

    async def session(request):  # noqa: ARG001 (Starlette calls every endpoint with its request)
        return JSONResponse(
            versioned({"csrf_token": access.csrf, "token_required": access.token is not None}),
            headers={"cache-control": "no-store"},
        )

    routes = [
        # (the cheap run, the request a page sends most, matched first of the routes)
        Route("/api/run", api.run, methods=["POST"]),
        Route("/", page),
        Route("/api/session", session),
        Route("/openapi.json", openapi),
        Route("/api/rulebooks", api.rulebooks),
        Route("/api/rulebooks/{name}", api.rulebook),
        Route("/api/rulebooks/{name}", api.save_rulebook, methods=["PUT"]),
        Route("/api/rulebooks/{name}/source", api.rulebook_source),
        Route("/api/characters", api.characters),
        Route("/api/characters", api.create_character, methods=["POST"]),
        Route("/api/characters/{name}", api.character),
        Route("/api/characters/{name}", api.edit_character, methods=["PATCH"]),
        Route("/api/characters/{name}/history", api.history),
        Route("/api/undo", api.undo, methods=["POST"]),
        Route("/api/sheet", api.sheet, methods=["POST"]),
        Route("/api/odds", api.odds, methods=["POST"]),
        Route("/api/sweep", api.sweep, methods=["POST"]),
        Route("/api/encounter", api.encounter, methods=["POST"]),
        Route("/api/check", api.check, methods=["POST"]),
        Route("/api/editor", Editing(pool).answer, methods=["POST"]),
        Route("/api/language", api.language),
        Route("/api/words", api.words),
        *table_routes(shared, access, library, language),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    # (each handler takes the errors of its class: Starlette's types say any Exception)
    handlers: dict[Any, Callable[..., Any]] = {
        RulebookError: project_error,
        HTTPException: http_error,
        Exception: unexpected_error,
    }
    app = Starlette(
        routes=routes,
        exception_handlers=handlers,
        lifespan=lifespan,
    )
    app.state.library = library
    app.state.workers = pool
    app.state.table = shared
    public = PublicPaths(app, library.folder)
    # (the table's events are told as the answers are sent: no path of the server in them)
    doors = TableDoors(public, shared, public.names.rewrite)
    return Guard(doors, access, max_body, shared)


async def openapi(request):  # noqa: ARG001 (Starlette calls every endpoint with its request)
    return JSONResponse(document())


async def project_error(request, error: RulebookError):
    # In the language the request asked for (`lang`), else the error's own (its rulebook's).
    language = getattr(request.state, "lang", None) or request.query_params.get("lang")
    document = error_json(error, language_for(language) if language else None)
    headers = {"cache-control": "no-store"}
    if isinstance(error, RequestError) and error.retry_after:
        headers["retry-after"] = str(error.retry_after)
    return JSONResponse(document, status_of(error), headers=headers)


async def http_error(request, error: HTTPException):
    # Starlette's own: no such route (404), a method the route does not take (405).
    if error.status_code == 404:
        message = tr("no such address: {path}", path=request.url.path)
    elif error.status_code == 405:
        message = tr("this address takes no {method}", method=request.method)
    else:
        message = tr("the request was refused: {detail}", detail=str(error.detail))
    return JSONResponse(
        error_json(RequestError(message, status=error.status_code)), error.status_code
    )


async def unexpected_error(request, error: Exception):
    # A bug, not bad input: logged in full on the server's terminal, a plain message out.
    log.exception("unexpected error answering %s %s", request.method, request.url.path)
    problem = ServerFailed(
        tr(
            "the server failed on this request ({kind}); this is a bug in rulebook, not "
            "in your input: its log has the details",
            kind=type(error).__name__,
        ),
        status=500,
    )
    return JSONResponse(error_json(problem), 500)
