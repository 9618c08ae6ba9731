"""Sheet fields still read: the changes later statements may read, the rest left out of merges."""

from __future__ import annotations

import weakref
from typing import Any

from dsl import nodes as n
from dsl.functions import FUNCTIONS
from dsl.rulebook import RUN_DEFINITIONS
from interpreter.compiled import NodeNumbers
from interpreter.odds.keys import ordered
from interpreter.odds.worlds import Live
from interpreter.state import MISSING

#: a Live's need for a sheet field is its name after this mark (never a local's name)
MARK = "@"
#: the need for every field of the sheet (a read the analysis cannot bound)
EVERY = MARK + "*"

#: a Live's need for an `ensure` rule still to be checked at the end: its index after this
JUDGED = "!"

#: changes that only move a field within its bounds (never stop a run): a field a
#: statement only moves so, and no `ensure` rule reads, is read before it only where it is
#: read after it (SheetReads.before)
MOVES = ("gain", "lose")

#: the definitions whose parameters a call's arguments are given to, by kind of node
_WITH_PARAMS = (n.Action, n.Check, n.Formula)

#: bindings whose name is the field read (a family, a catalog: the whole of it)
_FIELDS = ("field", "family", "catalog", "catalog_entry", "resource_bound")

#: a read of the lasting effects on one target (store, ON, target: one field's name)
ON = "\x1f"

#: the statements that read the store of lasting effects (and write it): `effect` counts
#: the effects on (a limit may stop it), `pass` and `end` go through them
_OF_EFFECTS = (n.Effect, n.PassTime, n.EndEffect)


