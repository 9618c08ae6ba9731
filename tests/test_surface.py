"""A message names an option as its reader writes it: `--budget N` on the command line,
`"budget": N` in a request, `budget=N` in Python (interpreter.surface)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from web_client import page_client

import dsl
from dsl.errors import RulebookError
from interpreter import Engine, surface
from interpreter.balance import parallel
from interpreter.cli.main import main
from interpreter.web import create_app

ROOT = Path(__file__).resolve().parent.parent
BRUJERIA = ROOT / "rulebooks/brujeria.rules"


def _refusal(call) -> RulebookError:
    with pytest.raises(RulebookError) as raised:
        call()
    return raised.value


def test_python_callers_read_the_keyword_arguments():
    engine = Engine(dsl.load(BRUJERIA))
    sheet = engine.load_sheet(ROOT / "rulebooks/characters/brujeria_bruja.yaml")
    error = _refusal(lambda: engine.odds("abierta", sheet, field="total"))
    assert "leave out field=" in error.message and "--" not in error.message
    error = _refusal(lambda: engine.sweep("nadie", [sheet]))
    assert error.message.startswith("action= nadie")


def test_the_command_line_reads_its_options(capsys):
    assert main(["odds", str(BRUJERIA), "abierta", "--field", "total", "--lang", "en"]) != 0
    assert "leave out --field" in capsys.readouterr().err


def test_a_request_reads_its_keys(tmp_path):
    shutil.copy(ROOT / "rulebooks/characters/brujeria_bruja.yaml", tmp_path / "bruja.yaml")
    body = {
        "rulebook": "brujeria",
        "action": "abierta",
        "character": "bruja",
        "field": "total",
        "lang": "en",
    }
    with page_client(create_app(tmp_path), base_url="http://127.0.0.1:8000") as client:
        answer = client.post("/api/odds", json=body).json()
    message = answer["error"]["message"]
    assert 'leave out "field"' in message and "--" not in message


@pytest.mark.parametrize("spelled", surface.SURFACES)
def test_work_handed_to_other_processes_keeps_the_callers_words(spelled):
    expected = surface.SPELLINGS["budget"][surface.SURFACES.index(spelled)]
    with surface.spelled_for(spelled):
        # two workers: the tasks after the first run in a process pool
        words = parallel.map_tasks(surface.option, ["budget"] * 3, workers=2)
        assert words == [expected] * 3
    assert surface.current() == surface.PYTHON  # put back as it was


def test_an_unknown_surface_is_refused():
    with pytest.raises(ValueError, match="no surface"), surface.spelled_for("telepathy"):
        pass
