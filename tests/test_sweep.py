"""`rulebook sweep` and `Engine.sweep` (interpreter.balance.sweep): every case's exact
odds equal `Engine.odds` of that case; the grid's inputs; the cache (resume, corrupt
files refused); the table (CSV, Parquet) and the picture."""

from __future__ import annotations

import csv
import io
import json
import os
from fractions import Fraction
from pathlib import Path

import pytest

import dsl
import interpreter
from interpreter.balance.case_cache import SweepCache
from interpreter.cli import main
from interpreter.sheets.character import parse_text

ROOT = Path(__file__).resolve().parent.parent
WITCH = ROOT / "rulebooks" / "characters" / "brujeria_bruja.yaml"
CLOSED = ROOT / "examples" / "brujeria_dado_cerrado.rules"


@pytest.fixture(scope="module")
def base():
    return interpreter.Engine.of(dsl.load("brujeria"))


@pytest.fixture(scope="module")
def closed():
    return interpreter.Engine.of(dsl.load(CLOSED))


def witch_with(engine, **values):
    data = parse_text(WITCH.read_text(encoding="utf-8"), "yaml")
    return engine.sheet({**data, **values})


def read_csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def run_cli(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_csv_holds_each_cases_exact_odds(capsys, base, closed, tmp_path):
    code, out, _ = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", str(WITCH),
        "--field", "éxito", "--vary", "Voluntad=1..3", "--param", "modificador=-2,0",
        "--compare", str(CLOSED), "--workers", "1", "--cache", str(tmp_path / "cache"),
    )  # fmt: skip
    assert code == 0
    rows = read_csv(out)
    assert len(rows) == 2 * 3 * 2
    assert [r["rulebook"] for r in rows] == ["Brujería"] * 6 + ["Brujería: dado cerrado"] * 6
    for row in rows:
        engine = base if row["rulebook"] == "Brujería" else closed
        sheet = witch_with(engine, Voluntad=int(row["Voluntad"]))
        odds = engine.odds(
            "chequeo_sencillo", sheet, {"modificador": int(row["modificador"])}, "éxito"
        )
        assert Fraction(row["P(éxito=sí)"]) == odds.probability(True)
        assert Fraction(row["P(éxito=no)"]) == odds.probability(False)
        assert float(row["P(éxito=sí) float"]) == float(odds.probability(True))
        assert row["exact"] == "yes" and row["character"] == "brujeria_bruja"
    # a closed d10: tenths; the open die's tails move the odds a little
    assert rows[-1]["P(éxito=sí)"] == "4/5" != rows[5]["P(éxito=sí)"]


def test_engine_sweep_rows_are_a_table(base):
    pandas = pytest.importorskip("pandas")
    rows = base.sweep(
        "chequeo_sencillo",
        witch_with(base),
        params={"dificultad": "all", "modificador": [0, 3]},
        field="total",
        workers=1,
    )
    frame = pandas.DataFrame(rows)
    assert len(frame) == 9 * 2
    assert list(frame["dificultad"].unique())[:2] == ["Rutinario", "Fácil"]
    for row in rows[:4]:
        params = {"dificultad": row["dificultad"], "modificador": row["modificador"]}
        odds = base.odds("chequeo_sencillo", witch_with(base), params, "total")
        assert row["mean"] == odds.mean
        for outcome, p in odds.probabilities.items():
            shown = "none" if outcome is None else outcome
            assert row[f"P(total={shown})"] == p


def test_a_sweep_resumes_from_the_cases_kept(base, tmp_path):
    cache = SweepCache(tmp_path)
    grid = {"params": {"modificador": [-1, 0, 1, 2]}, "field": "éxito", "workers": 1}

    def interrupt(done, total):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        base.sweep("chequeo_sencillo", witch_with(base), cache=cache, on_progress=interrupt, **grid)
    assert len(list(tmp_path.glob("*.json"))) == 2
    seen = []
    resumed = base.sweep(
        "chequeo_sencillo",
        witch_with(base),
        cache=cache,
        on_progress=lambda *p: seen.append(p),
        **grid,
    )
    assert seen[0] == (2, 4)  # two cases were kept: only two left to compute
    assert resumed == base.sweep("chequeo_sencillo", witch_with(base), **grid)
    again = []
    base.sweep(
        "chequeo_sencillo",
        witch_with(base),
        cache=cache,
        on_progress=lambda *p: again.append(p),
        **grid,
    )
    assert again == [(4, 4)]  # a repeated sweep computes nothing