class SheetReads:
    """What each node may read of the acting character's sheet, through what it calls,
    the derived values and resource bounds it reads, and the fields a value naming one
    may name (`sombra_en: Contrapartidas`: each member); None where that is not bounded.
    Found once per node (the store of lasting effects read by the statements and the
    functions of lasting effects, `effects(...)`, `active(...)`, `effect_modifier(...)`);
    `at_end`: what the end of a run reads (`ensure` rules)."""

    def __init__(self, compiler: Any) -> None:
        self.compiler = compiler
        self.book = compiler.book
        self.found: dict[int, Live] = {}  # node's number → its reads as a Live
        self.numbers = NodeNumbers()  # (what is remembered of a node: by its number)
        self.definitions: dict[int, frozenset[str] | None] = {}  # definition's number →
        self.derived: dict[str, frozenset[str] | None] = {}  # a derived value's name →
        self.bounds: dict[str, frozenset[str] | None] = {}  # a field → it and its bounds'
        #: each `ensure` rule judged where none of its fields is read later: (its index,
        #: its fields, its condition); the others' fields are kept to the end
        self.ensures: list[tuple[int, frozenset[str], Any]] = []
        self.compiled: dict[int, Any] = {}  # an ensure rule's index → its compiled condition
        ends: set[str] | None = set()
        judged: list[str] = []
        #: the fields some `ensure` rule reads (None: any field), never only moved
        self.ensured: set[str] | None = set()
        for index, ensure in enumerate(self.book.ensures):
            read = self.fields_of(ensure.condition)
            self.ensured = _union(self.ensured, read)
            fields = self.book.fields
            if read is None or any(isinstance(fields.get(f), n.Resource) for f in read):
                ends = _union(ends, read)  # (a resource: brought within its bounds first)
                continue
            self.ensures.append((index, read, ensure.condition))
            judged.append(JUDGED + str(index))
        #: the store of lasting effects (None: the rulebook has none)
        self.store = next(
            (name for name, field in self.book.fields.items() if isinstance(field, n.Effects)),
            None,
        )
        self.tracked_end = live_of(ends).union(Live(dict.fromkeys(judged)))
        kept = ends if self.store is None else _union(ends, frozenset((self.store,)))
        self.kept_end = live_of(kept).union(Live(dict.fromkeys(judged)))

    @property
    def at_end(self) -> Live:
        """What the end of a run reads: the `ensure` rules' fields (switched off, the
        store of lasting effects too, and so kept in every merge to the end)."""
        return self.tracked_end if SWITCH.effects else self.kept_end

    @classmethod
    def of(cls, compiler: Any) -> SheetReads | None:
        """The SheetReads kept for a compiler while it lives (None without one)."""
        if compiler is None:
            return None
        found = _KEPT.get(compiler)
        if found is None:
            found = _KEPT[compiler] = cls(compiler)
        return found

    def live(self, node: object, number: int) -> Live:
        """The fields `node` may read, as a Live of marked names (`number`: the node's)."""
        found = self.found.get(number)
        if found is None:
            found = self.found[number] = live_of(self.fields_of(node))
        return found

    def before(self, node: object, number: int, after: Live, safe: Any, kept: dict) -> Live:
        """What a statement (`node`, its `number`) may read of the sheet before it, from
        what is read after it (`after`): what it reads, and each field it only gains or
        loses (and its bounds' fields) where that field is read after it: else its value
        before changes only its own value after, which nothing reads (the worlds that
        differ in it merge). `safe(expr)`: whether an expression cannot stop a run (a
        discarded result's, not computed then); `kept`: where the split is remembered."""
        key = ("sheet moves", number)
        found = kept.get(key)
        if found is None:
            parts = self._parts(node, safe, kept)
            if parts is None:
                found = (live_of(None), ())
            else:
                reads, moved = parts
                moves = tuple((f, b) for f, b in moved.items() if f not in reads)
                found = (live_of(reads), moves)
            kept[key] = found
        live, moves = found
        if moves and SWITCH.moves:
            fields = fields_live(after)
            for field, bounds in moves:
                if fields is None or field in fields:
                    live = live.union(live_of(bounds))
        elif moves:
            live = live.union(live_of(frozenset().union(*(b for _, b in moves))))
        return live

    def _parts(self, node: object, safe: Any, kept: dict) -> tuple | None:
        """(the fields `node` reads, {a field it gains or loses: it and its bounds'
        fields}), None where that is not bounded; a call of an action whose result is
        discarded (`do`) reads only the result's fields that may stop a run."""
        items = list(n.walk(node))
        number = self.numbers.of
        places: set[int] = set()
        discarded: set[int] = set()
        unseen: set[int] = set()
        for item in items:
            if isinstance(item, n.Change) and item.verb in MOVES and type(item.place) is n.Name:
                places.add(number(item.place))
            elif isinstance(item, n.Do):
                discarded.add(number(item.call))
            elif isinstance(item, n.Note) and safe(item.text):  # (idle: Explorer.idle_now)
                unseen.update(number(inner) for inner in n.walk(item))
            elif isinstance(item, n.Call):
                unseen.update(self._passed(item))
            elif isinstance(item, n.CharacterCall) and SWITCH.elsewhere:
                unseen.add(number(item.call))  # (its arguments are walked on their own)
        reads: set[str] = set()
        moved: dict[str, frozenset[str]] = {}

        def called(definition: Any, item: object) -> frozenset[str] | None:
            inner = self._called(definition, number(item) in discarded, safe, kept)
            if inner is None:
                return None
            for field, bounds in inner[1].items():
                moved[field] = moved.get(field, frozenset()) | bounds
            return inner[0]

        for item in items:
            if number(item) in unseen:
                continue
            if number(item) in places:
                if not self._moved(item, reads, moved):
                    return None
            elif not self._read(item, reads, called):
                return None
        return frozenset(reads), moved

    def _passed(self, call: Any) -> list[int]:
        """The numbers of a call's arguments that pass a local naming a field on to a
        parameter of the same kind: the name is passed, not the field's value (what the
        definition does with it is walked there)."""
        binding = self.compiler.binding_of(call)
        if binding is None or binding.kind not in RUN_DEFINITIONS:
            return []
        if not isinstance(binding.node, _WITH_PARAMS) or not binding.node.params:
            return []
        params = binding.node.params
        by_name = {param.name: param for param in params}
        pairs = [*zip(params, call.args), *((by_name.get(k), v) for k, v in call.named)]
        out = []
        for param, arg in pairs:
            if param is None or type(arg) is not n.Name or type(param.type) is not n.NamedType:
                continue
            found = self.compiler.binding_of(arg)
            type_ = self.compiler.type_of(arg)
            named = type_.group if type_.group is not None else type_.ref
            if found is not None and found.kind == "local" and named == param.type.name:
                out.append(self.numbers.of(arg))
        return out

    def _moved(self, place: object, reads: set[str], moved: dict) -> bool:
        """The place of a `gain` or `lose`: the fields it names moved (read where an
        `ensure` rule reads them); False: not bounded."""
        binding = self.compiler.binding_of(place)
        kind = binding.kind if binding is not None else None
        if kind == "field":
            names: frozenset[str] | None = frozenset((binding.name,))
        elif kind == "local" and _names_a_field(place, kind):
            type_ = self.compiler.type_of(place)
            if type_.ref is None and type_.group is None:
                return self._read(place, reads)
            names = self._named(type_)
        else:
            return self._read(place, reads)
        if names is None:
            return False
        for name in names:
            bounds: set[str] = set()
            if not self._field(name, bounds):
                return False
            if self.ensured is None or name in self.ensured:
                reads |= bounds
            else:
                moved[name] = moved.get(name, frozenset()) | bounds
        return True

    def _called(self, definition: Any, discarded: bool, safe: Any, kept: dict):
        """_parts of a definition a statement calls (`discarded`: an action's result not
        kept), found once."""
        if definition is None:
            return None
        key = ("sheet moves called", self.numbers.of(definition), discarded)
        if key in kept:
            return kept[key]
        kept[key] = None  # (one calling itself: not bounded)
        node: Any = definition
        result: set[str] = set()
        body = definition.body if isinstance(definition, n.Action) else ()
        if discarded and body and type(body[-1]) is n.Result:
            node = (definition.params, body[:-1])
            for _, expr in body[-1].fields:
                if not safe(expr):
                    read = self.fields_of(expr)
                    if read is None:
                        return None
                    result |= read
        found = self._parts(node, safe, kept)
        if found is not None and result:
            found = (found[0] | result, found[1])
        kept[key] = found
        return found

    def fields_of(self, node: object) -> frozenset[str] | None:
        out: set[str] = set()
        items = list(n.walk(node))
        number = self.numbers.of
        elsewhere = {number(i.call) for i in items if type(i) is n.CharacterCall}
        for item in items:
            if elsewhere and SWITCH.elsewhere and number(item) in elsewhere:
                continue  # (run on another character's sheet: what it reads is that one's)
            if not self._read(item, out):
                return None
        return frozenset(out)

    def _read(self, item: object, out: set[str], called: Any = None) -> bool:
        """What one node reads of the sheet, added to `out` (False: not bounded);
        `called(definition, item)`: what a definition it calls reads (by default, all of
        it: `_definition`)."""
        book, compiler = self.book, self.compiler
        binding = compiler.binding_of(item)
        kind = binding.kind if binding is not None else None
        if kind in _FIELDS:
            if not self._field(binding.name, out):
                return False
        elif kind == "derived":
            out.add(binding.name)
            inner = self._derived(binding.name)
            if inner is None:
                return False
            out |= inner
        elif kind == "group":
            group = book.groups.get(binding.name)
            if group is None:
                return False
            for member in group.members:
                if not self._field(member, out):
                    return False
        elif kind in ("key", "character_field"):
            if kind == "key":
                return False  # (outside a resource's bound: not bounded here)
        elif kind == "roll" and binding.node is None:
            pass  # (a local name holding a roll: its value)
        elif kind == "builtin" and isinstance(item, n.Call) and _of_effects(item):
            out.update(self._effects_read(item))
        elif kind in RUN_DEFINITIONS:
            if called is None:
                inner = self._definition(binding.node)
            else:
                inner = called(binding.node, item)
            if inner is None:
                return False
            out |= inner
        if isinstance(item, _OF_EFFECTS):
            out.add(self.store or "")  # (the checker allows them only with a store)
        if _names_a_field(item, kind):
            type_ = compiler.type_of(item)
            if type_.ref is not None or type_.group is not None:
                named = self._named(type_)
                if named is None:
                    return False
                out |= named
        return True

    def _effects_read(self, call: Any) -> tuple[str, ...]:
        """What a function of lasting effects reads of their store (the checker allows
        them only with one): `effects("a", "b")` of texts written out, the effects on
        those targets alone (`store` ON `target`: Ends keeps the others' number, not
        their values); else, and `active`, `effect_modifier`, the whole store."""
        store = self.store or ""
        args = call.args
        if call.function != "effects" or not SWITCH.targets:
            return (store,)
        if not all(type(a) is n.Literal and type(a.value) is str for a in args):
            return (store,)
        return tuple(store + ON + a.value for a in args)

    def _named(self, type_: Any) -> frozenset[str] | None:
        """The fields a value of this ref type may name."""
        book = self.book
        if type_.group is not None:
            group = book.groups.get(type_.group)
            if group is not None:
                return frozenset(group.members)
            if type_.group in book.fields:  # a catalog's entries: the catalog
                return frozenset((type_.group,))
            return None
        if book.open_skills is not None:
            return None  # (a skill the sheet has and the rulebook does not name)
        choices = book.choices_of(type_.ref)
        return None if choices is None else frozenset(str(c) for c in choices)

    def _field(self, name: str, out: set[str]) -> bool:
        """`name` read, with what its bounds read (a resource's); False: not bounded."""
        if name not in self.bounds:
            self.bounds[name] = None  # (a bound reading itself: not bounded)
            self.bounds[name] = self._bounds_of(name)
        found = self.bounds[name]
        if found is None:
            return False
        out |= found
        return True

    def _bounds_of(self, name: str) -> frozenset[str] | None:
        """`name` and what its bounds read (a resource's), found once per field."""
        out = {name}
        field = self.book.fields.get(name)
        if not isinstance(field, n.Resource):
            return frozenset(out)
        if field.key_group is not None:
            group = self.book.groups.get(field.key_group)
            if group is None:
                return None
            out.update(group.members)
        for bound in (field.maximum, field.minimum):
            if bound is None:
                continue
            for item in n.walk(bound):  # (the key's name: its members, added above)
                binding = self.compiler.binding_of(item)
                if binding is not None and binding.kind == "key":
                    continue
                inner = self.fields_of(item) if binding is not None else frozenset()
                if inner is None:
                    return None
                out |= inner
        return frozenset(out)

    def _derived(self, name: str) -> frozenset[str] | None:
        """What a derived value reads, found once (derived values read derived values:
        walked again at each mention, a chain of them would cost exponential time)."""
        if name in self.derived:
            return self.derived[name]
        self.derived[name] = None  # (one reading itself: not bounded)
        derived = self.book.derived.get(name)
        found = self.fields_of(derived.expr) if derived is not None else None
        self.derived[name] = found
        return found

    def _definition(self, definition: object) -> frozenset[str] | None:
        if definition is None:
            return None
        key = self.numbers.of(definition)
        if key in self.definitions:
            return self.definitions[key]
        self.definitions[key] = None  # (one calling itself: not bounded)
        found = self.fields_of(definition)
        self.definitions[key] = found
        return found


