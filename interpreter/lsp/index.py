"""Where each name of a rulebook's text is defined and used: read from its parse tree.

The index needs only the text to parse (not to check): an editor asks about text being
typed. A name token is a definition (of a table, a check, a sheet field, a parameter, a
`let`, ...) or a use; a use is resolved to the definition it names: a parameter or a
`let` of the definition it is in, else a definition of the file, else of the rulebooks it
extends (see `navigate`).
"""

from __future__ import annotations

from typing import Any

import attrs

from dsl.build.walk import unquote
from dsl.errors import RulebookError, Source
from dsl.format.tokens import Tok, stream
from dsl.parser import ParsedTree, parse_tree

#: rules that define a name of the rulebook (their first name), and what each is called
DEFINITIONS = {
    "roll_def": "roll",
    "ladder": "ladder",
    "formula": "formula",
    "table": "table",
    "check": "check",
    "opposed": "opposed",
    "action": "action",
    "catalog": "catalog",
    "effects": "effects",
    "group": "group",
    "derived": "derived",
    "resource": "resource",
    "die": "die",
}
#: sheet items that define every name of their list
SHEET_LISTS = {
    "attribute": "attribute",
    "skill": "skill",
    "counter": "counter",
    "flag": "flag",
    "text_field": "text",
    "list_field": "list",
    "symbols": "symbol",
}
#: rules that define a name local to the definition they are in (their first name)
LOCALS = {
    "param": "parameter",
    "let": "let",
    "for_each": "loop variable",
    "choose": "choice",
    "resource_key": "key",
}
#: what a local name may be
LOCAL_KINDS = frozenset((*LOCALS.values(), "key"))
#: rules whose first name is a field of a record
RECORD_FIELDS = frozenset(("check_field", "result_field", "catalog_field"))
#: rules whose names are not references at all (a field's name, a row's key, an option)
NOT_NAMES = frozenset(
    (
        "result_field",
        "named_argument",
        "name_key",
        "catalog_field",
        "time_unit",
        "resource_key",
        "table_keys",
        "option",
        "degree",
        "degree_else",
        "enum_type",
        "effects",
        "clock",
        "for_duration",
        "until_duration",
        "pass_time",
        "check_field",
        "extends",
    )
)


@attrs.define
class Site:
    """One name written in the text: its name, where, whether it defines it (and as
    what), and the top-level definition it is in (its start and end)."""

    name: str
    start: int
    end: int
    kind: str  # what it defines ("table", "parameter", ...), or "" for a use
    outer: tuple[int, int]  # the top-level definition it is written in
    field: bool = False  # the name after a `.` (a record's field, another sheet's field)


@attrs.define
class Index:
    """A parsed text's tokens and names; `error` is why it did not parse (then empty)."""

    text: str
    path: str
    tokens: list = attrs.Factory(list)
    comments: list = attrs.Factory(list)
    sites: list = attrs.Factory(list)
    tree: ParsedTree | None = None
    error: RulebookError | None = None
    fields: set = attrs.Factory(set)  # names of records' fields: a check's, a cell's, ...

    def site_at(self, offset: int) -> Site | None:
        """The name at (or just before) a character offset."""
        for site in self.sites:
            if site.start <= offset <= site.end:
                return site
        return None

    def token_at(self, offset: int) -> Tok | None:
        """The token at (or just before) a character offset."""
        found = None
        for token in self.tokens:
            if token.start <= offset <= token.end:
                found = token
                if offset < token.end:
                    break
            elif token.start > offset:
                break
        return found

    def definitions(self) -> dict[str, Site]:
        """The file's own top-level definitions, by name (the first of each)."""
        out: dict[str, Site] = {}
        for site in self.sites:
            if site.kind and site.kind not in LOCAL_KINDS:
                out.setdefault(site.name, site)
        return out

    def local(self, name: str, at: int, outer: tuple[int, int]) -> Site | None:
        """The parameter or `let` named `name` in force at `at`, in its definition."""
        found = None
        for site in self.sites:
            if site.outer != outer or site.name != name or site.kind not in LOCAL_KINDS:
                continue
            if site.kind in ("parameter", "key") or site.start <= at:
                found = site
        return found

    def resolve(self, site: Site) -> Site | None:
        """What a use names in this file (None: not here; a shipped or base rulebook's)."""
        if site.kind:
            return site
        if site.field:
            return None
        return self.local(site.name, site.start, site.outer) or self.definitions().get(site.name)

    def comment_above(self, site: Site) -> str:
        """The comment lines right above the line of a definition, as text."""
        line_start = self.text.rfind("\n", 0, site.start) + 1
        lines = []
        for comment in reversed(self.comments):
            end = comment.start + len(comment.text)
            if end > line_start:
                continue
            between = self.text[end:line_start]
            if between.count("\n") != 1 or between.strip():
                break
            lines.append(comment.text.lstrip("#").strip())
            line_start = self.text.rfind("\n", 0, comment.start) + 1
            if self.text[line_start : comment.start].strip():
                break  # a comment after code belongs to that code
        return "\n".join(reversed(lines))


