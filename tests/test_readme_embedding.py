"""README.md's Embedding example runs as written: a run, a check, another character, odds,
a choice after the roll, the odds under the best choice, and a journaled save."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from interpreter.choosers import Choice

ROOT = Path(__file__).resolve().parent.parent


def test_the_embedding_example_runs_as_written(tmp_path, monkeypatch, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Embedding\n") :]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    # its files where it looks for them: the repository's, and a sheet of its own to save
    for folder in ("rulebooks", "examples"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    shipped = ROOT / "rulebooks" / "characters" / "brujeria_investigadora.yaml"
    shutil.copy(shipped, tmp_path / "lucia.yaml")
    monkeypatch.chdir(tmp_path)
    names: dict = {}
    exec(compile(code, "README.md", "exec"), names)  # the project's own text, not a user's
    assert "Chequeo sencillo" in capsys.readouterr().out
    # Fate: 4dF [0, 0, -1, 0] + Athletics 2 = 1 against Fair 2: -1 shift, +2 invoked
    invoked = names["invoked"]
    assert invoked.choices == (Choice("invoke", "yes", None, "given"),)
    assert (invoked.result["outcome"], invoked.result["shifts"]) == ("succeed", 1)
    assert names["odds"].exact and names["number"] == 1
    assert (tmp_path / "journal.sqlite").exists()
