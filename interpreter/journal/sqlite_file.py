"""The journal's SQLite file: refused when it is a symbolic link or not a regular file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from dsl.messages import tr
from interpreter.journal.errors import JournalError


def journal_file(path: Path) -> bool:
    """Whether a journal file is there; one that is a symbolic link, or not a regular
    file, is refused: a journal is written only as a file itself."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise JournalError(
            tr("{path}: not a readable journal ({error})", path=path, error=error.strerror)
        ) from None
    if stat.S_ISLNK(info.st_mode):
        raise JournalError(
            tr(
                "{path}: a symbolic link (to {target}); a journal is written only as a file "
                "itself, never through a link",
                path=path,
                target=os.readlink(path),
            ),
            hint=tr("pass --journal with the file the link leads to"),
        )
    if not stat.S_ISREG(info.st_mode):
        raise JournalError(tr("{path}: not a journal file", path=path))
    return True
