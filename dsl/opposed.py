"""How an opposed check compares its sides: the keys, each side's direction, its degrees.

A side that is a roll-under check (`roll 3d6 <= skill`) is better the lower it rolls: its
`total` is compared reversed, and an opposed check that does not say what it compares
compares the sides' degrees (when their checks name degrees), then their margins (how
far each went past its target, in its own direction). Otherwise the default is `total`,
as it always was. A degree is better when it is a success and one of a failure; among
successes, the one declared first (the degrees are declared from the most extreme in:
`critical` before `regular`), among failures the one declared last (`fumble` before
`failure`, so `failure` is the better).
"""

from __future__ import annotations

from dsl import nodes as n

#: the comparisons of a check rolled under its target
UNDER = ("<=", "<")


def side_checks(node, bindings: dict) -> tuple:
    """The checks an opposed side's expression may give: a call (or one made for another
    character), either branch of an `if`; None stands for a value of any other kind."""
    if isinstance(node, n.CharacterCall):
        node = node.call
    if isinstance(node, n.IfExpr):
        return side_checks(node.then, bindings) + side_checks(node.otherwise, bindings)
    if isinstance(node, n.Call):
        binding = bindings.get(id(node))
        if binding is not None and binding.kind == "check" and binding.node is not None:
            return (binding.node,)
    return (None,)


def direction(checks: tuple) -> str:
    """ "under" when every check rolls under its target, "over" when none does, "mixed"."""
    under = [c is not None and c.comparison in UNDER for c in checks]
    if all(under):
        return "under"
    return "mixed" if any(under) else "over"


def degrees(checks: tuple) -> tuple:
    """The degrees of a side, in the order declared (those of its first check naming any)."""
    for check in checks:
        if check is not None and check.degrees:
            return check.degrees
    return ()


def default_compare(ours: tuple, theirs: tuple) -> tuple:
    """What an opposed check compares when it does not say: of two checks with targets
    where one rolls under, their degrees (when both name them), then their margins."""
    sides = ours + theirs
    targets = all(c is not None and c.comparison is not None for c in sides)
    if targets and any(c.comparison in UNDER for c in sides):
        if all(c.degrees for c in sides):
            return ("degree", "margin")
        return ("margin",)
    return ("total",)


def compared(node: n.Opposed, bindings: dict) -> tuple:
    """The keys an opposed check compares, in order (written, or the default)."""
    if node.compare:
        return node.compare
    return default_compare(side_checks(node.ours, bindings), side_checks(node.theirs, bindings))


def degree_rank(degrees: tuple, degree, success) -> tuple:
    """How good a degree is, as a key: a success above a failure; the first declared of
    successes, the last declared of failures; no degree lowest."""
    if degree not in degrees:
        return (-1, 0)
    index = degrees.index(degree)
    if success is False:
        return (0, index)
    return (1, -index)
