"""`rulebook serve [FOLDER]`: the page in a browser and the HTTP API, on this machine."""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser
from pathlib import Path

from dsl.messages import language_for, tr
from interpreter.errors import ParameterError
from interpreter.web import create_app
from interpreter.web.access import (
    EVERY_ADDRESS,
    TOKEN_ENV,
    check_host_name,
    is_loopback,
    token_from_environment,
    with_token,
)
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
    given = args.token if args.token is not None else token_from_environment()
    allowed = [check_host_name(name) for name in args.allow_host]
    workers = {"quick": getattr(args, "workers", 2), "heavy": getattr(args, "heavy", None)}
    app = create_app(
        folder,
        host=args.host,
        language=getattr(args, "lang", None),
        workers=workers,
        run_seconds=getattr(args, "run_timeout", RUN_SECONDS),
        odds_seconds=getattr(args, "odds_timeout", ODDS_SECONDS),
        token=given,
        allow_hosts=allowed,
    )
    token = app.access.token
    address = f"http://{_shown(args.host)}:{args.port}/"
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
    if token is not None and given is None:
        told = tr(
            "open this address (it carries the server's token: give it only to the people "
            "at your table):\n  {address}",
            address=with_token(address, token),
        )
        print(told.render(language))
    elif token is not None:
        told = tr(
            "open {address}?token=TOKEN with the token you gave (--token or ${variable}); "
            "a program sends Authorization: Bearer TOKEN",
            address=address,
            variable=TOKEN_ENV,
        )
        print(told.render(language))
    if not is_loopback(args.host):
        warning = tr(
            "warning: --host {host} opens the server to the network: whoever has the token "
            "can run rules and save characters and rulebooks in {folder}; the connection is "
            "plain HTTP, not encrypted: use it only on a network you trust",
            host=args.host,
            folder=str(folder.resolve()),
        )
        print(warning.render(language), file=sys.stderr)
    print(tr("press Ctrl+C to stop").render(language))
    sys.stdout.flush()
    if not args.no_browser:
        local = with_token(f"http://{_local(args.host)}:{args.port}/", token)
        threading.Thread(target=_open_when_up, args=(server, local), daemon=True).start()
    server.run()
    return 0 if server.started else 1


def _shown(host: str) -> str:
    """The address to give the people at the table: on every address, the one this
    machine reaches the network by (else its name)."""
    if host in EVERY_ADDRESS:
        family = socket.AF_INET6 if host == "::" else socket.AF_INET
        probe = "2001:db8::1" if host == "::" else "192.0.2.1"
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))  # no packet is sent: the route is looked up
                host = s.getsockname()[0]
        except OSError:
            host = socket.gethostname()
    return f"[{host}]" if ":" in host else host


def _local(host: str) -> str:
    """The address this machine's own browser opens."""
    return "127.0.0.1" if host in EVERY_ADDRESS else _shown(host)


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
