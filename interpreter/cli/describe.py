"""`rulebook describe RULEBOOK`: actions, parameters, checks, tables and the sheet, as text."""

from __future__ import annotations

import json

from interpreter.cli import options
from interpreter.describe import describe
from interpreter.values import to_json


def cmd_describe(args) -> int:
    book = options.load_rulebook(args.rulebook)
    info = describe(book)
    if args.json:
        print(json.dumps(to_json(info), ensure_ascii=False, indent=2))
    else:
        print(describe_text(info))
    return 0


def describe_text(info: dict) -> str:
    lines = [info["rulebook"]]
    header = info["header"]
    for key in ("system", "source", "language"):
        if key in header:
            lines.append(f"  {key}: {header[key]}")
    if info["extends"]:
        lines.append(f"  a house rule on {info['extends']}:")
        for change in info["changes"]:
            lines.append(f"    {change['change']} {change['kind']} {change['name']}")
    lines.append("")
    lines.append("actions:")
    for action in info["actions"]:
        label = f"  ({action['label']})" if action["label"] else ""
        lines.append(f"  {action['name']}{label}")
        for param in action["params"]:
            lines.append("    " + _param_text(param))
    for title, key in (("checks", "checks"), ("opposed checks", "opposed")):
        if info[key]:
            lines.append("")
            lines.append(f"{title}:")
            for item in info[key]:
                params = ", ".join(_param_text(p) for p in item["params"])
                extra = ""
                if key == "checks":
                    target = f" {item['comparison']} {item['target']}" if item["target"] else ""
                    extra = f": roll {item['roll']}{target}"
                    if item["success"]:
                        extra += f"; success = {item['success']}"
                    if item["degrees"]:
                        extra += f"; degrees {', '.join(item['degrees'])}"
                lines.append(f"  {item['name']}({params}){extra}")
    if info["rolls"]:
        lines.append("")
        lines.append("rolls: " + ", ".join(f"{r['name']} ({r['dice']})" for r in info["rolls"]))
    if info["tables"]:
        lines.append("")
        lines.append(
            "tables: "
            + ", ".join(
                f"{t['name']} (by {', '.join(t['keys'])}, {len(t['rows'])} rows)"
                for t in info["tables"]
            )
        )
    if info["ladders"]:
        lines.append(
            "ladders: "
            + ", ".join(
                f"{ladder['name']} ({' → '.join(ladder['steps'])})" for ladder in info["ladders"]
            )
        )
    lines.append("")
    lines.append("sheet:")
    for field in info["sheet"]["fields"]:
        detail = field.get("range") or (field.get("max") and f"max {field['max']}") or ""
        if field.get("per"):
            detail += f", one per {field['per']}"
        if field.get("fields"):
            detail = ", ".join(f"{k}: {v}" for k, v in field["fields"].items())
        lines.append(f"  {field['kind']} {field['name']}" + (f" ({detail})" if detail else ""))
    if info["sheet"]["open_skills"]:
        lines.append(f"  skills: any other, {info['sheet']['open_skills']}")
    for name, expr in info["sheet"]["derived"].items():
        lines.append(f"  derived {name} = {expr}")
    for rule in info["sheet"]["rules"]:
        lines.append(f"  rule: {rule}")
    return "\n".join(lines)


def _param_text(param: dict) -> str:
    text = f"{param['name']}: {param['type']}"
    if not param["required"]:
        text += f" = {param['default']}"
    choices = param.get("choices")
    if isinstance(choices, list) and choices and param["type"] != "bool":
        shown = ", ".join(str(c) for c in choices[:12]) + (", ..." if len(choices) > 12 else "")
        text += f"  [{shown}]"
    elif isinstance(choices, str):
        text += f"  [{choices}]"
    return text
