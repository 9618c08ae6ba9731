"""The message catalogue kept in step with the code: every `tr` text found, the .po files updated.

    python -m dsl.catalogue           # add new messages to every dsl/locale/*.po, drop old ones
    python -m dsl.catalogue --check   # only say what is missing or untranslated (exit 1)

A message is found by reading the source (`ast`), never by running it: the first
argument of `tr(...)` (and the first two of `tr_n(...)`) must be a literal text.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parent.parent
#: the packages whose messages the catalogue holds
PACKAGES = ("dsl", "interpreter")
LOCALE = Path(__file__).resolve().parent / "locale"
MARKERS = {"tr": 1, "tr_n": 2}
#: the head of every catalogue, the same on every update (no dates: nothing to merge)
HEADER = """\
# Messages of the rulebook interpreter in the language `{language}`.
# The msgid is the English text written in the code with tr() or tr_n();
# docs/messages.md says how to add a message; `python -m dsl.catalogue` updates this file.
msgid ""
msgstr ""
"Language: {language}\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=utf-8\\n"
"Content-Transfer-Encoding: 8bit\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

"""
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*+)[^{}]*+\}(?!\})")


@attrs.frozen
class Found:
    """One message in the code: its English text (and plural), and where it is."""

    msgid: str
    plural: str | None
    file: str
    line: int


def messages_in(path: Path) -> tuple[list[Found], list[str]]:
    """The messages of one source file, and the calls whose text is not a literal."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, bad = [], []
    name = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        marker = node.func.id if isinstance(node.func, ast.Name) else None
        if marker not in MARKERS:
            continue
        texts = [
            t.value
            for t in node.args[: MARKERS[marker]]
            if isinstance(t, ast.Constant) and isinstance(t.value, str)
        ]
        if len(texts) < MARKERS[marker]:
            bad.append(f"{name}:{node.lineno}: {marker}(...) needs literal text")
            continue
        plural = texts[1] if marker == "tr_n" else None
        found.append(Found(texts[0], plural, name, node.lineno))
    return found, bad


def all_messages() -> tuple[list[Found], list[str]]:
    """Every message in the project's packages (in file order), and every bad call."""
    found, bad = [], []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            more, wrong = messages_in(path)
            found += more
            bad += wrong
    return found, bad


def placeholders(text: str) -> set[str]:
    """The `{name}` parameters a template uses."""
    return set(PLACEHOLDER.findall(text))


def catalogues() -> list[Path]:
    return sorted(LOCALE.glob("*.po"))


def problems(path: Path, found: list[Found]) -> list[str]:
    """What a catalogue lacks: messages missing, untranslated, fuzzy, or whose
    translation does not use the same parameters."""
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        catalog = read_po(handle)
    out = [f"{path.name}: written twice: {text.strip()!r}" for text in duplicated(path)]
    for item in _unique(found):
        entry = catalog.get(item.msgid)
        where = f"{item.file}:{item.line}"
        if entry is None:
            out.append(f"{path.name}: missing {item.msgid!r} ({where})")
            continue
        given = entry.string
        strings = tuple(given) if isinstance(given, tuple | list) else (given or "",)
        if not all(strings) or entry.fuzzy:
            out.append(f"{path.name}: untranslated {item.msgid!r} ({where})")
            continue
        wanted = placeholders(item.msgid) | placeholders(item.plural or "")
        for string in strings:
            if placeholders(string) - wanted or (
                item.plural is None and placeholders(string) != wanted
            ):
                out.append(f"{path.name}: {item.msgid!r} → {string!r}: other parameters")
    return out


def duplicated(path: Path) -> list[str]:
    """The msgids a catalogue holds more than once (the reader keeps one silently): each
    as its lines read, its context line first and its continuation lines after."""
    seen: set[str] = set()
    twice = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        if not line.startswith("msgid "):
            continue
        entry = [line]
        if index and lines[index - 1].startswith("msgctxt "):
            entry.insert(0, lines[index - 1])
        for more in lines[index + 1 :]:
            if not more.startswith('"'):
                break
            entry.append(more)
        text = "\n".join(entry)
        if text in seen:
            twice.append(text)
        seen.add(text)
    return twice


def update(path: Path, found: list[Found]) -> None:
    """Add the code's new messages to a catalogue (untranslated) and drop those gone."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    with path.open("rb") as handle:
        catalog = read_po(handle)
    template = Catalog()
    for item in found:
        msgid = item.msgid if item.plural is None else (item.msgid, item.plural)
        template.add(msgid, locations=[(item.file, item.line)], flags=("python-brace-format",))
    catalog.update(template, no_fuzzy_matching=True)
    catalog.obsolete.clear()
    body = io.BytesIO()
    write_po(body, catalog, width=96, omit_header=True, include_lineno=False)
    path.write_bytes(HEADER.format(language=path.stem).encode() + body.getvalue())


def _unique(found: list[Found]) -> list[Found]:
    seen, out = set(), []
    for item in found:
        if item.msgid not in seen:
            seen.add(item.msgid)
            out.append(item)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsl.catalogue", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report; change nothing")
    args = parser.parse_args(argv)
    found, bad = all_messages()
    report = list(bad)
    for path in catalogues():
        if not args.check:
            update(path, found)
        report += problems(path, found)
    for line in report:
        print(line)
    print(f"{len(_unique(found))} messages; {len(report)} problem(s)")
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
