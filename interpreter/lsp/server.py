"""`rulebook lsp`: the language server, over standard input and output (pygls).

Only the wiring to the protocol is here: every answer is computed by the feature
modules (`diagnostics`, `hover`, `complete`, `navigate`, `outline`, `fixes`) from a
document's text and a character offset, the same code the page's editor asks through
`POST /api/editor`.
"""

from __future__ import annotations

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from dsl.errors import RulebookError
from dsl.format import format_text
from dsl.messages import translate
from interpreter.lsp import complete, diagnostics, fixes, hover, navigate, outline
from interpreter.lsp.positions import offset_of, position_of

SEVERITY = {"error": t.DiagnosticSeverity.Error, "warning": t.DiagnosticSeverity.Warning}
COMPLETION_KINDS = {
    "keyword": t.CompletionItemKind.Keyword,
    "variable": t.CompletionItemKind.Variable,
    "field": t.CompletionItemKind.Field,
    "function": t.CompletionItemKind.Function,
    "class": t.CompletionItemKind.Class,
    "enum": t.CompletionItemKind.EnumMember,
    "property": t.CompletionItemKind.Property,
}
SYMBOL_KINDS = {
    "rulebook": t.SymbolKind.File,
    "sheet": t.SymbolKind.Struct,
    "table": t.SymbolKind.Class,
    "ladder": t.SymbolKind.Enum,
    "group": t.SymbolKind.Enum,
    "catalog": t.SymbolKind.Struct,
    "check": t.SymbolKind.Method,
    "opposed": t.SymbolKind.Method,
    "action": t.SymbolKind.Function,
    "formula": t.SymbolKind.Function,
    "roll": t.SymbolKind.Function,
    "derived": t.SymbolKind.Property,
    "symbols": t.SymbolKind.Enum,
}

server = LanguageServer("rulebook", "0.1.0")


def _document(uri: str) -> tuple[str, str]:
    """(text, path) of an open document; a path names a file (its folder is where
    `extends` looks), else the URI itself."""
    document = server.workspace.get_text_document(uri)
    path = to_fs_path(uri) if uri.startswith("file:") else None
    return document.source, path or "<editor>"


def _range(text: str, start: int, end: int) -> t.Range:
    return t.Range(t.Position(*position_of(text, start)), t.Position(*position_of(text, end)))


def _offset(text: str, position: t.Position) -> int:
    return offset_of(text, position.line, position.character)


def _publish(uri: str) -> None:
    text, path = _document(uri)
    found = []
    for d in diagnostics.diagnostics(text, path):
        message = d["message"] + (f"\n{d['hint']}" if d["hint"] else "")
        found.append(
            t.Diagnostic(
                range=_range(text, d["start"], d["end"]),
                message=message,
                severity=SEVERITY.get(d["severity"], t.DiagnosticSeverity.Error),
                code=d["code"],
                source="rulebook",
            )
        )
    server.text_document_publish_diagnostics(t.PublishDiagnosticsParams(uri=uri, diagnostics=found))


@server.feature(t.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls, params: t.DidOpenTextDocumentParams) -> None:
    _publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls, params: t.DidChangeTextDocumentParams) -> None:
    _publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls, params: t.DidSaveTextDocumentParams) -> None:
    _publish(params.text_document.uri)


@server.feature(t.TEXT_DOCUMENT_HOVER)
def on_hover(ls, params: t.HoverParams) -> t.Hover | None:
    text, path = _document(params.text_document.uri)
    found = hover.hover(text, path, _offset(text, params.position))
    if found is None:
        return None
    contents = t.MarkupContent(kind=t.MarkupKind.Markdown, value=found["markdown"])
    return t.Hover(contents=contents, range=_range(text, found["start"], found["end"]))


