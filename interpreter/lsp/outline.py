"""The outline of a rulebook, each part with where it is.

Its header, its sheet and the sheet's fields (its open `skills` and its `ensure` rules
too), its symbols, rolls, tables, checks and actions."""

from __future__ import annotations

from typing import Any

from interpreter.lsp.analysis import analyse
from interpreter.lsp.index import LOCAL_KINDS


def outline(text: str, path: str = "<editor>") -> list[dict]:
    """[{name, kind, start, end, name_start, name_end, children}] in text order; empty
    for a text that does not parse."""
    index = analyse(text, path).index
    if index.tree is None:
        return []
    sites = [s for s in index.sites if s.kind and s.kind not in LOCAL_KINDS]
    out = []
    children: list[Any] = index.tree.children  # ParsedTrees, and None for an absent part
    for node in children:
        if node is None or getattr(node, "start", None) is None:
            continue
        inside = [s for s in sites if node.start <= s.start < node.end]
        inner = node.children[0] if node.data == "replace" else node
        data = inner.data
        if data == "header":
            title = node.children[0].children[0]
            out.append(
                _symbol(str(title).strip('"'), "rulebook", node, title.start_pos, title.end_pos)
            )
        elif data == "sheet":
            symbol = _symbol("sheet", "sheet", node, inner.start, inner.start + len("sheet"))
            named = [_site_symbol(s, s.start, s.end) for s in inside if s.kind != "time unit"]
            # `skills in 0..5` names no field (any skill may be written): its keyword, in
            # its place among the named ones
            skills = [
                _symbol("skills", "skills", item, item.start, item.start + len("skills"))
                for item in inner.children
                if getattr(item, "data", None) == "open_skills"
            ]
            # an `ensure` rule names nothing either: shown by its condition
            rules = [
                _symbol(_rule_name(text, item), "ensure", item, item.start, item.start + 6)
                for item in inner.children
                if getattr(item, "data", None) == "ensure"
            ]
            symbol["children"] = sorted(named + skills + rules, key=lambda s: s["name_start"])
            out.append(symbol)
        elif data == "symbols":  # every symbol of the list, not only its first
            symbol = _symbol("symbols", "symbols", node, inner.start, inner.start + 7)
            symbol["children"] = [_site_symbol(s, s.start, s.end) for s in inside]
            out.append(symbol)
        elif inside:
            first = inside[0]
            out.append(_symbol(first.name, first.kind, node, first.start, first.end))
    return out


#: characters of an `ensure` rule's condition its name shows at most
RULE_NAME = 48


def _rule_name(text: str, item) -> str:
    """`ensure CONDITION`, its spaces as one, cut short past RULE_NAME characters."""
    condition = item.children[0]
    said = " ".join(text[condition.start : condition.end].split())
    return "ensure " + (said if len(said) <= RULE_NAME else said[: RULE_NAME - 1] + "…")


def _symbol(name: str, kind: str, node, name_start: int, name_end: int) -> dict:
    return {
        "name": name,
        "kind": kind,
        "start": node.start,
        "end": node.end,
        "name_start": name_start,
        "name_end": name_end,
        "children": [],
    }


def _site_symbol(site, start: int, end: int) -> dict:
    return {
        "name": site.name,
        "kind": site.kind,
        "start": start,
        "end": end,
        "name_start": site.start,
        "name_end": site.end,
        "children": [],
    }
