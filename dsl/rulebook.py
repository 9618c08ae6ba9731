"""A checked rulebook: its definitions by kind, and what the checker resolved in them."""

from __future__ import annotations

import attrs

from dsl import nodes as n


@attrs.frozen
class Binding:
    """What a name, call, index or field refers to; `node` is the definition, if any."""

    kind: str
    name: str
    node: object = None


@attrs.frozen(eq=False)
class Rulebook:
    """A checked rulebook: its definitions by kind, and what the checker resolved."""

    title: str
    header: dict
    path: str
    fields: dict  # sheet fields by name: Stat, Resource, Counter, Flag, TextField, ...
    open_skills: n.OpenSkills | None
    groups: dict
    derived: dict
    ensures: tuple
    rolls: dict
    ladders: dict
    formulas: dict
    tables: dict
    checks: dict
    opposed: dict
    actions: dict
    bindings: dict  # id(node) → Binding
    types: dict  # id(node) → Type
    warnings: tuple
    changes: tuple  # what a house rule did: ("replaced" | "added", kind, name)
    base: Rulebook | None = None
    dice: dict = attrs.Factory(dict)  # dice of symbol faces by name: DieDef
    symbol_declarations: tuple = ()  # the `symbols` lines: n.Symbols

    @property
    def symbols(self) -> tuple:
        """The symbols declared for dice of symbol faces, in order (each once)."""
        return tuple(dict.fromkeys(name for d in self.symbol_declarations for name, _ in d.names))

    @property
    def language(self) -> str:
        """The header's `language` (its texts and messages are shown in it): "en" if none."""
        return self.header.get("language", "en")

    def definition(self, name: str) -> object | None:
        """The action, check, opposed check, table, roll, formula or ladder of that name."""
        for table in (
            self.actions,
            self.checks,
            self.opposed,
            self.tables,
            self.rolls,
            self.formulas,
            self.ladders,
        ):
            if name in table:
                return table[name]
        return None

    def choices_of(self, type_name: str) -> list | None:
        """The values a name of this type may take (the members of a group, the keys of
        a table, the steps of a ladder, the fields of a kind), or None if any value may."""
        if type_name in self.groups:
            return list(self.groups[type_name].members)
        kinds = {"attribute": ("attribute",), "skill": ("skill",), "stat": ("attribute", "skill")}
        if type_name in kinds:
            return [
                k
                for k, f in self.fields.items()
                if isinstance(f, n.Stat) and f.kind in kinds[type_name]
            ]
        if type_name in ("resource", "counter"):
            cls = n.Resource if type_name == "resource" else n.Counter
            return [k for k, f in self.fields.items() if isinstance(f, cls)]
        table = self.tables.get(type_name)
        if table is not None:
            return [row.key.low for row in table.rows if row.key.kind == "value"]
        ladder = self.ladders.get(type_name)
        if ladder is not None:
            return [n.step_value(s) for s in ladder.steps]
        return None


#: bindings that read the character's sheet where they are used
SHEET_READS = frozenset(
    ("field", "derived", "group", "catalog", "catalog_entry", "family", "resource_bound", "key")
)
#: bindings to definitions that are run (or looked up) where they are used
RUN_DEFINITIONS = frozenset(
    ("formula", "check", "opposed", "action", "roll", "rolldef", "table", "ladder")
)
#: parameter types whose values name a field (read from the sheet when used)
FIELD_TYPES = frozenset(("attribute", "skill", "resource", "counter", "stat"))


def reads_sheet(book: Rulebook, definition) -> bool:
    """Whether running a definition (an action, check, roll, formula) may read the
    character's sheet: a field, a derived value, a group, a catalog, a parameter naming a
    field, in it or in what it calls or looks up. A definition that reads none (the open
    d10 `abierta`) needs no character."""
    seen: set = set()
    stack = [definition]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for param in getattr(node, "params", ()):
            type_ = param.type
            while isinstance(type_, n.ListType):
                type_ = type_.item
            name = getattr(type_, "name", None)
            if name in FIELD_TYPES or name in book.groups or name in book.fields:
                return True
        for item in n.walk(node):
            binding = book.bindings.get(id(item))
            if binding is None:
                continue
            if binding.kind in SHEET_READS:
                return True
            if binding.kind in RUN_DEFINITIONS and binding.node is not None:
                stack.append(binding.node)
    return False


def names_a_field(node, bindings: dict) -> bool:
    """Whether a ref-typed expression is a value that names a field (a parameter
    `atributo: attribute`, a catalog entry's `numina.dignitas`), rather than a field
    written by its own name (`Fuerza`). In texts, lookups and `in`, the first stands for
    the field's name; the second always for its value."""
    if isinstance(node, n.Name):
        binding = bindings.get(id(node))
        return binding is not None and binding.kind in ("local", "key")
    if isinstance(node, n.Field):  # `numina.dignitas` names one; `objetivo.Vida` is read
        binding = bindings.get(id(node))
        return binding is None or binding.kind != "character_field"
    return False


def defined_at(book: Rulebook, span) -> str | None:
    """The check, roll or action whose definition holds `span` (the last definition of
    its file that starts before it): its label, else its name."""
    if span is None:
        return None
    found, start = None, -1
    for kind in (book.checks, book.opposed, book.rolls, book.actions, book.formulas):
        for name, node in kind.items():
            at = getattr(node, "span", None)
            if at is None or at.source is not span.source or not start < at.start <= span.start:
                continue
            label = getattr(node, "label", None)
            found, start = (label if isinstance(label, str) and label else name), at.start
    return found
