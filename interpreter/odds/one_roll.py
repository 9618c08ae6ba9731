"""A pass that rolls one value and then nothing more: run once per value, as one run.

`repeat n times { let f = 1dAbility  set success to success + f.success ... }`: a
pass's outcomes from one state (interpreter.odds.carried) are what its body does for
each value of `f`. Explored statement by statement, the `let` makes a world per value
(its tests of every fast path, its merge), and the row of `set`s runs in each (tested,
held, merged again): some thirty steps of the explorer's for a die of a few values.
Here the pass is run as a real run would run it, once up to the `let`'s roll (where it
asks for its value: a Branch naming it, the value cut to what is read after it, as the
explorer makes its worlds), then once per value from there, to the end of the body:
the worlds the explorer would end in, one per value, their weights its probability.

Only where the rest of the body rolls nothing, calls no action and chooses nothing (a
block odds.direct runs whole); where the run asks anything else (another value not
known yet, a failure, the step limit), the pass is explored as before, and what this
tried is dropped. A pass over a pool's dice (`for each d in p.dice { if d = 2 { ... }
... }`, interpreter.odds.die_loops) that rolls nothing is run so too, once in each
world of a face of its die (`still_ends`); where it writes no sheet and leaves the rest
as it found it, once per face and the amounts it adds kept as they come (`face_outcomes`:
no world made per face, before or after). The work is charged as the explorer charges
it (a unit a run, and the steps): the same answer, exact or not, either way.
"""

from __future__ import annotations

from operator import itemgetter

from dsl import nodes as n
from interpreter.compiled import Binding, Branches, Plain, block_key
from interpreter.odds.direct import HELD, still_run
from interpreter.odds.drawn import Drawn
from interpreter.odds.packing import pack, packed
from interpreter.odds.roller import Branch, Letting
from interpreter.odds.weights import Mass, times
from interpreter.odds.weights import plus as plus_weight
from interpreter.odds.worlds import STEPS_PER_WORK, STOPS, World, block_steps, entered
from interpreter.state import MISSING


class Switch:
    """Whether a pass that rolls one value, then nothing, runs once per value (`rolled`),
    and a pass that rolls nothing once in each world of a face of the die it draws
    (`drawn`; tests switch them off: then explored statement by statement, and through
    odds.direct); and whether such a pass that writes no sheet and leaves the rest as it
    found it runs once per face with no world made (`faces`; off: through `still_ends`)."""

    rolled = True
    drawn = True
    faces = True


SWITCH = Switch()


def one_roll_ends(explorer, body: tuple, world: World, live_out) -> list | None:
    """The worlds `body` (a pass, from `world`: one state, its steps known) ends in, not
    merged, as Explorer.ends would give them where none fails (see the module's
    docstring), or None (explore it)."""
    if not SWITCH.rolled or not body or world.steps[0] != world.steps[1]:
        return None
    plan = _plan(explorer, body, live_out)
    if plan is None:
        return None
    name, live, reads, tail, writes = plan
    env = world.env
    for read in reads:  # (a value only the explorer's own steps read: its to run)
        if type(env.get(read)) in HELD:
            return None
    letting = Letting(name, live, explorer.depth, False, None, False)
    saved, peak = explorer.lost, explorer.peak
    explorer.lost = Mass()
    try:
        ends = _runs(explorer, body, letting, (tail, writes), world)
    finally:
        lost, explorer.lost = explorer.lost, saved
        explorer.roller.binding = None
    if ends is None:  # (what it found dropped: explored again)
        explorer.peak = peak
        return None
    if lost.weight()[0]:
        saved.add(lost.weight())
    return ends


def still_ends(explorer, body: tuple, worlds: list, live_out) -> list | None:
    """The worlds a pass's body that rolls nothing ends in from each of `worlds` (a world
    per face of the die it draws), run once in each, not merged, as Explorer.ends gives
    them where none fails, or None (explore them)."""
    if not SWITCH.drawn:
        return None
    run = still_run(explorer, body, live_out)
    if run is None:
        return None
    reads, writes = _reads(explorer, body)
    entry = block_steps(body)
    for world in worlds:
        env = world.env
        if world.steps[0] != world.steps[1]:
            return None
        for read in reads:  # (a value only the explorer's own steps read: its to run)
            if type(env.get(read)) in HELD:
                return None
    saved, peak = explorer.lost, explorer.peak
    ctx, roller = explorer.ctx, explorer.roller
    limit = ctx.limits.steps_per_run
    ends: list = []
    ctx.depth = ctx.calls = explorer.depth
    for world in worlds:
        start = world.steps[1] + entry
        if start > limit:
            break
        explorer.work()
        ctx.env = dict(world.env)
        ctx.state = world.state.copy() if writes else world.state
        roller.pins, roller.cursor = (), 0
        roller.weight = world.weight
        ctx.recount(start)
        try:
            run(ctx)
        except (Branch, *STOPS):
            break
        explorer.counted(start)
        ends.append(World(ctx.env, ctx.state, world.weight, (ctx.steps, ctx.steps)))
    if len(ends) < len(worlds):  # (one asked for more: what was found dropped)
        explorer.lost, explorer.peak = saved, peak
        return None
    return ends


