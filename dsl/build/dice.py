"""Building dice terms: the head, each modifier (an error points at the modifier), groups.

A term with a count (`3d6...`) is one token however its modifiers are spelled, so that a
misspelled modifier is an error at that modifier, saying which modifiers there are; a
term without a count (`d6...`) is dice only when its modifiers are (else it is a name,
such as `d20roll`). The spellings of other dice rollers (Roll20, Foundry VTT, d20) are
read as they mean them where this language agrees; where it does not, the term keeps
this language's meaning and carries a note naming the spelling for the other one.
"""

from __future__ import annotations

import re
from typing import Any

from lark import Token

from dsl import nodes as n
from dsl.build.walk import TreeWalk, whole_number
from dsl.errors import RulebookSyntaxError, Span
from dsl.messages import tr

PAREN = r"\((?:[^()\n]++|\([^()\n]*+\))*+\)"
HEAD = re.compile(
    rf"(?P<count>[0-9]++|{PAREN})?[dD](?P<sides>[0-9]++|%|[Ff]|{PAREN}|\{{[^{{}}\n]*+\}})"
)
UNIT = re.compile(rf"(?P<name>[a-zA-Z]++|!!?p?)(?P<op>>=|<=|<|>|=)?(?P<value>-?[0-9]++|{PAREN})?")
#: `2dBoost`, `(n)dAbility[label]`: a pool of a declared die of symbol faces
NAMED = re.compile(
    rf"(?P<count>[0-9]++|{PAREN})[dD](?P<die>[^\W\d]\w*+)(?:\[(?P<label>[^\[\]\n]*+)\])?"
)
LABEL = re.compile(r"\[(?P<label>[^\[\]\n]*+)\]")
#: a listed face: a whole number, or a range of them (`0..9`)
FACE = re.compile(r"(-?[0-9]++)(?:\.\.(-?[0-9]++))?")

#: most faces a die of listed faces may list (d{1..1000000} is a d1000000: write that)
MAX_LISTED = 10_000

KEEPS = {"k": "kh", "kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl", "d": "dl"}
EXPLODES = {"x": ("explode", False), "xo": ("explode", True), "!": ("explode", False)}
EXPLODES.update({"!!": ("compound", False), "!p": ("penetrate", False)})
#: spellings of other dice rollers this language writes otherwise: name → the hint
ELSEWHERE = {
    "r": tr(
        "`r` rerolls once in Foundry VTT but again and again in Roll20: write `ro` to reroll "
        "once or `rr` to reroll while the condition holds (as in 3d6ro=1, 3d6rr<=2)"
    ),
    "e": tr("d20's `e` (explode) is written `x` here: 4d6x=6, or `!` as in Roll20"),
    "ra": tr("d20's `ra` (reroll and add) is an explosion once: write `xo`, as in 1d20xo=20"),
    "mi": tr("d20's `mi` is written `min` here, as in 8d6min2"),
    "ma": tr("d20's `ma` is written `max` here, as in 8d6max5"),
    "p": tr("d20's `p` (drop) is written `d` or `dl` here, as in 4d6dl1 (`dh` drops the highest)"),
    "f": tr(
        "Roll20's `f` counts failures after a success count: write cs...df..., "
        "as in 10d10cs>=6df=1 (each die showing 1 takes a success away)"
    ),
    "sf": tr("Foundry's `sf` is written `df` here, after `cs`: 10d10cs>=6df=1"),
    "ms": tr("a margin of success is a subtraction here: 3d6 - 10"),
    "m": tr("Roll20's matches (`m`) are the sets of a pool here: (5d6).sets, (5d6).largest_set"),
    "mt": tr("Roll20's matches (`mt`) are the sets of a pool here: (5d6).sets"),
}
SIMPLE = {"even", "odd", "s", "sa", "sd"}
NAMES = sorted(
    [*KEEPS, *EXPLODES, "rr", "ro", "cs", "cf", "df", "min", "max", *SIMPLE, *ELSEWHERE],
    key=len,
    reverse=True,
)
AS_IN = tr("as in {example}")
MODIFIERS_HINT = tr(
    "the modifiers: kh kl dh dl k d (keep, drop) · x xo ! !! !p (explode) · rr ro (reroll) · "
    "cs cf df even odd (count) · min max · s sa sd (sort) · [label]"
)
ROLL20_LESS = tr(
    "here `ro{op}{value}` rerolls the dice {which} {value}, not {value} itself (as in Foundry "
    "VTT's `<`); Roll20 rerolls {value} too: for that, write `ro{op}={value}`"
)