@server.feature(
    t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=[".", "[", "(", '"'])
)
def on_completion(ls, params: t.CompletionParams) -> t.CompletionList:
    text, path = _document(params.text_document.uri)
    found = complete.completions(text, path, _offset(text, params.position))
    where = _range(text, found["start"], found["end"])
    items = [
        t.CompletionItem(
            label=item["label"],
            kind=COMPLETION_KINDS.get(item["kind"]),
            detail=item["detail"] or None,
            text_edit=t.TextEdit(range=where, new_text=item["insert"]),
        )
        for item in found["items"]
    ]
    return t.CompletionList(is_incomplete=False, items=items)


def _location(place) -> t.Location:
    return t.Location(
        uri=from_fs_path(place.path) if place.path.startswith("/") else place.path,
        range=_range(place.text, place.site.start, place.site.end),
    )


@server.feature(t.TEXT_DOCUMENT_DEFINITION)
def on_definition(ls, params: t.DefinitionParams) -> t.Location | None:
    text, path = _document(params.text_document.uri)
    place = navigate.definition(text, path, _offset(text, params.position))
    return _location(place) if place is not None else None


@server.feature(t.TEXT_DOCUMENT_REFERENCES)
def on_references(ls, params: t.ReferenceParams) -> list[t.Location]:
    text, path = _document(params.text_document.uri)
    offset = _offset(text, params.position)
    places = navigate.references(text, path, offset, params.context.include_declaration)
    return [_location(place) for place in places]


@server.feature(t.TEXT_DOCUMENT_RENAME)
def on_rename(ls, params: t.RenameParams) -> t.WorkspaceEdit:
    text, path = _document(params.text_document.uri)
    try:
        edits = navigate.rename(text, path, _offset(text, params.position), params.new_name)
    except RulebookError as error:
        raise ValueError(translate(error.message, None)) from None  # the client shows it
    changes = {}
    for file_path, file_edits in edits.items():
        file_text = text if file_path == path else navigate.read_text(file_path)
        uri = params.text_document.uri if file_path == path else from_fs_path(file_path)
        changes[uri] = [
            t.TextEdit(range=_range(file_text, start, end), new_text=new)
            for start, end, new in file_edits
        ]
    return t.WorkspaceEdit(changes=changes)


@server.feature(t.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def on_symbols(ls, params: t.DocumentSymbolParams) -> list[t.DocumentSymbol]:
    text, path = _document(params.text_document.uri)
    return [_symbol(text, s) for s in outline.outline(text, path)]


def _symbol(text: str, symbol: dict) -> t.DocumentSymbol:
    return t.DocumentSymbol(
        name=symbol["name"],
        kind=SYMBOL_KINDS.get(symbol["kind"], t.SymbolKind.Field),
        detail=symbol["kind"],
        range=_range(text, symbol["start"], symbol["end"]),
        selection_range=_range(text, symbol["name_start"], symbol["name_end"]),
        children=[_symbol(text, c) for c in symbol["children"]],
    )


@server.feature(t.TEXT_DOCUMENT_CODE_ACTION)
def on_code_action(ls, params: t.CodeActionParams) -> list[t.CodeAction]:
    uri = params.text_document.uri
    text, path = _document(uri)
    start, end = _offset(text, params.range.start), _offset(text, params.range.end)
    out = []
    for fix in fixes.quick_fixes(text, path, start, end):
        edit = t.TextEdit(range=_range(text, fix["start"], fix["end"]), new_text=fix["new_text"])
        out.append(
            t.CodeAction(
                title=fix["title"],
                kind=t.CodeActionKind.QuickFix,
                edit=t.WorkspaceEdit(changes={uri: [edit]}),
            )
        )
    return out


@server.feature(t.TEXT_DOCUMENT_FORMATTING)
def on_formatting(ls, params: t.DocumentFormattingParams) -> list[t.TextEdit]:
    text, path = _document(params.text_document.uri)
    try:
        new = format_text(text, path)
    except RulebookError:
        return []  # a text that does not parse is not formatted (its diagnostics say why)
    if new == text:
        return []
    return [t.TextEdit(range=_range(text, 0, len(text)), new_text=new)]


def serve() -> None:
    """Speak the protocol on standard input and output until the client exits."""
    server.start_io()
