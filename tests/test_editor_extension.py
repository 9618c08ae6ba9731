"""The editor extension (editors/vscode/) and the Pygments lexer: every shipped rulebook
highlighted with nothing left unscoped, and no Error token.

The TextMate grammar is run by the engine VS Code runs it with (vscode-textmate on
vscode-oniguruma, from npm: editors/vscode/test/highlight.js); that part needs node and
is skipped without it (CI has it: .ci/run also packages the extension with vsce).
"""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from pygments.token import Error

from dsl.pygments_lexer import RulebookLexer

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "editors" / "vscode"
SHIPPED = sorted([*(ROOT / "rulebooks").glob("*.rules"), *(ROOT / "examples").rglob("*.rules")])


def test_the_extension_declares_the_language_its_grammar_and_its_server():
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    (language,) = package["contributes"]["languages"]
    assert language["id"] == "rulebook" and language["extensions"] == [".rules"]
    (grammar,) = package["contributes"]["grammars"]
    assert grammar["scopeName"] == "source.rulebook"
    assert (EXTENSION / grammar["path"]).is_file()
    configuration = json.loads((EXTENSION / language["configuration"]).read_text("utf-8"))
    assert configuration["comments"] == {"lineComment": "#"}
    assert ["{", "}"] in configuration["brackets"] and ["(", ")"] in configuration["brackets"]
    assert {"open": "[", "close": "]"} in configuration["autoClosingPairs"]
    default = package["contributes"]["configuration"]["properties"]["rulebook.server.command"]
    assert default["default"] == ["rulebook", "lsp"]
    assert "rulebook" in (EXTENSION / "extension.js").read_text(encoding="utf-8")
    # Every npm dependency pinned, and locked.
    for deps in (package["dependencies"], package["devDependencies"]):
        assert all(version[0].isdigit() for version in deps.values()), deps
    lock = json.loads((EXTENSION / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"][""]["dependencies"] == package["dependencies"]


def _node_script(*args: str) -> subprocess.CompletedProcess:
    if shutil.which("node") is None:
        pytest.skip("node is not installed (CI has it)")
    if not (EXTENSION / "node_modules" / "vscode-textmate").is_dir():
        if shutil.which("npm") is None:
            pytest.skip("npm is not installed (CI has it)")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXTENSION, check=True)
    return subprocess.run(
        ["node", "test/highlight.js", *args],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_textmate_grammar_scopes_every_token_of_every_shipped_rulebook():
    done = _node_script(*map(str, SHIPPED))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(SHIPPED) and all(line.endswith("all scoped") for line in lines)


def test_the_textmate_grammar_says_what_it_leaves_unscoped(tmp_path):
    # The check can fail: a character no rule of the grammar takes is reported.
    path = tmp_path / "odd.rules"
    path.write_text("formula f(x: int) = x @ 1\n", encoding="utf-8")
    done = _node_script(str(path))
    assert done.returncode == 1 and "odd.rules:1:22" in done.stdout


def test_the_textmate_grammar_gives_each_kind_of_token_its_scope(tmp_path):
    path = tmp_path / "kinds.rules"
    path.write_text(
        "table Dificultad { Fácil: 5 }  # a comment\nformula f(x: int) = 2d6kh1 + x and yes\n"
        'action a() { note "total {x + 1}" }\n',
        encoding="utf-8",
    )
    done = _node_script("--scopes", str(path))
    scopes = {text: scope for text, scope in json.loads(done.stdout)}
    assert scopes["table"] == ["storage.type.rulebook"]
    assert scopes["Dificultad"] == ["entity.name.function.rulebook"]
    assert scopes["2d6kh1"] == ["constant.numeric.dice.rulebook"]
    assert scopes["# a comment"] == ["comment.line.number-sign.rulebook"]
    assert scopes["and"] == ["keyword.operator.logical.rulebook"]
    assert scopes["yes"] == ["constant.language.rulebook"]
    assert scopes["5"] == ["constant.numeric.rulebook"]
    assert "meta.interpolation.rulebook" in scopes["+"] or scopes["+"] == [
        "keyword.operator.rulebook"
    ]


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pygments_lexer_leaves_no_error_token(path):
    tokens = list(RulebookLexer().get_tokens(path.read_text(encoding="utf-8")))
    assert [value for kind, value in tokens if kind in Error] == []


def test_the_pygments_lexer_reads_dice_as_the_grammar_does():
    kinds = {value: str(kind) for kind, value in RulebookLexer().get_tokens("2d6 + dificultad")}
    assert kinds["2d6"] == "Token.Literal.Number.Dice"
    assert kinds["dificultad"] == "Token.Name"  # a name that starts with d is no die
    assert any(kind in Error for kind, _ in RulebookLexer().get_tokens("x @ 1"))


def test_the_package_registers_the_lexer_and_the_docs_use_it(tmp_path):
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    declared = pyproject["project"]["entry-points"]["pygments.lexers"]["rulebook"]
    assert declared == "dsl.pygments_lexer:RulebookLexer"
    installed = importlib.metadata.entry_points(group="pygments.lexers")
    if "rulebook" not in {entry.name for entry in installed}:
        pytest.skip("the installed package predates the entry point (pip install -e . adds it)")
    from pygments.lexers import get_lexer_by_name

    assert isinstance(get_lexer_by_name("rulebook"), RulebookLexer)
    import pdoc

    pdoc.pdoc("dsl", output_directory=tmp_path)
    page = (tmp_path / "dsl.html").read_text(encoding="utf-8")
    assert '<span class="k">roll</span>' in page or '<span class="kd">roll</span>' in page


def _fenced(path: Path) -> list[tuple[str, str]]:
    """(the fence's language, the block's text) of every fenced block of a Markdown page."""
    blocks, lines, i = [], path.read_text(encoding="utf-8").split("\n"), 0
    while i < len(lines):
        if lines[i].startswith("```"):
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append((lines[i][3:].strip(), "\n".join(lines[i + 1 : end])))
            i = end
        i += 1
    return blocks


PAGES = [ROOT / "README.md", ROOT / "grammar/README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pages_rulebook_blocks_are_marked_and_lexed_without_error(page):
    """A rulebook's text on a page is fenced as ```rulebook (Pygments and GitHub-style
    renderers highlight it with this lexer), and the lexer reads it all."""
    starts = ("rulebook ", "sheet {", "check ", "action ", "formula ", "table ", "opposed ")
    for language, text in _fenced(page):
        first = next((ln for ln in text.splitlines() if ln.strip()), "")
        if language == "" and first.startswith(starts):
            pytest.fail(f"{page.name}: a rulebook's block without ```rulebook: {first!r}")
        if language == "rulebook":
            tokens = RulebookLexer().get_tokens(text)
            assert [value for kind, value in tokens if kind in Error] == [], first
