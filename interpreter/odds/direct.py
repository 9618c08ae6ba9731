"""A block that rolls nothing run whole in each world: one run, not a step per statement.

A pass of `for each d in r.dice { if d = 1 { set s to s + 1 } if d = 2 { ... } ... }`
starts from a world per face of the die; no statement of its body rolls, calls or
chooses, so each world goes through the body as one run would, and merging the worlds
after every statement merges none (each still differs in `d`). Run statement by
statement, the explorer pays for each statement in each world its tests, its held
counters and its merge; run whole, a world costs what the rules cost to run once. The
worlds are merged once, after the block, on what is read after it.

Each world's run is explored (Explorer.explore) as any statement's is: a value a world
still holds as a distribution, read there, branches as it would; a failure is an
outcome. The block's own steps are counted on entering it, as the explorer counts them;
its statements count theirs as they run, as a real run counts them. A block holding a
statement that nothing reads (idle: the explorer does not run it, and may have dropped
what it reads), or a world holding a value only the explorer's own steps read (kept
whole for a `let`, a pool not rolled, a die not drawn), is run statement by statement.
"""

from __future__ import annotations

from dsl import nodes as n
from interpreter.compiled import Branches, block_key
from interpreter.odds.deferred import Deferred
from interpreter.odds.die_loops import Unrolled
from interpreter.odds.drawn import Drawn
from interpreter.odds.switched import gives, row_run, tested_name
from interpreter.odds.worlds import block_steps
from interpreter.runtime import as_bool, count_past_bound


class Switch:
    """Whether a block that rolls nothing runs whole in each world (tests switch it off:
    then statement by statement)."""

    on = True


SWITCH = Switch()

#: the nodes a block run whole may hold: none rolls, calls an action or chooses (a name
#: that rolls, a roll definition's, is told apart by its binding: _still)
STILL = frozenset(
    (
        n.Literal,
        n.Text,
        n.Name,
        n.Field,
        n.Index,
        n.Unary,
        n.Binary,
        n.IfExpr,
        n.ListLiteral,
        n.Let,
        n.Set,
        n.If,
        n.Require,
    )
)
#: values only the explorer's own steps read (a world holding one, read by the block,
#: is run statement by statement)
HELD = (Deferred, Unrolled, Drawn)


def direct_block(explorer, statements: tuple, worlds, live_out, split: bool, merged=True):
    """The block run whole in each world (see the module's docstring): (worlds after,
    merged on `live_out` unless not `merged`, failures), or None (run it statement by
    statement)."""
    if not SWITCH.on or split or type(worlds) is not list or len(statements) < 2:
        return None
    found = _plan(explorer, statements, live_out)
    if found is None:
        return None
    reads, run = found
    for world in worlds:
        env = world.env
        for name in reads:
            if type(env.get(name)) in HELD:
                return None
    entry = block_steps(statements)
    done, failed = explorer.atomic(run, explorer.counting(worlds, entry))
    return (explorer.merge(done, live_out) if merged else done), failed


def still_run(explorer, statements: tuple, live_out):
    """The run of a block that rolls nothing, calls no action and chooses nothing, its
    idle statements left out (its own steps counted before it), or None (none such, or
    run statement by statement: SWITCH)."""
    if not SWITCH.on:
        return None
    found = _plan(explorer, statements, live_out)
    return None if found is None else found[1]


def _plan(explorer, statements: tuple, live_out):
    """(the names the block reads, its run), or None where it is not one to run whole;
    found once per block and what is read after it."""
    key = ("direct", block_key(statements), live_out)
    found = explorer.liveness.get(key, False)
    if found is False:
        found = None
        if _still(explorer, statements):
            reads: set = set()
            for statement in statements:
                reads.update(explorer.names_read(statement.node).needs)
            found = (tuple(sorted(reads)), _run_of(explorer, statements, live_out))
        explorer.liveness[key] = found
    return found


