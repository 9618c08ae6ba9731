"""Hostile records and journals (issue 23): nothing is written outside the folder, never
through a link, never at a path a record or an entry gives; only the project's errors.

Each attack of the issue has its test; then the properties: every field of a record and
every column of a journal's row given a hostile value (tests/hostile_cases.py), every
command that reads them run, nothing outside the campaign's folder changed.
"""

from __future__ import annotations

import json
import os
import sqlite3

import pytest
from hostile_cases import (
    HOSTILE_NAMES,
    Campaign,
    cli,
    edit_journal,
    journal_edits,
    record_mutations,
    record_text,
    rehashed,
    try_journal,
    try_record,
    with_rehashed_sources,
    with_value,
)
from hypothesis import HealthCheck, given
from profiles import fewer

from dsl.errors import RulebookError
from interpreter import safe_files
from interpreter.journal import Journal, JournalError, read_record, verify_record
from interpreter.journal import store as journal_store

#: each case copies a campaign and runs every command on it: a few dozen in CI
HOSTILE = fewer(4, 12, HealthCheck.function_scoped_fixture)


@pytest.fixture
def campaign(tmp_path):
    return Campaign.made().copy(tmp_path / "tree")


def victim(campaign) -> bytes:
    return (campaign.outside / "victim.yaml").read_bytes()


# ─── records: `rulebook verify` ──────────────────────────────────────────────


@pytest.mark.parametrize("name", ["../../outside/pwned.txt", "{outside}/pwned.txt", "link/x"])
def test_verify_writes_no_file_at_the_name_a_record_gives_its_rulebook(campaign, name):
    record = with_rehashed_sources(campaign.record, campaign.outside_names(name))
    path = campaign.root / "evil.json"
    path.write_text(record, encoding="utf-8")
    before = campaign.snapshot()
    with campaign.inside():
        code, out = cli(["--lang", "en", "verify", path])
    # the texts match their hash: the run is verified from them, in memory
    assert code == 0 and "verified: asustarse gives the recorded result" in out, out
    assert campaign.snapshot() == before
    assert sorted(os.listdir(campaign.folder)) == sorted(os.listdir(Campaign.made().folder))
    assert os.listdir(campaign.temp) == []  # not even a private temporary folder


def test_verify_rebuilds_a_house_rule_from_the_records_own_texts(campaign):
    with campaign.inside():
        code, out = cli(
            ["--lang", "en", "export", "2", "--journal", campaign.journal]
        )  # miedo duro
    assert code == 0
    data = json.loads(out)
    assert [s["extends"] for s in data["rulebook"]["sources"]] == ["brujeria", None]
    assert verify_record(data).action == "asustarse"
    # the base's text is the record's, not the shipped file's: broken there (the hash
    # made to match), the rebuild fails on it
    data["rulebook"]["sources"][1]["text"] += "\nthis is not a rule\n"
    with pytest.raises(RulebookError) as refused:
        verify_record(rehashed(data))
    assert refused.value.exit_code == 3 and "brujeria.rules" in refused.value.render()


@pytest.mark.parametrize(
    "raw, said",
    [
        ("9" * 5000, "a number of more than 4300 digits"),
        ("[" * 100_000 + "]" * 100_000, "nested more than 128 levels deep"),
        ('"\\ud800"', "a lone surrogate"),
        ("NaN", "NaN is not a number JSON allows"),
        ("1e999", "a number too large to read"),
        ('{"a": 1,\n "a": 2}', "the key 'a' is given twice (line 2)"),
    ],
)
def test_a_record_beyond_the_bounds_exits_3_with_what_and_where(campaign, raw, said):
    path = campaign.root / "bad.json"
    path.write_text(with_value(campaign.record, ("result",), raw), encoding="utf-8")
    code, out = cli(["--lang", "en", "verify", path])
    assert code == 3 and said in out and "not a JSON record" in out, out


