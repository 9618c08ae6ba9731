"""Called actions the explorer runs statement by statement, summarised once per arguments and sheet.

`let r = resistido(...)`: what a call gives depends only on its arguments and the sheet,
so it is explored once for each of those (`Calls.summary`, one memory for every
exploration sharing the explorer's calls) and weighted into every world that makes it.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from interpreter.compiled import ActionCall, Statement
from interpreter.odds.distribution import Dist
from interpreter.odds.linear import sums_read
from interpreter.odds.roller import hashable
from interpreter.odds.sheet_ends import Ends
from interpreter.odds.sheet_live import SWITCH as SHEET_SWITCH
from interpreter.odds.sheet_live import SheetReads, live_of, sheet_read, wider
from interpreter.odds.spreading import called_merged
from interpreter.odds.straight import straight_call
from interpreter.odds.weights import ONE, Mass, below, times
from interpreter.odds.worlds import NO_STEPS, Failure, Live, World, block_steps, plus, spread
from interpreter.runtime import known
from interpreter.state import MISSING
from interpreter.values import Record

if TYPE_CHECKING:
    from interpreter.runtime import Context


class Switch:
    """`widest`: a call at a statement where a whole result's fields part (odds.forks)
    is summarised once for what all of them read of its result, each part's cut from it
    (off: once per part whose reads no earlier summary covers); `merged`: the worlds a
    call makes merged as they are made (off: each made, then merged)."""

    widest = True
    merged = True  # (the worlds merged as made: spreading.called_merged; off, made then merged)


SWITCH = Switch()


class Calls:
    """The explorer's called actions: a part of interpreter.odds.explore.Explorer (through
    odds.passes.Passes), whose state and methods it uses are declared below (its host),
    so that the type checker holds every use to the explorer's own definition."""

    if TYPE_CHECKING:  # the Explorer's (interpreter.odds.explore), declared for its part
        ctx: Context
        sums: dict[str, Any]
        depth: int
        lost: Mass
        prune: Fraction
        peak: int
        calls: dict[Any, Any]
        liveness: dict[Any, Any]
        names_read: Callable[[object], Live]
        names_given: Callable[[object], frozenset[str]]
        within_steps: Callable[[object], bool]
        cost: Callable[[object], int]
        roller: Any
        sheet: SheetReads | None
        drops: Ends | None
        outer: Live | None
        sums_fail: bool
        carrying: set[int]
        safe: Callable[[object], bool]
        widest: tuple[Any, Live, str | None] | None

        def work(self) -> None: ...
        def deferring(self, statements: tuple[Any, ...], index: int, live: list[Any]) -> bool: ...
        def live_before_now(self, statement: Statement, after: Live) -> Live: ...

        def explore(self, world: World, run: Callable[[Context], Any]) -> list[Any]: ...
        def block(
            self,
            statements: tuple[Any, ...],
            worlds: list[Any],
            live_out: Live,
            split: bool = False,
            merged: bool = True,
        ) -> tuple[Any, ...]: ...
        def block_before(self, statements: tuple[Any, ...], after: Live) -> Live: ...
        def live_after(self, statements: tuple[Any, ...], live_out: Live) -> list[Live]: ...
        def idle_now(self, statement: Statement, after: Live) -> bool: ...
        def merge(self, worlds: list[Any], live: Live) -> list[Any]: ...
        def counting(
            self, worlds: list[Any], fewest: int, most: int | None = None
        ) -> list[Any]: ...
        def kept(self, live: Live) -> Callable[[Any], Any] | None: ...

    def outer_of(self, live_out: Live) -> Live | None:
        """What the callers read of the sheet after a call (`live_out`: after it, in its
        caller's block), for the merges inside it: None (all of it) where that is not
        known (a call inside one made where the question asks for writes)."""
        if self.drops is None or not SHEET_SWITCH.calls or (self.depth and self.outer is None):
            return None
        key = ("outer of", live_out, self.outer)
        found = self.liveness.get(key)
        if found is None:
            read = sheet_read(live_out)
            found = read if self.outer is None else read.union(self.outer)
            self.liveness[key] = found
        return found

    def called(self, call: ActionCall, worlds: list, live_out: Live, name, rider=None) -> tuple:
        """`let name = action(...)`, `set name to action(...)` or `do action(...)` (name
        None): the called action's statements run one by one, as the caller's are, then
        its result (the fields of it read later; the `rider` field, read once later, left
        a distribution where it is one: interpreter.odds.riders). What a call gives
        depends only on its arguments and the sheet: it is explored once for each of
        those, then weighted into every world that makes that call, the worlds merged
        on what is read after it as they are made (interpreter.odds.spreading)."""
        action, arguments = call.action, call.arguments
        wanted: Any = MISSING if name is None else live_out.needs.get(name, MISSING)
        fields = () if wanted is MISSING else tuple(sorted(wanted)) if wanted is not None else None
        out, failures, taken = [], [], []  # (taken: each world's, the call's ends)
        outer = self.outer_of(live_out)
        wide = self.widened(call, name, wanted, fields, rider, outer)
        for world in worlds:
            for after, args in self.explore(world, lambda ctx: _known_all(ctx, arguments(ctx))):
                if isinstance(args, Failure):
                    failures.append((after, args))
                    continue
                key = (action.node.name, hashable(args), after.state.snapshot())
                saved, self.outer = self.outer, outer
                try:
                    if wide is not None and not self.served(action, key, fields, rider, outer):
                        self.outer = wide[2]  # (explored once for every part, cut below)
                        self.summary(action, key, args, after.state, wide[0], wide[1])
                        self.outer = outer
                    found = self.summary(action, key, args, after.state, fields, rider)
                    steps = after.steps
                    if steps[1] + found[3] > self.ctx.limits.steps_per_run:
                        # counted from no steps, the call is not known to stay within the
                        # limit from this world's: explored again, counting on from them
                        found = self.call(action, args, after.state, fields, rider, steps)
                        steps = NO_STEPS  # (its ends' steps counted from the world's)
                finally:
                    self.outer = saved
                ends, failed, lost, peak = found
                self.peak = max(self.peak, steps[1] + peak)
                weight = after.weight
                if lost[0]:
                    self.lost.add(times(weight, *lost))
                taken.append((after, ends, steps))
                for failure, w in failed:
                    failures.append((World(after.env, after.state, times(weight, *w)), failure))
        given = None if wanted is MISSING else name
        if SWITCH.merged:  # (merged as they are made: odds.spreading)
            return called_merged(self, taken, given, live_out), failures
        for after, ends, steps in taken:
            for state, record, w, count in ends:
                w = times(after.weight, *w)
                if below(w, self.prune):  # too unlikely to follow
                    self.lost.add(w)
                    continue
                env = after.env if given is None else {**after.env, name: record}
                out.append(World(env, state, w, plus(steps, *count)))
        return self.merge(out, live_out), failures

    def widened(self, call, name, wanted, fields, rider, outer) -> tuple | None:
        """(fields, rider, outer) of the summary to explore first at a statement where a
        whole result's fields part (`widest`, set by odds.forks: the call there, what all
        the fields read after it, the rider for them), when it serves this part too (cut
        to its reads) and asks more than this part only of the field that rides (kept a
        distribution in each record: no more outcomes than this part's); else None."""
        wide, self.widest = self.widest, None  # (for this call only: not one inside it)
        if wide is None or wide[0] is not call or name is None or wanted is MISSING:
            return None
        if not SWITCH.widest:
            return None
        _, live, wide_rider = wide
        reads = live.needs.get(name, MISSING)
        if reads is MISSING:
            return None
        wide_fields = tuple(sorted(reads)) if reads is not None else None
        wide_outer = self.outer_of(live)
        if (wide_fields, wide_rider) == (fields, rider) or not wider(wide_outer, outer):
            return None
        if wide_fields is None or not set(wide_fields) - {wide_rider} <= set(fields or ()):
            return None  # (more fields than a rider: their joint may be a product)
        if not self.covers(call.action, wide_fields, wide_rider, fields, rider):
            return None
        return wide_fields, wide_rider, wide_outer

    def served(self, action, key: tuple, fields, rider, outer) -> bool:
        """Whether a summary remembered already serves these reads (as `summary` finds
        one: of exactly these, or covering them): then none is explored wider for them."""
        return any(
            (have, have_rider, have_outer) == (fields, rider, outer)
            or (wider(have_outer, outer) and self.covers(action, have, have_rider, fields, rider))
            for have, have_rider, have_outer, _ in self.calls.get(key, ())
        )

    def summary(self, action, key: tuple, args: tuple, state, fields, rider) -> tuple:
        """What `call` gives (as `call` below) for these arguments and this sheet (`key`:
        the action's name, its arguments, the sheet), the `fields` of its result read
        (None: all of them), the `rider` field left a distribution: one memory for every
        exploration of the action that shares the explorer's calls (a whole result's fork
        groups, each field's). A summary of more fields serves fewer: its results cut to
        those (the same outcomes, merged; a joint's try that explored the call serves the
        fields' exploration after it); one keeping more of the sheet (`outer`: what its
        callers read after it) serves callers reading less (its worlds merge after)."""
        outer = self.outer
        known_ones = self.calls.setdefault(key, [])
        for have, have_rider, have_outer, found in known_ones:
            if have == fields and have_rider == rider and have_outer == outer:
                return found
        for have, have_rider, have_outer, found in known_ones:
            if wider(have_outer, outer) and self.covers(action, have, have_rider, fields, rider):
                if have != fields or have_rider != rider:
                    found = projected(found, fields)
                known_ones.append((fields, rider, outer, found))  # (cut once)
                return found
        found = self.call(action, args, state, fields, rider)
        known_ones.append((fields, rider, outer, found))
        return found

    def covers(self, action, have, have_rider, fields, rider) -> bool:
        """Whether a called action's summary of the result fields `have` (None: all; the
        field `have_rider` left a distribution) serves a caller reading `fields` with the
        `rider` field left one: every field it reads there, and no other field a
        distribution (each summary has the failures of every field: `call`)."""
        if fields is None or action.result is None:
            return have is None and have_rider in (None, rider)
        if have is not None and not set(fields) <= set(have):
            return False
        return have_rider is None or have_rider == rider or have_rider not in fields

    def call(self, action, args: tuple, state, fields, rider=None, steps=NO_STEPS) -> tuple:
        """An action's outcomes for these arguments and this sheet, each with its
        probability and the steps counted to it from `steps`: ([(sheet after, result,
        weight, (fewest, most))], [(Failure, weight)], weight lost, the most steps a run
        reached)."""
        found = straight_call(self, action, args, state, fields, steps)  # (run whole)
        if found is not None:
            return found
        live = Live({})
        watched: set = set()  # the fields not read that may stop a run: computed too
        if action.result is not None:
            for field, expression in action.node.body[-1].fields:
                read = fields is None or field in fields
                if not read and not self.safe(expression):
                    watched.add(field)
                if read or field in watched:
                    live = live.union(self.names_read(expression))
                    if self.sheet is not None:  # (and of the sheet, for its merges: kept)
                        live = live.union(live_of(self.sheet.fields_of(expression)))
        result = _result_of(action, fields, rider, watched)
        saved, self.lost = self.lost, Mass()
        peak, self.peak = self.peak, 0
        sums, self.sums = self.sums, self.sums_of(action.node)
        self.depth += 1
        try:
            # on entry, the action counts its statements' steps and its result's own
            entry = action.cost - block_steps(action.body)
            inside = World(dict(zip(action.names, args)), state, ONE, plus(steps, entry))
            ends, failed = self.block(action.body, [inside], live)
            outcomes: dict = {}  # the same result on the same sheet: one outcome
            sheet = self.kept(Live({}))  # (what its callers read of it after the call)
            for end in ends:
                for done, record in self.explore(end, result):
                    if isinstance(record, Failure):
                        failed.append((done, record))
                        continue
                    state = done.state
                    key = (hashable(record), state.snapshot() if sheet is None else sheet(state))
                    found = outcomes.get(key)
                    if found is None:
                        outcomes[key] = [done.state, record, Mass(done.weight), done.steps]
                    else:
                        found[2].add(done.weight)
                        found[3] = spread(found[3], done.steps)
            ends = [
                (state, record, mass.weight(), taken)
                for state, record, mass, taken in outcomes.values()
            ]
            failures = [(f, w.weight) for w, f in failed]
            return ends, failures, self.lost.weight(), self.peak
        finally:
            self.depth -= 1
            self.lost = saved
            self.peak = peak
            self.sums = sums

    def sums_of(self, action) -> dict:
        """The sums an action (`action`: its node) reads its counters in
        (interpreter.odds.linear), remembered with the blocks' liveness."""
        key = ("sums", action.name)
        found = self.liveness.get(key)
        if found is None:
            found = self.liveness[key] = sums_read(action)
        return found


