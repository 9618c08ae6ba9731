"""What hovering shows.

A keyword's reference entry, a name's definition, a dice term's exact distribution in a
line."""

from __future__ import annotations

import re
from fractions import Fraction

from dsl.errors import RulebookError
from dsl.messages import number_text, percent_text, tr, translate
from dsl.parser import keywords
from interpreter.lsp.analysis import analyse
from interpreter.lsp.navigate import Place, definition
from interpreter.lsp.reference import function_entry, keyword_entry
from interpreter.odds import expression_odds
from interpreter.values import rounded

#: the exact work a hover may spend on a dice term's odds, and the seconds (CPU)
ODDS_BUDGET = 20_000
ODDS_SECONDS = 0.5
#: outcomes listed one by one (a larger term shows its mean and range only)
FACES_SHOWN = 20
#: tokens that are the grammar's words although the tree keeps them
KEYWORD_TOKENS = frozenset(("HEADER_KEY", "TIE_RULE", "ROLL_SIGN", "ADD", "SUBTRACT"))
_WORD = re.compile(r"[^\W\d]\w*")


def hover(text: str, path: str, offset: int) -> dict | None:
    """{start, end, markdown} for the token at `offset`, or None."""
    analysis = analyse(text, path)
    token = analysis.index.token_at(offset)
    if token is None:  # a text that does not parse: its keywords are still known
        return _keyword_at(text, offset)
    markdown = None
    if token.kind == "word" or token.kind in KEYWORD_TOKENS:
        markdown = keyword_entry(token.text)
    elif token.kind in ("DICE", "GROUP"):
        markdown = dice_line(token.text, analysis.language)
    elif token.kind in ("NAME", "QUOTED_NAME"):
        place = definition(text, path, offset)
        if place is not None:
            markdown = describe(place, analysis)
        else:  # a built-in function's name: its entry in the registry
            markdown = function_entry(token.text)
    if markdown is None:
        return None
    return {"start": token.start, "end": token.end, "markdown": markdown}


def describe(place: Place, analysis) -> str:
    """A definition as markdown: what it is, where, its line of code, its comment."""
    site = place.site
    line = place.text.count("\n", 0, site.start) + 1
    line_start = place.text.rfind("\n", 0, site.start) + 1
    line_end = place.text.find("\n", site.start)
    code = place.text[line_start : line_end if line_end >= 0 else len(place.text)].strip()
    where = f"{_short(place.path)}:{line}"
    kind = site.kind or "name"
    parts = [f"**{kind}** `{site.name}` — {where}", f"```rulebook\n{code}\n```"]
    detail = _field_detail(analysis, site.name) if site.kind not in ("parameter", "let") else ""
    if detail:
        parts.append(detail)
    comment = place.index.comment_above(site) if site.kind not in ("parameter", "let") else ""
    if comment:
        parts.append(comment)
    return "\n\n".join(parts)


def _short(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _field_detail(analysis, name: str) -> str:
    """What the checker knows of a sheet field or a table: its kind, range, keys."""
    book = analysis.book
    if book is None:
        return ""
    field = book.fields.get(name)
    if field is not None:
        bounds = getattr(field, "range", None)
        if bounds is not None and (bounds.low is not None or bounds.high is not None):
            low = "" if bounds.low is None else bounds.low
            high = "" if bounds.high is None else bounds.high
            return f"sheet field, {low}..{high}"
        return "sheet field"
    choices = book.choices_of(name)
    if choices:
        shown = ", ".join(str(c) for c in choices[:10]) + (", ..." if len(choices) > 10 else "")
        return f"values: {shown}"
    return ""


def dice_line(term: str, language: str | None = None) -> str | None:
    """A dice term's exact distribution in a line: mean, range, each face's chance (for
    a small term); or why it has none on its own (it reads a name)."""
    try:
        odds = expression_odds(term, budget=ODDS_BUDGET, seconds=ODDS_SECONDS, trials=2_000)
    except RulebookError as error:
        error = (getattr(error, "diagnostics", None) or [error])[0]
        return f"`{term}`: {translate(error.message, language)}"
    probabilities = odds.probabilities
    if not probabilities:
        return None
    head = f"`{term}`"
    if not odds.numeric():
        first = list(probabilities.items())[:FACES_SHOWN]
        faces = ", ".join(f"{k}: {percent_text(p, language, '.2f')}" for k, p in first)
        return f"{head}: {faces}"
    values = sorted(probabilities)
    mean = odds.mean
    said = translate(tr("mean"), language)
    line = f"{head}: {said} {_number(mean, language)}, {values[0]}..{values[-1]}"
    if len(values) <= FACES_SHOWN:
        shown = (f"{v}: {percent_text(probabilities[v], language, '.2f')}" for v in values)
        line += " — " + ", ".join(shown)
    if not odds.exact:
        line += " " + translate(tr("(sampled)"), language)
    elif odds.omitted:
        line += " " + translate(tr("(open-ended: below 10⁻¹² left out)"), language)
    return line


def _number(value, language: str | None) -> str:
    """A mean: `3.5 (7/2)`, three decimals at most; in Spanish `3,5 (7/2)`."""
    if isinstance(value, Fraction) and value.denominator != 1:
        exact = f" ({value})" if value.denominator <= 1000 else ""
        decimals = str(rounded(value, 3)).rstrip("0").rstrip(".")
        return number_text(decimals, language) + exact
    return str(value)


def _keyword_at(text: str, offset: int) -> dict | None:
    for found in _WORD.finditer(text, max(0, offset - 40), offset + 40):
        if found.start() <= offset <= found.end():
            entry = keyword_entry(found.group()) if found.group() in keywords()[0] else None
            if entry is None:
                return None
            return {"start": found.start(), "end": found.end(), "markdown": entry}
    return None