@pytest.mark.parametrize(
    "field, raw, said",
    [
        (("rulebook", "sources"), '"x"', "rulebook.sources is not a list"),
        (("rulebook", "sources", 0, "text"), "5", "rulebook.sources[0].text is not a text"),
        (("sheets", 0, "format"), '"xml"', "sheets[0].format is not yaml | json"),
        (("sheets", 0), "[]", "sheets[0]: not an object"),
        (("dice",), "[1, true]", "dice: not a list of whole numbers"),
        (("params",), "[]", "params: not an object"),
        (("action",), "null", "action is not a text"),
        (("version",), "true", "record version True is not 1"),
    ],
)
def test_a_field_of_the_wrong_type_is_named(campaign, field, raw, said):
    with pytest.raises(JournalError, match=None) as refused:
        verify_record(read_record(with_value(campaign.record, field, raw)))
    assert said in str(refused.value.message) and refused.value.exit_code == 3


def test_a_record_that_is_not_utf8_or_too_large_exits_3(campaign, monkeypatch):
    path = campaign.root / "bad.json"
    path.write_bytes(b'{"format": "\xed\xa0\x80"}')  # a surrogate, encoded
    assert cli(["--lang", "en", "verify", path])[0] == 3
    monkeypatch.setattr("interpreter.journal.export.MAX_RECORD_SIZE", 100)
    path.write_text(campaign.record, encoding="utf-8")
    code, out = cli(["--lang", "en", "verify", path])
    assert code == 3 and "larger than 100 bytes" in out


@HOSTILE
@given(mutation=record_mutations(Campaign.made().record))
def test_every_field_of_a_record_with_a_hostile_value_gives_our_errors_only(tmp_path, mutation):
    # (tmp_path is shared by the examples: each takes a fresh copy under its own name)
    copy = Campaign.made().copy(tmp_path / f"r{len(os.listdir(tmp_path))}")
    try_record(copy, record_text(copy.record, mutation))


# ─── journals: undo, journal verify, recovery ────────────────────────────────

OUT_OF_THE_FOLDER = [
    "../outside/victim.yaml",
    "{outside}/victim.yaml",
    "sub/../../outside/victim.yaml",
    "link/victim.yaml",
    "leaf.yaml",
]


@pytest.mark.parametrize("name", OUT_OF_THE_FOLDER)
def test_undo_of_an_entry_naming_a_file_out_of_the_folder_writes_nothing(campaign, name):
    edit_journal(campaign.journal, "run_sheets", "sheet", 0, campaign.outside_names(name))
    before, kept = campaign.snapshot(), victim(campaign)
    with campaign.inside():
        code, out = cli(["--lang", "en", "undo", "1", "--force", "--journal", campaign.journal])
    assert code in (3, 4) and "Traceback" not in out
    assert ("not a file in its folder" in out) or ("symbolic link" in out), out
    assert campaign.snapshot() == before and victim(campaign) == kept


@pytest.mark.parametrize("name", OUT_OF_THE_FOLDER)
def test_the_servers_undo_of_such_an_entry_is_our_error(campaign, name):
    from interpreter.web import saving
    from interpreter.web.library import Library

    edit_journal(campaign.journal, "run_sheets", "sheet", 0, campaign.outside_names(name))
    before = campaign.snapshot()
    with pytest.raises(RulebookError):
        saving.undo_entry(Library(campaign.folder), 1)
    assert campaign.snapshot() == before


@pytest.mark.parametrize("name", OUT_OF_THE_FOLDER)
def test_journal_verify_completes_no_pending_save_out_of_the_folder(campaign, name):
    edit_journal(campaign.journal, "run_sheets", "sheet", 0, campaign.outside_names(name))
    edit_journal(campaign.journal, "runs", "state", 0, "pending")
    before = campaign.snapshot()
    with campaign.inside():
        code, out = cli(
            ["--lang", "en", "journal", "verify", "--force", "--journal", campaign.journal]
        )
    assert code == 4 and "PROBLEM" in out and "not completed" in out, out
    assert campaign.snapshot() == before
    # and the folder's own sheets are still saved: a hostile entry blocks nothing else
    with campaign.inside():
        code, out = save("--char", "lucia.yaml", "--save")
    assert code == 0, out
    assert campaign.snapshot() == before


