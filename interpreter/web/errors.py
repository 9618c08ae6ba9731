"""The project's errors as HTTP answers: a 4xx status and the error document.

Never a traceback.
The body is the same error document as `--json` prints (interpreter.json_data,
schema: error): a stable `code`, the exit code, the message and hint in the rulebook's
language, where in the rulebook, and every diagnostic of a rulebook that failed.
"""

from __future__ import annotations

from dsl.errors import RulebookError
from interpreter.errors import ParameterError, SheetChanged
from interpreter.journal import UndoRefused
from interpreter.json_data import error_data
from interpreter.safe_files import FileBusy, Refused
from interpreter.web.library import NotFound, VersionMismatch, VersionRequired


class RequestError(RulebookError):
    """A request the API cannot take: not JSON, a missing or ill-typed field (HTTP 400)."""

    exit_code = 2
    code = "usage_error"

    def __init__(
        self,
        message: str,
        hint: str | None = None,
        status: int = 400,
        retry_after: int | None = None,
    ):
        super().__init__(message, None, hint)
        self.status = status
        self.retry_after = retry_after  # seconds, sent as `Retry-After` (a 429's)


class NameTaken(ParameterError):
    """A new character's name that the folder (or the shipped ones) has already (409)."""

    code = "name_taken"


class ServerFailed(RequestError):
    """A bug of the server's, not bad input (HTTP 500): said plainly, logged in full."""

    code = "internal_error"


def status_of(error: RulebookError) -> int:
    """400 a bad request or parameter; 404 an unknown name; 409 a save or undo the files'
    state refuses (changed since read, busy, a later run, a symbolic link or a file that
    is not a regular one where the file is: `files.Refused`); 412 a rulebook saved over
    that changed since the version named; 428 one saved over naming no version; 422 a
    rulebook, sheet or expression that is not valid, or an evaluation that could not
    finish."""
    if isinstance(error, RequestError):
        return error.status
    if isinstance(error, NotFound):
        return 404
    if isinstance(error, VersionMismatch):
        return 412
    if isinstance(error, VersionRequired):
        return 428
    if isinstance(error, SheetChanged | FileBusy | UndoRefused | Refused | NameTaken):
        return 409  # the request is fine; the file as it is now refuses it (a link there)
    if isinstance(error, ParameterError):
        return 400
    return 422


def error_json(error: RulebookError, language: str | None = None) -> dict:
    """The error document of an error (schema: error)."""
    return error_data(error, language)


def diagnostic_json(finding: RulebookError, language: str | None = None) -> dict:
    """One finding of the checks (or the error that stopped them), as the error document
    gives each diagnostic: severity, code, message, hint, location."""
    return {
        "severity": getattr(finding, "severity", "error"),
        **error_data(finding, language)["error"],
    }
