"""The table in a browser: `rulebook serve`'s page and the HTTP API under /api.

A thin shell over the public API (dsl.load, Engine, describe, odds), on Starlette:

    app      the routes, the page and its static files, errors as answers
    api      the handlers: a request read, its job handed to the workers
    body     a request's JSON read and checked
    work     a job given to the worker processes, its answer (or stream) written back
    worker_pool  the worker processes: quick and heavy lanes, turns by client, bounds kept
    worker   a worker process: jobs in, rendered answers out (frames: its messages;
             preload: what every worker is forked with)
    jobs     each request's work as a function of plain data (play: runs and odds),
             answering the same JSON as the command line's --json
    library  the server's folder: rulebooks and characters by name, never a path
    typed_answers  dice typed in and choices answered one by one: the run replayed each time
    saving   saves journaled (journal.run_and_save: every character's sheet, or none),
             history and undo
    words    the page's own words, in the rulebook's language
    guard    Host, token, cross-site and CSRF checks, sizes; safe headers on every answer
    access   who may use the server: its Host names, its token, its CSRF token
    paths    no path of the server in an answer: files named as the client knows them
    protocol slow clients: request timeouts, connections per address (uvicorn's h11)
    openapi  the API's description at /openapi.json
    errors   the project's errors as 4xx answers

    from interpreter.web import create_app
    app = create_app("my_campaign/")     # any ASGI server: uvicorn.run(app)
"""

from interpreter.web.app import create_app

__all__ = ["create_app"]
