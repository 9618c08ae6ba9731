"""The table in a browser: `rulebook serve`'s page and the HTTP API under /api.

A thin shell over the public API (dsl.load, Engine, describe, odds), on Starlette:

    app      the routes, the page and its static files, errors as answers
    api      the handlers: the same JSON as the command line's --json
    body     a request's JSON read and checked
    library  the server's folder: rulebooks and characters by name, never a path
    replay   dice typed in and choices answered one by one: the run replayed each time
    saving   saves journaled (every character's sheet, or none), history and undo
    words    the page's own words, in the rulebook's language
    work     worker threads, the odds' time bound and progress
    guard    Host, token, cross-site and CSRF checks, sizes; safe headers on every answer
    access   who may use the server: its Host names, its token, its CSRF token
    paths    no path of the server in an answer: files named as the client knows them
    openapi  the API's description at /openapi.json
    errors   the project's errors as 4xx answers

    from interpreter.web import create_app
    app = create_app("my_campaign/")     # any ASGI server: uvicorn.run(app)
"""

from interpreter.web.app import create_app

__all__ = ["create_app"]
