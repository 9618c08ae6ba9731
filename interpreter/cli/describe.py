"""`rulebook describe RULEBOOK`: actions, parameters, checks, tables and the sheet, as text."""

from __future__ import annotations

from dsl.messages import Counted, show_value, tr
from interpreter.cli import arguments, options
from interpreter.json_data import describe_data, dumps


def add_parser(commands) -> None:
    p = commands.add_parser(
        "describe",
        help=tr("list a rulebook's actions, checks, tables, sheet"),
        description=tr(
            "What a rulebook offers: actions and their parameters, checks, tables and the sheet."
        ),
    )
    p.add_argument("rulebook", metavar="RULEBOOK")
    arguments.output_options(p)


def cmd_describe(args) -> int:
    from interpreter.describe import describe

    book = options.load_rulebook(args.rulebook)
    language = options.language(args, book)
    if args.json:
        print(dumps(describe_data(book, language)))
    else:
        print(describe_text(describe(book), language))
    return 0


def describe_text(info: dict, language: str | None = None) -> str:
    def say(message) -> str:
        return message.render(language)

    lines = [info["rulebook"]]
    header = info["header"]
    for key in ("system", "source", "language"):
        if key in header:
            lines.append(f"  {HEADER_WORDS[key].render(language)}: {header[key]}")
    if info["extends"]:
        lines.append("  " + say(tr("a house rule on {base}:", base=info["extends"])))
        for change in info["changes"]:
            lines.append(f"    {change['change']} {change['kind']} {change['name']}")
    lines.append("")
    lines.extend(_actions_lines(info, say, language))
    lines.extend(_checks_lines(info, say, language))
    lines.extend(_definitions_lines(info, say))
    lines.append("")
    lines.extend(_sheet_lines(info, say, language))
    return "\n".join(lines)


def _actions_lines(info: dict, say, language: str | None) -> list[str]:
    lines = [say(tr("actions:"))]
    for action in info["actions"]:
        label = f"  ({action['label']})" if action["label"] else ""
        lines.append(f"  {action['name']}{label}")
        for param in action["params"]:
            lines.append("    " + _param_text(param, language))
        for choice in action["choices"]:
            # (`option each k in 0..5`: built as the run reaches it, written as it is)
            options = ", ".join([*map(str, choice["options"]), *choice.get("options_from", ())])
            by = tr(" (by {who})", who=choice["by"]) if choice["by"] else ""
            lines.append(
                "    "
                + say(
                    tr("choose {name}{by}: {options}", name=choice["name"], by=by, options=options)
                )
            )
    return lines


def _checks_lines(info: dict, say, language: str | None) -> list[str]:
    lines = []
    for title, key in ((say(tr("checks:")), "checks"), (say(tr("opposed checks:")), "opposed")):
        if info[key]:
            lines.append("")
            lines.append(title)
            for item in info[key]:
                params = ", ".join(_param_text(p, language) for p in item["params"])
                extra = ""
                if key == "checks":
                    target = f" {item['comparison']} {item['target']}" if item["target"] else ""
                    extra = say(tr(": roll {dice}{target}", dice=item["roll"], target=target))
                    if item["success"]:
                        extra += say(tr("; success = {rule}", rule=item["success"]))
                    if item["degrees"]:
                        extra += say(tr("; degrees {names}", names=", ".join(item["degrees"])))
                lines.append(f"  {item['name']}({params}){extra}")
    return lines


def _definitions_lines(info: dict, say) -> list[str]:
    """The rolls, tables and ladders, a line each."""
    lines = []
    if info["rolls"]:
        lines.append("")
        rolls = ", ".join(f"{r['name']} ({r['dice']})" for r in info["rolls"])
        lines.append(say(tr("rolls: {rolls}", rolls=rolls)))
    if info["tables"]:
        lines.append("")
        tables = ", ".join(
            say(
                tr(
                    "{name} (by {keys}, {rows} rows)",
                    name=t["name"],
                    keys=", ".join(t["keys"]) if t["keys"] != ["key"] else KEY,
                    rows=len(t["rows"]),
                )
            )
            for t in info["tables"]
        )
        lines.append(say(tr("tables: {tables}", tables=tables)))
    if info["ladders"]:
        ladders = ", ".join(
            f"{ladder['name']} ({' → '.join(map(str, ladder['steps']))})"
            for ladder in info["ladders"]
        )
        lines.append(say(tr("ladders: {ladders}", ladders=ladders)))
    return lines