@pytest.mark.parametrize(
    "corrupt",
    [
        b"not json",
        b'{"format": 1}',
        b"[1, 2, 3]",
        b"\xff\xfe",
        "wrong key",
        "huge fraction",
        "a link",
    ],
)
def test_a_corrupt_cache_file_is_refused_and_made_again(base, tmp_path, corrupt):
    cache = SweepCache(tmp_path / "cache")
    grid = {"params": {"modificador": [0]}, "field": "éxito", "workers": 1}
    good = base.sweep("chequeo_sencillo", witch_with(base), cache=cache, **grid)
    (path,) = (tmp_path / "cache").glob("*.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    if corrupt == "wrong key":
        data["key"] = "0" * 64
        path.write_text(json.dumps(data), encoding="utf-8")
    elif corrupt == "huge fraction":
        data["outcomes"][0][1] = "1" * 200_000 + "/3"
        path.write_text(json.dumps(data), encoding="utf-8")
    elif corrupt == "a link":
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_text(json.dumps(data), encoding="utf-8")
        path.unlink()
        os.symlink(elsewhere, path)
    else:
        path.write_bytes(corrupt)
    fresh = SweepCache(tmp_path / "cache")
    assert base.sweep("chequeo_sencillo", witch_with(base), cache=fresh, **grid) == good
    assert fresh.refused == 1
    assert not path.is_symlink()
    assert SweepCache(tmp_path / "cache").get(path.stem) is not None  # written again, whole


def test_a_bad_vary_names_what_would_be_valid(capsys):
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--vary", "Voluntat=1..3", "--no-cache",
    )  # fmt: skip
    assert code == 2
    assert "Voluntat" in err and "Voluntad" in err and "Fuerza" in err
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--vary", "Voluntad=5..1", "--no-cache",
    )  # fmt: skip
    assert code == 2 and "from LOW to HIGH" in err
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--vary", "Voluntad=8..12", "--no-cache",
    )  # fmt: skip
    assert code != 0 and "Voluntad" in err and "Traceback" not in err


def test_a_bad_param_names_its_choices(capsys):
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--param", "dificultad=Facil,Normal", "--no-cache",
    )  # fmt: skip
    assert code == 2 and "Fácil" in err
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--param", "modificador=all", "--no-cache",
    )  # fmt: skip
    assert code == 2 and "modificador" in err
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--param", "modificador=0,1", "--no-cache",
    )  # fmt: skip
    assert code == 2 and "--field" in err and "éxito" in err


def test_a_yes_no_parameter_takes_its_values_as_written(capsys, tmp_path):
    """`--param lucky=true,false` (and sí, no, 1, 0): a bool parameter's values, each case
    equal to its own odds; an answer that is neither is the parameter's error (it raised
    a TypeError joining the choices). A result of one field needs no --field."""
    path = tmp_path / "lucky.rules"
    path.write_text(
        'rulebook "Lucky" { language "en" }\n'
        'action hit(lucky: bool = false) "Hit" {\n'
        "  let d = if lucky then 1d20ro1 else 1d20\n  result { success: d >= 11 }\n}\n",
        encoding="utf-8",
    )
    for written in ("true,false", "sí,no", "1,0"):
        code, out, _ = run_cli(
            capsys, "sweep", str(path), "hit", "--param", f"lucky={written}", "--no-cache",
            "--csv", "-",
        )  # fmt: skip
        rows = read_csv(out)
        assert code == 0 and [row["lucky"] for row in rows] == ["yes", "no"], out
        assert [Fraction(row["P(success=yes)"]) for row in rows] == [
            Fraction(21, 40),
            Fraction(1, 2),
        ]  # (no --field: a result of one field is swept on that field)
    code, _, err = run_cli(
        capsys, "sweep", str(path), "hit", "--param", "lucky=maybe", "--no-cache"
    )
    assert code == 2 and "--param lucky: 'maybe' is not yes or no" in err


def test_a_folder_of_characters_and_a_sheet_of_another_game_left_out(capsys, tmp_path):
    for name in ("brujeria_bruja.yaml", "brujeria_investigadora.yaml", "menecma.yaml"):
        (tmp_path / name).write_text((WITCH.parent / name).read_text(encoding="utf-8"))
    code, out, _ = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", str(tmp_path),
        "--field", "éxito", "--workers", "1", "--no-cache",
    )  # fmt: skip
    assert code == 0
    assert [r["character"] for r in read_csv(out)] == [
        "brujeria_bruja",
        "brujeria_investigadora",
    ]


def test_parquet_and_pictures(capsys, tmp_path):
    pandas = pytest.importorskip("pandas")
    csv_file, parquet = tmp_path / "s.csv", tmp_path / "s.parquet"
    code, _, _ = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--vary", "Voluntad=1..3", "--param", "modificador=-1..1",
        "--compare", str(CLOSED), "--workers", "1", "--no-cache",
        "--csv", str(csv_file), "--parquet", str(parquet),
        "--picture", str(tmp_path / "s.svg"), "--picture", str(tmp_path / "s.png"),
    )  # fmt: skip
    assert code == 0
    table = pandas.read_parquet(parquet)
    rows = read_csv(csv_file.read_text(encoding="utf-8"))
    assert list(table.columns) == list(rows[0])
    assert list(table["P(éxito=sí)"]) == [r["P(éxito=sí)"] for r in rows]
    assert list(table["Voluntad"]) == [int(r["Voluntad"]) for r in rows]
    assert (tmp_path / "s.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--vary", "Voluntad=1..2", "--param", "modificador=-1..1",
        "--param", "dificultad=Normal,Difícil", "--workers", "1", "--no-cache",
        "--picture", str(tmp_path / "t.svg"), "--y", "modificador",
    )  # fmt: skip
    assert code == 2 and "dificultad" in err and not (tmp_path / "t.svg").exists()


