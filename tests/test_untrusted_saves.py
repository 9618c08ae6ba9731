"""Issue 9, item 9: a save the file system refuses (read-only, full, not a folder) is the
project's own error, and the sheet on disk is as it was, with no temporary left beside it.

Root writes into read-only folders, and CI runs as root: the read-only and full cases run
in a child process that, as root, first gives up the capabilities that let root override
permissions, so that the kernel refuses as it would refuse anyone; the stages a refusal
can come at (create, write, fsync, rename) are also forced one by one in this process.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
from pathlib import Path

import pytest

from interpreter import safe_files
from interpreter.cli import main
from interpreter.journal.store import Journal

BOOK = """
sheet {
  attribute Fuerza in 1..10
}
action subir(n: number = 1) { set Fuerza to 5  result { v: n } }
"""
SHEET = "Fuerza: 3\n"

#: Linux capabilities (linux/capability.h): what lets root write and read past permissions
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2
CAPABILITY_VERSION_3 = 0x20080522
PR_CAPBSET_DROP = 24


@pytest.fixture
def place(tmp_path):
    """The rulebook, a folder for the sheet and one for the journal."""
    (tmp_path / "s.rules").write_text(BOOK, encoding="utf-8")
    for name in ("sheets", "journal"):
        (tmp_path / name).mkdir()
    (tmp_path / "sheets" / "c.yaml").write_text(SHEET, encoding="utf-8")
    yield tmp_path
    (tmp_path / "sheets").chmod(0o755)


def without_root_override() -> None:
    """Give up CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (root stays root, and owns what it
    owns): a folder's permissions then bind this process, and what it executes, as they
    bind anyone."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):  # not given back by exec
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable; twice (caps 0-63)
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capget")
    keep = ~((1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH)) & 0xFFFFFFFF
    data[0] &= keep
    data[1] &= keep
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset")


def in_child(argv, file_size: int | None = None) -> tuple[int, str]:
    """`rulebook argv` in a forked process (as root: without root's override; with at most
    `file_size` bytes per file written when given): its exit code and what it printed."""
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        import contextlib
        import io

        os.close(reading)
        report = {"code": 99, "err": ""}
        err = io.StringIO()
        try:
            if os.geteuid() == 0:
                without_root_override()
            if file_size is not None:  # the kernel's own "file too large" at write time
                resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, resource.RLIM_INFINITY))
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                report["code"] = main([str(a) for a in argv])
        except BaseException as error:  # what the test must see, not a child's crash
            report["err"] = f"{type(error).__name__}: {error}\n"
        report["err"] = err.getvalue() + report["err"]
        os.write(writing, json.dumps(report).encode())
        os._exit(0)
    os.close(writing)
    with os.fdopen(reading, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    report = json.loads(data)
    assert "Traceback" not in report["err"]
    return report["code"], report["err"]


def as_it_was(folder: Path) -> None:
    assert (folder / "c.yaml").read_text(encoding="utf-8") == SHEET
    assert not safe_files.stray_temporaries(folder), "a temporary was left beside the sheet"


def test_a_save_into_a_read_only_folder_is_an_error_even_for_root(place):
    sheets = place / "sheets"
    sheets.chmod(0o555)
    argv = ["run", place / "s.rules", "subir", "--char", sheets / "c.yaml", "--save"]
    # the journal above the sheets: a journal keeps the sheets of its folder and below
    code, err = in_child([*argv, "--journal", place / "j.sqlite"])
    assert code == 4 and "cannot be written (Permission denied); the file is as it was" in err, err
    assert "nothing was saved: every sheet is as it was" in err
    as_it_was(sheets)
    code, err = in_child(argv)  # the journal beside the sheet cannot be made either
    assert code == 3 and "journal.sqlite" in err and "error" in err
    as_it_was(sheets)
    assert sorted(p.name for p in sheets.iterdir()) == ["c.yaml"]


def test_a_journal_on_a_full_disk_saves_nothing(place):
    journal = place / "j.sqlite"  # above the sheets (a journal keeps its folder's)
    argv = ["run", place / "s.rules", "subir", "--char", place / "sheets" / "c.yaml", "--save"]
    code, err = in_child([*argv, "--journal", journal], file_size=2048)
    assert code == 3 and f"{journal}: " in err, err  # no room to make it
    as_it_was(place / "sheets")
    with Journal(journal):  # made while there was room; now it has no room to grow
        pass
    code, err = in_child([*argv, "--journal", journal], file_size=4096)
    assert code == 3 and f"{journal}: " in err and "error" in err, err
    as_it_was(place / "sheets")


def test_a_save_into_a_file_as_if_it_were_a_folder_is_an_error(place, capsys):
    journal = place / "j.sqlite"  # above the sheets (a journal keeps its folder's)
    for target in (place / "s.rules" / "new.yaml", place / "nowhere" / "new.yaml"):
        code = main(
            [
                *("run", str(place / "s.rules"), "subir", "--char", str(place / "sheets/c.yaml")),
                *("--save-as", str(target), "--journal", str(journal)),
            ]
        )
        err = capsys.readouterr().err
        assert code == 4 and f"{target.parent}: error: cannot be written" in err, err
        assert "Traceback" not in err and not target.exists()
    as_it_was(place / "sheets")


class FullDisk:
    """A file whose write stores half of the text, then finds the disk full."""

    def __init__(self, handle):
        self.handle = handle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()

    def write(self, text):
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self.handle, name)


