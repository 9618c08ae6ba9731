"""The whole text laid out: code lines, comments, blank lines, aligned entries and comments."""

from __future__ import annotations

from dsl.format.breaking import broken
from dsl.format.layout import WIDTH, State, indent_of, lay_out, lines_of
from dsl.format.rows import find_runs
from dsl.format.tokens import Comment, Tok

#: the gap between code and a comment after it (the least, when comments are aligned)
COMMENT_GAP = 2


def formatted(text: str, tokens: list[Tok], comments: list[Comment], width: int = WIDTH) -> str:
    """The text of a parsed rulebook in the canonical layout (docs/formatting.md)."""
    lines = lines_of(text, tokens, comments)
    find_runs(lines)
    out: list[tuple[str, str | None]] = []  # (code, comment after it); ("", None) is blank
    waiting: list[Comment | None] = []  # comment lines and blank lines before the next code
    state = State()
    for line in lines:
        if not line.tokens:
            waiting.append(line.comment)
            continue
        indent = indent_of(line.tokens, state)
        if line.run is not None and not line.run.decided:
            line.run.decide(indent, width)
        inner = state.stack[-1].inside() if line.tokens[0].kind in ")]}" else indent
        _flush(out, waiting, max(0, inner))
        code, _, after = lay_out(line.tokens, state, indent, line.pad, line.body)
        pieces = [code]
        if len(code) > width:
            found = broken(line.tokens, state, indent, (line.pad, line.body), width)
            if found is not None:
                pieces, after = found
        state = after
        out.extend((piece, None) for piece in pieces[:-1])
        out.append((pieces[-1], line.comment.text if line.comment else None))
    _flush(out, waiting, 0)
    return _joined(out, width)


def _flush(out: list, waiting: list, indent: int) -> None:
    """The comment lines and blank lines before a code line, at that line's indentation;
    blank lines run together to one, and none comes first."""
    for comment in waiting:
        if comment is None:
            if out and out[-1] != ("", None):
                out.append(("", None))
        else:
            out.append((" " * indent + comment.text, None))
    waiting.clear()


def _joined(out: list[tuple[str, str | None]], width: int) -> str:
    """The lines as text: comments after code aligned in runs of consecutive lines."""
    while out and out[-1] == ("", None):
        out.pop()
    texts = []
    run: list[int] = []
    for index, (code, comment) in enumerate(out):
        texts.append(code)
        if comment is None:
            _align_comments(texts, out, run, width)
            run = []
        else:
            run.append(index)
    _align_comments(texts, out, run, width)
    return "".join(t.rstrip() + "\n" for t in texts)


def _align_comments(texts: list[str], out: list, run: list[int], width: int) -> None:
    """The comments after a run of consecutive code lines in one column, unless that
    would push a line that fits past the width: then each just after its own code."""
    if not run:
        return
    column = max(len(out[i][0].rstrip()) for i in run) + COMMENT_GAP
    for i in run:
        code, comment = out[i][0].rstrip(), out[i][1]
        if column + len(comment) > width and len(code) + COMMENT_GAP + len(comment) <= width:
            column = 0  # (aligned, this line would no longer fit)
    for i in run:
        code = out[i][0].rstrip()
        texts[i] = code.ljust(max(column, len(code) + COMMENT_GAP)) + out[i][1]
