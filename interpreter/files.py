"""Files that must not be lost: atomic replacement, folder fsync, stray temporaries, locks.

A save writes a temporary file beside its target (named so that it is recognisably
ours: `.menecma.yaml.rulebook-<random>.tmp`), fsyncs it, renames it over the target and
fsyncs the folder, so that the rename itself survives a crash. A temporary is removed on
every failure path that runs code; one left by a kill -9 is removed by the next save of
the same file (under its folder's lock) and by `rulebook journal verify`.

Saves are serialised by an exclusive lock on the folder that holds the file (`flock` on
the folder itself, so no lock file is left behind). The lock is re-entrant within a
process, so a caller may hold it from reading a sheet to writing it back.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from pathlib import Path

from dsl.messages import tr
from interpreter.errors import SheetError

try:  # POSIX; elsewhere saves rely on the check that the file did not change
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None

#: how long a save waits for another save in the same folder to finish, in seconds
LOCK_TIMEOUT = 30.0
TEMPORARY_MARK = ".rulebook-"
TEMPORARY_SUFFIX = ".tmp"


class SaveError(SheetError):
    """A sheet file the file system would not let us write: a read-only folder, a full
    disk, no permission. Exit code 4."""

    code = "save_failed"
    exit_code = 4


class FileBusy(SheetError):
    """Another save held the folder's lock for longer than `LOCK_TIMEOUT`. Exit code 4."""

    code = "file_busy"

    exit_code = 4


def temporary_name(target: Path) -> Path:
    unique = secrets.token_hex(6)
    return target.with_name(f".{target.name}{TEMPORARY_MARK}{unique}{TEMPORARY_SUFFIX}")


def stray_temporaries(folder: Path, target_name: str | None = None) -> list[Path]:
    """Temporary files our saves left in `folder` (of one target, or of any)."""
    prefix = f".{target_name}{TEMPORARY_MARK}" if target_name else "."
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(
        folder / name
        for name in names
        if name.startswith(prefix) and TEMPORARY_MARK in name and name.endswith(TEMPORARY_SUFFIX)
    )


def remove_strays(folder: Path, target_name: str | None = None) -> list[Path]:
    """Remove what a killed save left behind; call only while holding the folder's lock."""
    removed = []
    for path in stray_temporaries(folder, target_name):
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            pass
    return removed


def fsync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX: fsync the directory itself)."""
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(target: Path, text: str, mode: int | None = None) -> None:
    """Replace `target` with `text` (UTF-8) so that a crash leaves the old or the new file,
    whole, and no temporary behind on any failure that runs code. A file system that
    refuses (read-only, full, no permission) is a SaveError; the file is as it was."""
    try:
        _write_atomic(Path(target), text, mode)
    except OSError as error:
        raise SaveError(
            tr("cannot be written ({value}); the file is as it was", value=error.strerror or error),
            path=str(target),
        ) from None


def write_or_remove(target: Path, text: str | None) -> None:
    """`write_atomic`, or (text None) the file taken away: the journal putting back a
    file that did not exist (an undo of the save that made a rulebook file)."""
    if text is not None:
        write_atomic(target, text)
        return
    try:
        Path(target).unlink(missing_ok=True)
        fsync_folder(Path(target).parent)
    except OSError as error:
        raise SaveError(
            tr("cannot be removed ({value}); the file is as it was", value=error.strerror or error),
            path=str(target),
        ) from None


def _write_atomic(target: Path, text: str, mode: int | None) -> None:
    temporary = temporary_name(target)
    if mode is None and target.exists():
        mode = target.stat().st_mode & 0o777
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)  # the umask applied at creation; the target's mode wins
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    fsync_folder(target.parent)


def create_exclusive(target: Path, text: str) -> None:
    """Write a new file, refusing (FileExistsError) to replace one that exists, even one
    another process creates meanwhile: the whole text appears at once, or nothing."""
    target = Path(target)
    temporary = temporary_name(target)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(temporary, target)  # fails if the target exists; never replaces it
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links: check, then rename
            if target.exists():
                raise FileExistsError(str(target)) from None
            os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    fsync_folder(target.parent)


# ─── the folder lock ────────────────────────────────────────────────────────


class _Held:
    __slots__ = ("count", "fd", "owner")

    def __init__(self, fd: int, owner: int):
        self.fd, self.owner, self.count = fd, owner, 1


_HELD: dict[str, _Held] = {}
_HELD_GUARD = threading.Lock()
_THREAD_LOCKS: dict[str, threading.RLock] = {}


class FolderLock:
    """An exclusive lock on a folder, held across processes (flock) and threads.

    with FolderLock(path.parent): read, run, write
    """

    def __init__(self, folder: Path, timeout: float = LOCK_TIMEOUT):
        self.folder = Path(folder).resolve()
        self.key = str(self.folder)
        self.timeout = timeout
        with _HELD_GUARD:
            self.thread_lock = _THREAD_LOCKS.setdefault(self.key, threading.RLock())

    def __enter__(self) -> FolderLock:
        deadline = time.monotonic() + self.timeout
        if not self.thread_lock.acquire(timeout=self.timeout):
            raise self._busy()
        try:
            held = _HELD.get(self.key)
            if held is not None and held.owner == os.getpid():
                held.count += 1
                return self
            fd = -1  # no flock here (Windows): the check that the file is unchanged remains
            if fcntl is not None:
                fd = self._open_folder()
                try:
                    self._flock(fd, deadline)
                except BaseException:
                    os.close(fd)
                    raise
            _HELD[self.key] = _Held(fd, os.getpid())
        except BaseException:
            self.thread_lock.release()
            raise
        return self

    def _open_folder(self) -> int:
        """The folder's descriptor; a folder that is not there, or is a file, is a
        SaveError (nothing can be saved in it, so nothing was)."""
        try:
            return os.open(self.folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError as error:
            raise SaveError(
                tr(
                    "cannot be written ({value}); the file is as it was",
                    value=error.strerror or error,
                ),
                path=str(self.folder),
            ) from None

    def _flock(self, fd: int, deadline: float) -> None:
        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise self._busy() from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)

    def _busy(self) -> FileBusy:
        return FileBusy(
            tr(
                "another save in {folder} did not finish within {timeout:g} seconds",
                folder=self.folder,
                timeout=self.timeout,
            ),
            hint=tr(
                "try again; if no other rulebook command is running, run `rulebook journal verify`"
            ),
        )

    def __exit__(self, *exc) -> None:
        held = _HELD[self.key]
        held.count -= 1
        if held.count == 0:
            del _HELD[self.key]
            if held.fd >= 0:
                os.close(held.fd)  # closing the descriptor releases the flock
        self.thread_lock.release()


def lock_folders(folders) -> list[FolderLock]:
    """Locks for several folders, in one order everywhere (no two saves deadlock)."""
    unique = {str(Path(f).resolve()): Path(f) for f in folders}
    return [FolderLock(unique[key]) for key in sorted(unique)]
