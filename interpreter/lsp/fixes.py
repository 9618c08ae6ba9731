"""Quick fixes: a misspelled name replaced by the one the checker suggests."""

from __future__ import annotations

from dsl.messages import Message
from interpreter.lsp.analysis import analyse

_SUGGESTIONS = ("did you mean {name}?", "did you mean {names} or {last}?")


def quick_fixes(text: str, path: str, start: int, end: int) -> list[dict]:
    """[{title, start, end, new_text, message}] for the findings within start..end whose
    hint suggests other names: one fix per name suggested."""
    analysis = analyse(text, path)
    out = []
    for finding in analysis.findings:
        span = finding.span
        if span is None or span.source.text != text or span.end < start or span.start > end:
            continue
        for name in suggested(finding.hint):
            written = span.text
            out.append(
                {
                    "title": f"{written} → {name}",
                    "start": span.start,
                    "end": span.end,
                    "new_text": name,
                    "message": str(finding.message),
                }
            )
    return out


def suggested(hint) -> list[str]:
    """The names a did-you-mean hint suggests, as they are written (quoted if need be)."""
    if not isinstance(hint, Message) or hint.template not in _SUGGESTIONS:
        return []
    params = hint.params
    if "name" in params:
        return [str(params["name"])]
    return [*str(params["names"]).split(", "), str(params["last"])]