def test_a_journal_that_is_a_link_is_refused(campaign):
    (campaign.outside / "journal.sqlite").write_bytes(campaign.journal.read_bytes())
    campaign.journal.unlink()
    campaign.journal.symlink_to("../outside/journal.sqlite")
    before = campaign.snapshot()
    with campaign.inside():
        code, out = save("--char", "lucia.yaml", "--save")
        assert code == 3 and "a symbolic link" in out, out
        code, out = cli(["--lang", "en", "undo"])
        assert code == 3 and "a symbolic link" in out, out
    assert campaign.snapshot() == before


def test_a_journal_whose_views_loop_stops_at_the_step_bound(campaign, monkeypatch):
    connection = sqlite3.connect(campaign.journal)
    connection.executescript(
        "ALTER TABLE runs RENAME TO runs_kept;"
        "CREATE VIEW runs AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT i AS id, '' AS at, 'run' AS kind, 'applied' AS state, NULL AS rulebook, "
        "NULL AS action, '{}' AS params, NULL AS result, '[]' AS dice, 'none' AS origin, "
        "NULL AS seed, NULL AS undoes, NULL AS value_form FROM n;"
    )
    connection.close()
    monkeypatch.setattr(journal_store, "MAX_STEPS", 5_000_000)  # (the default: minutes)
    code, out = cli(["--lang", "en", "log", "--journal", campaign.journal])
    assert code == 3 and "more than 5000000 steps" in out, out


def test_a_value_past_the_size_bound_is_refused_unread(campaign, monkeypatch):
    edit_journal(campaign.journal, "runs", "params", 0, json.dumps({"x": "y" * 5000}))
    monkeypatch.setattr(journal_store, "MAX_VALUE_BYTES", 1000)
    code, out = cli(["--lang", "en", "log", "--journal", campaign.journal])
    assert code == 3 and "too big" in out, out


def test_a_run_with_no_acting_sheet_is_not_run_again(campaign):
    edit_journal(campaign.journal, "run_sheets", "role", 0, "objetivo")
    code, out = cli(["--lang", "en", "show", "1", "--journal", campaign.journal])
    assert code == 0 and "trace: not available" in out, out
    assert "run 1 has no sheet of the acting character (self)" in out
    code, out = cli(["--lang", "en", "journal", "verify", "--rerun", "--journal", campaign.journal])
    assert code == 4 and "run 1: cannot run again" in out, out


def test_a_run_that_names_no_rulebook_gives_our_errors_only(tmp_path):
    # a NULL rulebook is a rulebook file's save (the journal takes it): on a run, hostile
    try_journal(Campaign.made().copy(tmp_path / "j"), ("runs", "rulebook", 0, "NULL"))


@HOSTILE
@given(edit=journal_edits())
def test_every_column_of_a_journal_with_a_hostile_value_gives_our_errors_only(tmp_path, edit):
    copy = Campaign.made().copy(tmp_path / f"j{len(os.listdir(tmp_path))}")
    try_journal(copy, edit)


# ─── saves: links, and sheets out of the journal's folder ────────────────────


def save(*extra) -> tuple[int, str]:
    return cli(["--lang", "en", "run", "brujeria", "asustarse", "--dice", "1,1,1,3", *extra])


def agree(journal_path, folder) -> None:
    """Every sheet the journal wrote last is, on disk, what the journal says."""
    with Journal(journal_path, create=False) as journal:
        last = {}
        for entry in journal.entries():
            for state in entry.sheets:
                if entry.state == "applied":
                    last[state.path] = journal.text(state.after)
    for name, text in last.items():
        assert (folder / name).read_text(encoding="utf-8") == text, name


