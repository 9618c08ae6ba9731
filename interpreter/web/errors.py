"""The project's errors as HTTP answers: a 4xx status and the message, never a traceback.

The body is `{"error": {...}}` with the message and hint as the command line shows them,
where in the rulebook (file, line, column) when the error has a place, and every
diagnostic of a rulebook that failed its checks.
"""

from __future__ import annotations

from dsl.errors import Diagnostic, RulebookError, RulebookInvalid
from interpreter.errors import EvaluationError, ParameterError, SheetChanged, SheetError
from interpreter.files import FileBusy
from interpreter.journal import UndoRefused
from interpreter.web.library import NotFound


class RequestError(RulebookError):
    """A request the API cannot take: not JSON, a missing or ill-typed field (HTTP 400)."""

    exit_code = 2

    def __init__(self, message: str, hint: str | None = None, status: int = 400):
        super().__init__(message, None, hint)
        self.status = status


def status_of(error: RulebookError) -> int:
    """400 a bad request or parameter; 404 an unknown name; 409 a save or undo the files'
    state refuses; 422 a rulebook, sheet or expression that is not valid, or an
    evaluation that could not finish."""
    if isinstance(error, RequestError):
        return error.status
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, SheetChanged | FileBusy | UndoRefused):
        return 409
    if isinstance(error, ParameterError):
        return 400
    return 422


def error_json(error: RulebookError) -> dict:
    """`{"error": {...}}`: the kind, message, hint, place and rendering of an error."""
    out = {
        "type": type(error).__name__,
        "kind": _kind(error),
        "message": error.message,
        "hint": error.hint,
        "exit_code": error.exit_code,
        "text": error.render(),
    }
    out.update(place_json(error))
    if isinstance(error, SheetError):
        out["field"] = error.field
    if isinstance(error, RulebookInvalid):
        out["diagnostics"] = [diagnostic_json(d) for d in error.diagnostics]
    return {"error": out}


def diagnostic_json(diagnostic: Diagnostic | RulebookError) -> dict:
    """One finding of the checks (or a syntax error): severity, message, hint and span."""
    out = {
        "severity": getattr(diagnostic, "severity", "error"),
        "message": diagnostic.message,
        "hint": diagnostic.hint,
        "text": diagnostic.render(),
    }
    out.update(place_json(diagnostic))
    return out


def place_json(error: RulebookError) -> dict:
    """Where an error points: its file, line and column, and where its span ends."""
    span = error.span
    if span is None:
        return {"file": getattr(error, "path", None), "line": None, "column": None}
    line, column = span.source.line_col(span.start)
    end_line, end_column = span.source.line_col(max(span.end, span.start))
    return {
        "file": span.source.name,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "from": span.start,
        "to": max(span.end, span.start),
    }


def _kind(error: RulebookError) -> str:
    if isinstance(error, RequestError):
        return "request"
    if isinstance(error, ParameterError):
        return "parameter"
    if isinstance(error, SheetError):
        return "sheet"
    if isinstance(error, EvaluationError):
        return "evaluation"
    return "rulebook"
