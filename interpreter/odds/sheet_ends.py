"""What a merge keeps of a world's sheet: the fields still read, the `ensure` rules judged.

The worlds of an exploration share few sheets, while every merge asks once per world: a
key is made once per set of fields still read (`Ends.key_for`) and found once per sheet
(`remembered`). What is still read comes from `sheet_live.SheetReads`."""

from __future__ import annotations

from typing import Any

from interpreter.odds.sheet_live import JUDGED, ON, SheetReads, fields_live
from interpreter.odds.worlds import Live
from interpreter.values import Record

#: the sheets' keys one merge key remembers (Ends.key_for), at most
KEYS_KEPT = 1 << 14


def on_targets(fields: frozenset[str], store: str | None) -> frozenset[str]:
    """The targets whose lasting effects are still read, where the store is not read
    whole (`effects("a")` alone): those effects are kept, the others only counted."""
    if store is None or store in fields:
        return frozenset()
    mark = store + ON
    return frozenset(f[len(mark) :] for f in fields if f.startswith(mark))


def effects_kept(own: tuple, store: str, on: frozenset[str]) -> tuple:
    """Of a sheet's changes to its lasting effects, (those on any of `on`, how many of
    the others are on): the sum `effects(...)` reads, and how long it goes through them
    (the steps it counts)."""
    mark = store + "."
    kept = []
    others = 0
    for entry in own:
        if not entry[0].startswith(mark):
            continue
        value = entry[1]
        targets = value.get("targets") if type(value) is Record else None
        if type(targets) is tuple and not on.intersection(targets):
            others += 1
        else:  # (taken out, or on a target read: kept as it is)
            kept.append(entry)
    return tuple(kept), others


def remembered(made: Any) -> Any:
    """key(state) from made(state, its snapshot), found once per sheet: a world's key is
    a function of its sheet's changes and whether it was written (the rest of the sheet
    is the exploration's own), and the worlds of an exploration share few sheets while
    every merge asks once per world (the fields kept picked out, every `ensure` rule
    judged now looked up)."""
    found: dict[Any, Any] = {}  # (a sheet's changes, whether written) → its key

    def key(state: Any) -> Any:
        snapshot = state.snapshot()
        try:
            return found[snapshot, state.own]
        except KeyError:
            pass
        except TypeError:  # (an unhashable change: found each time)
            return made(state, snapshot)
        if len(found) >= KEYS_KEPT:  # (memory bounded: found again past it)
            found.clear()
        kept = found[snapshot, state.own] = made(state, snapshot)
        return kept

    return key


class Ends:
    """The merges of one exploration that may leave out sheet changes (Passes.kept): what
    a merge keeps of a world's sheet, and the `ensure` rules' verdicts found so far."""

    def __init__(self, sheet: SheetReads, ctx: Any) -> None:
        self.sheet, self.ctx = sheet, ctx
        self.verdicts: dict[Any, Any] = {}  # (rule's index, its fields' changes) → verdict
        self.keys: dict[Live, Any] = {}  # what is read after → its key(state)

    def key_for(self, live: Live) -> Any:
        """key(state): what a world's sheet holds of what is still read after `live`,
        made once per `live` and found once per sheet (its changes, whether written):
        the worlds of an exploration share few sheets, and a merge asks once per world."""
        if live in self.keys:
            return self.keys[live]
        made = self._key_for(live)
        found = self.keys[live] = None if made is None else remembered(made)
        return found

    def _key_for(self, live: Live) -> Any:
        fields = fields_live(live)
        if fields is None:
            return None
        needs = live.needs
        judged = []
        for index, read, condition in self.sheet.ensures:
            if JUDGED + str(index) not in needs:
                continue
            if read & fields:  # (a field read or written later: kept, judged at the end)
                fields = fields | read
            else:  # (its fields as they will be at the end: judged now)
                judged.append((index, read, condition))

        store = self.sheet.store or ""
        on = on_targets(fields, self.sheet.store)

        def key(state: Any, snapshot: tuple) -> Any:
            own = snapshot if state.cast is None else snapshot[0]
            kept = tuple(entry for entry in own if entry[0].partition(".")[0] in fields)
            if on:  # (the effects still read: those on these targets; the others' number)
                kept = (kept, *effects_kept(own, store, on))
            if judged:
                kept = (kept, state.own, tuple(self.verdict(rule, own, state) for rule in judged))
            return kept if state.cast is None else (kept, snapshot[1])

        return key

    def verdict(self, rule: tuple[int, frozenset[str], Any], own: tuple, state: Any) -> Any:
        """Whether an `ensure` rule holds on this sheet (the changes to its fields, where it
        cannot be judged now: compared as they are)."""
        index, read, condition = rule
        changes = tuple(entry for entry in own if entry[0].partition(".")[0] in read)
        found = self.verdicts.get((index, changes))
        if found is None:
            ctx, compiler = self.ctx, self.sheet.compiler
            saved = ctx.env, ctx.state
            ctx.env, ctx.state = {}, state.copy()
            try:
                closure = self.sheet.compiled.get(index)
                if closure is None:  # (compiled once)
                    closure = self.sheet.compiled[index] = compiler.expr(condition)
                found = closure(ctx) is True
            except Exception:
                found = ("changes", changes)
            finally:
                ctx.env, ctx.state = saved
            self.verdicts[(index, changes)] = found
        return found
