"""The journal at the command line: --save, --save-as, new, log, show, undo, replay,
export, verify, journal verify; and two `rulebook` processes saving one sheet at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import command, run_cli

from interpreter.cli import main
from interpreter.sheets.character import shipped_characters_folder

SHIPPED = shipped_characters_folder()
ROOT = Path(__file__).resolve().parent.parent


#: Menecma casts Grito Báquico (a 7: one point of success, 3 Virtus of 5 spent)
GRITO = "run arcana_mundi usar_numina --set 'numina=Grito Báquico' --dice 3,4"

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A folder to play in, as the current folder (the journal commands read its journal)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fright(capsys, sheet="lucia.yaml", dice="1,1,1,3", *extra):
    return run_cli(
        capsys, "run", "brujeria", "asustarse", "--char", sheet, "--dice", dice, "--save", *extra
    )


def test_save_on_a_shipped_character_exits_2_and_says_how_to_copy_it(capsys, table):
    before = (SHIPPED / "menecma.yaml").read_bytes()
    code, out, err = command(capsys, f"{GRITO} --char menecma --save")
    assert code == 2 and out == ""
    assert "nunca se escribe" in err  # the rulebook is Spanish
    assert "rulebook new menecma menecma.yaml" in err and "--save-as FILE" in err
    assert (SHIPPED / "menecma.yaml").read_bytes() == before
    assert list(table.iterdir()) == []


def test_new_then_save_writes_only_the_changed_value_and_journals_it(
    capsys, table, journal_backend
):
    code, out, _ = run_cli(capsys, "new", "menecma", "menecma.yaml")
    assert code == 0 and "creado menecma.yaml" in out  # (in its rulebook's language)
    original = (SHIPPED / "menecma.yaml").read_text(encoding="utf-8")
    assert (table / "menecma.yaml").read_text(encoding="utf-8") == original
    code, out, _ = command(capsys, f"{GRITO} --char menecma.yaml --save")
    assert code == 0 and "guardado menecma.yaml (diario " in out and "tirada 1)" in out
    saved = (table / "menecma.yaml").read_text(encoding="utf-8")
    assert saved == original.replace("Fides: 3\n", "Fides: 3\ndinamis:\n  Virtus: 2\n")
    files = ["journal.sqlite", "menecma.yaml"] if journal_backend == "sqlite" else ["menecma.yaml"]
    assert sorted(p.name for p in table.iterdir()) == files  # (on PostgreSQL: the database)
    code, _, err = run_cli(capsys, "new", "menecma", "menecma.yaml")
    assert code == 2 and "el fichero ya existe" in err  # (in its rulebook's language)


def test_save_as_writes_a_new_file_and_refuses_an_existing_one(capsys, table):
    args = f"{GRITO} --char menecma"
    code, out, _ = command(capsys, args, "--save-as", "mine.yaml")
    assert code == 0 and "guardado mine.yaml" in out
    assert "Virtus: 2" in (table / "mine.yaml").read_text(encoding="utf-8")
    code, _, err = command(capsys, args, "--save-as", "mine.yaml")
    assert code == 2 and "el fichero ya existe" in err
    code, _, err = command(capsys, args, "--save-as", "x.yaml", "--save")
    assert code == 2


def test_run_json_says_where_it_was_saved(capsys, table, journal_backend):
    run_cli(capsys, "new", "brujeria_investigadora", "lucia.yaml")
    code, out, _ = fright(capsys, "lucia.yaml", "1,1,1,3", "--json")
    data = json.loads(out)
    assert code == 0 and data["saved"]["entry"] == 1
    if journal_backend == "sqlite":
        assert data["saved"]["journal"] == str(table / "journal.sqlite")
    else:  # the database, as --database or $RULEBOOK_DATABASE named it
        assert data["saved"]["journal"] == os.environ["RULEBOOK_DATABASE"]


@pytest.fixture
def played(capsys, table):
    run_cli(capsys, "new", "brujeria_investigadora", "lucia.yaml")
    run_cli(capsys, "new", "brujeria_bruja", "bruja.yaml")
    fright(capsys)  # 1
    command(
        capsys, "run brujeria recibir_daño --char lucia.yaml --set daño=4 --dice '' --save"
    )  # 2
    fright(capsys, "bruja.yaml", "7")  # 3
    fright(capsys, "lucia.yaml", "2")  # 4
    return table


def test_log_lists_the_runs_newest_first(capsys, played):
    code, out, _ = run_cli(capsys, "log")
    lines = out.splitlines()
    assert code == 0 and [line.split()[0] for line in lines] == ["4", "3", "2", "1"]
    assert "lucia.yaml  recibir_daño  daño 4" in lines[2] and "Vida 30 → 26" in lines[2]
    assert "asustarse" in lines[3] and "Esencia 19 → " in lines[3]
    code, out, _ = run_cli(capsys, "log", "bruja")
    assert [line.split()[0] for line in out.splitlines()] == ["3"]
    code, out, _ = run_cli(capsys, "log", "--limit", "1", "--json")
    document = json.loads(out)
    (entry,) = document["entries"]
    assert document["kind"] == "log" and entry["entry"] == 4 and entry["action"] == "asustarse"


def test_show_rebuilds_the_trace_from_the_record(capsys, played):
    code, out, _ = run_cli(capsys, "show", "1")  # in the rulebook's language, as `run`
    assert code == 0
    assert "acción: asustarse(fuente=Ninguna, modificador=0)" in out
    assert "dados: 1, 1, 1, 3  (forzado)" in out
    assert "Chequeo complicado: abierta" in out and "(forzado)" in out
    assert "cambios: Esencia 19 → " in out and "Inconsciente no → sí" in out
    code, out, _ = run_cli(capsys, "show", "1", "--lang", "en")
    assert "action: asustarse(fuente=Ninguna, modificador=0)" in out
    assert "dice: 1, 1, 1, 3  (forced)" in out and out.count("(forced)") > 1  # the trace too
    assert "changes: Esencia 19 → " in out and "Inconsciente no → yes" in out
    code, _, err = run_cli(capsys, "show", "99")
    assert code == 2 and "no tiene la tirada 99" in err  # (the journal's rulebook speaks Spanish)


def test_undo_at_the_command_line(capsys, played):
    lucia = played / "lucia.yaml"
    code, _, err = run_cli(capsys, "undo", "1", "--lang", "en")
    assert code == 4 and "a later run changed it too (2, 4)" in err
    before = lucia.read_text(encoding="utf-8")
    code, out, _ = run_cli(capsys, "undo", "--lang", "en")
    assert code == 0 and out.startswith("undid run 4 (asustarse)") and "entry 5" in out
    assert lucia.read_text(encoding="utf-8") != before
    code, out, _ = run_cli(capsys, "undo", "5")
    assert code == 0 and lucia.read_text(encoding="utf-8") == before
    code, out, _ = run_cli(capsys, "log", "--limit", "2", "--lang", "en")
    assert "undo of run 5" in out and "(undone by 6)" in out


def test_replay_against_the_house_rule(capsys, played):
    argv = ["replay", "--against", "brujeria_miedo_duro", "--all", "--lang", "en"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and out.startswith("replay against Brujería: miedo duro")
    assert "4 runs:" in out and "fail" in out
    lines = {line.split()[0]: line for line in out.splitlines()[1:-1]}
    assert "recibir_daño  the same" in lines["2"]
    code, out, _ = run_cli(capsys, *argv[:-2])  # the house rule's own language
    assert code == 0 and "recibir_daño  igual" in out and "4 tiradas" in out
    code, out, _ = run_cli(
        capsys, "replay", "--against", "brujeria_miedo_duro", "--from", "2", "--to", "3", "--json"
    )
    assert [run["entry"] for run in json.loads(out)["runs"]] == [2, 3]


def test_export_and_verify(capsys, played):
    code, out, _ = run_cli(capsys, "export", "1", "-o", "run1.json")
    assert code == 0
    code, out, _ = run_cli(capsys, "verify", "run1.json", "--lang", "en")
    assert code == 0 and out.startswith("verified: asustarse gives the recorded result")
    record = json.loads((played / "run1.json").read_text(encoding="utf-8"))
    record["dice"] = [1, 1, 1, 4]
    (played / "bad.json").write_text(json.dumps(record), encoding="utf-8")
    code, _, err = run_cli(capsys, "verify", "bad.json", "--lang", "en")
    assert code == 4 and "does not reproduce" in err
    record["rulebook"]["sources"][0]["text"] += "\n# edited"
    (played / "bad.json").write_text(json.dumps(record), encoding="utf-8")
    code, _, err = run_cli(capsys, "verify", "bad.json", "--lang", "en")
    assert code == 3 and "altered" in err


def test_journal_verify_repairs_what_a_killed_save_left(capsys, played):
    (played / ".lucia.yaml.rulebook-0123456789ab.tmp").write_text("half", encoding="utf-8")
    code, out, _ = run_cli(
        capsys,
        "--lang",
        "en",
        "journal",
        "verify",
        "--dry-run",
    )
    assert code == 4 and "PROBLEM" in out
    code, out, _ = run_cli(
        capsys,
        "--lang",
        "en",
        "journal",
        "verify",
        "--rerun",
    )
    assert code == 0 and "repaired" in out
    assert not list(played.glob(".*.tmp"))
    code, out, _ = run_cli(capsys, "--lang", "en", "journal", "verify")
    assert code == 0 and "consistent" in out


def test_dice_typed_in_at_the_table_are_journaled_as_typed(capsys, table, monkeypatch):
    import io

    run_cli(capsys, "new", "brujeria_investigadora", "lucia.yaml")
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n1\n1\n3\n"))
    code, out, _ = run_cli(
        capsys, "run", "brujeria", "asustarse", "--char", "lucia.yaml", "--ask", "--save"
    )
    assert code == 0 and "guardado lucia.yaml" in out
    code, out, _ = run_cli(capsys, "show", "1")
    assert "dados: 1, 1, 1, 3  (a mano)" in out


def test_journal_commands_without_a_journal_say_so(capsys, table):
    code, _, err = run_cli(capsys, "log")
    assert code == 2 and "no journal" in err and "--save" in err


def test_two_rulebook_processes_saving_at_once_lose_nothing(table):
    sheet = table / "lucia.yaml"
    sheet.write_text((SHIPPED / "brujeria_investigadora.yaml").read_text("utf-8"), "utf-8")
    per_process = 8
    program = (
        "import sys\n"
        "from interpreter.cli import main\n"
        "sys.stdin.read(1)\n"  # both start when the test says so
        f"codes = [main(['run', 'brujeria', 'recibir_daño', '--char', 'lucia.yaml',"
        f" '--set', 'daño=1', '--seed', str(i), '--save']) for i in range({per_process})]\n"
        "sys.exit(max(codes))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", program],
            cwd=table,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(2)
    ]
    for process in processes:
        process.stdin.write(b"go")
        process.stdin.close()
    errors = [process.stderr.read().decode() for process in processes]
    codes = [process.wait(timeout=120) for process in processes]
    assert codes == [0, 0], errors
    text = sheet.read_text(encoding="utf-8")
    assert f"Vida: {30 - 2 * per_process}\n" in text
    code = main(["journal", "verify", "--journal", str(table / "journal.sqlite")])
    assert code == 0
    from interpreter.journal import Journal

    with Journal(table / "journal.sqlite") as journal:
        assert len(journal.entries()) == 2 * per_process
