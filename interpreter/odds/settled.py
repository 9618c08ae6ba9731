"""Branches the arguments settle: an `if` on parameters alone takes one way in every world.

`if r.won and objetivo != none { do objetivo.recibir_daño(bruto, ...) }` with no target
given can never run its body, but what the body reads (`bruto`, through it the attacker's
damage bonus and the verdict) would otherwise be kept in every world before it: worlds of
(their total × our bonus × the verdict) where the field asked for reads their total
alone. So before an action's body is explored, each `if` whose condition the arguments
decide (a part of it reading only parameters the body never binds again, and no dice, no
sheet) is cut down to the branches some world can still take: the explorer then neither
keeps what the others read nor runs them. The cut bodies are remembered per action and
decision (the explorer remembers what each block reads by the block's identity).
"""

from __future__ import annotations

import weakref

import attrs

from dsl import nodes as n
from dsl.errors import RulebookError
from interpreter.compiled import Branches, Statement, never_run
from interpreter.runtime import Unknown

#: the expressions a settled part of a condition may be made of
PLAIN = (n.Literal, n.Name, n.Unary, n.Binary)
#: operators that cannot refuse two values of the types the checker allowed
SAFE = frozenset(("and", "or", "=", "!=", "<", "<=", ">", ">="))
#: and with those refusing only past the bound on numbers (LimitExceeded): a part that
#: settles a condition may hold them (an error there settles nothing), not a part skipped
SETTLING = SAFE | {"+", "-", "*"}
#: how many different cuts of one action are remembered (past it: its body as written)
KEPT = 64

#: each compiler's Tests, by action name: the odds engine's own, kept while the compiler
#: lives (nothing is written onto the compiler)
_TESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def settled_body(compiler, compiled, ctx, args: tuple) -> tuple:
    """`compiled.body` with each `if` the arguments decide cut down to the branches that
    can still be taken (the body itself when none is decided)."""
    of_compiler = _TESTS.get(compiler)
    if of_compiler is None:
        of_compiler = _TESTS[compiler] = {}
    tests = of_compiler.get(compiled.node.name)
    if tests is None:
        tests = of_compiler[compiled.node.name] = Tests(compiler, compiled)
    if not tests.conditions:
        return compiled.body
    saved, ctx.env = ctx.env, dict(zip(compiled.names, args))
    try:
        decisions = tuple(decide(ctx) for decide in tests.conditions.values())
    finally:
        ctx.env = saved
    if not any(decision is not None for decision in decisions):
        return compiled.body
    found = tests.cut.get(decisions)
    if found is None:
        if len(tests.cut) >= KEPT:
            return compiled.body
        decided = dict(zip(tests.conditions, decisions))
        found = tests.cut[decisions] = _block(compiler, compiled.body, decided)
    return found


