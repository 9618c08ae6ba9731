"""The page's words for characters made and edited in it (static/js/character.js)."""

from __future__ import annotations

from dsl.messages import tr

CHARACTER_WORDS = (
    tr("New character"),
    tr("Edit values"),
    tr("Create"),
    tr("Name"),
    tr("empty: full"),
    tr("optional"),
    tr("Edit {name}"),
    tr("Save values"),
    tr("of {max}"),
    tr("{name} made (journal entry {entry})"),
    tr("{name}: values saved (journal entry {entry})"),
    tr("{role}: {name}"),
    tr("character made"),
    tr("sheet edited"),
    tr("{who} made the character {character}"),
    tr("{who} set values of {character}: {changes}"),
    tr("skills"),
    tr("new skills"),
    tr("Climbing: 2, Stealth: 1"),
)