#: face_outcomes' answer where a run asked for more: the pass's worlds to explore
EXPLORE = "explore"


def face_outcomes(explorer, body: tuple, start: World, live_out, sums: tuple):
    """The outcomes of a pass that draws one die's face and rolls nothing, from `start`
    (one state, the face Drawn), as odds.carried keys them: run once per face, the
    amounts each run adds to the counters read off as it ends, ends that add the same
    kept as one ([(key of the rest, rest, sheet, amounts added, weight, steps)]), with
    no world made per face. `sums`: (the counters, their projection, the names of the
    rest (every one of which the pass leaves as it found it) and its key). None where it
    is not such a pass (nothing run), EXPLORE where a run asked for more (its worlds to
    explore), False where a counter is not a whole number after it."""
    if not SWITCH.faces or not SWITCH.drawn:
        return None
    env = start.env
    drawn = [name for name, value in env.items() if type(value) is Drawn]
    run = still_run(explorer, body, live_out) if len(drawn) == 1 else None
    if run is None:
        return None
    reads, writes = _reads(explorer, body)
    (name,) = drawn
    for read in reads:  # (a value only the explorer's own steps read: its to run)
        if read != name and type(env.get(read)) in HELD:
            return None
    begin = start.steps[1] + block_steps(body)
    if writes or start.steps[0] != start.steps[1] or begin > explorer.ctx.limits.steps_per_run:
        return None
    faces = list(explorer.weighted(env[name].faces, start.weight))  # (as drawn.starts)
    if len(faces) < 2 or any(type(face) in HELD for face, _ in faces):
        return None
    return _by_face(explorer, run, faces, (env, name, start.state, begin), sums)


def _by_face(explorer, run, faces: list, start: tuple, sums: tuple):
    """face_outcomes' runs, a face each (`start`: the rest, the name drawn, the sheet,
    the steps a run begins from): the ends that leave the counters alike kept as one
    as they come (their weights added, their steps spread), then those that add the
    same amounts."""
    env, name, state, begin = start
    counters, project, rest, first = sums  # (the key of every end: the rest as it was)
    ctx, roller = explorer.ctx, explorer.roller
    ctx.depth = ctx.calls = explorer.depth
    read = itemgetter(*counters) if len(counters) > 1 else None
    ends: dict = {}  # the counters' values after → [weight, fewest, most steps]
    ctx.recount(begin)
    bound = ctx.step_bound  # (each run's new count, as recount makes it: from `begin`)
    for face, weight in faces:
        explorer.work()
        ctx.env = after = {**env, name: face}
        ctx.state = state
        roller.pins, roller.cursor = (), 0
        roller.weight = weight
        ctx.steps, ctx.step_bound = begin, bound
        try:
            run(ctx)
        except (Branch, *STOPS):
            return EXPLORE
        steps = ctx.steps  # (explorer.counted, written out: at every face)
        roller.work += (steps - begin) // STEPS_PER_WORK
        if steps > explorer.peak:
            explorer.peak = steps
        try:
            values = read(after) if read is not None else (after[counters[0]],)
        except KeyError:
            values = tuple([after.get(counter, MISSING) for counter in counters])
        try:
            same = ends.get(values)
        except TypeError:  # (a value that is no key: no whole number either)
            same, values = None, None
        if same is None:
            ends[values] = [weight, steps, steps]
            continue
        both = same[0]
        same[0] = (
            (both[0] + weight[0], both[1]) if both[1] == weight[1] else plus_weight(both, weight)
        )
        if steps < same[1]:
            same[1] = steps
        elif steps > same[2]:
            same[2] = steps
    return _alike_ends(ends, project, (rest, first, state), len(counters))