class Tests:
    """Of one action: for each condition of an `if` (in its body, or in a branch of one)
    that its parameters may decide, a function of the context giving yes, no, or None
    (not decided); and the bodies cut so far, by decisions."""

    def __init__(self, compiler, compiled):
        body = compiled.node.body
        self.constants = frozenset(compiled.names) - n.names_given(body)
        self.compiler = compiler
        self.conditions: dict = {}  # (if's number, branch's index) → decide(ctx)
        self.cut: dict = {}
        self._collect(compiled.body)

    def _collect(self, statements: tuple) -> None:
        for statement in statements:
            node, shape = statement.node, statement.shape
            if type(shape) is not Branches:
                continue
            for index, ((condition, _body), branch) in enumerate(
                zip(node.branches, shape.branches)
            ):
                decide = self._decider(condition)
                if decide is not None:
                    self.conditions[(statement.number, index)] = decide
                self._collect(branch.body)
            self._collect(shape.otherwise)

    def _decider(self, node):
        """decide(ctx) → True, False or None for a condition, or None when no part of it
        can be decided by the parameters."""
        if isinstance(node, n.Binary) and node.op in ("and", "or"):
            left, right = self._decider(node.left), self._decider(node.right)
            if left is None and right is None:
                return None
            # the right part decides alone only where a run evaluating the left part
            # first cannot stop or fail there (else its stop, its error would be lost)
            first = self._harmless(node.left)
            return _joined(node.op == "and", left, right, first)
        if isinstance(node, n.Unary) and node.op == "not":
            inner = self._decider(node.operand)
            if inner is None:
                return None
            return lambda ctx: None if (value := inner(ctx)) is None else not value
        if not self._plain(node):
            return None
        value = self.compiler.expr(node)

        def decide(ctx):
            try:
                found = value(ctx)
            except RulebookError:  # a run refuses it there, as it would
                return None
            if isinstance(found, Unknown) or type(found) is not bool:
                return None
            return found

        return decide

    def _plain(self, node) -> bool:
        """Whether an expression reads nothing but the constant parameters (no sheet, no
        dice, no call), through literals and operators."""
        return self._harmless(node, self.constants)

    def _harmless(self, node, names=None) -> bool:
        """Whether evaluating an expression can neither stop a run nor fail: names (of
        `names`, when given) not naming places on the sheet, their fields, literals, and
        operators that cannot refuse two values of the types the checker allowed (with
        `names`: the settling ones, arithmetic too)."""
        operators = SAFE if names is None else SETTLING
        for item in n.walk(node):
            if isinstance(item, n.Field) and names is None:
                continue
            if not isinstance(item, PLAIN):
                return False
            if isinstance(item, n.Name):
                binding = self.compiler.binding_of(item)
                if binding is None or binding.kind != "local":
                    return False
                if names is not None and item.name not in names:
                    return False
                if self.compiler.type_of(item).kind == "ref":  # a place: read on the sheet
                    return False
            if isinstance(item, n.Binary) and item.op not in operators:
                return False
        return True


def _joined(both: bool, left, right, first_harmless: bool):
    """`and` (both) or `or` of two parts, either of which may be undecided (None); the
    right part settles the whole alone only when the left one is harmless to skip."""
    settles = not both  # the value of one part that decides the whole

    def decide(ctx):
        a = left(ctx) if left is not None else None
        if a is settles:
            return settles
        if a is None and not first_harmless:
            return None
        b = right(ctx) if right is not None else None
        if b is settles:
            return settles
        if a is None or b is None:
            return None
        return not settles

    return decide


def _block(compiler, statements: tuple, decided: dict) -> tuple:
    out: list[Statement] = []
    for statement in statements:
        if type(statement.shape) is Branches:
            cut = _cut_if(compiler, statement, statement.shape, decided)
            if cut is None:
                continue
            statement = cut
        out.append(statement)
    made = tuple(out)
    return statements if made == statements else made  # (unchanged: the block as compiled)


def _cut_if(compiler, statement: Statement, shape: Branches, decided: dict) -> Statement | None:
    """The `if` (`shape`, the statement's) with the branches no world takes left out
    (None: it does nothing): a statement of the explorer's alone, never run (a real run
    runs the `if` as written)."""
    node = statement.node
    branches, nodes = [], []
    otherwise, otherwise_node = shape.otherwise, node.otherwise
    pairs = zip(node.branches, shape.branches)
    untested = 0  # (a run tests them: their steps, at most)
    for index, ((condition, body_node), branch) in enumerate(pairs):
        decision = decided.get((statement.number, index))
        if decision is not None:
            untested += compiler.cost(condition)
        if decision is False:
            continue
        if decision is True:  # taken wherever the ones before are not
            otherwise, otherwise_node = branch.body, body_node
            break
        branches.append(attrs.evolve(branch, body=_block(compiler, branch.body, decided)))
        nodes.append((condition, body_node))
    otherwise = _block(compiler, otherwise, decided)
    if not branches and not otherwise:
        return None
    unchanged = len(branches) == len(node.branches) and otherwise is shape.otherwise
    if unchanged and all(a.body is b.body for a, b in zip(branches, shape.branches)):
        return statement
    cut_node = attrs.evolve(node, branches=tuple(nodes), otherwise=otherwise_node)
    pure = all(compiler.changes_nothing(condition) for condition, _ in nodes)
    return Statement(
        never_run, cut_node, statement.cost, Branches(tuple(branches), otherwise, pure, untested)
    )
