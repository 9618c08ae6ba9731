"""Reading a person's file: only a regular file, never blocking, never more than a bound.

A name that looks like a rulebook or a sheet may be a named pipe (FIFO), a device or a
folder. Opening a FIFO for reading waits for a writer, forever; reading a device may
never end. Every file a person names is opened here without waiting (`O_NONBLOCK`),
looked at through its open descriptor (so a file swapped in between a check and the
read is the file looked at) and read only if it is a regular file, up to a bound.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from dsl.messages import tr

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
#: bytes read from a file in one call
CHUNK = 1 << 20


class NotRegular(OSError):
    """A named pipe, a device, a socket or a folder where a file was expected: never
    read. An OSError, so every caller's "cannot be read (...)" names the file."""

    def __init__(self, path, mode: int):
        message = tr("{kind}, not a regular file", kind=_kind(mode))
        super().__init__(errno.EINVAL, message, str(path))


def _kind(mode: int):
    if stat.S_ISFIFO(mode):
        return tr("a named pipe")
    if stat.S_ISDIR(mode):
        return tr("a folder")
    if stat.S_ISSOCK(mode):
        return tr("a socket")
    return tr("a device")


class TooLarge(OSError):
    """A file of more than the bytes its reader takes (an OSError too: a caller that
    has no message of its own for it says "cannot be read (...)")."""

    def __init__(self, path, most: int):
        super().__init__(errno.EFBIG, tr("larger than {most} bytes", most=most), str(path))
        self.most = most


def read_regular(path: str | Path, most: int, *, follow: bool = True, dir_fd=None) -> bytes:
    """The bytes of the regular file at `path`, if there are at most `most` (TooLarge
    otherwise, found before reading when the file says its size). Raises OSError as
    the file system does (FileNotFoundError, PermissionError, ...), NotRegular for
    anything but a regular file; `follow=False` refuses a symbolic link at `path`."""
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(path, info.st_mode)
        if info.st_size > most:
            raise TooLarge(path, most)
        data = read_up_to(fd, most + 1)
    finally:
        os.close(fd)
    if len(data) > most:  # it grew while being read
        raise TooLarge(path, most)
    return data


def read_text(path: str | Path, most: int, *, follow: bool = True) -> str:
    """The UTF-8 text of the regular file at `path` (see `read_regular`), its line ends
    read as `\\n` as Python's text files read them; UnicodeDecodeError for other bytes."""
    text = read_regular(path, most, follow=follow).decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_up_to(fd: int, size: int) -> bytes:
    """At most `size` bytes from an open descriptor."""
    chunks, left = [], size
    while left > 0:
        chunk = os.read(fd, min(left, CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