def _still(explorer, statements: tuple) -> bool:
    """Whether no node of the statements rolls, calls or chooses."""
    if explorer.sheet is None:  # (no compiler: what a name names not known)
        return False
    compiler = explorer.sheet.compiler
    for statement in statements:
        for item in n.walk(statement.node):
            kind = type(item)
            if kind not in STILL:
                return False
            if kind is n.Name:
                binding = compiler.binding_of(item)
                if binding is not None and binding.kind == "rolldef":
                    return False
    return True


def _run_of(explorer, statements: tuple, live_out):
    """run(ctx): the block's statements as a run runs them (the block's own steps
    counted before), but those the explorer leaves idle (Explorer.idle: what they read
    may be gone), in the blocks of its `if`s too; a row of `if`s testing one name
    against whole numbers run by a lookup of its value (odds.switched)."""
    runs: list = []
    row: list = []  # the `if`s of the row being read: (name, their parts, their runs)
    compiler = explorer.sheet.compiler
    for statement, after in zip(statements, explorer.live_after(statements, live_out)):
        if explorer.idle(statement, after):
            continue
        shape = statement.shape
        if type(shape) is Branches and isinstance(statement.node, n.If):
            node = statement.node
            tested = tuple(
                (
                    branch.condition,
                    branch.span,
                    explorer.cost(test),
                    block_steps(branch.body),
                    _run_of(explorer, branch.body, after),
                )
                for branch, (test, _) in zip(shape.branches, node.branches)
            )
            otherwise = (block_steps(shape.otherwise), _run_of(explorer, shape.otherwise, after))
            own = _if_run(tested, otherwise, node.span)
            found = tested_name(compiler, node)
            if found is not None and not gives(node, found[0]):
                name, numbers = found
                if row and row[0] != name:
                    _row_ended(runs, row)
                parts = (
                    tuple((k, *test[2:]) for k, test in zip(numbers, tested)),
                    (otherwise[0], None if otherwise[1] is _nothing else otherwise[1]),
                    node.span,
                )
                if not row:
                    row[:] = [name, [], []]
                row[1].append(parts)
                row[2].append(own)
                continue
            _row_ended(runs, row)
            runs.append(own)
        else:
            _row_ended(runs, row)
            runs.append(statement.run)
    _row_ended(runs, row)
    if len(runs) == 1:
        return runs[0]
    if not runs:
        return _nothing

    def run(ctx) -> None:
        for one in runs:
            one(ctx)

    return run


def _row_ended(runs: list, row: list) -> None:
    """The row of `if`s read so far (if any) onto `runs`: one run (a lookup) where it
    has tests for it to spare, else its `if`s' own."""
    if not row:
        return
    name, ifs, own = row
    if len(ifs) > 1 or len(ifs[0][0]) > 1:
        runs.append(row_run(name, ifs, own))
    else:
        runs.extend(own)
    row.clear()


def _if_run(tested: tuple, otherwise: tuple, span):
    """An `if`'s run, as the compiled one (interpreter.compile.statements), its blocks'
    runs `_run_of`'s."""
    otherwise_steps, otherwise_run = otherwise

    def without_else(ctx) -> bool:  # (the steps counted as the compiled `if` counts them)
        """The first branch whose test holds run; whether one did."""
        for condition, cspan, steps, body_steps, body in tested:
            counted = ctx.steps + steps
            ctx.steps = counted
            if counted > ctx.step_bound:
                count_past_bound(ctx, cspan)
            decided = condition(ctx)
            if decided is not True and decided is not False:
                decided = as_bool(ctx, decided, cspan)
            if decided:
                ctx.count(body_steps, span)
                body(ctx)
                return True
        return False

    if not otherwise_steps and otherwise_run is _nothing:
        return without_else  # (no `else`: nothing to count nor run past the tests)

    def run(ctx) -> None:
        if not without_else(ctx):
            ctx.count(otherwise_steps, span)
            otherwise_run(ctx)

    return run


def _nothing(ctx) -> None:  # noqa: ARG001 (a block's run: its statements, none here)
    return None
