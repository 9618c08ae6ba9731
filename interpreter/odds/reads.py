"""Results remembered by what they read of the sheet, not by the whole sheet.

A check's records (or an opposed check's) depend on the sheet: a check may read Fuerza,
or a resource's maximum. Worlds of one action differ in their sheets as soon as it
spends or gains something, yet most checks read none of what changed. So a result is
computed with the sheet's values watched, and remembered with the fields it read and
the values they had; a later world with the same values there gets it again, whatever
else differs.
"""

from __future__ import annotations

from interpreter.state import MISSING


class WatchedValues(dict):
    """A sheet's values that note each field read (a family or catalog: the whole of it)."""

    def __init__(self, values: dict):
        super().__init__(values)
        self.read: dict = {}

    def __getitem__(self, name):
        value = dict.__getitem__(self, name)
        self.read[name] = value
        return value

    def get(self, name, default=None):
        value = dict.get(self, name, MISSING)
        self.read[name] = value
        return default if value is MISSING else value


class ReadMemory:
    """key → [(fields read, their values, result, what keeps the key's ids valid)]."""

    def __init__(self):
        self.entries: dict = {}

    def get(self, key, ctx, compute, cut: int, keep=(), seen=None):
        """compute(cut), or what it gave before for this key and a sheet that had the same
        values in every field that computation read. `cut`: outcomes less likely than
        2**-cut may be left out; an earlier result that left out only less likely ones
        (a cut at least as deep) will do. `seen`, a list: the fields read are added to it."""
        values = ctx.state.values
        if ctx.state.cast is not None:  # other characters' sheets: not watched, compared whole
            key = (key, ctx.state.snapshot()[1])
        found = self.entries.get(key)
        stale = None
        if found is not None:
            for index, (read, deep, result, _keep) in enumerate(found):
                if all(_same(values.get(name, MISSING), seen) for name, seen in read):
                    if deep >= cut:
                        _noted(ctx, read, seen)
                        return result
                    stale = index  # the same sheet, but it left out too much: again
        state = ctx.state
        watched = state.copy()
        watched.values = WatchedValues(state.values)
        ctx.state = watched
        try:
            result = compute(cut)
        finally:
            ctx.state = state
        read = tuple(watched.values.read.items())
        _noted(ctx, read, seen)
        entry = (read, cut, result, keep)
        if found is not None and stale is not None:  # (a stale entry is one found)
            found[stale] = entry
        else:
            self.entries.setdefault(key, []).append(entry)
        return result


def _noted(ctx, read: tuple, seen) -> None:
    """What a remembered result read, read again where it is used: by a computation
    being watched itself (a check's records around a check's own fields), and in `seen`."""
    values = ctx.state.values
    if type(values) is WatchedValues:
        values.read.update(read)
    if seen is not None:
        seen.append(read)


def _same(value, seen) -> bool:
    return value is seen or (type(value) is type(seen) and value == seen)