class Switch:
    """The fields only moved left out of what is read before a statement (tests switch
    it off: SheetReads.before then reads them as every other); `effects`: the store of
    lasting effects kept only where a statement or a function of lasting effects may
    read it later (off: in every merge to the end of the run, as every run's end);
    `targets`: where only `effects(...)` of targets written out reads it, only the
    effects on those targets (off: the whole store); `elsewhere`: a call made on another
    character's sheet (`rival.defensa()`) reads none of this one's but through its
    arguments (off: as if made on this one); `calls`: inside a call made at the action's
    own level, merges keep only the changes the call's rest or its callers may read
    (off: every change, as a caller reading on would)."""

    moves = True
    effects = True
    targets = True
    elsewhere = True
    calls = True


SWITCH = Switch()

#: each compiled rulebook's SheetReads, kept while the compiler lives
_KEPT: weakref.WeakKeyDictionary[Any, SheetReads] = weakref.WeakKeyDictionary()


def _of_effects(call: n.Call) -> bool:
    """Whether a built-in function's call is one of lasting effects (dsl.functions)."""
    found = FUNCTIONS.get(call.function)
    return found is not None and found.rule == "effects"


def _names_a_field(item: object, kind: str | None) -> bool:
    """dsl.rulebook.names_a_field, from the binding found (`kind`): a value naming a field
    (a parameter `sombra_en: Contrapartidas`, a catalog entry's `numina.dignitas`)."""
    if isinstance(item, n.Name):
        return kind in ("local", "key")
    return isinstance(item, n.Field) and kind != "character_field"