class DiceTerms(TreeWalk):
    """The dice terms' builders (part of the Builder)."""

    def _dice(self, span, token):
        return self._dice_term(token)

    def dice_token(self, token: Token) -> n.Dice | n.SymbolDice:
        """The node of a DICE token (a whole dice term with its modifiers)."""
        return self._dice_term(token)

    def _dice_term(self, token: Token) -> n.Dice | n.SymbolDice:
        text = token.value
        head = HEAD.match(text)
        named = NAMED.fullmatch(text)
        if named is not None:
            die = named.group("die")
            if head is None:
                return self._symbol_dice(named, token)
            if die not in ("F", "f"):  # `2dFate`: Fudge dice only if the rest are modifiers
                try:
                    return self._plain_term(token, head)
                except RulebookSyntaxError:
                    return self._symbol_dice(named, token)
        return self._plain_term(token, head)

    def _symbol_dice(self, named, token: Token) -> n.SymbolDice:
        count = self._dice_value(named, "count", token)
        label = named.group("label")
        span = self._token_span(token)
        return n.SymbolDice(count, named.group("die"), label.strip() if label else None, span=span)

    def _plain_term(self, token: Token, head) -> n.Dice:
        text = token.value
        count = self._dice_value(head, "count", token)
        sides = self._sides(head, token)
        self.notes: list[Any] = []  # what the modifiers say of other rollers' spellings
        modifiers, label = self._modifiers(text, head.end(), token, count)
        notes, self.notes = tuple(self.notes), []
        span = self._token_span(token)
        return n.Dice(count, sides, tuple(modifiers), label, notes, span=span)

    def _sides(self, head, token: Token):
        sides_text = head.group("sides")
        if sides_text == "%":
            return 100
        if sides_text in ("F", "f"):  # `4df` as Foundry writes it; `df` alone stays a name
            return "F"
        if sides_text.startswith("{"):
            return self._listed_faces(sides_text, token.start_pos + head.start("sides"))
        sides = self._dice_value(head, "sides", token)
        if (
            isinstance(sides, n.Literal) and type(sides.value) is int
        ):  # (1.5) stays: the checker says so
            sides = sides.value
            if sides < 1:
                raise self._error(tr("a die needs at least one face"), self._token_span(token))
        return sides

    def _listed_faces(self, text: str, start: int) -> tuple:
        """`{1,1,2,3}`, `{-1,0,1}`, `{0..9}`: the faces, in order, repeats kept."""
        faces: list = []
        position = start + 1
        for part in text[1:-1].split(","):
            item = part.strip()
            where = Span(self.source, self.offset + position, self.offset + position + len(part))
            position += len(part) + 1
            match = FACE.fullmatch(item)
            if match is None:
                raise self._error(
                    tr("a listed face is a whole number or a range, not `{item}`", item=item),
                    where,
                    AS_IN.fill(example="d{1,1,2,3}, d{-1,0,1}, d{0..9}"),
                )
            low = whole_number(match.group(1), where)
            high = whole_number(match.group(2), where) if match.group(2) else low
            if high < low or len(faces) + high - low + 1 > MAX_LISTED:
                raise self._error(
                    tr("a die lists from 1 to {most} faces", most=MAX_LISTED),
                    where,
                    tr("write d6 for the faces 1 to 6"),
                )
            faces.extend(range(low, high + 1))
        return tuple(faces)

    def _modifiers(self, text: str, position: int, token: Token, count) -> tuple:
        modifiers: list = []
        label = None
        while position < len(text):
            found = LABEL.match(text, position)
            if found is not None:
                if found.end() != len(text):
                    raise self._error(
                        tr("a label ends the dice term"),
                        self._part_span(token, found.start(), found.end()),
                        AS_IN.fill(example="2d6[fire] + 1d4[cold]"),
                    )
                label = found.group("label").strip()
                break
            unit = UNIT.match(text, position)
            if unit is None:
                raise self._error(
                    tr("this is not a dice modifier"),
                    self._part_span(token, position, len(text)),
                    MODIFIERS_HINT,
                )
            for piece, start, end in self._pieces(unit, token):
                last = end == unit.end("name")
                modifiers.append(self._modifier(piece, unit if last else None, token, start, count))
            position = unit.end()
        self._check_counts(modifiers)
        return modifiers, label

    def _pieces(self, unit, token: Token):
        """A run of letters split into modifier names, longest first (`xkh` is x, kh)."""
        name, start = unit.group("name"), unit.start("name")
        folded = name.lower()
        at = 0
        while at < len(name):
            piece = next((p for p in NAMES if folded.startswith(p, at)), None)
            if piece is None:
                raise self._error(
                    tr("`{name}` is not a dice modifier", name=name[at:]),
                    self._part_span(token, start + at, start + len(name)),
                    MODIFIERS_HINT,
                )
            yield piece, start + at, start + at + len(piece)
            at += len(piece)

    def _modifier(self, name: str, unit, token: Token, start: int, count):
        end = unit.end() if unit is not None else start + len(name)
        span = self._part_span(token, start, end)
        op = unit.group("op") if unit is not None else None
        value = self._dice_value(unit, "value", token) if unit is not None else None
        if name in ELSEWHERE:
            raise self._error(
                tr("`{name}` is not a modifier here", name=name), span, ELSEWHERE[name]
            )
        if name in KEEPS:
            if op is not None:
                raise self._error(
                    tr(
                        "`{name}` keeps or drops a number of dice: {name}2, not {written}",
                        name=name,
                        written=span.text,
                    ),
                    span,
                    tr("d20's k>3 (keep the dice above 3) is not written here"),
                )
            if name == "k" and value is not None:
                self.notes.append(
                    (
                        tr(
                            "`k{value}` keeps the {value} highest dice (as in Roll20 and Foundry "
                            "VTT); in d20 it keeps the dice showing {value}",
                            value=value.span.text,
                        ),
                        tr("write kh{value} to say it plainly", value=value.span.text),
                        span,
                    )
                )
            return n.Keep(KEEPS[name], value, span=span)
        if name in SIMPLE:
            if op is not None or value is not None:
                raise self._error(tr("`{name}` takes no value", name=name), span)
            if name in ("even", "odd"):
                return n.CountSuccesses(n.Condition(name, None, span=span), span=span)
            return n.Sort(name == "sd", span=span)
        if name in ("min", "max"):
            if op is not None or value is None:
                raise self._error(
                    tr("`{name}` takes a value: {name}2", name=name), span, MODIFIERS_HINT
                )
            return n.Clamp(name, value, span=span)
        condition = self._condition(name, op, value, span)
        if name in EXPLODES:
            style, once = EXPLODES[name]
            return n.Explode(once, condition, style, span=span)
        if condition is None:
            raise self._error(
                tr(
                    "`{name}` needs the faces it applies to: {name}=1, {name}<=2, {name}>=6",
                    name=name,
                ),
                span,
            )
        if name in ("rr", "ro"):
            return n.Reroll(name == "ro", condition, span=span)
        if name == "df":
            return n.CountFailures(condition, span=span)
        if name == "cs" and (count is None or (isinstance(count, n.Literal) and count.value == 1)):
            self.notes.append(
                (
                    tr(
                        "in Roll20, cs only marks a critical success; here (as in Foundry VTT) "
                        "the term's value is how many dice meet the condition"
                    ),
                    tr("for a plain roll with a critical on 20, write 1d20 and compare it"),
                    span,
                )
            )
        return n.CountSuccesses(condition, name == "cf", span=span)

    def _condition(self, name: str, op, value, span) -> n.Condition | None:
        """The faces a modifier applies to; a bare number is `=`; Roll20's `!>4` is >=."""
        if value is None:
            if op is not None:
                raise self._error(tr("`{name}{op}` needs a face after it", name=name, op=op), span)
            return None
        if op is None:
            op = "="
        if name.startswith("!") and op in (">", "<"):
            op += "="  # Roll20 reads `!>4` as 4 or more
        elif name == "ro" and op in (">", "<"):
            self.notes.append(
                (
                    ROLL20_LESS.fill(
                        op=op,
                        value=value.span.text,
                        which=tr("above") if op == ">" else tr("below"),
                    ),
                    None,
                    span,
                )
            )
        return n.Condition(op, value, span=span)

    def _check_counts(self, modifiers: list) -> None:
        counting = [m for m in modifiers if isinstance(m, n.CountSuccesses)]
        if len(counting) > 1:
            hint = None
            if counting[1].failures and not counting[0].failures:  # Roll20's `cs>95cf<5`
                hint = tr(
                    "to take a success away for each failure, write df: {example}",
                    example=counting[0].span.text + "df" + counting[1].span.text[2:],
                )
            raise self._error(
                tr("a dice term counts its dice once (one of cs, cf, even, odd)"),
                counting[1].span,
                hint,
            )
        for index, modifier in enumerate(modifiers):
            if not isinstance(modifier, n.CountFailures):
                continue
            before = [m for m in modifiers[:index] if isinstance(m, n.CountSuccesses)]
            if not before or before[0].failures:
                raise self._error(
                    tr("`df` takes successes away, so it needs a `cs` before it"),
                    modifier.span,
                    AS_IN.fill(example="10d10cs>=6df=1"),
                )
            if any(isinstance(m, n.CountFailures) for m in modifiers[:index]):
                raise self._error(tr("a dice term has one `df`"), modifier.span)

    def _part_span(self, token: Token, start: int, end: int) -> Span:
        base = self.offset + (token.start_pos or 0)  # (a token of the parser's has one)
        return Span(self.source, base + start, base + end)

    def _dice_value(self, match, group: str, token: Token):
        text = match.group(group)
        if text is None:
            return None
        start = match.start(group)
        if text.startswith("("):
            return self._sub_expression(text[1:-1], token.start_pos + start + 1)
        span = self._part_span(token, start, match.end(group))
        negative = text.startswith("-")
        value = whole_number(text[1:] if negative else text, span)
        return n.Literal(-value if negative else value, span=span)

    # ─── groups: {1d20+5, 1d20+3}kh1, {4d6+3d8}k4 ───────────────────────────

    def _group_roll(self, span, token):
        text = token.value
        close = matching_brace(text)
        items = []
        for start, end in top_level_parts(text, 1, close):
            part = text[start:end]
            if not part.strip():
                raise self._error(
                    tr("an empty roll in a group"),
                    self._part_span(token, start, max(end, start + 1)),
                    AS_IN.fill(example="{1d20+5, 1d20+3}kh1"),
                )
            items.append(self._sub_expression(part, token.start_pos + start))
        self.notes = []
        modifiers, label = self._modifiers(text, close + 1, token, None)
        self.notes = []
        counted = False
        for modifier in modifiers:
            counts = isinstance(modifier, n.CountSuccesses | n.CountFailures)
            if label is not None or not (counts or isinstance(modifier, n.Keep)):
                raise self._error(
                    tr(
                        "a group of rolls keeps or drops (kh, kl, dh, dl, k, d), then may count"
                        " (cs, cf, df)"
                    ),
                    modifier.span,
                    AS_IN.fill(example="{1d20+5, 1d20+3}kh1, {4d6+3d8}k4, {3d6, 3d6, 3d6}cs>=10"),
                )
            if counts and len(items) == 1:
                raise self._error(
                    tr("a group of one roll keeps dice; to count dice, count them in each term"),
                    modifier.span,
                    AS_IN.fill(example="4d6cs>=5 + 3d8cs>=5"),
                )
            if counted and isinstance(modifier, n.Keep):
                raise self._error(tr("a group keeps or drops before it counts"), modifier.span)
            counted = counted or counts
        return n.RollGroup(tuple(items), tuple(modifiers), span=self._token_span(token))


def matching_brace(text: str) -> int:
    depth = 0
    for index, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return len(text) - 1


def top_level_parts(text: str, start: int, end: int) -> list:
    """(start, end) of the comma-separated parts of text[start:end], outside brackets."""
    parts, depth, begin = [], 0, start
    for index in range(start, end):
        char = text[index]
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append((begin, index))
            begin = index + 1
    parts.append((begin, end))
    return parts
