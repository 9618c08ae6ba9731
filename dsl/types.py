"""The static types the checker infers: enough to catch mistakes, never in the way.

`ANY` is the type of what cannot be known before running (a table cell of mixed kinds);
it agrees with everything. A `ref` is a place on the sheet (an attribute, a resource...)
named by a value, such as a parameter `atributo: attribute`; used in arithmetic it reads
the value there.
"""

from __future__ import annotations

import attrs

from dsl.messages import tr


@attrs.frozen
class Type:
    kind: str  # number bool text none list record ref roll symbols range character any
    choices: frozenset | None = None  # text: the texts it can be (None: any text)
    item: Type | None = None  # list: the type of its items
    fields: tuple | None = None  # record: sorted (name, Type) pairs (None: unknown fields)
    ref: str | None = None  # ref: the kind of field (attribute, skill, resource, ...)
    group: str | None = None  # ref: the group or catalog the name belongs to

    def field(self, name: str) -> Type | None:
        for key, value in self.fields or ():
            if key == name:
                return value
        return None

    def field_names(self) -> list[str]:
        return [key for key, _ in self.fields or ()]

    def describe(self) -> str:
        """The type as a message says it: `number`, `yes/no`, `list of text` (a Message)."""
        if self.kind == "text" and self.choices and len(self.choices) == 1:
            return tr('the text "{text}"', text=next(iter(self.choices)))
        if self.kind == "text" and self.choices:
            shown = ", ".join(f'"{c}"' for c in sorted(self.choices, key=str)[:6])
            return tr(
                "one of {choices}", choices=shown + (", ..." if len(self.choices) > 6 else "")
            )
        if self.kind == "ref":
            return tr("{kind} name", kind=self.ref)
        if self.kind == "list" and self.item is not None and self.item.kind != "any":
            return tr("list of {item}", item=self.item.describe())
        return KIND_WORDS.get(self.kind, self.kind)


#: how messages name the kinds of values
KIND_WORDS = {
    "number": tr("number"),
    "bool": tr("yes/no"),
    "text": tr("text"),
    "none": tr("none"),
    "any": tr("any value"),
    "range": tr("range"),
    "record": tr("record"),
    "list": tr("list"),
    "roll": tr("roll"),
    "symbols": tr("symbol dice"),
}

NUMBER = Type("number")
BOOL = Type("bool")
TEXT = Type("text")
NONE = Type("none")
ANY = Type("any")
CHARACTER = Type("character")  # another character of the run, with a sheet of its own
RANGE = Type("range")
SET = Type("record", fields=(("face", NUMBER), ("size", NUMBER)))
#: a pool value: what a dice term or a named roll gives (interpreter.pool)
ROLL = Type(
    "roll",
    fields=(
        ("dice", Type("list", item=NUMBER)),
        ("dropped", Type("list", item=NUMBER)),
        ("failures", NUMBER),
        ("kept", Type("list", item=NUMBER)),
        ("largest_set", SET),
        ("sets", Type("list", item=SET)),
        ("sorted", Type("list", item=NUMBER)),
        ("successes", NUMBER),
        ("total", NUMBER),
    ),
)


def symbol_pool(symbols) -> Type:
    """A pool of symbol dice: how many of each symbol it shows."""
    fields = {name: NUMBER for name in symbols}
    return Type("symbols", fields=tuple(sorted(fields.items())))


def text_of(choices) -> Type:
    return Type("text", choices=frozenset(choices))


def list_of(item: Type) -> Type:
    return Type("list", item=item)


def record(fields: dict | None) -> Type:
    if fields is None:
        return Type("record")
    return Type("record", fields=tuple(sorted(fields.items())))


def ref(kind: str, group: str | None = None) -> Type:
    return Type("ref", ref=kind, group=group)


#: what reading a ref gives, by the kind of field it names
REF_VALUES = {
    "attribute": NUMBER,
    "skill": NUMBER,
    "stat": NUMBER,
    "resource": NUMBER,
    "counter": NUMBER,
    "derived": NUMBER,
    "flag": BOOL,
    "text": TEXT,
    "list": list_of(TEXT),
}


def value_of(t: Type) -> Type:
    """The type of a value once any ref in it has been read."""
    if t.kind == "ref":
        return REF_VALUES.get(t.ref, ANY) if t.ref is not None else ANY
    if t.kind == "roll":
        return NUMBER
    return t


def join(a: Type, b: Type) -> Type:
    """The type of a value that may be either (the branches of an `if`, table cells)."""
    if a == b:
        return a
    if a.kind == "none":
        return b
    if b.kind == "none":
        return a
    va, vb = value_of(a), value_of(b)
    if va.kind == vb.kind == "text":
        if va.choices is None or vb.choices is None:
            return TEXT
        return text_of(va.choices | vb.choices)
    if va.kind == vb.kind == "record":
        if va.fields is None or vb.fields is None:
            return record(None)
        merged = dict(va.fields)
        for key, value in vb.fields:
            merged[key] = join(merged[key], value) if key in merged else value
        return record(merged)
    if va.kind == vb.kind:
        return va
    return ANY


def fits(value: Type, wanted: Type) -> bool:
    """Whether a value of type `value` may stand where `wanted` is expected."""
    if ANY in (value, wanted) or value.kind == "any" or wanted.kind == "any":
        return True
    if wanted.kind == "ref":
        if value.kind == "ref":
            return value.ref == wanted.ref or (
                wanted.ref == "stat"
                and value.ref in ("attribute", "skill", "stat", "resource", "counter")
            )
        return value.kind in ("text", "none")
    v = value_of(value)
    if v.kind == "any":
        return True
    if wanted.kind == "number":
        return v.kind == "number"
    if wanted.kind == "text":
        if v.kind != "text":
            return False
        return wanted.choices is None or v.choices is None or v.choices <= wanted.choices
    if wanted.kind == "list":
        return v.kind == "list"
    return v.kind == wanted.kind


def comparable(a: Type, b: Type) -> bool:
    """Whether values of these types can ever be equal (`=`, `!=`, `match` cases)."""
    va, vb = value_of(a), value_of(b)
    if "any" in (va.kind, vb.kind) or "none" in (va.kind, vb.kind):
        return True
    if (a.kind == "ref" and vb.kind == "text") or (b.kind == "ref" and va.kind == "text"):
        return True  # comparing a field's name with a text
    return va.kind == vb.kind
