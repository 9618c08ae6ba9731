"""A keyword's entry in the language reference (grammar/README.md), for hovering on it."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from dsl.functions import FUNCTIONS

#: sections of the reference a keyword belongs to, where its heading does not name it
SECTIONS = {
    "rulebook": "The header",
    "system": "The header",
    "source": "The header",
    "language": "The header",
    "extends": "House rules",
    "replace": "House rules",
    "sheet": "The sheet",
    "attribute": "The sheet",
    "skill": "The sheet",
    "skills": "The sheet",
    "resource": "The sheet",
    "counter": "The sheet",
    "flag": "The sheet",
    "group": "The sheet",
    "derived": "The sheet",
    "ensure": "The sheet",
    "catalog": "The sheet",
    "roll": "Named rolls",
    "then": "Expressions",
    "degrees": "Outcomes a check defines itself",
    "against": "Opposed checks",
    "compare": "Opposed checks",
    "tie": "Opposed checks",
    "option": "Choices after the roll",
    "choose": "Choices after the roll",
    "effects": "Lasting effects",
    "effect": "Lasting effects",
    "time": "Lasting effects",
}


@cache
def _reference() -> str:
    return resources.files("grammar").joinpath("README.md").read_text(encoding="utf-8")


@cache
def _sections() -> dict[str, str]:
    """The reference's sections by heading."""
    out: dict[str, str] = {}
    parts = re.split(r"^(#{2,3} .+)$", _reference(), flags=re.MULTILINE)
    for heading, body in zip(parts[1::2], parts[2::2]):
        out[heading.lstrip("#").strip()] = body.strip()
    return out


def keyword_entry(word: str) -> str | None:
    """Markdown for a keyword: its rows of the reference's tables (`let x = e` | its
    meaning), or the start of its section; None for a word the reference does not have."""
    rows = []
    for line in _reference().splitlines():
        cells = (
            [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        )
        if len(cells) >= 2 and re.match(rf"`{re.escape(word)}\b", cells[0]):
            rows.append(f"{cells[0]} — {cells[1]}" if cells[1] else cells[0])
    section = _section_of(word)
    if not rows and section is None:
        return None
    text = "\n\n".join(rows[:4])
    if section is not None:
        heading, body = section
        paragraph = _first_block(body)
        if not rows:
            text = paragraph
        text += f"\n\n*{heading}* (grammar/README.md)"
    return f"**{word}**\n\n{text}"


def function_entry(name: str) -> str | None:
    """Markdown for a built-in function, from its registry entry (dsl.functions)."""
    function = FUNCTIONS.get(name)
    if function is None:
        return None
    forms = ", ".join(f"`{form}`" for form in function.forms)
    return (
        f"**{name}** (built-in function)\n\n{forms} → {function.gives_text()}\n\n"
        f"{function.meaning}\n\n*Built-in functions* (grammar/README.md)"
    )


def _section_of(word: str) -> tuple[str, str] | None:
    sections = _sections()
    heading = SECTIONS.get(word)
    if heading is None:
        heading = next(
            (h for h in sections if re.search(rf"\b{re.escape(word)}", h, re.IGNORECASE)), None
        )
    if heading is None or heading not in sections:
        return None
    return heading, sections[heading]


def _first_block(body: str) -> str:
    """The first paragraph of a section, or its first code block whole."""
    if body.startswith("```"):
        end = body.find("\n```", 3)
        return body[: end + 4] if end >= 0 else body
    return body.split("\n\n")[0].strip()
