"""Files that must not be lost: atomic replacement, folder fsync, stray temporaries, locks.

A save writes a temporary file beside its target (named so that it is recognisably
ours: `.menecma.yaml.rulebook-<random>.tmp`), fsyncs it, renames it over the target and
fsyncs the folder, so that the rename itself survives a crash. A temporary is removed on
every failure path that runs code; one left by a kill -9 is removed by the next save of
the same file (under its folder's lock) and by `rulebook journal verify`.

Nothing is written through a symbolic link. A file is reached through its folder's
descriptor (`Inside`): the file itself is never followed (a link there is refused, one
put there meanwhile is replaced, its target untouched), and a name a journal gives is
walked folder by folder from the journal's own, following no link on the way.

Saves are serialised by an exclusive lock on the folder that holds the file (`flock` on
the folder itself, so no lock file is left behind). The lock is re-entrant within a
process, so a caller may hold it from reading a sheet to writing it back.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import threading
import time
from pathlib import Path

from dsl.messages import tr
from dsl.reading import read_up_to
from interpreter.errors import SheetError

try:  # POSIX; elsewhere saves rely on the check that the file did not change
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # (no module: every use asks `if fcntl`)

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
    return Path(target).with_name(_temporary_leaf(Path(target).name))


def _temporary_leaf(name: str) -> str:
    return f".{name}{TEMPORARY_MARK}{secrets.token_hex(6)}{TEMPORARY_SUFFIX}"


def _is_stray(name: str, prefix: str) -> bool:
    return name.startswith(prefix) and TEMPORARY_MARK in name and name.endswith(TEMPORARY_SUFFIX)


def stray_temporaries(folder: Path, target_name: str | None = None) -> list[Path]:
    """Temporary files our saves left in `folder` (of one target, or of any)."""
    prefix = f".{target_name}{TEMPORARY_MARK}" if target_name else "."
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(Path(folder) / name for name in names if _is_stray(name, prefix))


def remove_strays(folder: Path, target_name: str | None = None) -> list[Path]:
    """Remove what a killed save left behind; call only while holding the folder's lock."""
    return Inside(Path(folder), (target_name or ".",)).remove_strays(any_target=not target_name)


