"""The diagnostics of a document as an editor shows them: what `rulebook check` prints."""

from __future__ import annotations

from dsl.messages import translate
from interpreter.lsp.analysis import analyse


def diagnostics(text: str, path: str = "<editor>") -> list[dict]:
    """Every error and warning of the text: {start, end (character offsets), severity
    ("error" | "warning"), message, hint, code}, in the rulebook's language. A finding in
    another file (the rulebook it extends) is placed at the top of this one, naming it."""
    analysis = analyse(text, path)
    out = []
    for finding in analysis.findings:
        severity = getattr(finding, "severity", "error")
        message = translate(finding.message, analysis.language)
        span = finding.span
        if span is not None and span.source.text == text:
            start, end = span.start, max(span.end, span.start + 1)
        else:
            start, end = 0, 0
            if span is not None:
                message = f"{span.location()}: {message}"
        hint = translate(finding.hint, analysis.language) if finding.hint else None
        out.append(
            {
                "start": start,
                "end": min(end, len(text)),
                "severity": severity,
                "message": message,
                "hint": hint,
                "code": finding.code,
            }
        )
    return out
