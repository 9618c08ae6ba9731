"""What a server's worker processes start with: the engine, the parser, the shipped rulebooks.

Imported, built and loaded once, in the process the workers are forked from.

Imported by multiprocessing's fork server (interpreter.web.worker_pool), so that a worker that
replaces one the server stopped answers at once. Nothing here may fail: a rulebook that
does not load is loaded again, and says why, when a request asks for it.
"""

from __future__ import annotations

import contextlib

import dsl
from dsl.parser import lark_parser
from interpreter.web import worker  # noqa: F401 (every module a job needs)
from interpreter.web.library import Library


def warm() -> None:
    with contextlib.suppress(Exception):
        lark_parser()
    for name, path in dsl.shipped_rulebooks().items():
        with contextlib.suppress(Exception):
            Library(path.parent).rulebook(name)


warm()
