"""`POST /api/encounter`: a whole encounter's odds, the document `rulebook encounter --json` prints.

The body is an encounter file's data (rounds, health, falls_at, sides), its `rulebook` (a
name of the folder, or its `text`), and how to answer (`method`, `trials`, `seed`, `lang`).
A combatant's `sheet` is a character of the folder by name, or a sheet given as data:
never a path (a request reads no file the folder does not offer). A job run in a worker
process like the odds (interpreter.web.play); a sample runs in that process.
"""

from __future__ import annotations

from dsl.messages import language_for, tr
from interpreter.balance.encounters.answering import TRIALS
from interpreter.balance.encounters.description import MAX_COMBATANTS
from interpreter.engine import Engine
from interpreter.web.body import field, unknown_fields
from interpreter.web.errors import RequestError
from interpreter.web.jobs import Work, book_of
from interpreter.web.play import MAX_TRIALS

ENCOUNTER_FIELDS = {"rulebook", "text", "rounds", "health", "falls_at", "sides"}
ENCOUNTER_FIELDS |= {"method", "trials", "seed", "lang"}
#: the keys of the encounter's own data (interpreter.balance.encounters.description)
DESCRIPTION = ("rounds", "health", "falls_at")


def encounter(work: Work, args: dict) -> dict:
    """The encounter's document (schema "encounter"): who wins, in how many rounds."""
    body = args["body"]
    unknown_fields(body, ENCOUNTER_FIELDS)
    language = language_for(field(body, "lang", str))
    engine = Engine.of(book_of(work, body))
    sides = field(body, "sides", dict, required=True)
    data = {key: body[key] for key in DESCRIPTION if key in body}
    data["sides"] = {}
    count = 0
    for side, members in sides.items():
        if not isinstance(members, list):
            raise RequestError(tr("side {side}: a list of combatants", side=repr(side)))
        count += len(members)
        if count > MAX_COMBATANTS:
            raise RequestError(tr("more than {count} combatants", count=MAX_COMBATANTS))
        data["sides"][side] = [_member(work, engine, member) for member in members]
    trials = field(body, "trials", int, default=TRIALS)
    if not 1 <= trials <= MAX_TRIALS:
        raise RequestError(tr("{name} goes from 1 to {most}", name="trials", most=MAX_TRIALS))
    options = {
        "method": field(body, "method", str, default="auto"),
        "trials": trials,
        "seed": field(body, "seed", int, default=0),
        "seconds": work.odds_seconds,
        "workers": 1,
    }
    work.ready()
    return engine.encounter(data, **options).to_json(language)


def _member(work: Work, engine, member) -> dict:
    """A combatant with its sheet loaded: a character of the folder, or data."""
    if not isinstance(member, dict):
        raise RequestError(tr("each combatant is a mapping"))
    sheet = member.get("sheet")
    if isinstance(sheet, str):
        loaded = engine.load_sheet(work.library.character_path(sheet))
    elif isinstance(sheet, dict):
        loaded = engine.sheet(sheet)
    else:
        raise RequestError(tr("a combatant's sheet: a character's name or a sheet's data"))
    named = {"name": sheet} if isinstance(sheet, str) and "name" not in member else {}
    return {**member, **named, "sheet": loaded}
