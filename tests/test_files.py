"""Files that must not be lost (interpreter.safe_files): atomic writes, folder fsync, the lock."""

from __future__ import annotations

import os
import threading
import time

import pytest

from interpreter import safe_files
from interpreter.errors import SheetError


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "sheet.yaml"
    target.write_text("old\n", encoding="utf-8")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(safe_files.SaveError, match="No space left on device"):
        safe_files.write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert os.listdir(tmp_path) == ["sheet.yaml"]


def test_an_interrupted_write_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "sheet.yaml"

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        safe_files.write_atomic(target, "new\n")
    assert os.listdir(tmp_path) == []


def test_the_folder_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    target = tmp_path / "sheet.yaml"
    events = []
    real_replace = os.replace
    monkeypatch.setattr(
        os, "replace", lambda a, b, **k: (events.append("rename"), real_replace(a, b, **k))
    )

    def fsync(folder):  # the folder's descriptor: the very folder the file is in
        events.append(("fsync", os.readlink(f"/proc/self/fd/{folder}")))

    monkeypatch.setattr(safe_files, "fsync_folder", fsync)
    safe_files.write_atomic(target, "new\n")
    assert events == ["rename", ("fsync", str(tmp_path))]
    assert target.read_text(encoding="utf-8") == "new\n"


def test_the_mode_of_the_file_is_kept(tmp_path):
    target = tmp_path / "sheet.yaml"
    target.write_text("old\n", encoding="utf-8")
    target.chmod(0o600)
    safe_files.write_atomic(target, "new\n")
    assert target.stat().st_mode & 0o777 == 0o600


def test_strays_of_killed_saves_are_found_and_removed(tmp_path):
    (tmp_path / "sheet.yaml").write_text("x", encoding="utf-8")
    stray = safe_files.temporary_name(tmp_path / "sheet.yaml")
    stray.write_text("half", encoding="utf-8")
    (tmp_path / ".hidden").write_text("not ours", encoding="utf-8")
    assert safe_files.stray_temporaries(tmp_path) == [stray]
    assert safe_files.remove_strays(tmp_path, "sheet.yaml") == [stray]
    assert sorted(os.listdir(tmp_path)) == [".hidden", "sheet.yaml"]


@pytest.mark.skipif(safe_files.fcntl is None, reason="flock is POSIX")
def test_the_folder_lock_serialises_and_is_reentrant(tmp_path):
    order = []
    with safe_files.FolderLock(tmp_path):
        with safe_files.FolderLock(tmp_path):  # the same process again: no deadlock
            order.append("outer")

        def other():
            with safe_files.FolderLock(tmp_path):
                order.append("other")

        thread = threading.Thread(target=other)
        thread.start()
        time.sleep(0.05)
        order.append("still outer")
    thread.join(5)
    assert order == ["outer", "still outer", "other"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_lock_held_too_long_by_another_process_is_an_error(tmp_path):
    ready_read, ready_write = os.pipe()
    done_read, done_write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child holds the lock until told to let go
        with safe_files.FolderLock(tmp_path):
            os.write(ready_write, b"!")
            os.read(done_read, 1)  # (not a time: no load lets the parent in early)
        os._exit(0)
    os.read(ready_read, 1)
    try:
        with (
            pytest.raises(safe_files.FileBusy) as caught,
            safe_files.FolderLock(tmp_path, timeout=0.1),
        ):
            pass
    finally:
        os.write(done_write, b"!")
        os.waitpid(pid, 0)
    assert caught.value.exit_code == 4
    with safe_files.FolderLock(tmp_path, timeout=1):  # free again once it is gone
        pass


# ─── never through a link (issue 23) ────────────────────────────────────────


def test_a_write_never_goes_through_a_link(tmp_path):
    (tmp_path / "real.yaml").write_text("real\n", encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to("real.yaml")
    with pytest.raises(safe_files.Refused, match=r"a symbolic link \(to real\.yaml\)"):
        safe_files.write_atomic(tmp_path / "link.yaml", "new\n")
    assert (tmp_path / "real.yaml").read_text(encoding="utf-8") == "real\n"
    assert (tmp_path / "link.yaml").is_symlink()
    assert sorted(os.listdir(tmp_path)) == ["link.yaml", "real.yaml"]  # no temporary left


def test_a_new_file_is_never_made_over_a_link_even_a_dangling_one(tmp_path):
    (tmp_path / "new.yaml").symlink_to(tmp_path / "nowhere.yaml")
    with pytest.raises(safe_files.Refused):
        safe_files.create_exclusive(tmp_path / "new.yaml", "x\n")
    assert not (tmp_path / "nowhere.yaml").exists()
    safe_files.create_exclusive(tmp_path / "other.yaml", "x\n")
    with pytest.raises(FileExistsError):
        safe_files.create_exclusive(tmp_path / "other.yaml", "y\n")
    assert (tmp_path / "other.yaml").read_text(encoding="utf-8") == "x\n"


@pytest.mark.parametrize(
    "name, why",
    [
        ("../x.yaml", "`..` leads out of the folder"),
        ("a/../../x.yaml", "`..` leads out of the folder"),
        ("/etc/x.yaml", "an absolute path"),
        ("", "an empty name"),
        ("a//b.yaml", "not a plain relative name"),
        ("./a.yaml", "not a plain relative name"),
        ("a\x00b", "not a file name"),
        ("x" * 2000, "not a file name"),
        ("a/" * 40 + "b", "not a plain relative name"),
    ],
)
def test_a_name_below_a_folder_is_plain_and_relative(tmp_path, name, why):
    with pytest.raises(ValueError, match=why.replace("(", "\\(")):
        safe_files.Inside.named(tmp_path, name)


def test_a_folder_on_the_way_that_is_a_link_is_never_followed(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x.yaml").write_text("out\n", encoding="utf-8")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "sub").symlink_to("../out")
    place = safe_files.Inside.named(tmp_path / "in", "sub/x.yaml")
    with pytest.raises(safe_files.Refused, match="the folder sub on the way is a symbolic link"):
        place.read(100)
    with pytest.raises(safe_files.Refused):
        safe_files.write_atomic(place, "new\n")
    with pytest.raises(safe_files.Refused):
        place.remove_strays()
    assert (tmp_path / "out" / "x.yaml").read_text(encoding="utf-8") == "out\n"


def test_a_read_takes_only_a_regular_file_within_its_size(tmp_path):
    os.mkfifo(tmp_path / "pipe.yaml")  # a reader of a pipe would wait forever
    with pytest.raises(safe_files.Refused, match="not a regular file"):
        safe_files.Inside.named(tmp_path, "pipe.yaml").read(100)
    (tmp_path / "big.yaml").write_text("x" * 101, encoding="utf-8")
    with pytest.raises(SheetError, match="larger than 100 bytes"):
        safe_files.Inside.named(tmp_path, "big.yaml").read(100)
    assert safe_files.Inside.named(tmp_path, "none.yaml").read(100) is None
    assert safe_files.Inside.named(tmp_path, "no/such/folder.yaml").read(100) is None