def _union(a: frozenset[str] | set[str] | None, b: frozenset[str] | None) -> set[str] | None:
    if a is None or b is None:
        return None
    return set(a) | b


def live_of(fields: frozenset[str] | set[str] | None) -> Live:
    """Fields as a Live of marked names (None: every field)."""
    if fields is None:
        return Live({EVERY: None})
    return Live({MARK + name: None for name in ordered(fields)})  # (not a set's order)


def sheet_read(live: Live) -> Live:
    """What a Live reads of the sheet alone: its fields, the `ensure` rules still to
    judge (a local name's reads left out)."""
    needs = {k: v for k, v in live.needs.items() if k[:1] in (MARK, JUDGED)}
    return Live(needs, {k: live.counts[k] for k in needs})


def wider(have: Live | None, want: Live | None) -> bool:
    """Whether a call's merges keeping what `have` reads of the sheet (None: all of it)
    keep what `want` reads too (a call's summary serving another caller)."""
    if have is None or EVERY in have.needs:
        return True
    return want is not None and have.needs.keys() >= want.needs.keys()


def fields_live(live: Live) -> frozenset[str] | None:
    """The sheet fields a Live still reads (None: every one): found once per Live (kept
    with the rulebook's liveness, asked by every exploration's merges: Ends.key_for)."""
    found = live.fields
    if found is MISSING:
        needs = live.needs
        found = None if EVERY in needs else frozenset(k[1:] for k in needs if k[:1] == MARK)
        live.fields = found
    return found