@pytest.mark.parametrize("language", ["es", "en", None])
def test_a_pictures_numbers_are_written_as_its_language_writes_them(language):
    pytest.importorskip("matplotlib")
    from matplotlib.ticker import ScalarFormatter

    from interpreter.balance.picture import figure

    def rows(ms) -> list:
        return [
            {"rulebook": "r", "character": "c", "n": n, "m": m, "P(éxito=sí)": Fraction(n, 4)}
            | {"P(éxito=sí) float": n / 4}
            for n in range(1, 4)
            for m in ms
        ]

    lines, heat = figure(rows([1]), language=language), figure(rows([1, 2]), language=language)
    assert len(heat.axes) == 2  # the heatmap and its colour bar
    for axis in (lines.axes[0].yaxis, heat.axes[-1].yaxis):
        written = axis.get_major_formatter()
        if language == "es":  # a decimal comma
            assert written(0.5, 0) == "0,5" and written(0.25, 0) == "0,25"
        else:  # matplotlib's own numbers, with a point
            assert type(written) is ScalarFormatter


def test_the_progress_line_only_on_a_terminal():
    from interpreter.cli.sweep import _progress

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert _progress(io.StringIO(), "en") is None
    stream = Terminal()
    show = _progress(stream, "en")
    show(3, 10)
    show(10, 10)
    assert "3/10 cases done, 7 left" in stream.getvalue()
    assert stream.getvalue().endswith("\n")


def test_a_case_the_rules_refuse_is_a_row_that_says_why(capsys):
    code, out, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--param", "modificador=a,2", "--no-cache", "--workers", "1",
    )  # fmt: skip
    assert code == 0
    refused, counted = read_csv(out)
    assert "modificador" in refused["error"] and "\n" not in refused["error"]
    assert refused["P(éxito=sí)"] == "" and refused["exact"] == ""
    assert counted["error"] == "" and counted["exact"] == "yes"
    assert "1 of 2 cases failed" in err or "1 de 2 casos" in err
    code, _, err = run_cli(
        capsys, "sweep", "brujeria", "chequeo_sencillo", "--char", "brujeria_bruja",
        "--field", "éxito", "--param", "modificador=a,b", "--no-cache", "--workers", "1",
    )  # fmt: skip
    assert code == 4 and "Traceback" not in err


def test_sampled_cases_draw_the_same_dice_on_any_number_of_workers(base):
    # Past its budget a case is sampled, each with a seed split from its own hash: the
    # same rows in one process, in a pool of two, and again.
    grid = {"params": {"modificador": [0, 1, 2, 3]}, "field": "total", "budget": 1, "trials": 300}
    alone = base.sweep("chequeo_sencillo", witch_with(base), workers=1, **grid)
    assert all(not row["exact"] and row["trials"] == 300 for row in alone)
    assert len({row["mean"] for row in alone}) == 4
    assert base.sweep("chequeo_sencillo", witch_with(base), workers=2, **grid) == alone
    assert base.sweep("chequeo_sencillo", witch_with(base), workers=1, **grid) == alone


def test_each_sheet_is_checked_once_for_all_its_cases(base, monkeypatch):
    # the sweep's own cost per case: a sheet (a character at one set of varied values) is
    # checked where the grid is made and once where its cases run, not once per case
    from interpreter.balance import sweep as sweeping

    monkeypatch.setattr(sweeping, "_SHEETS", {})
    witch = base.load_sheet(WITCH)
    made = []
    sheet = type(base).sheet
    monkeypatch.setattr(
        type(base), "sheet", lambda self, *a, **k: made.append(a) or sheet(self, *a, **k)
    )
    rows = base.sweep(
        "chequeo_sencillo",
        witch,
        params={"dificultad": "all"},
        vary={"Voluntad": [2, 3]},
        field="éxito",
        workers=1,
    )
    assert len(rows) == 2 * 9
    assert len(made) == 2 * 2  # two sheets, each checked twice (not 2 + 18 times)
    again = base.sweep(
        "chequeo_sencillo", witch, params={"dificultad": "all"},
        vary={"Voluntad": [2, 3]}, field="éxito", workers=1,
    )  # fmt: skip
    assert again == rows


def test_a_pictures_default_column_is_a_numbers_mean():
    """A damage swept: its mean drawn, not its chance of the first outcome (0)."""
    from interpreter.balance.picture import plotted

    number = [{"x": 1, "P(d=0)": "1/2", "P(d=0) float": 0.5, "mean": "1", "mean float": 1.0}]
    assert plotted(number, None) == "mean float"
    assert plotted(number, "P(d=0)") == "P(d=0) float"
    yes_no = [
        {"x": 1, "P(ok=yes)": "1/2", "P(ok=yes) float": 0.5, "mean": None, "mean float": None}
    ]
    assert plotted(yes_no, None) == "P(ok=yes) float"
