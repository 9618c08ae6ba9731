"""The server reads a character's sheet once per file stamp: kept while the file does not
change, read again once it does (a save, an edit by hand, a file written twice in one tick
of the clock), bounded in size, and forgotten by the process that saved it."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

import dsl
from dsl.bounded import Bounded
from interpreter import Engine
from interpreter.web import library as library_module
from interpreter.web.library import Library

ROOT = Path(__file__).resolve().parent.parent
ANA = ROOT / "rulebooks/characters/brujeria_investigadora.yaml"


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ANA, tmp_path / "ana.yaml")
    return tmp_path


@pytest.fixture
def engine():
    return Engine(dsl.load("brujeria"))


@pytest.fixture
def loads(monkeypatch):
    """How many times each sheet file was read and parsed."""
    counted: list[str] = []
    load = Engine.load_sheet

    def counting(self, path):
        counted.append(Path(path).name)
        return load(self, path)

    monkeypatch.setattr(Engine, "load_sheet", counting)
    return counted


def test_a_sheet_is_read_once_while_its_file_does_not_change(folder, engine, loads):
    library = Library(folder)
    path = library.character_path("ana")
    first = library.sheet(engine, path)
    assert library.sheet(engine, path) is first
    assert library.sheet(engine, library.character_path("ana")) is first
    assert loads == ["ana.yaml"]
    # another rulebook reads the same file its own way: read for it apart
    other = Engine(dsl.load("brujeria_miedo_duro"))
    assert library.sheet(other, path).rulebook is other.rulebook
    assert loads == ["ana.yaml", "ana.yaml"]


def test_a_changed_file_is_read_again(folder, engine, loads):
    library = Library(folder)
    path = library.character_path("ana")
    before = library.sheet(engine, path)
    text = path.read_text(encoding="utf-8")
    assert "Fuerza: 2" in text
    path.write_text(text.replace("Fuerza: 2", "Fuerza: 1"), encoding="utf-8")
    after = library.sheet(engine, path)
    assert after.get("Fuerza") == 1 and before.get("Fuerza") == 2
    assert len(loads) == 2


def test_a_file_rewritten_within_one_tick_of_its_stamp_is_compared_by_its_text(
    folder, engine, loads, monkeypatch
):
    # A clock too coarse to tell two writes apart (same size, same stamp): the text tells.
    monkeypatch.setattr(library_module, "_file_stamp", lambda path: ("same", 1, 2, 3))
    monkeypatch.setattr(library_module.time, "time_ns", lambda: 3)  # just written
    library = Library(folder)
    path = library.character_path("ana")
    library.sheet(engine, path)
    assert library.sheet(engine, path) is library.sheet(engine, path)
    assert len(loads) == 1  # the same text: not parsed again
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Fuerza: 2", "Fuerza: 3"), encoding="utf-8")  # same size
    assert library.sheet(engine, path).get("Fuerza") == 3
    assert len(loads) == 2


def test_a_racy_sheet_read_again_well_after_its_write_is_then_trusted_by_its_stamp(
    folder, engine, loads, monkeypatch
):
    monkeypatch.setattr(library_module, "_file_stamp", lambda path: ("same", 1, 2, 3))
    now = [3]  # just written: racy, compared by its text
    monkeypatch.setattr(library_module.time, "time_ns", lambda: now[0])
    texts: list[Path] = []
    text_now = library_module._text_now
    monkeypatch.setattr(
        library_module, "_text_now", lambda path: texts.append(path) or text_now(path)
    )
    library = Library(folder)
    path = library.character_path("ana")
    library.sheet(engine, path)
    library.sheet(engine, path)
    assert len(texts) == 1  # within a tick of its write: its text read each time
    now[0] = 2 + library_module.RACY_NS  # well after its write: read once more, the same
    library.sheet(engine, path)
    assert len(texts) == 2
    for _ in range(3):  # then its stamp alone is trusted (a later write has a later one)
        library.sheet(engine, path)
    assert len(texts) == 2 and len(loads) == 1


def test_a_file_with_an_old_stamp_is_not_read_again(folder, engine, loads):
    library = Library(folder)
    path = library.character_path("ana")
    os.utime(path, ns=(10**18, 10**18))  # written long ago: its stamp alone is trusted
    library.sheet(engine, path)
    library.sheet(engine, path)
    assert len(loads) == 1


def test_saving_forgets_the_sheets_it_wrote(folder, engine, loads):
    library = Library(folder)
    path = library.character_path("ana")
    library.sheet(engine, path)
    library.forget_sheets([path])
    library.sheet(engine, path)
    library.forget_sheets()
    library.sheet(engine, path)
    assert len(loads) == 3


def test_the_sheets_kept_are_bounded(folder, engine):
    library = Library(folder)
    library._sheets = Bounded(3 * ANA.stat().st_size, count=1000)
    for i in range(10):
        shutil.copy(ANA, folder / f"ana{i}.yaml")
        library.sheet(engine, library.character_path(f"ana{i}"))
    assert len(library._sheets) == 3


def test_a_file_gone_is_an_error_again(folder, engine):
    library = Library(folder)
    path = library.character_path("ana")
    library.sheet(engine, path)
    path.unlink()
    with pytest.raises(dsl.RulebookError):
        library.sheet(engine, path)


# ─── the folder's listing ───────────────────────────────────────────────────

OLD = 10**18  # a stamp long past (a folder changed just now is listed every time)


@pytest.fixture
def globs(monkeypatch):
    """The folders listed (Path.glob), from now on."""
    listed: list[str] = []
    glob = Path.glob

    def counting(self, pattern):
        listed.append(pattern)
        return glob(self, pattern)

    monkeypatch.setattr(Path, "glob", counting)
    return listed


def test_the_folder_is_listed_again_only_when_it_changes(folder, globs):
    library = Library(folder)
    os.utime(folder, ns=(OLD, OLD))
    assert "ana" in library.character_files()
    before = len(globs)
    assert "ana" in library.character_files()
    assert len(globs) == before  # neither this folder nor the shipped one listed again
    shutil.copy(ANA, folder / "bob.yaml")  # the folder changes: listed again
    assert "bob" in library.character_files()
    (folder / "bob.yaml").unlink()
    assert "bob" not in library.character_files()


def test_the_files_by_name_are_made_again_only_when_a_listing_is(folder):
    library = Library(folder)
    os.utime(folder, ns=(OLD, OLD))
    characters, rulebooks = library.character_files(), library.rulebook_files()
    assert library.character_files() is characters  # nothing listed again: the same
    assert library.rulebook_files() is rulebooks
    shutil.copy(ANA, folder / "bob.yaml")  # the folder changes: made again
    assert "bob" in library.character_files() and "bob" not in characters
    (folder / "casa.rules").write_text('rulebook "Casa"\nextends brujeria\n', encoding="utf-8")
    assert "casa" in library.rulebook_files() and "casa" not in rulebooks


def test_a_listing_with_a_link_is_made_every_time(folder, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    shutil.copy(ANA, outside / "eve.yaml")
    (folder / "sub").mkdir()
    shutil.copy(ANA, folder / "sub" / "x.yaml")
    (folder / "eve.yaml").symlink_to(folder / "sub" / "x.yaml")  # a link inside: listed
    library = Library(folder)
    os.utime(folder, ns=(OLD, OLD))
    assert "eve" in library.character_files()
    # where the link leads changes, the folder itself unchanged: now out of the folder
    (folder / "sub" / "x.yaml").unlink()
    (folder / "sub" / "x.yaml").symlink_to(outside / "eve.yaml")
    assert "eve" not in library.character_files()


@pytest.mark.parametrize("fine", [True, False])
def test_a_folder_changed_a_second_ago_is_listed_again_only_on_a_coarse_clock(
    folder, globs, monkeypatch, fine
):
    # (the table's journal in the folder changes it every few seconds: a clock with
    # fractions of a second trusts its stamp after a few ms, one of whole seconds after 2 s)
    monkeypatch.setattr(library_module, "FINE_STAMPS", fine)
    library = Library(folder)
    second_ago = (time.time_ns() // 10**9 - 1) * 10**9 + 123_456_789  # (a fraction)
    os.utime(folder, ns=(second_ago, second_ago))
    library.character_files()  # (and the shipped characters' folder, once)
    before = len(globs)
    library.character_files()
    assert globs[before:] == ([] if fine else ["*.yaml", "*.yml", "*.json"])
    whole = second_ago - 123_456_789  # a stamp in whole seconds, within 2 s: listed again
    os.utime(folder, ns=(whole, whole))
    library.character_files()
    before = len(globs)
    library.character_files()
    assert globs[before:] == ["*.yaml", "*.yml", "*.json"]


@pytest.mark.parametrize("fine", [True, False])
def test_a_sheet_written_a_second_ago_on_a_fine_clock_is_trusted_by_its_stamp(
    folder, engine, loads, monkeypatch, fine
):
    monkeypatch.setattr(library_module, "FINE_STAMPS", fine)
    texts: list[Path] = []
    text_now = library_module._text_now
    monkeypatch.setattr(
        library_module, "_text_now", lambda path: texts.append(path) or text_now(path)
    )
    library = Library(folder)
    path = library.character_path("ana")
    second_ago = time.time_ns() - 10**9 + 1  # (not a whole second but by a chance in 10^9)
    os.utime(path, ns=(second_ago, second_ago))
    library.sheet(engine, path)
    library.sheet(engine, path)
    assert len(loads) == 1
    assert texts == ([] if fine else [path])  # a coarse clock's: its text compared


# ─── saves from several worker processes at once ───────────────────────────


def test_saves_from_several_workers_at_once_lose_nothing(folder):
    # Three worker processes save into one character at once: each save reads the sheet
    # as the one before left it (the folder's lock; the journal's SQLite transactions),
    # and the sheet a worker kept from before is not used (its stamp changed).
    from concurrent.futures import ThreadPoolExecutor

    from web_client import page_client

    from interpreter.web import create_app

    body = {"rulebook": "brujeria", "action": "recibir_daño", "character": "ana"}
    body |= {"params": {"daño": 1}, "save": True}
    with page_client(create_app(folder, workers={"quick": 3})) as client:
        # the same run asked of every worker at once: the same answer, byte for byte
        asked = {**body, "save": False, "seed": 5}
        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(lambda _: client.post("/api/run", json=asked), range(6)))
        assert all(a.status_code == 200 for a in answers)
        assert len({a.content for a in answers}) == 1

        def save(seed: int) -> int:
            answer = client.post("/api/run", json={**body, "seed": seed})
            assert answer.status_code == 200, answer.text
            return answer.json()["saved"]["entry"]

        with ThreadPoolExecutor(4) as pool:
            entries = sorted(pool.map(save, range(8)))
        assert entries == list(range(1, 9))
        history = client.get("/api/characters/ana/history").json()["entries"]
        lives = [e["changes"][0] for e in sorted(history, key=lambda e: e["entry"])]
        assert [c["before"] for c in lives] == [30 - i for i in range(8)]
        assert all(c["after"] == c["before"] - 1 for c in lives)
        shown = client.post("/api/run", json={**body, "save": False, "seed": 0}).json()
        assert shown["changes"][0]["before"] == 22  # what the last save wrote, read again
