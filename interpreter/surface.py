"""How a message names a caller's option: as the command line, a request or Python writes it.

The engine's errors say how to ask for more (a larger budget, a choice answered in
advance, the field to study). The same engine answers `rulebook odds`, `POST /api/odds`
and `Engine.odds(...)`, whose users write that option in three ways; a message names it
with `option("budget")`, spelled for the surface that is running the engine, which sets
it where it starts (`spelled_for(COMMAND_LINE)` in the command line's `main`, REQUEST in
the server's workers; Python's spelling otherwise).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

COMMAND_LINE, REQUEST, PYTHON = "command line", "request", "python"
SURFACES = (COMMAND_LINE, REQUEST, PYTHON)

#: each option as the command line, a request's JSON body and a Python call write it
#: (`{name}`: the name it is given with, a choice's or a parameter's)
SPELLINGS: dict[str, tuple[str, str, str]] = {
    "budget": ("--budget N", '"budget": N', "budget=N"),
    "timeout": (
        "--timeout SECONDS",
        "`rulebook serve --odds-timeout SECONDS`",
        "seconds=SECONDS",
    ),
    "choose": (
        "--choose {name}=VALUE",
        '"choices": {{"{name}": VALUE}}',
        'choices={{"{name}": VALUE}}',
    ),
    "best": ("--best GOAL", '"best": GOAL', "best=GOAL"),
    "field": ("--field", '"field"', "field="),
    "param": ("--param", '"params"', "params="),
    "vary": ("--vary", '"vary"', "vary="),
    "action": ("ACTION", '"action"', "action="),
    "outcome": ("--outcome", '"outcomes"', "outcomes="),
}

_SURFACE: ContextVar[str] = ContextVar("surface", default=PYTHON)


def option(key: str, name: str = "") -> str:
    """The option `key` as the running surface writes it (`name`: a choice's name)."""
    spelled = SPELLINGS[key][SURFACES.index(_SURFACE.get())]
    return spelled.format(name=name) if "{" in spelled else spelled


@contextmanager
def spelled_for(surface: str) -> Iterator[None]:
    """Messages made inside name the options as `surface` writes them."""
    token = _SURFACE.set(_known(surface))
    try:
        yield
    finally:
        _SURFACE.reset(token)


def current() -> str:
    """The surface running now (for work handed to another process)."""
    return _SURFACE.get()


def use(surface: str) -> None:
    """A process that serves one surface only (a server's worker) names its options so."""
    _SURFACE.set(_known(surface))


def _known(surface: str) -> str:
    if surface not in SURFACES:
        raise ValueError(f"no surface {surface!r}: one of {', '.join(SURFACES)}")
    return surface
