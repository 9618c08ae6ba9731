"""The built-in functions every rulebook has: names, arity, types and reference text, once.

The checker (dsl.check), the language reference's table (grammar/README.md, printed by
`python -m dsl.function_table --reference`) and the completion of the editor read this
registry; the back end registers how each one is compiled and how the odds engine counts
it under the same names (interpreter.compile.builtin_functions), and a test holds the two together.
To add a function: its entry here, its type rule in dsl.check (if none of the rules below
fits), its entry in interpreter.compile.builtin_functions, the reference's table regenerated.
"""

from __future__ import annotations

import attrs

from dsl import types as t

#: the type rules of the checker (dsl.check.expressions.TYPE_RULES), each a few words
RULES = {
    "numbers": "every argument a number",
    "aggregate": "several numbers, or one list of them",
    "size": "a list or a text",
    "fallback": "any two values; the result of either type",
    "ladder": "a ladder's name, a step of it, a number of steps",
    "pool": "a pool of dice (a term, a named roll, a `let` holding one) or a list",
    "list": "a list first",
    "effects": "texts naming effects or their targets",
    "items": "a list and a text, or a text",
}


@attrs.frozen
class Function:
    """A built-in function: how it is written, what it takes and gives, what it means."""

    #: its name in the rules
    name: str
    #: how it is written, each form with its arguments named (`highest(pool, n)`)
    forms: tuple[str, ...]
    #: the fewest and most arguments (None: no limit)
    fewest: int
    most: int | None
    #: the checker's type rule for its arguments (one of RULES)
    rule: str
    #: the type it gives, when that is fixed (None: its rule works it out)
    result: t.Type | None
    #: what it gives, in words, when `result` is None
    gives: str
    #: its meaning, for the reference (Markdown)
    meaning: str
    #: the positions of arguments evaluated only when needed (`default`'s fallback):
    #: their steps count when they are (interpreter.compile.costs)
    lazy: tuple[int, ...] = ()

    def gives_text(self) -> str:
        return self.result.describe() if self.result is not None else self.gives


def _function(
    name, forms, fewest, most, rule, meaning, result: t.Type | None = t.NUMBER, gives="", lazy=()
) -> Function:
    if isinstance(forms, str):
        forms = (forms,)
    return Function(name, tuple(forms), fewest, most, rule, result, gives, meaning, lazy)