def index_of(text: str, path: str = "<rulebook>") -> Index:
    """The index of a rulebook's text (empty, with its error, if it does not parse)."""
    index = Index(text, path)
    try:
        tree = parse_tree(text, Source(path, text), "rulebook")
    except RulebookError as error:
        index.error = error
        return index
    except RecursionError:
        return index
    index.tree = tree
    index.tokens, index.comments = stream(text, tree)
    index.sites = _sites(tree, index.fields)
    return index


def _sites(root: ParsedTree, fields: set) -> list[Site]:
    """Every name of the tree, in text order (iterative); the names of records' fields
    (a check's, a table's cells', a result's, a catalog's) go into `fields`."""
    out: list[Site] = []
    work: list[tuple] = [(child, root, None, (0, 0)) for child in reversed(root.children)]
    while work:
        node, parent, grand, outer = work.pop()
        if node is None:
            continue
        if parent is root and isinstance(node, ParsedTree) and node.start is not None:
            outer = (node.start, node.end)
        if isinstance(node, ParsedTree) and node.data == "name":
            if isinstance(parent, ParsedTree) and parent.data in RECORD_FIELDS:
                token: Any = node.children[0]
                fields.add(unquote(str(token)) if token.type == "QUOTED_NAME" else str(token))
            site = _site(node, parent, grand, outer)
            if site is not None:
                out.append(site)
            continue
        if isinstance(node, ParsedTree):
            work.extend((child, node, parent, outer) for child in reversed(node.children))
    return out


def _site(node: ParsedTree, parent, grand, outer) -> Site | None:
    token: Any = node.children[0]  # (a name's token)
    name = unquote(str(token)) if token.type == "QUOTED_NAME" else str(token)
    site = Site(name, token.start_pos, token.end_pos, "", outer)
    data = parent.data if isinstance(parent, ParsedTree) else ""
    first = isinstance(parent, ParsedTree) and parent.children and parent.children[0] is node
    if data == "replace":
        return site
    if data in DEFINITIONS and first:
        site.kind = DEFINITIONS[data]
    elif data == "names" and isinstance(grand, ParsedTree) and grand.data in SHEET_LISTS:
        site.kind = SHEET_LISTS[grand.data]
    elif data in LOCALS and first:
        site.kind = LOCALS[data]
    elif data == "table_keys":
        site.kind = "key"
    elif data == "time_unit" and first:
        site.kind = "time unit"
    elif data == "field" and not first:
        site.field = True
    if data in NOT_NAMES and not site.kind:
        return None
    if (
        data == "names"
        and isinstance(grand, ParsedTree)
        and grand.data in ("effects", "opposed_compare")
    ):
        return None
    if data == "ladder" and not first:
        return None  # a step of a ladder: a value, not a name's use
    return site