def fsync_folder(folder: Path | int) -> None:
    """Make a rename in `folder` (a path, or a folder's open descriptor) durable (POSIX:
    fsync the directory itself)."""
    if os.name != "posix":  # pragma: no cover
        return
    if isinstance(folder, int):
        os.fsync(folder)
        return
    fd = os.open(folder, os.O_RDONLY | _DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(target: Path | Inside, text: str, mode: int | None = None) -> None:
    """Replace `target` with `text` (UTF-8) so that a crash leaves the old or the new file,
    whole, and no temporary behind on any failure that runs code. A file system that
    refuses (read-only, full, no permission) is a SaveError; the file is as it was. A
    target that is a symbolic link is refused (`Refused`), never written through; one
    put in its place meanwhile is replaced by the file, its own target left alone."""
    place = target if isinstance(target, Inside) else Inside.beside(Path(target))
    try:
        place.write(text, mode)
    except OSError as error:
        raise SaveError(
            tr("cannot be written ({value}); the file is as it was", value=error.strerror or error),
            path=str(target),
        ) from None


def create_exclusive(target: Path, text: str) -> None:
    """Write a new file, refusing (FileExistsError) to replace one that exists, even one
    another process creates meanwhile (a symbolic link too, even one leading nowhere):
    the whole text appears at once, or nothing."""
    Inside.beside(Path(target)).write(text, new=True)


# ─── a file inside a folder, reached without following a link ───────────────

_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: folders below its root a name given by a journal or a record may go down, at most
MAX_NAME_PARTS = 32
#: characters of such a name, at most
MAX_NAME_LENGTH = 1024


class Refused(SaveError):
    """A file that is a symbolic link, lies behind one, or is not a regular file: never
    read for a save, never written (a save never writes through a link). Exit code 4."""

    code = "file_refused"


class Inside:
    """A file below a folder: `root` (the folder an app or a person named, taken as it
    is) and the names under it, `parts`, reached without following a symbolic link.

    Every read and write goes through the folder's descriptor (`dir_fd`), so a link put
    in place of a folder or of the file between a check and a write is never followed:
    the write replaces the link itself (a rename), never the file the link leads to.
    """

    __slots__ = ("parts", "root")

    def __init__(self, root: Path, parts: tuple):
        self.root = Path(root)
        self.parts = tuple(parts)

    @classmethod
    def beside(cls, target: Path) -> Inside:
        """A file named by a path the caller chose: its folder taken as it is."""
        return cls(target.parent, (target.name,))

    @classmethod
    def named(cls, root: Path, name: str) -> Inside:
        """`name` (a relative name, `/` between folders) under `root`; a ValueError says
        why a name is not one: empty, absolute, `..` or `.` in it, too long."""
        if not isinstance(name, str) or not name:
            raise ValueError(tr("an empty name"))
        if len(name) > MAX_NAME_LENGTH or "\x00" in name:
            raise ValueError(tr("not a file name"))
        if name.startswith("/"):
            raise ValueError(tr("an absolute path"))
        parts = tuple(name.split("/"))
        if ".." in parts:
            raise ValueError(tr("`..` leads out of the folder"))
        if any(part in ("", ".") for part in parts) or len(parts) > MAX_NAME_PARTS:
            raise ValueError(tr("not a plain relative name"))
        return cls(root, parts)

    @property
    def name(self) -> str:
        return "/".join(self.parts)

    @property
    def path(self) -> Path:
        return self.root.joinpath(*self.parts)

    @property
    def folder(self) -> Path:
        return self.path.parent

    def __str__(self) -> str:
        return str(self.path)

    def __repr__(self) -> str:
        return f"Inside({str(self.root)!r}, {self.name!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Inside) and (self.root, self.parts) == (other.root, other.parts)

    def __hash__(self) -> int:
        return hash((self.root, self.parts))

    # ─── reading ──────────────────────────────────────────────────────────

    def refuse_link(self, leaf: bool = True) -> None:
        """Raise Refused if a folder on the way below the root, or (`leaf`) the file
        itself, is a symbolic link (a folder that is not there is no refusal: a write
        says so)."""
        try:
            fd = self._open_folder()
        except OSError:
            return
        try:
            if leaf:
                self._refuse_link(fd, self.parts[-1])
        finally:
            os.close(fd)

    def read(self, max_size: int) -> str | None:
        """The file's text (None if there is none), read without following a link;
        anything but a regular file of at most `max_size` bytes of UTF-8 is refused."""
        try:
            folder = self._open_folder()
        except FileNotFoundError:
            return None
        try:
            leaf = self.parts[-1]
            try:
                fd = os.open(leaf, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=folder)
            except FileNotFoundError:
                return None
            except OSError:
                self._refuse_link(folder, leaf)
                raise
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode):
                    raise Refused(tr("not a regular file: never read as a sheet"), path=str(self))
                if info.st_size > max_size:
                    raise SheetError(
                        tr("larger than {max_sheet_size} bytes", max_sheet_size=max_size),
                        path=str(self),
                    )
                data = read_up_to(fd, max_size + 1)
            finally:
                os.close(fd)
        except OSError as error:
            raise SheetError(
                tr("cannot be read ({strerror})", strerror=error.strerror or error), path=str(self)
            ) from None
        finally:
            os.close(folder)
        if len(data) > max_size:  # it grew while being read
            raise SheetError(
                tr("larger than {max_sheet_size} bytes", max_sheet_size=max_size), path=str(self)
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise SheetError(tr("not UTF-8 text"), path=str(self)) from None

    # ─── writing ──────────────────────────────────────────────────────────

    def write(self, text: str, mode: int | None = None, new: bool = False) -> None:
        """Replace the file with `text` atomically (temporary, fsync, rename, folder
        fsync); `new`: only if there is none (FileExistsError otherwise). Raises OSError
        as the file system does; Refused for a link."""
        folder = self._open_folder()
        try:
            leaf = self.parts[-1]
            try:
                info = _lstat(leaf, folder)
            except FileNotFoundError:
                info = None
            if info is not None and stat.S_ISLNK(info.st_mode):
                self._refuse_link(folder, leaf)
            if info is not None and new:
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(self))
            if mode is None and info is not None:
                mode = info.st_mode & 0o777
            self._replace(folder, leaf, text, mode, new)
            fsync_folder(folder)
        finally:
            os.close(folder)

    def _replace(self, folder: int, leaf: str, text: str, mode: int | None, new: bool) -> None:
        temporary = _temporary_leaf(leaf)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        fd = os.open(temporary, flags, 0o666 if mode is None else mode, dir_fd=folder)
        renamed = False
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
                if mode is not None:  # the umask applied at creation; the target's mode wins
                    os.chmod(handle.fileno(), mode)
            if new:  # a link fails if the name exists (a dangling link too): never replaces
                try:
                    os.link(temporary, leaf, src_dir_fd=folder, dst_dir_fd=folder)
                except FileExistsError:
                    raise
                except OSError:  # a file system without hard links: check, then rename
                    if _exists(leaf, folder):
                        raise FileExistsError(
                            errno.EEXIST, os.strerror(errno.EEXIST), str(self)
                        ) from None
                    os.replace(temporary, leaf, src_dir_fd=folder, dst_dir_fd=folder)
                    renamed = True
            else:
                os.replace(temporary, leaf, src_dir_fd=folder, dst_dir_fd=folder)
                renamed = True
        finally:
            if not renamed:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary, dir_fd=folder)

    def remove(self) -> None:
        """Remove the file (a link there: the link itself); none there is no error."""
        folder = self._open_folder()
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.parts[-1], dir_fd=folder)
            fsync_folder(folder)
        finally:
            os.close(folder)

    def strays(self, any_target: bool = False) -> list[Path]:
        """The temporaries killed saves of this file (`any_target`: of any file of its
        folder) left behind, listed through the folder's descriptor."""
        return self._strays(any_target, remove=False)

    def remove_strays(self, any_target: bool = False) -> list[Path]:
        """Remove what `strays` lists; call only while holding the folder's lock."""
        return self._strays(any_target, remove=True)

    def _strays(self, any_target: bool, remove: bool) -> list[Path]:
        prefix = "." if any_target else f".{self.parts[-1]}{TEMPORARY_MARK}"
        try:
            folder = self._open_folder()
        except OSError:
            return []
        found = []
        try:
            for name in sorted(n for n in os.listdir(folder) if _is_stray(n, prefix)):
                if remove:
                    try:
                        os.unlink(name, dir_fd=folder)  # (a link there: the link itself)
                    except FileNotFoundError:
                        continue
                found.append(self.folder / name)
        finally:
            os.close(folder)
        return found

    # ─── the way there ────────────────────────────────────────────────────

    def _open_folder(self) -> int:
        """The descriptor of the file's folder: the root as named, then each folder
        below it without following a link (Refused for one)."""
        fd = os.open(self.root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        for part in self.parts[:-1]:
            try:
                inner = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError:
                try:
                    self._refuse_link(fd, part)
                finally:
                    os.close(fd)
                raise
            os.close(fd)
            fd = inner
        return fd

    def _refuse_link(self, folder: int, name: str) -> None:
        """Raise Refused if `name` in `folder` (the file, or a folder on the way) is a
        symbolic link."""
        try:
            info = _lstat(name, folder)
        except OSError:
            return
        if not stat.S_ISLNK(info.st_mode):
            return
        try:
            leads_to = os.readlink(name, dir_fd=folder)
        except OSError:
            leads_to = "?"
        if name == self.parts[-1]:
            message = tr(
                "a symbolic link (to {leads_to}): a save never writes through one",
                leads_to=leads_to,
            )
        else:
            message = tr(
                "the folder {name} on the way is a symbolic link (to {leads_to}): nothing is "
                "read or written through one",
                name=name,
                leads_to=leads_to,
            )
        raise Refused(message, hint=tr("name the file itself, not a link to it"), path=str(self))


def _lstat(name: str, folder: int) -> os.stat_result:
    return os.stat(name, dir_fd=folder, follow_symlinks=False)


def _exists(name: str, folder: int) -> bool:
    try:
        _lstat(name, folder)
    except FileNotFoundError:
        return False
    return True


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
            return os.open(self.folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
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