@pytest.mark.parametrize(
    "link, to", [("alias.yaml", "lucia.yaml"), ("out.yaml", "../outside/victim.yaml")]
)
def test_a_save_through_a_link_is_refused_before_a_die_is_rolled(campaign, link, to):
    (campaign.folder / link).symlink_to(to)
    before, entries = campaign.snapshot(), _entries(campaign)
    lucia = (campaign.folder / "lucia.yaml").read_bytes()
    with campaign.inside():
        code, out = save("--char", link, "--save")
    assert code == 4 and f"a symbolic link (to {to}): a save never writes through one" in out
    assert "name the file itself" in out and "tirada" not in out and "dados" not in out
    assert (campaign.folder / link).is_symlink() and os.readlink(campaign.folder / link) == to
    assert (campaign.folder / "lucia.yaml").read_bytes() == lucia
    assert campaign.snapshot() == before and _entries(campaign) == entries
    agree(campaign.journal, campaign.folder)


@pytest.mark.parametrize("to", ["lucia.yaml", "../outside/new.yaml", "../outside/victim.yaml"])
def test_save_as_onto_a_link_even_a_dangling_one_is_refused(campaign, to):
    (campaign.folder / "copy.yaml").symlink_to(to)
    before = campaign.snapshot()
    with campaign.inside():
        code, out = save("--char", "lucia.yaml", "--save-as", "copy.yaml")
    assert code == 4 and "a symbolic link" in out, out
    assert campaign.snapshot() == before and os.readlink(campaign.folder / "copy.yaml") == to


def once_the_temporary_is_written(monkeypatch, swap) -> list:
    """Call `swap()` once, when a save's temporary file is first synced (written, not yet
    renamed): where an attacker would swap a path. The list returned holds True once it
    has run."""
    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("finding a descriptor's file needs /proc")
    real_fsync = os.fsync
    swapped: list = []

    def fsync_then_swap(fd):
        real_fsync(fd)
        if not swapped and safe_files.TEMPORARY_MARK in os.readlink(f"/proc/self/fd/{fd}"):
            swap()
            swapped.append(True)

    monkeypatch.setattr(os, "fsync", fsync_then_swap)
    return swapped


def test_a_link_swapped_in_before_the_rename_is_replaced_not_written_through(campaign, monkeypatch):
    sheet = campaign.folder / "lucia.yaml"
    kept = victim(campaign)

    def swap():  # the temporary is written: now the attacker's link
        sheet.unlink()
        sheet.symlink_to("../outside/victim.yaml")

    swapped = once_the_temporary_is_written(monkeypatch, swap)
    with campaign.inside():
        code, out = save("--char", "lucia.yaml", "--save")
    assert swapped and code == 0, out
    assert victim(campaign) == kept  # never written through
    assert not sheet.is_symlink()  # the rename replaced the link itself
    agree(campaign.journal, campaign.folder)


def test_a_folder_swapped_for_a_link_midway_is_never_followed(campaign, monkeypatch):
    party = campaign.folder / "party"
    party.mkdir()
    (party / "ana.yaml").write_bytes((campaign.folder / "lucia.yaml").read_bytes())
    (campaign.outside / "ana.yaml").write_text("not to be touched\n", encoding="utf-8")

    def swap():
        party.rename(campaign.folder / "party_kept")
        party.symlink_to("../outside")

    swapped = once_the_temporary_is_written(monkeypatch, swap)
    with campaign.inside():
        code, out = save("--char", "party/ana.yaml", "--save", "--journal", campaign.journal)
    assert swapped and code == 0, out
    assert (campaign.outside / "ana.yaml").read_text(encoding="utf-8") == "not to be touched\n"
    monkeypatch.undo()
    with campaign.inside():  # the journal names party/ana.yaml: a link now, never followed
        code, out = cli(["--lang", "en", "journal", "verify", "--journal", campaign.journal])
        assert code == 4 and "the folder party on the way is a symbolic link" in out, out
        code, out = cli(["--lang", "en", "undo", "--journal", campaign.journal])
        assert code == 4 and "symbolic link" in out, out
    assert (campaign.outside / "ana.yaml").read_text(encoding="utf-8") == "not to be touched\n"


