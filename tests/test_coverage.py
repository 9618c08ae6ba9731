"""rulebooks/COVERAGE.md: every rule of the five texts, linked to the line that encodes it.

Each link `[text](file.rules#L12)` must point at a line holding `text`; the summary's
counts and percentages must be those of the tables; every game must be at 95% or more;
a rule left out (✘) or half done (◐) says why. `--update-golden` moves the line numbers
to where the texts are now (the first line holding each).
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "rulebooks"
COVERAGE = FOLDER / "COVERAGE.md"

LINK = re.compile(r"\[([^\]]+)\]\(([\w/.]+)#L(\d+)\)")
SECTION = re.compile(r"^## (.+?) \(.*?\) — `(\w+\.rules)`$", re.M)
SUMMARY_ROW = re.compile(r"^\| ([^|]+?) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+)% \|", re.M)


def lines_of(name: str) -> list[str]:
    return (FOLDER / name).read_text(encoding="utf-8").splitlines()


def first_line_with(name: str, text: str) -> int | None:
    for number, line in enumerate(lines_of(name), 1):
        if text in line:
            return number
    return None


def test_every_link_points_at_its_text(update_golden):
    document = COVERAGE.read_text(encoding="utf-8")
    wrong = []

    def fix(match):
        text, name, number = match.group(1), match.group(2), int(match.group(3))
        found = first_line_with(name, text)
        assert found is not None, f"{text!r} is on no line of {name}"
        if update_golden:
            return f"[{text}]({name}#L{found})"
        lines = lines_of(name)
        if not (1 <= number <= len(lines) and text in lines[number - 1]):
            wrong.append(f"{name}#L{number}: {text!r} (now at line {found})")
        return match.group(0)

    updated = LINK.sub(fix, document)
    if update_golden:
        COVERAGE.write_text(updated, encoding="utf-8")
    assert not wrong, "run `pytest tests/test_coverage.py --update-golden`:\n" + "\n".join(wrong)
    assert len(LINK.findall(document)) > 300


def sections(document: str) -> dict:
    """Each game's rows: (number, rule, where, status)."""
    found = {}
    starts = list(SECTION.finditer(document))
    for i, start in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(document)
        rows = []
        for line in document[start.end() : end].splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 4 and cells[0].isdigit():
                rows.append(tuple(cells))
        found[start.group(1)] = rows
    return found


def test_the_summary_is_the_tables_and_every_game_is_covered():
    document = COVERAGE.read_text(encoding="utf-8")
    games = sections(document)
    assert set(games) == {
        "Arcana Mundi",
        "Brujería",
        "Pentagrama",
        "Mago",
        "New Gods of Mankind",
    }
    summary = {m.group(1): m for m in SUMMARY_ROW.finditer(document)}
    names = {"New Gods of Mankind": "New Gods"}
    for game, rows in games.items():
        numbers = [int(r[0]) for r in rows]
        assert numbers == list(range(1, len(rows) + 1)), f"{game}: rows out of order"
        status = [r[3][:1] for r in rows]
        assert set(status) <= {"✔", "◐", "✘"}, game
        full, half, out = status.count("✔"), status.count("◐"), status.count("✘")
        coverage = Fraction(2 * full + half, 2 * len(rows))
        row = summary[names.get(game, game)]
        stated = tuple(int(row.group(k)) for k in (2, 3, 4, 5))
        assert stated == (len(rows), full, half, out), f"{game}: the summary says {stated}"
        assert abs(float(row.group(6)) - float(100 * coverage)) < 0.06, game
        assert coverage >= Fraction(95, 100), f"{game}: {float(coverage):.1%}"
        for number, rule, where, state in rows:
            if state[0] in "◐✘":
                assert len(state) > 8, f"{game} #{number}: say why ({rule})"
            if state[0] != "✘":
                assert LINK.search(where), f"{game} #{number}: where is it encoded?"
