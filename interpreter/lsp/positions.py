"""Character offsets into a text, and the positions editors speak in.

LSP and the browser count a character in UTF-16 code units (an emoji is two)."""

from __future__ import annotations


def offset_of(text: str, line: int, character: int) -> int:
    """The offset of a 0-based line and UTF-16 character (clamped to the text)."""
    start = 0
    for _ in range(max(0, line)):
        found = text.find("\n", start)
        if found < 0:
            return len(text)
        start = found + 1
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    units = 0
    for index in range(start, end):
        if units >= character:
            return index
        units += 2 if ord(text[index]) > 0xFFFF else 1
    return end


def position_of(text: str, offset: int) -> tuple[int, int]:
    """The 0-based line and UTF-16 character of an offset."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return line, sum(2 if ord(c) > 0xFFFF else 1 for c in text[start:offset])


def utf16_to_offset(text: str, units: int) -> int:
    """The offset of a position counted in UTF-16 units from the start (a browser's)."""
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def offset_to_utf16(text: str, offset: int) -> int:
    """An offset counted in UTF-16 units from the start."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text[: max(0, offset)])
