"""Consecutive `set`s that call no action run as one statement in each world, merged once."""

from __future__ import annotations

from dsl import nodes as n
from interpreter.compiled import Binding, Statement, block_key
from interpreter.odds.roller import Branch
from interpreter.odds.shortcuts import once_set, unresolved_set
from interpreter.odds.weights import Mass
from interpreter.state import MISSING


class Switch:
    """Whether a row of `set`s runs at once in each world (tests switch it off: then
    each is run over the worlds and they are merged after each)."""

    fused = True
    #: whether a row ending a block whose caller keys the worlds itself leaves them
    #: unmerged (Explorer.block's `merged`; off: merged as any row)
    unmerged = True


SWITCH = Switch()


def fused_sets(explorer, statements: tuple, index: int, worlds, live: list, merged=True):
    """statements[index] and the `set`s after it, while each calls no action (those
    idle among them skipped, as one by one), run as one statement in each world and the
    worlds merged once, on what is read after the last (`set success to success +
    f.success`, then the same of the other symbols of one die: merged between them, no
    two worlds would join, as `f` is read to the last): (worlds after, failures, the
    index after the last), or None (fewer than two such, the worlds held as groups, or
    the first run as counters are: Passes.held_run). The same worlds as one by one: a
    merge between them joins worlds that agree on all that is read later, which the
    next `set`s keep alike; a world that fails stops where it would have stopped. Only
    the first may branch on a value (each world's runs, one per value it needs): where a
    later one would, the row is run one by one instead (Unfused). Not `merged`, a row
    that ends the block leaves its worlds unmerged (its caller keys them)."""
    if not SWITCH.fused or type(worlds) is not list or index + 1 >= len(statements):
        return None  # (a row of one `set` is no row)
    if not _plain_set(statements[index]):
        return None  # (a row begins with a `set` run: an idle one begins none)
    row = _row(explorer, statements, index, live)
    if row is None:
        return None
    runs, end = row
    held = explorer.held_run(statements, index, live, worlds)
    if held is not None:  # (counters carried through the first: odds.carried's way)
        return (*held, index + 1)

    first, later = runs[0], runs[1:]

    def run(ctx) -> None:
        first(ctx)
        try:
            for each in later:
                each(ctx)
        except Branch:
            raise Unfused from None  # (a value needed past the first: one by one)

    saved, explorer.lost = explorer.lost, Mass()
    try:
        done, failed = explorer.atomic(run, worlds)
    except Unfused:
        return None  # (what it found dropped: each statement runs over the worlds again)
    finally:
        lost, explorer.lost = explorer.lost, saved
    if lost.weight()[0]:
        saved.add(lost.weight())
    if not merged and end == len(statements) and SWITCH.unmerged:
        return done, failed, end  # (keyed by the block's caller: odds.carried._outcomes)
    return explorer.merge(done, live[end - 1]), failed, end


def _row(explorer, statements: tuple, index: int, live: list):
    """(the runs of the row of `set`s from statements[index], the index after its last),
    or None (fewer than two): what the rules alone decide, found once per block and
    what is read after it (`live[-1]`) with the blocks' liveness (every statement of a
    block meets it, and few begin a row)."""
    key = ("fused", block_key(statements), index, live[-1], explorer.ctx.limits.steps_per_run)
    found = explorer.liveness.get(key, MISSING)
    if found is not MISSING:
        return found
    runs: list = []
    end = index
    for at in range(index, len(statements)):
        statement, after = statements[at], live[at]
        if explorer.idle(statement, after):
            continue  # (nothing odds can see: not run, as one by one)
        if not _plain_set(statement):
            break
        runs.append(
            unresolved_set(statement.shape) if once_set(statement, after) else statement.run
        )
        end = at + 1
    found = None
    if len(runs) >= 2 and not explorer.idle(statements[index], live[index]):
        found = (tuple(runs), end)
    explorer.liveness[key] = found
    return found


class Unfused(Exception):
    """A `set` past the first of a row needs a value not known yet in some world: were
    the worlds not merged between them, their values would multiply (24 `set hits to
    hits + (if d6 > 4 then 1 else 0)`: 2^24 runs)."""


def _plain_set(statement: Statement) -> bool:
    """Whether a statement is a `set` the explorer would run as it is in each world: no
    action called, no `if` in its value."""
    shape = statement.shape
    if not isinstance(statement.node, n.Set) or type(shape) is not Binding:
        return False
    return shape.split is None and shape.call is None
