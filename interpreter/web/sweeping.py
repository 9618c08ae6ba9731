"""`POST /api/sweep`: the odds of an action over a grid, its rows and picture (SVG).

A job run in a worker process, like the odds (interpreter.web.play): the body is checked
first, then the cases run one after another in that process (the server's pool is the
parallelism; a sweep does not start processes of its own), at most WEB_SWEEP_CASES.
"""

from __future__ import annotations

from fractions import Fraction

from dsl.messages import tr
from interpreter.balance import grid
from interpreter.balance.picture import svg_text
from interpreter.balance.sweep import NeedsField
from interpreter.balance.table import cell
from interpreter.engine import Engine
from interpreter.limits import WEB_SWEEP_CASES
from interpreter.odds import BUDGET, TRIALS
from interpreter.web.body import field, unknown_fields
from interpreter.web.errors import RequestError
from interpreter.web.jobs import Work, book_of, language_of, sheet_of
from interpreter.web.play import MAX_BUDGET, MAX_TRIALS

SWEEP_FIELDS = {"rulebook", "text", "action", "character", "characters", "sheet", "params"}
SWEEP_FIELDS |= {"vary", "compare", "field", "outcomes", "picture", "budget", "trials", "lang"}
PICTURE_FIELDS = {"x", "y", "plot"}


def sweep(work: Work, args: dict) -> dict:
    """`{"columns": [...], "rows": [{...}], "svg": "<svg ..."}`: fractions as `n/d` text."""
    body = args["body"]
    unknown_fields(body, SWEEP_FIELDS)
    action = field(body, "action", str, required=True)
    book = book_of(work, body)
    engine = Engine.of(book)
    characters = _characters(work, body, engine, action)
    params = {name: _values(v, "params", name) for name, v in _mapping(body, "params").items()}
    vary = {name: _values(v, "vary", name) for name, v in _mapping(body, "vary").items()}
    compare = [work.library.rulebook(name) for name in _texts(body, "compare")]
    picture = field(body, "picture", dict)
    if picture is not None:
        unknown_fields(picture, PICTURE_FIELDS)
    options = {
        "budget": _bounded(body, "budget", BUDGET, MAX_BUDGET),
        "trials": _bounded(body, "trials", TRIALS, MAX_TRIALS),
        "seconds": work.odds_seconds,
    }
    work.ready()
    try:
        rows = engine.sweep(
            action,
            characters,
            compare=compare,
            params=params,
            vary=vary,
            field=field(body, "field", str),
            outcomes=_texts(body, "outcomes"),
            workers=1,
            max_cases=WEB_SWEEP_CASES,
            **options,
        )
    except NeedsField as error:
        # its message names the command line's option (--field): say where it goes here
        error.message = tr("name the result field to sweep: {names}", names=error.names)
        error.hint = tr("in the page, write it in “Odds of”; in a request, as `field`")
        raise
    answer = {"columns": list(rows[0]) if rows else [], "rows": [_plain(row) for row in rows]}
    if picture is not None:
        x, y, plot = (field(picture, name, str) for name in ("x", "y", "plot"))
        answer["svg"] = svg_text(rows, plot, x, y, language_of(body, book))
    return answer


def _characters(work: Work, body: dict, engine, action: str) -> list:
    names = _texts(body, "characters")
    if not names:
        return [("-" if body.get("character") is None else body["character"],
                 sheet_of(work, body, engine, action))]  # fmt: skip
    if body.get("character") is not None or body.get("sheet") is not None:
        raise RequestError(tr("give characters, or one character or sheet, not both"))
    library = work.library
    return [(name, library.sheet(engine, library.character_path(name))) for name in names]


def _mapping(body: dict, name: str) -> dict:
    return field(body, name, dict, default={})


def _texts(body: dict, name: str) -> list[str]:
    items = field(body, name, list, default=[])
    if not all(isinstance(item, str) for item in items):
        raise RequestError(tr("the field {name} is a list of texts", name=repr(name)))
    return items


def _values(value, where: str, name: str):
    """One value, a list of them, a range written `LOW..HIGH`, or `all`."""
    if isinstance(value, str) and (value == grid.ALL or ".." in value):
        return grid.values_of(value, where, name)
    if isinstance(value, list):
        if len(value) > grid.MAX_AXIS_VALUES:
            raise RequestError(
                tr("{where}.{name}: at most {most} values", where=where, name=name,
                   most=grid.MAX_AXIS_VALUES)
            )  # fmt: skip
        return value
    return [value]


def _bounded(body: dict, name: str, default: int, most: int) -> int:
    value = field(body, name, int, default=default)
    if not 1 <= value <= most:
        raise RequestError(tr("{name} goes from 1 to {most}", name=name, most=most))
    return value


def _plain(row: dict) -> dict:
    """A row as JSON: a fraction as `n/d` text (exact), the rest as it is."""
    return {k: cell(v) if isinstance(v, Fraction) else v for k, v in row.items()}
