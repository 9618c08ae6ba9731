"""`POST /api/editor`: the page's editor asks what `rulebook lsp` answers an editor.

Completion, hover and the outline of the text being edited, computed by the same
functions (`interpreter.lsp`): `{text, name, position, what}` → the answer, positions
counted as the browser counts them (UTF-16 code units from the start of the text). The
text is read as a file of the server's folder named `name`: its `extends` reaches only
the folder's rulebooks and the shipped ones, as everywhere in the page.
"""

from __future__ import annotations

from dsl.messages import tr
from interpreter.lsp.complete import completions
from interpreter.lsp.hover import hover
from interpreter.lsp.outline import outline
from interpreter.lsp.positions import offset_to_utf16, utf16_to_offset
from interpreter.web.body import field, json_body, unknown_fields
from interpreter.web.errors import RequestError

#: what the editor may ask
QUESTIONS = ("complete", "hover", "outline")
#: most characters of a text asked about (the check's bound: the body's is 1 MB)
MAX_TEXT = 500_000


class Editing:
    """The handler of `POST /api/editor`: its body checked, its work a worker's job."""

    def __init__(self, workers):
        self.workers = workers

    async def answer(self, request):
        body = await json_body(request)
        unknown_fields(body, {"text", "name", "position", "what"})
        text = field(body, "text", str, required=True)
        if len(text) > MAX_TEXT:
            raise RequestError(tr("the text is longer than {most} characters", most=MAX_TEXT))
        what = field(body, "what", str, required=True)
        if what not in QUESTIONS:
            raise RequestError(tr("what: one of {choices}", choices=", ".join(QUESTIONS)))
        position = field(body, "position", int, default=0)
        name = field(body, "name", str, default="editor")
        args = {"text": text, "name": name, "position": position, "what": what}
        return await self.workers.answer(request, "editor", args)


def editor(work, args: dict) -> dict:
    """The job of `POST /api/editor` (in a worker process): the outline, a hover or the
    completions at a position."""
    text, name, position, what = args["text"], args["name"], args["position"], args["what"]
    # As a file of the folder: its `extends` reads a shipped rulebook or a file inside
    # the folder, nothing else (dsl.load.extended), and says the same of the rest.
    path = str(work.library.folder / f"{_plain(name)}.rules")
    offset = utf16_to_offset(text, max(0, position))
    if what == "outline":
        return {"outline": [_symbol(text, s) for s in outline(text, path)]}
    if what == "hover":
        found = hover(text, path, offset)
        if found is None:
            return {"hover": None}
        return {"hover": {**_span(text, found), "markdown": found["markdown"]}}
    found = completions(text, path, offset)
    return {**_span(text, found), "items": found["items"]}


def _plain(name: str) -> str:
    """A rulebook's name as a file name in the folder: its last part, `.rules` left off."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".rules")
    cleaned = "".join(c for c in name if c.isalnum() or c in "_-")
    return cleaned or "editor"


def _span(text: str, found: dict) -> dict:
    return {
        "from": offset_to_utf16(text, found["start"]),
        "to": offset_to_utf16(text, found["end"]),
    }


def _symbol(text: str, symbol: dict) -> dict:
    return {
        "name": symbol["name"],
        "kind": symbol["kind"],
        "from": offset_to_utf16(text, symbol["name_start"]),
        "line": text.count("\n", 0, symbol["name_start"]) + 1,
        "children": [_symbol(text, child) for child in symbol["children"]],
    }
