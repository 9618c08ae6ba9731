"""What a server's worker processes start with: the engine, the parser, the shipped rulebooks.

Imported, built and loaded once, in the process the workers are forked from.

Imported by multiprocessing's fork server (interpreter.web.worker_pool), so that a worker that
replaces one the server stopped answers at once. Nothing here may fail: a rulebook that
does not load is loaded again, and says why, when a request asks for it.

What is loaded here lives as long as the process and its workers: it is then frozen for
the garbage collector (`FREEZE`: `gc.freeze()`, after one collection), so that the
collections a worker makes as it runs jobs (none of which finds a cycle of a cheap run's
objects to free) do not walk it again: its full ones walked some 85,000 objects.
"""

from __future__ import annotations

import contextlib
import gc

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


#: whether what the workers start with is frozen for the garbage collector (off: every
#: full collection of a worker walks it, as it did)
FREEZE = True


def settle() -> None:
    """What is loaded so far moved out of the collector's sight (gc.freeze), once its
    garbage is collected; the workers forked after this inherit it so."""
    if FREEZE:
        gc.collect()
        gc.freeze()


warm()
settle()
