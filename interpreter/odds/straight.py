"""A called action that needs no value not known yet, run whole as a real run runs it.

A called action's summary (Calls.call) runs its statements one by one over worlds, each
a run of its own. Where the arguments and the sheet leave nothing to branch on (Arcana
Mundi's `acumular_tributo(tributo, sombra_en)`: a `gain`, a `floor`, an `if` on known
numbers), that is one world through every statement; here the action is run once,
whole, with no value pinned: its one outcome (the sheet after it, its result, or the
failure that stopped it), or None where it needs a value not known yet (then it runs
statement by statement, this run's unit of work spent).
"""

from __future__ import annotations

from dsl import nodes as n
from interpreter.odds.roller import Branch
from interpreter.odds.weights import ONE, Mass
from interpreter.odds.worlds import STOPS, stopped
from interpreter.values import Record


class Switch:
    """Whether a called action is first run whole (tests switch it off: then statement by
    statement)."""

    whole = True


SWITCH = Switch()


def straight_call(explorer, action, args: tuple, state, fields, steps: tuple):
    """What Calls.call gives for the call (`fields` of its result read: None for all),
    from one run of the whole action: ([(sheet after, result, weight, steps)], [(Failure,
    weight)], weight lost, the most steps reached), or None (see the module)."""
    if not SWITCH.whole or steps[0] != steps[1] or not _plain(explorer, action):
        return None
    ctx, roller = explorer.ctx, explorer.roller
    explorer.work()
    saved = roller.binding, roller.direct
    roller.binding = roller.direct = None
    ctx.env = {}
    ctx.state = state.copy()
    ctx.depth = ctx.calls = explorer.depth
    roller.pins, roller.cursor = (), 0
    roller.weight = ONE
    start = steps[1]
    ctx.recount(start)
    try:
        record = action(ctx, args, None)
    except Branch:
        return None
    except STOPS as error:
        return [], [(stopped(error), ONE)], Mass().weight(), ctx.steps
    finally:
        # (its steps in the work; the most reached given back as a summary's, not kept)
        peak = explorer.peak
        explorer.counted(start)
        explorer.peak = peak
        roller.binding, roller.direct = saved
    if type(record) is Record and fields is not None:
        record = Record({k: v for k, v in record.items() if k in fields}, kind="result")
    taken = ctx.steps - start
    return [(ctx.state, record, ONE, (steps[0] + taken, ctx.steps))], [], Mass().weight(), ctx.steps


def _plain(explorer, action) -> bool:
    """Whether an action may be run whole here: neither it nor an action it calls makes
    a choice (a choice is made per situation by the best play), nor calls one on another
    character's sheet; found once per action."""
    key = ("whole", explorer.number(action.node))
    found = explorer.liveness.get(key)
    if found is None:
        book = None if explorer.sheet is None else explorer.sheet.book
        found = book is not None and not _chooses(book, action.node, set())
        explorer.liveness[key] = found
    return found


def _chooses(book, node, seen: set) -> bool:
    """Whether `node`, or an action it calls (each looked at once), may make a choice."""
    for item in n.walk(node):
        if isinstance(item, n.Choose | n.CharacterCall):
            return True
        name = item.function if isinstance(item, n.Call) else None
        if name in book.actions and name not in seen:
            seen.add(name)
            if _chooses(book, book.actions[name], seen):
                return True
    return False