def _sheet_lines(info: dict, say, language: str | None) -> list[str]:
    lines = [say(tr("sheet:"))]
    for field in info["sheet"]["fields"]:
        kind = KIND_WORDS.get(field["kind"])
        shown = say(kind) if kind is not None else field["kind"]
        lines.append(f"  {shown} {field['name']}" + _field_detail(field, say, language))
    skills = info["sheet"]["open_skills"]
    if skills:
        lines.append("  " + say(tr("skills: any other, {range}", range=_range_text(skills))))
    for name, expr in info["sheet"]["derived"].items():
        lines.append("  " + say(tr("derived {name} = {expression}", name=name, expression=expr)))
    for rule in info["sheet"]["rules"]:
        lines.append("  " + say(tr("rule: {rule}", rule=rule)))
    return lines


def _range_text(range_: dict) -> str:
    low = "" if range_["min"] is None else range_["min"]
    high = "" if range_["max"] is None else range_["max"]
    return f"{low}..{high}"


def _unit_text(unit: str, language: str | None) -> str:
    """A unit of time as its clock measures it: `minuto = 12 turnos`."""
    name, equals, length = unit.partition(" = ")
    count, _, of = length.partition(" ")
    if not equals or not count.isdigit() or not of:
        return unit
    return f"{name} = {count} {show_value(Counted(of, int(count)), language)}"


def _field_detail(field: dict, say, language: str | None) -> str:
    schema = field["schema"]
    if field.get("fields"):
        detail = ", ".join(f"{k}: {type_text(v, language)}" for k, v in field["fields"].items())
    elif field.get("targets"):
        clocks = "; ".join(
            ", ".join(_unit_text(u, language) for u in clock) for clock in field["time"]
        )
        detail = say(
            tr("on {targets}; time {clocks}", targets=", ".join(field["targets"]), clocks=clocks)
        )
    elif field["kind"] == "resource":
        maximum = schema.get("maximum", schema.get("x-maximum-expression"))
        if field["per"]:
            inner: dict = next(iter(schema["properties"].values()), {})
            maximum = inner.get("maximum", inner.get("x-maximum-expression"))
            detail = say(tr("max {max}, one per {group}", max=maximum, group=field["per"]))
        else:
            detail = say(tr("max {max}", max=maximum))
    elif field["range"] is not None:
        detail = _range_text(field["range"])
    else:
        detail = ""
    return f" ({detail})" if detail else ""


#: the header's keys, in words
HEADER_WORDS = {"system": tr("system"), "source": tr("source"), "language": tr("language")}
#: a table looked up by a key it does not name
KEY = tr("key")
#: the kinds of the sheet's fields, in words (the rulebook writes them as keywords)
KIND_WORDS = {
    "attribute": tr("attribute"),
    "skill": tr("skill"),
    "flag": tr("flag"),
    "counter": tr("counter"),
    "resource": tr("resource"),
    "catalog": tr("catalog"),
    "effects": tr("effects"),
    "group": tr("group"),
    "text": tr("text"),
    "list": tr("list"),
}
#: the language's own types, in words (a rulebook's own, as it names them)
TYPE_WORDS = {
    "int": tr("whole number"),
    "number": tr("number"),
    "bool": tr("yes/no"),
    "text": tr("text"),
    "attribute": tr("attribute"),
    "skill": tr("skill"),
    "character": tr("character"),
    "dice": tr("dice"),
}


def type_text(type_: dict, language: str | None) -> str:
    """A parameter's type as people read it: `número entero`, `lista de Esferas`; a type
    the rulebook names (a table, its own options) as it names it."""
    if type_.get("kind") == "list" and type_.get("item") is not None:
        return tr("list of {item}", item=type_text(type_["item"], language)).render(language)
    word = TYPE_WORDS.get(type_.get("name") or "")
    return word.render(language) if word is not None else type_["text"]


def _param_text(param: dict, language: str | None) -> str:
    text = f"{param['name']}: {type_text(param['type'], language)}"
    if not param["required"]:
        default = param["default_expression"] or show_value(param["default"], language)
        text += f" = {default}"
    choices = param["choices"]
    if choices and param["type"]["name"] != "bool":
        shown = ", ".join(str(c) for c in choices[:12]) + (", ..." if len(choices) > 12 else "")
        text += f"  [{shown}]"
    elif param["choices_from"]:
        entries = tr("the entries of the character's {catalog}", catalog=param["choices_from"])
        text += f"  [{entries.render(language)}]"
    return text
