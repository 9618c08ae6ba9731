"""`rulebook new RULEBOOK FILE`: a blank character of a rulebook, each field with what it takes."""

from __future__ import annotations

from fractions import Fraction

import yaml

from dsl import nodes as n
from dsl.messages import tr
from interpreter.values import show


def template(book, game: str, language: str | None) -> str:
    """The YAML of a new character of `book` (its `rulebook:` is `game`): each field of
    its sheet in the order declared, at its default (or the low end of its range, said
    to be set), with a comment saying what it holds; a resource is left out (it starts
    full), as are what the rules compute (derived values, groups)."""
    say = lambda message: message.render(language)  # noqa: E731 (a line's words)
    lines = [
        "# " + say(tr("A new character of {title}: set each value.", title=book.title)),
        yaml.safe_dump({"rulebook": game}, allow_unicode=True).strip(),  # (its game)
        "",
    ]
    for item in book.fields.values():
        line = _field(item, say)
        if line is not None:
            lines.append(line)
    if book.open_skills is not None:
        skills = book.open_skills
        lines.append(
            "skills: {}  # "
            + say(tr("any other skill, by its name: {range}", range=_range(skills.range)))
        )
    rules = [" ".join((e.message or e.condition.span.text).split()) for e in book.ensures]
    if rules:  # (the sheet must keep them: a value at its low end may not)
        lines += ["", "# " + say(tr("the sheet must keep these rules:"))]
        lines += [f"#   {rule}" for rule in rules]
    return "\n".join(lines) + "\n"


def _field(item, say) -> str | None:
    """One field's line: `Name: value  # what it is`, or a comment alone (a resource)."""
    if isinstance(item, n.Stat | n.Counter):
        kind = item.kind if isinstance(item, n.Stat) else "counter"
        low = item.range.low if item.range is not None and item.range.low is not None else 0
        given = _given(item.default)
        said = f"{kind}, {_range(item.range)}" if item.range is not None else kind
        if given is None and kind == "attribute":  # (a skill starts at its low end, a counter at 0)
            said = say(tr("{what}: no default, set it", what=said))
        return _line(item.name, low if given is None else given, said)
    if isinstance(item, n.Flag):
        given = _given(item.default)
        return _line(item.name, False if given is None else given, say(tr("flag: yes or no")))
    if isinstance(item, n.TextField):
        return _line(item.name, "", say(tr("text")))
    if isinstance(item, n.ListField):
        return _line(item.name, [], say(tr("a list of texts")))
    if isinstance(item, n.Catalog):  # (entries by name, each with its fields)
        fields = ", ".join(f.name for f in item.fields)
        return _line(item.name, {}, say(tr("catalog: each entry by its name, with {fields}",
                                            fields=fields)))  # fmt: skip
    if isinstance(item, n.Resource) and item.key_group is None:
        written = " ".join(item.maximum.span.text.split()) if item.maximum.span else "?"
        maximum = written if len(written) <= 60 else written[:59] + "…"
        said = say(tr("resource, at most {maximum}; left out, it starts full", maximum=maximum))
        return f"# {_flow(item.name)}: ...  # {said}"
    return None  # (derived values, groups, effects, rules: nothing to write)


def _line(name: str, value, said: str) -> str:
    return f"{_flow(name)}: {_flow(value)}  # {said}"


def _flow(value) -> str:
    """A value (or a field's name as a key) in YAML on one line, quoted where it must be
    (`'Corpus religio'`, `''`, `[]`)."""
    dumped = yaml.safe_dump(value, allow_unicode=True, default_flow_style=True).strip()
    return dumped.removesuffix("\n...").removesuffix("...").strip()


def _given(default):
    """A default written out as a number or yes/no, or None."""
    if isinstance(default, n.Literal) and isinstance(default.value, bool | int | Fraction):
        value = default.value
        return value if not isinstance(value, Fraction) else show(value)
    return None


def _range(range_) -> str:
    if range_ is None:
        return "0.."
    low = "" if range_.low is None else show(range_.low)
    high = "" if range_.high is None else show(range_.high)
    return f"{low}..{high}"