def projected(found: tuple, fields) -> tuple:
    """A called action's summary (Calls.call) with its results cut to `fields`: the
    results then the same on the same sheet, one outcome."""
    ends, failures, lost, peak = found
    outcomes: dict = {}
    for state, record, weight, taken in ends:
        cut = record if record is None else Record({f: record[f] for f in fields}, kind="result")
        key = (hashable(cut), state.snapshot())
        same = outcomes.get(key)
        if same is None:
            outcomes[key] = [state, cut, Mass(weight), taken]
        else:
            same[2].add(weight)
            same[3] = spread(same[3], taken)
    ends = [(state, cut, mass.weight(), taken) for state, cut, mass, taken in outcomes.values()]
    return ends, failures, lost, peak


def _known_all(ctx, values: tuple) -> tuple:
    return tuple(known(ctx, v) for v in values)


def _result_of(action, fields, rider=None, watched=frozenset()):
    """A run(ctx) giving the called action's result: the `fields` of it read later (all
    of them when None), as `rulebook odds --field` computes only the field asked for;
    the `rider` field's value kept a distribution where it is one (read once later).
    The `watched` fields, not read, are computed too, in the result's order (one may
    stop the run, as it does in a real one), their values left out."""

    def result(ctx):
        if action.result is None:
            return None
        out = {}
        for field, value in action.result:
            if fields is None or field in fields:
                found = value(ctx)
                out[field] = found if field == rider and type(found) is Dist else known(ctx, found)
            elif field in watched:
                known(ctx, value(ctx))  # (a failure stops the run; the value unread)
        return Record(out, kind="result")

    return result