def test_a_sheet_out_of_the_journals_folder_is_refused_before_the_journal_is_made(campaign):
    sub = campaign.folder / "sub"
    sub.mkdir()
    with campaign.inside():
        code, out = save("--char", "lucia.yaml", "--save", "--journal", "sub/journal.sqlite")
    assert code == 2 and "is not in the journal's folder" in out, out
    assert list(sub.iterdir()) == []


def test_a_save_in_a_folder_below_the_journals_is_named_relative_to_it(campaign):
    party = campaign.folder / "party"
    party.mkdir()
    (party / "ana.yaml").write_bytes((campaign.folder / "lucia.yaml").read_bytes())
    with campaign.inside():
        code, out = save("--char", "party/ana.yaml", "--save", "--journal", "journal.sqlite")
    assert code == 0, out
    with Journal(campaign.journal) as journal:
        assert journal.entries()[-1].sheets[0].path == "party/ana.yaml"
    agree(campaign.journal, campaign.folder)


def _entries(campaign) -> int:
    with Journal(campaign.journal, create=False) as journal:
        return len(journal.entries())


# ─── the names themselves ────────────────────────────────────────────────────


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_journal_names_only_plain_relative_files(tmp_path, name):
    with Journal(tmp_path / "journal.sqlite") as journal:
        name = name.replace("{outside}", str(tmp_path))
        try:
            place = journal.place_of(name)
        except JournalError as error:
            assert "not a file in its folder" in str(error.message)
            return
        assert place.path.resolve().is_relative_to(tmp_path.resolve()) or "link" in name
        assert ".." not in place.parts and not os.path.isabs(place.name)


# ─── a lone surrogate in a sheet ─────────────────────────────────────────────


@pytest.mark.parametrize(
    "name, text, where",
    [
        ("s.json", '{\n "rulebook": "brujeria",\n "Pelea": "x\\ud800"\n}\n', "s.json:3:13"),
        ("s.yaml", 'rulebook: brujeria\nPelea: "x\\udc00"\n', "s.yaml:2:10"),
        ("s.yaml", 'Pelea: "x\\U0000d800"\n', "s.yaml:1:10"),
    ],
)
def test_a_lone_surrogate_in_a_sheet_is_a_sheet_error_where_it_is(tmp_path, name, text, where):
    (tmp_path / name).write_text(text, encoding="utf-8")
    code, out = cli(
        ["--lang", "en", "run", "brujeria", "asustarse", "--char", tmp_path / name, "--seed", "1"]
    )
    assert code == 3 and f"{where}: error: a lone surrogate (not a character)" in out, out


def test_a_pair_of_surrogates_is_one_character_and_reads(tmp_path):
    from interpreter.sheets.character import parse_text

    assert parse_text('{"a": "\\ud83d\\ude00"}', "json") == {"a": "\U0001f600"}


def test_a_sheet_with_a_lone_surrogate_printed_as_json_is_our_error(tmp_path):
    import subprocess
    import sys

    data = {"rulebook": "brujeria\ud800", "Fuerza": 2}
    (tmp_path / "s.json").write_text(json.dumps(data), encoding="utf-8")
    argv = ["run", "brujeria", "asustarse", "--char", str(tmp_path / "s.json"), "--json"]
    code = "import sys; from interpreter.cli import main; sys.exit(main())"
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, errors="replace"
    )
    assert done.returncode == 3 and "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout)["error"]["code"] == "invalid_sheet"


@pytest.mark.parametrize("value", ["NULL", "1.5", "a blob"])
def test_a_run_that_names_no_action_gives_our_errors_only(tmp_path, value):
    # found by the hostile-journal property: a NULL action reached the did-you-mean as None
    try_journal(Campaign.made().copy(tmp_path / "j"), ("runs", "action", 0, value))
