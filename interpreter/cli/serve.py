"""`rulebook serve [FOLDER]`: the page in a browser and the HTTP API, on this machine."""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser
from pathlib import Path

from dsl.messages import language_for, tr
from interpreter.cli import arguments, options
from interpreter.errors import ParameterError

#: connections (and requests being answered) the server holds at once
MAX_CONNECTIONS = 256


def add_parser(commands) -> None:
    p = commands.add_parser(
        "serve",
        help=tr("the page in a browser, and the HTTP API"),
        description=tr(
            "Serve a page to run actions, see odds and edit rules in a "
            "browser, and the HTTP API under /api (described at "
            "/openapi.json). FOLDER holds your rulebooks (.rules) and "
            "characters (.yaml, .json); the shipped ones are always "
            "there."
        ),
    )
    p.add_argument("folder", metavar="FOLDER", nargs="?", default=".", help=tr("default: here"))
    p.add_argument("--port", type=int, default=8000, metavar="N", help=tr("default: 8000"))
    p.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="H",
        help=tr(
            "the address to listen on (default: 127.0.0.1, this machine only); any other "
            "asks every request for a token"
        ),
    )
    p.add_argument(
        "--token",
        metavar="TOKEN",
        help=tr(
            "the token the server asks for (default: $RULEBOOK_TOKEN, else one made and "
            "printed when --host is not loopback)"
        ),
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help=tr(
            "a name the browser may use for this server besides its addresses and this "
            "machine's names (repeatable)"
        ),
    )
    p.add_argument(
        "--table",
        metavar="NAME",
        help=tr("the shared table's name (default: the folder's name)"),
    )
    p.add_argument(
        "--code",
        metavar="CODE",
        help=tr(
            "the code players join the table with (default: one made and printed; "
            "a new code seats everyone anew)"
        ),
    )
    options.database_option(p)
    p.add_argument("--no-browser", action="store_true", help=tr("do not open the browser"))
    p.add_argument(
        "--workers",
        type=arguments.positive(int),
        default=2,
        metavar="N",
        help=tr("processes for quick requests (default: 2)"),
    )
    p.add_argument(
        "--heavy",
        type=arguments.positive(int),
        default=None,
        metavar="N",
        help=tr("long computations run at once, the others wait their turn (default: the cores)"),
    )
    p.add_argument(
        "--run-timeout",
        type=arguments.positive(float),
        default=10.0,
        metavar="SECONDS",
        help=tr("seconds one run may take, its answer included (default: 10)"),
    )
    p.add_argument(
        "--odds-timeout",
        type=arguments.positive(float),
        default=60.0,
        metavar="SECONDS",
        help=tr("seconds one odds computation may take, its answer included (default: 60)"),
    )
    p.add_argument(
        "--request-timeout",
        type=arguments.positive(float),
        default=5.0,
        metavar="SECONDS",
        help=tr("seconds a request's headers, then its body, may take to arrive (default: 5)"),
    )


def create_app(*args, **kwargs):
    """The web app (interpreter.web.create_app), imported only when the server starts."""
    from interpreter.web import create_app as make

    return make(*args, **kwargs)


def cmd_serve(args) -> int:
    # The web app (Starlette, uvicorn) is imported only when the server starts: every
    # other command's parser is built with this one, and starts faster without it.
    import uvicorn

    from interpreter.web.access import (
        TOKEN_ENV,
        check_host_name,
        is_loopback,
        token_from_environment,
        with_token,
    )
    from interpreter.web.protocol import REQUEST_SECONDS, timed_protocol
    from interpreter.web.tabletop.roles import shown_code
    from interpreter.web.work import ODDS_SECONDS, RUN_SECONDS

    language = language_for(getattr(args, "lang", None))
    address = f"http://{_shown(args.host)}:{args.port}/"
    folder = Path(args.folder)
    if not folder.is_dir():
        raise ParameterError(
            tr("{folder}: no such folder", folder=args.folder), None, tr("serve an existing folder")
        )
    if getattr(args, "database", None):  # reached (and its tables made) now, not at a save
        from interpreter.journal import JOURNAL_NAME, Journal

        Journal(folder / JOURNAL_NAME).close()
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
        table={
            "name": getattr(args, "table", None),
            "code": getattr(args, "code", None),
            "address": address,
        },
    )
    token = app.access.token
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
        # the table's open event streams (each ends by itself within minutes) do not
        # hold Ctrl+C: closed after this many seconds
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    stop = server.handle_exit

    def handle_exit(sig, frame) -> None:  # Ctrl+C: the table's open streams end first
        app.table.close()
        stop(sig, frame)

    server.handle_exit = handle_exit  # type: ignore[method-assign]
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
    table = app.table
    joining = tr(
        "table {table}: players join at {link} (the code {code}; its QR code is on the "
        "game master's page)",
        table=table.name,
        link=table.join_link(address),
        code=shown_code(table.code),
    )
    print(joining.render(language))
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
    from interpreter.web.access import EVERY_ADDRESS

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
    from interpreter.web.access import EVERY_ADDRESS

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
