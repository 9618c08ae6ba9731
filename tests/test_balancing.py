"""docs/balancing.md: the house rule shown is the one shipped, every command on the page
prints the lines shown (the one given a Dask scheduler against a real local cluster),
and its Python runs."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from interpreter.cli import main

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "balancing.md"
TEXT = PAGE.read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```(\w*)\n(.*?)^```$", TEXT, flags=re.S | re.M)


def commands() -> list:
    """(argv, the output lines shown) of every command on the page."""
    out = []
    for _, block in BLOCKS:
        if not block.startswith("$ "):
            continue
        lines = block.splitlines()
        command = lines.pop(0)
        while command.endswith("\\"):
            command = command[:-1] + " " + lines.pop(0).strip()
        argv = shlex.split(command[2:])
        assert argv[0] == "rulebook"
        out.append((argv[1:], lines))
    return out


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A folder to run the page's commands in, as from the repository's root: its files
    written there, the cache under it."""
    for name in ("examples", "rulebooks"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path


def test_the_house_rule_shown_is_the_one_shipped():
    (shown,) = [block for kind, block in BLOCKS if kind == "rulebook"]
    shipped = (ROOT / "examples" / "brujeria_dado_cerrado.rules").read_text(encoding="utf-8")
    code = [line for line in shipped.splitlines() if line and not line.startswith("#")]
    assert shown.splitlines() == code


def test_the_page_has_its_commands():
    assert len(commands()) == 6
    assert (ROOT / "docs" / "balancing.png").is_file()


LOCAL = [c for c in commands() if not any(a.startswith("--scheduler") for a in c[0])]
CLUSTER = [c for c in commands() if c not in LOCAL]


@pytest.mark.parametrize(("argv", "shown"), LOCAL, ids=lambda v: " ".join(v)[:50])
def test_every_command_prints_what_the_page_shows(argv, shown, here, capsys):
    assert main([*argv, "--workers", "1"] if argv[0] == "sweep" else argv) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    for line in shown:
        assert line.rstrip() in printed, line
    for name in (a for i, a in enumerate(argv) if argv[i - 1] == "--picture"):
        assert (here / name).stat().st_size > 1000


def test_the_cluster_command_on_a_real_local_cluster(here, capsys):
    distributed = pytest.importorskip("distributed")
    ((argv, shown),) = CLUSTER
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        at = argv.index("--scheduler") + 1
        assert main([*argv[:at], cluster.scheduler_address, *argv[at + 1 :]]) == 0
    printed = [line.rstrip() for line in capsys.readouterr().out.splitlines()]
    assert len(printed) == 1 + 6
    for line in shown:
        assert line.rstrip() in printed, line


def test_the_python_runs(here):
    (code,) = [block for kind, block in BLOCKS if kind == "python"]
    exec(compile(code, str(PAGE), "exec"), {})  # the page's own code, as a reader runs it
