"""`rulebook serve [FOLDER]`: the page in a browser and the HTTP API, on this machine."""

from __future__ import annotations

import sys
import threading
import webbrowser
from pathlib import Path

from dsl.messages import language_for, tr
from interpreter.errors import ParameterError
from interpreter.web import create_app
from interpreter.web.app import LOCAL_HOSTS
from interpreter.web.protocol import REQUEST_SECONDS, timed_protocol
from interpreter.web.work import ODDS_SECONDS, RUN_SECONDS

#: connections (and requests being answered) the server holds at once
MAX_CONNECTIONS = 256


def cmd_serve(args) -> int:
    import uvicorn  # only this command needs the server

    language = language_for(getattr(args, "lang", None))
    folder = Path(args.folder)
    if not folder.is_dir():
        raise ParameterError(
            tr("{folder}: no such folder", folder=args.folder), None, tr("serve an existing folder")
        )
    workers = {"quick": getattr(args, "workers", 2), "heavy": getattr(args, "heavy", None)}
    app = create_app(
        folder,
        host=args.host,
        language=getattr(args, "lang", None),
        workers=workers,
        run_seconds=getattr(args, "run_timeout", RUN_SECONDS),
        odds_seconds=getattr(args, "odds_timeout", ODDS_SECONDS),
    )
    if args.host not in LOCAL_HOSTS and not args.host.startswith("127."):
        warning = tr(
            "warning: --host {host} opens the server beyond this machine: anyone who can "
            "reach it can run rules and save sheets in {folder}; there is no password",
            host=args.host,
            folder=str(folder.resolve()),
        )
        print(warning.render(language), file=sys.stderr)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    if args.host in ("0.0.0.0", "::"):
        shown = "127.0.0.1"
    address = f"http://{shown}:{args.port}/"
    # Slow or idle clients cannot hold the server: a request's headers and body must
    # arrive in time, an idle connection is closed after 5 s, one address holds at most
    # PER_ADDRESS connections of the server's MAX_CONNECTIONS (interpreter.web.protocol),
    # and a request's headers are at most 64 KB.
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        http=timed_protocol(getattr(args, "request_timeout", REQUEST_SECONDS)),
        timeout_keep_alive=5,
        limit_concurrency=MAX_CONNECTIONS,
        h11_max_incomplete_event_size=64 * 1024,
    )
    server = uvicorn.Server(config)
    serving = tr(
        "rulebook: serving {folder} (and the shipped rulebooks) at {address}",
        folder=str(folder.resolve()),
        address=address,
    )
    print(serving.render(language))
    print(tr("press Ctrl+C to stop").render(language))
    sys.stdout.flush()
    if not args.no_browser:
        threading.Thread(target=_open_when_up, args=(server, address), daemon=True).start()
    server.run()
    return 0 if server.started else 1


def _open_when_up(server, address: str) -> None:
    """Open the page once the server listens (not before: the browser would find nothing)."""
    import time

    for _ in range(200):
        if server.started:
            webbrowser.open(address)
            return
        if server.should_exit:
            return
        time.sleep(0.05)
