"""What every worker process of the server starts with: the engine imported, the parser
built and the shipped rulebooks loaded, once, in the process they are forked from.

Imported by multiprocessing's fork server (interpreter.web.pool), so that a worker that
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
