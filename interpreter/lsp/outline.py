"""The outline of a rulebook, each part with where it is.

Its header, its sheet and the sheet's fields, its rolls, tables, checks and actions."""

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
        data = node.data
        if data == "replace":
            data = node.children[0].data
        if data == "header":
            title = node.children[0].children[0]
            out.append(
                _symbol(str(title).strip('"'), "rulebook", node, title.start_pos, title.end_pos)
            )
        elif data == "sheet":
            symbol = _symbol("sheet", "sheet", node, node.start, node.start + len("sheet"))
            symbol["children"] = [
                _site_symbol(s, s.start, s.end) for s in inside if s.kind != "time unit"
            ]
            out.append(symbol)
        elif inside:
            first = inside[0]
            out.append(_symbol(first.name, first.kind, node, first.start, first.end))
    return out


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