def _alike_ends(ends: dict, project, kept: tuple, count: int):
    """The ends of face_outcomes' runs ({the counters' values after: [weight, fewest,
    most steps]}) that add the same amounts made one: [(key of the rest, rest, sheet,
    amounts added, weight, steps)], or False where a counter is not a whole number."""
    rest, first, state = kept
    zero = pack((0,) * count)
    alike: dict = {}  # the amounts → [the amounts and size, weight, fewest, most steps]
    for values, (weight, fewest, most) in ends.items():
        counted_to = packed(values, project) if values is not None else None
        if counted_to is None:
            return False
        added = counted_to[0] - zero
        same = alike.get(added)
        if same is None:
            alike[added] = [(added, counted_to[1]), weight, fewest, most]
            continue
        same[0] = (added, max(same[0][1], counted_to[1]))
        same[1] = plus_weight(same[1], weight)
        same[2], same[3] = min(same[2], fewest), max(same[3], most)
    kept_rest = {k: v for k, v in zip(rest, first[0]) if v is not MISSING}
    return [(first, kept_rest, state, amount, w, (a, b)) for amount, w, a, b in alike.values()]


def _reads(explorer, body: tuple) -> tuple:
    """(the names a block's statements read, whether one may write the sheet), found
    once per block."""
    key = ("reads", block_key(body))
    found = explorer.liveness.get(key)
    if found is None:
        reads: set = set()
        for statement in body:
            reads.update(explorer.names_read(statement.node).needs)
        found = explorer.liveness[key] = (tuple(sorted(reads)), _writes(body))
    return found


def _writes(statements: tuple) -> bool:
    """Whether a block that rolls nothing may write the sheet: a `set` of anything but a
    local name (a `let`, an `if`'s test, a `require` write none), in its `if`s' too. (Its
    runs then share the world's sheet, not each a copy.)"""
    for statement in statements:
        shape = statement.shape
        if isinstance(statement.node, n.Set) and not (type(shape) is Binding and shape.local):
            return True
        if type(shape) is Branches:
            blocks = [branch.body for branch in shape.branches] + [shape.otherwise]
            if any(_writes(block) for block in blocks):
                return True
    return False


def _runs(explorer, body: tuple, letting, rest, world: World) -> list | None:
    """The first statement's run up to its roll, then the rest once per value (`rest`:
    its run, whether it may write the sheet)."""
    tail, writes = rest
    ctx, roller = explorer.ctx, explorer.roller
    entry = block_steps(body)  # (the block's own, counted on entering it)
    if world.steps[1] + entry > ctx.limits.steps_per_run:
        return None
    start = entered(explorer, world, entry)
    roller.binding = letting
    dist = None  # (no roll: one world, on to the rest)
    try:
        body[0].run(ctx)
    except Branch as branch:
        if branch.bound != letting.name or branch.stops:
            return None
        dist = branch.dist
    except STOPS:
        return None
    roller.binding = None
    explorer.counted(start)
    env, state, steps = ctx.env, ctx.state, ctx.steps
    name = letting.name
    if dist is None:
        values = [(env[name], world.weight)]
    else:
        short = dist.missing()
        if short:
            explorer.lost.add(times(world.weight, short, dist.total))
        values = list(explorer.weighted(dist, world.weight))
        most = explorer.most_worlds
        if most is not None and len(values) > most:
            return None  # (a sign the joint is large: the explorer's `let` tells, as before)
    ends = []
    for value, weight in values:
        explorer.work()
        ctx.env = {**env, name: value}
        ctx.state = state.copy() if writes else state
        roller.pins, roller.cursor = (), 0
        roller.weight = weight
        ctx.recount(steps)
        try:
            tail(ctx)
        except (Branch, *STOPS):
            return None
        explorer.counted(steps)
        ends.append(World(ctx.env, ctx.state, weight, (ctx.steps, ctx.steps)))
    return ends


def _plan(explorer, body: tuple, live_out):
    """(the name the body's first statement binds, what is read after it, the names the
    body reads, the rest's run), or None: found once per body and what is read after it."""
    key = ("one roll", block_key(body), live_out)
    found = explorer.liveness.get(key, False)
    if found is False:
        found = explorer.liveness[key] = _planned(explorer, body, live_out)
    return found


def _planned(explorer, body: tuple, live_out):
    first = body[0]
    node, shape = first.node, first.shape
    if not isinstance(node, n.Let) or explorer.calls_in(first):
        return None
    if type(shape) is Binding and (shape.split is not None or shape.call is not None):
        return None
    if type(shape) is not Binding and type(shape) is not Plain:  # (a pool's: Plain)
        return None
    live = explorer.live_after(body, live_out)
    if explorer.idle(first, live[0]):
        return None
    rest = body[1:]
    run = still_run(explorer, rest, live_out) if rest else _nothing
    if run is None:
        return None
    reads: set = set()
    for statement in body:
        reads.update(explorer.names_read(statement.node).needs)
    return node.name, live[0], tuple(sorted(reads)), run, _writes(rest)


def _nothing(ctx) -> None:  # noqa: ARG001 (a block's run: its statements, none here)
    return None