_ALL = (
    _function("floor", "floor(x)", 1, 1, "numbers", "rounded down"),
    _function("ceil", "ceil(x)", 1, 1, "numbers", "rounded up"),
    _function("round", "round(x)", 1, 1, "numbers", "rounded, halves away from zero"),
    _function("abs", "abs(x)", 1, 1, "numbers", "its size, without its sign"),
    _function(
        "min",
        ("min(a, b, ...)", "min(list)"),
        1,
        None,
        "aggregate",
        "the least of the values, or of a list's items (`min(Esferas)` on a group)",
    ),
    _function(
        "max",
        ("max(a, b, ...)", "max(list)"),
        1,
        None,
        "aggregate",
        "the greatest of the values, or of a list's items (`max(Esferas)` on a group)",
    ),
    _function("clamp", "clamp(x, low, high)", 3, 3, "numbers", "`x` kept within `low..high`"),
    _function("sum", "sum(list)", 1, 1, "aggregate", "a list's items added up"),
    _function("size", "size(list)", 1, 1, "size", "how many items a list has"),
    _function(
        "default",
        "default(x, fallback)",
        2,
        2,
        "fallback",
        "`x`, or `fallback` when `x` is `none` (the fallback is evaluated only then)",
        result=None,
        gives="either's value",
        lazy=(1,),
    ),
    _function(
        "step",
        "step(Ladder, from, n)",
        3,
        3,
        "ladder",
        "`n` steps along a ladder from one of its steps, stopping at its ends "
        "([Ladders](#ladders))",
        result=None,
        gives="a step of the ladder",
    ),
    _function(
        "count",
        ("count(pool, 6)", "count(pool, 5..6)", "count(pool, [1, 6])"),
        2,
        2,
        "pool",
        "how many kept dice (or items of a list) show that face, a face in that range, "
        "or any of those ([Pools](#pools))",
    ),
    _function(
        "highest",
        ("highest(pool)", "highest(pool, n)"),
        1,
        2,
        "pool",
        "the highest kept die (`none` for no dice); the n highest, highest first; of a "
        "list too: `highest([a, b, c], 2)`",
        result=None,
        gives="number; list of number (with n)",
    ),
    _function(
        "lowest",
        ("lowest(pool)", "lowest(pool, n)"),
        1,
        2,
        "pool",
        "the lowest kept die (`none` for no dice); the n lowest, lowest first",
        result=None,
        gives="number; list of number (with n)",
    ),
    _function(
        "most_sets",
        ("most_sets(pool, 10)", "most_sets(pool, [10, 15])"),
        2,
        2,
        "pool",
        "the most sets the kept dice can be split into, each adding up to at least 10; "
        "with a list of rising sizes, a set reaching the k-th counts k ([Pools](#pools))",
    ),
    _function(
        "without",
        ("without(list, items)", "without(list, item)"),
        2,
        2,
        "list",
        "the list less one of each item (`without(r.sorted, [3, 7])`; an item it does "
        "not hold is not taken); given one item, not a list, less the first item equal "
        "to it (`without(r.sorted, r.sorted[1])`: the lowest die dropped)",
        result=None,
        gives="the list's type",
    ),
    _function(
        "subsets",
        "subsets(list)",
        1,
        1,
        "list",
        "every different choice of some of its items, the fewest first (`subsets([5, 5, "
        "3])`: `[]`, `[3]`, `[5]`, `[5, 3]`, `[5, 5]`, `[5, 5, 3]`)",
        result=None,
        gives="list of lists",
    ),
    _function(
        "effects",
        "effects(target, ...)",
        1,
        None,
        "effects",
        "the sum of the modifiers of the lasting effects on any of these targets, each "
        "effect once ([Lasting effects](#lasting-effects))",
    ),
    _function(
        "active",
        'active("Name")',
        1,
        1,
        "effects",
        "whether the lasting effect of that name is on",
        result=t.BOOL,
    ),
    _function(
        "effect_modifier",
        'effect_modifier("Name")',
        1,
        1,
        "effects",
        "the modifier of the lasting effect of that name (0 if it is not on)",
    ),
    _function(
        "join",
        ("join(list)", 'join(list, ", ")'),
        1,
        2,
        "items",
        'the items as one text, the separator between them (`join(Equipo, ", ")`); '
        'two texts: `"{a}{b}"`',
        result=t.TEXT,
    ),
    _function(
        "number",
        'number("12")',
        1,
        1,
        "items",
        "the number a text writes (`12`, `-3`, `1.5`, `7/2`); a text that writes none is an error",
    ),
)

#: every built-in function by name, in the reference's order
FUNCTIONS: dict[str, Function] = {f.name: f for f in _ALL}

#: the reference's table starts after this line and ends at the first line not a row
TABLE_MARK = "<!-- functions: made by `python -m dsl.function_table --reference` -->"


def reference_table() -> str:
    """The language reference's table of built-in functions (Markdown)."""
    lines = ["| function | gives | meaning |", "|---|---|---|"]
    for function in FUNCTIONS.values():
        forms = ", ".join(f"`{form}`" for form in function.forms)
        lines.append(f"| {forms} | {function.gives_text()} | {function.meaning} |")
    return "\n".join(lines) + "\n"


def table_in(text: str) -> str | None:
    """The table of functions written in a reference's text (None: no mark)."""
    _, mark, after = text.partition(TABLE_MARK + "\n")
    if not mark:
        return None
    rows = []
    for line in after.splitlines(keepends=True):
        if not line.startswith("|"):
            break
        rows.append(line)
    return "".join(rows)