def refuse_at(monkeypatch, stage: str) -> str:
    """Make the file system refuse the sheet's save at `stage`; return the reason given."""
    real_open, real_fdopen, real_fsync, real_replace = os.open, os.fdopen, os.fsync, os.replace

    def ours(path) -> bool:
        return safe_files.TEMPORARY_MARK in str(path)

    def refusing_open(path, flags, *args, **kwargs):
        if ours(path) and flags & os.O_CREAT:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    def full_fsync(fd):
        if ours(os.readlink(f"/proc/self/fd/{fd}")):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    def refusing_replace(source, target, *args, **kwargs):
        if ours(source):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(target))
        return real_replace(source, target, *args, **kwargs)

    if stage == "create":
        monkeypatch.setattr(os, "open", refusing_open)
    elif stage == "write":
        monkeypatch.setattr(os, "fdopen", lambda *a, **k: FullDisk(real_fdopen(*a, **k)))
    elif stage == "fsync":
        monkeypatch.setattr(os, "fsync", full_fsync)
    else:
        monkeypatch.setattr(os, "replace", refusing_replace)
    return os.strerror(errno.EROFS if stage in ("create", "rename") else errno.ENOSPC)


@pytest.mark.parametrize("stage", ["create", "write", "fsync", "rename"])
def test_a_save_refused_at_any_stage_leaves_the_sheet_as_it_was(place, capsys, monkeypatch, stage):
    if stage == "fsync" and not Path("/proc/self/fd").is_dir():
        pytest.skip("finding a descriptor's file needs /proc")
    sheets = place / "sheets"
    journal = place / "j.sqlite"  # above the sheets (a journal keeps its folder's)
    reason = refuse_at(monkeypatch, stage)
    argv = ["run", place / "s.rules", "subir", "--char", sheets / "c.yaml", "--save"]
    code = main([str(a) for a in [*argv, "--journal", journal]])
    err = capsys.readouterr().err
    assert code == 4 and f"cannot be written ({reason}); the file is as it was" in err, err
    assert "Traceback" not in err and "nothing was saved: every sheet is as it was" in err
    as_it_was(sheets)
    monkeypatch.undo()  # the disk has room again: the refused run left nothing to complete
    assert main(["journal", "verify", "--journal", str(journal)]) == 0
    as_it_was(sheets)
