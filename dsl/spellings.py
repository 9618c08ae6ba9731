"""Other dice rollers' spellings that do not parse here: the error at them, with ours.

Each pattern is read without backtracking over what it cannot give back (`*+`, `++`), so
that it costs time in proportion to the text it looks at (tests/test_grammar_linear.py)."""

from __future__ import annotations

import re
from fractions import Fraction

from dsl.messages import tr

# a chat command typed with its roll: `/r 1d20+5`, `/roll 4d6kh3` (Roll20, Foundry VTT)
_CHAT_COMMAND = re.compile(r"\s*+(/(?:r|roll|gmroll|gr|br|sr|w)\b)\s*+")
# Roll20's successes with failures: `10d10>5f1` (5 or more succeed, each 1 takes one away)
_TARGET_AND_FAILURE = re.compile(r"(?<![0-9])([0-9]*+[dD][0-9]++)\s*+([><])([0-9]++)f([0-9]++)")
# a group of dice with a modifier it does not take: `{1d20, 1d20}x`, `{2d6}kh1r1`
_GROUP_MODIFIER = re.compile(r"\{(?=[^{}\n]*[dD][0-9%F(])[^{}\n:]*+\}([a-zA-Z!][\w!<>=()-]*+)")
# d20's sets: `(1d4, 1d6, 1d8)kh1`, a group written with parentheses
_D20_SET = re.compile(r"(?<![\w)])\(([^(),\n]*+,[^()\n]*+)\)((?:kh|kl|ph|pl|k|p)[0-9]*+)")
# Roll20's target number on a group: `{1d20, 1d20}>10` counts the rolls of 10 or more
_GROUP_TARGET = re.compile(r"\{((?=[^{}\n]*[dD][0-9%F(])[^{}\n:]*+)\}([><])([0-9]++)")
# AnyDice's position in a pool: `3@4d6` is the third highest of four dice
_ANYDICE_AT = re.compile(r"(?<![\w)])([0-9]++)\s*+@\s*+([0-9]*+[dD][0-9]++)")
# Roll20's inline roll, typed as it is in the chat: `[[1d20+5]]`
_INLINE_ROLL = re.compile(r"\s*+\[\[(?P<roll>(?=[^\[\]]*[dD][0-9%F])[^\[\]]*+)\]\]\s*+")
# a dice modifier set apart from its dice: `4d6 kh3`, `6d10 x` (ours follow the dice at once)
# (`(n)d6x cs>=4` too: a count or a size in parentheses, modifiers of its own before)
_SPACED_MODIFIER = re.compile(
    r"(?<![\w)])((?:[0-9]*+|\([^()\n]*+\))[dD](?:[0-9]++|%|F|\([^()\n]*+\))"
    r"(?:[a-zA-Z]++|!!?+p?+)*+(?:(?:>=|<=|>|<|=)?+(?:-?[0-9]++|\([^()\n]*+\)))?+)[ \t]++"
    r"((?:kh|kl|dh|dl|ro|rr|cs|cf|df|k|x|!)"
    r"(?:[0-9]++|\([^()\n]*+\)|(?:>=|<=|>|<|=)(?:-?[0-9]++|\([^()\n]*+\)))?+)"
    r"(?![\w!<>=])"
)
# a multiplication written with a letter x between two values (`2d6 x 3`, `3 x 2d6`) or ×
_TIMES = re.compile(r"(?<=[\w)\]])[ \t]++([xX])[ \t]++(?=[0-9(]|[dD][0-9%F(])|(×)")
# a number in scientific notation: `1e5`, `1.5e3`, `2.5E-1` (written with its digits here)
_EXPONENT = re.compile(r"(?<![\w.])([0-9]++(?:\.[0-9]++)?+)[eE]([+-]?+[0-9]++)(?![\w.])")
# a word after a lone die (`d20 adv`, `1d20 dis + 5`, `d20 with advantage`: Avrae, D&D
# Beyond), read as advantage when it is one of ADVANTAGE's
_AFTER_DIE = re.compile(
    r"(?<![\w)])1?+[dD](?P<sides>[0-9]++)(?:[ \t]++(?P<with>with))?+[ \t]++(?P<word>[a-zA-Z]++)"
    r"(?![\w])"
)
ADVANTAGE = {"adv": "kh1", "advantage": "kh1", "dis": "kl1", "disadv": "kl1", "disadvantage": "kl1"}
# a keep or a drop in words: `4d6 drop lowest`, `2d20 keep highest 1` (any case)
_WORDED_KEEP = re.compile(
    r"(?<![\w)])([0-9]*+[dD](?:[0-9]++|%|F))[ \t]++([a-zA-Z]++)[ \t]++([a-zA-Z]++)"
    r"(?:[ \t]++([0-9]++))?+(?![\w])"
)
# a reroll or a clamp in words: `3d6 reroll 1`, `10d6 min 2` (any case)
_WORDED_MODIFIER = re.compile(
    r"(?<![\w)])([0-9]*+[dD](?:[0-9]++|%|F))[ \t]++([a-zA-Z]++)[ \t]*+([0-9]++)(?![\w])"
)
#: the words of a reroll or a clamp, and ours (a reroll: once, or again and again)
_MODIFIER_WORDS = {"reroll": ("ro", "rr"), "min": ("min",), "max": ("max",)}
# two sides compared in words: `1d20+5 vs 15`, `2d6 versus 8` (any case)
_VERSUS = re.compile(r"(?<=[\w)\]])[ \t]++([a-zA-Z]++\.?+)[ \t]++(?=[\w(\[])")
# the modifiers a group takes, which come before the one it does not
_GROUP_TAKES = re.compile(r"(?:(?:cs|cf|df)(?:>=|<=|<|>|=)?-?[0-9]++|(?:kh|kl|dh|dl|k|d)[0-9]*+)*+")
# the letters of a modifier a group does not take
_MODIFIER_WORD = re.compile(r"[a-zA-Z!]*+")
#: dice written without their sides (`2d`, `3d + 1`): a count, a d, and no more word
_NO_SIDES = re.compile(r"(?<![\w)])[0-9]++[dD](?![\w%(])")
#: a name changed in place, as C and Python write it (`x += 1`): the name, the operator
_UPDATED = re.compile(r"([^\W\d]\w*+)\s*+([-+*/])=(?!=)[ \t]*+([^\n#]{0,40})")


def _with_digits(mantissa: str, exponent: str) -> str | None:
    """`1.5`, `3` -> `1500`: the number written with its digits, or None when that would be
    long (an exponent of more than one digit)."""
    if len(exponent.lstrip("+-")) > 1:
        return None
    value = Fraction(mantissa) * Fraction(10) ** int(exponent)
    places = 0
    while value.denominator != 1:  # over a power of ten: at most the written places + 9
        value, places = value * 10, places + 1
    digits = str(value.numerator).rjust(places + 1, "0")
    return digits[: len(digits) - places] + ("." + digits[-places:] if places else "")


def _worded(text: str, position: int) -> tuple | None:
    """(message, start, end, hint) for a word other rollers take where we write a modifier
    or an operator: advantage, a keep or a drop spelled out, `vs`."""
    for match in _AFTER_DIE.finditer(text, max(0, position - 40), position + 40):
        keep = ADVANTAGE.get(match.group("word").lower())
        start = match.start("with") if match.group("with") else match.start("word")
        if keep is not None and start <= position < match.end("word"):  # (`d20 with adv`)
            return (
                tr("`{word}` is not part of a roll here", word=text[start : match.end("word")]),
                start,
                match.end("word"),
                tr("here, write {ours}", ours=f"2d{match.group('sides')}{keep}"),
            )
    for match in _WORDED_KEEP.finditer(text, max(0, position - 40), position + 40):
        dice, verb, end, count = match.groups()
        worded = verb.lower() in ("keep", "drop") and end.lower() in ("highest", "lowest")
        if worded and match.start(2) <= position < match.end():
            ours = f"{dice}{verb[0].lower()}{end[0].lower()}{count or 1}"
            return (
                tr("a keep or a drop is written as a modifier after its dice"),
                match.start(2),
                match.end(),
                tr("here, write {ours}", ours=ours),
            )
    for match in _WORDED_MODIFIER.finditer(text, max(0, position - 40), position + 40):
        dice, word, value = match.groups()
        letters_of = _MODIFIER_WORDS.get(word.lower())
        if letters_of is not None and match.start(2) <= position < match.end():
            written = [f"{dice}{letters}{value}" for letters in letters_of]
            return (
                tr("`{word}` is written as a modifier right after its dice", word=word),
                match.start(2),
                match.end(),
                tr("here, write {ours}", ours=written[0])
                if len(written) == 1
                else tr(
                    "rerolled once: {once}; again and again: {again}",
                    once=written[0],
                    again=written[1],
                ),
            )
    for match in _VERSUS.finditer(text, max(0, position - 40), position + 40):
        versus = match.group(1).lower() in ("vs", "vs.", "versus")
        if versus and match.start(1) <= position < match.end(1):
            # (ours is the line with >= in its place: a rulebook's other lines left out)
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.end())
            left = text[line_start : match.start()].strip()
            right = text[match.end() : line_end if line_end >= 0 else len(text)].strip()
            return (
                tr("`{word}` is not an operator here; to compare, write >=", word=match.group(1)),
                match.start(1),
                match.end(1),
                tr("here, write {ours}", ours=f"{left} >= {right}"),
            )
    return None


def condition_after(text: str, position: int) -> tuple | None:
    """(message, start, end, hint) when the statement before the line at `position` ends
    with a condition, as Ruby and Perl write it (`lose 1 from Stress if hurt`): the
    parser read an `if` there and met the next line where its block should open."""
    line_start = text.rfind("\n", 0, position) + 1
    if text[line_start:position].strip() or line_start == 0:
        return None  # (the token does not open its line)
    start = text.rfind("\n", 0, line_start - 1) + 1
    line = text[start : line_start - 1].split("#")[0].rstrip()
    at = start + len(line) - len(line.lstrip())
    if line.lstrip().startswith(("if ", "} else if ", "else if ")) and "{" not in line:
        return (
            tr("an `if` statement's block opens on the line of its condition"),
            at,
            start + len(line),
            tr("here, write {ours}", ours=line.strip() + " {"),
        )
    if_at = line.rfind(" if ")
    statement = line[:if_at].strip() if if_at >= 0 else ""
    condition = line[if_at + 4 :].strip()
    first = statement.split(" ", 1)[0]
    if not statement or not condition or first in ("if", "}", "else", "option") or "{" in line:
        return None
    if first == "let" and "=" in statement:  # `let x = 2 if c`: a value chosen
        name, value = (part.strip() for part in statement[4:].split("=", 1))
        ours = f"let {name} = if {condition} then {value} else ..."
    else:
        ours = f"if {condition} {{ {statement} }}"
    return (
        tr("a condition is not written after a statement here: it comes first"),
        at,
        start + len(line),
        tr("here, write {ours}", ours=ours),
    )


def inline_roll(text: str) -> tuple | None:
    """(message, start, end, hint) when a whole expression is Roll20's inline roll
    `[[1d20+5]]`: it parses here, as a list holding a list, which is seldom what was meant."""
    match = _INLINE_ROLL.fullmatch(text)
    if match is None:
        return None
    return (
        tr("`[[...]]` is Roll20's inline roll; here it is a list holding a list"),
        match.start(),
        match.end(),
        tr("to roll it, write {roll}", roll=match.group("roll").strip()),
    )


def _python_ternary(text: str, position: int) -> tuple | None:
    """`let x = 1 if c else 2` (Python's conditional value), met at its `else`: read from
    the line's text around it (no pattern searched over the line: linear)."""
    if not text.startswith("else", position) or text[position + 4 : position + 5] not in " \t":
        return None
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    line = text[start : end if end >= 0 else len(text)]
    at = position - start
    before = line[:at]
    if_at = before.rfind(" if ")
    named_at = max(before.rfind("=", 0, max(if_at, 0)), before.rfind(":", 0, max(if_at, 0)))
    value = before[named_at + 1 : if_at].strip()
    condition = before[if_at + 4 :].strip()
    other = line[at + 4 :].split("#")[0].strip()
    if if_at < 0 or named_at < 0 or not (value and condition and other):
        return None
    first = (
        start + named_at + 1 + (len(before[named_at + 1 :]) - len(before[named_at + 1 :].lstrip()))
    )
    last = start + at + 4 + len(line[at + 4 :].split("#")[0].rstrip())
    return (
        tr("a value chosen by a condition is written `if ... then ... else ...` here"),
        first,
        last,
        tr("here, write {ours}", ours=f"if {condition} then {value} else {other}"),
    )


def _leading_name(text: str) -> str:
    """The name a text starts with after spaces (`1d die`: `die`), or ''."""
    rest = text.lstrip(" \t")
    if rest == text or not rest[:1].isalpha():
        return ""
    end = 0
    while end < len(rest) and (rest[end].isalnum() or rest[end] == "_"):
        end += 1
    return rest[:end]


def _at_position(text: str, position: int) -> tuple | None:
    """What starts right at `position`: dice without sides (`2d`), AnyDice's power `^`,
    the second `/` of Python's `//` or `=` of `==`, `&&` and `||`, `x += 1`."""
    sideless = _NO_SIDES.match(text, position)
    if sideless is not None:  # `2d`: the count of dice, and no sides after the d
        named = _leading_name(text[sideless.end() : sideless.end() + 120])
        hint = (
            tr(
                "sides held in a name go in parentheses: {example}",
                example=f"{sideless.group()}({named})",
            )
            if named
            else tr("write the sides after the d: {example}", example=sideless.group() + "6")
        )
        return (
            tr("`{term}` has no number of sides", term=sideless.group()),
            position,
            sideless.end(),
            hint,
        )
    if text[position - 1 : position + 1] == "==":  # most languages' comparison
        return (
            tr("`==` is written `=` here"),
            position - 1,
            position + 1,
            tr("as in {example}", example="if r.total = 20 { ... }"),
        )
    for other, ours in (("&&", "and"), ("||", "or")):
        if text[position : position + 2] == other:
            return (
                tr("`{other}` is written `{ours}` here", other=other, ours=ours),
                position,
                position + 2,
                tr("as in {example}", example=f"a > 1 {ours} b < 3"),
            )
    updated = _UPDATED.match(text, position)
    if updated is not None:  # `x += 1`: a `set` here
        name, op, value = updated.groups()
        value = value.strip() or "..."
        if op != "+" and re.search(r"[-+*/\s]", value):  # (`x -= a + b` is x - (a + b))
            value = f"({value})"
        return (
            tr("`{op}=` is not written here: a name changes with `set`", op=op),
            updated.start(2),
            updated.start(2) + 2,
            tr("here, write {ours}", ours=f"set {name} to {name} {op} {value}"),
        )
    if (text.startswith("(", position) and text.endswith("..", 0, position)) or (
        text.startswith("..", position) and text.endswith((")", "]"), 0, position)
    ):  # `1..(n + 1)`, `T[x]..`: an end is written against the dots, a number or a name
        return (
            tr("a range's end is a number or a name, not an expression"),
            position,
            position + 1,
            tr("name it first: {first}, and then {then}", first="let top = n + 1", then="1..top"),
        )
    ternary = _python_ternary(text, position)
    if ternary is not None:
        return ternary
    if text[position - 1 : position + 1] == "//":  # Python's whole-number division
        return (
            tr("`//` is not an operator here; a division rounded down is written floor(a / b)"),
            position - 1,
            position + 1,
            tr("as in {example}; a comment starts with `#`", example="floor(d6 / 2)"),
        )
    if text.startswith("/no", position) and text.endswith("yes", 0, position):  # a type
        return (
            tr("a yes/no value's type is written `bool`"),
            position - 3,
            position + 3,
            tr("as in {example}", example="boon: bool = no"),
        )
    roll20 = _roll20_reference(text, position)
    if roll20 is not None:
        return roll20
    dashed = _dashed_range(text, position)
    if dashed is not None:
        return dashed
    halved = _half_comparison(text, position)
    if halved is not None:
        return halved
    if text[position : position + 1] == "^":  # a power in AnyDice and spreadsheets
        return (
            tr("`^` is not an operator here; a power is written **"),
            position,
            position + 1,
            tr("as in {example}", example="2 ** 3"),
        )
    before = text[max(0, position - 40) : position].rstrip(" \t")
    named = _leading_name(" " + text[position : position + 120])
    if (
        named
        and before[-1:] in ("d", "D")
        and not (before[-2:-1].isalnum() or before[-2:-1] == "_")
    ):
        return (  # `d die`: the d read as a name, then a name after it
            tr(
                "`{term} {name}` is not a die: sides held in a name go in parentheses",
                term=before[-1],
                name=named,
            ),
            position,
            position + len(named),
            tr("here, write {ours}", ours=f"{before[-1]}({named})"),
        )
    return None


def _roll20_reference(text: str, position: int) -> tuple | None:
    """`@{strength}`, Roll20's attribute (a sheet's value read by its name here), and
    `1d4 (bless)`, a word in parentheses after a term (a label, written `1d4[bless]`)."""
    if text.startswith("@{", position):
        end = text.find("}", position, position + 102)
        name = text[position + 2 : end] if end > 0 else ""
        if name and all(c.isalnum() or c in " _'-" for c in name):
            return (
                tr(
                    "`{written}` is Roll20's attribute; here a value is read by its name",
                    written=text[position : end + 1],
                ),
                position,
                end + 1,
                tr("here, write {ours}", ours=name if name.isidentifier() else f"'{name}'"),
            )
    if text.startswith("(", position) and text[:position].endswith((" ", "\t")):
        end = text.find(")", position, position + 42)
        word = text[position + 1 : end] if end > 0 else ""
        term = text[:position].rstrip().rsplit(None, 1)[-1] if text[:position].strip() else ""
        dice = term[:1].isdigit() or (term[:1] in ("d", "D") and term[1:2].isdigit())
        if word.isalpha() and dice and term[-1:].isalnum():  # (after a term: `1d4 (bless)`)
            return (
                tr("a label is written in brackets right after its term"),
                position,
                end + 1,
                tr("here, write {ours}", ours=f"{term}[{word}]"),
            )
    return None


def _dashed_range(text: str, position: int) -> tuple | None:
    """`1-3: "low"` (or `1–3`, a printed table's dash) as a table's key: a range of keys
    is written `1..3`."""
    dash = text[position : position + 1]
    if dash not in ("-", "\u2013", "\u2014") or not text[position - 1 : position].isdigit():
        return None
    start = position
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    end = position + 1
    while end < len(text) and text[end].isdigit():
        end += 1
    if end == position + 1 or not text[end : end + 40].lstrip(" \t").startswith(":"):
        return None
    low, high = text[start:position], text[position + 1 : end]
    return (
        tr("`{written}` is written `{ours}` here", written=text[start:end], ours=f"{low}..{high}"),
        start,
        end,
        tr("a table's row for a range of keys: {example}", example=f'{low}..{high}: "..."'),
    )


#: the comparisons, longest first (`<=` before `<`)
_COMPARISONS = ("<=", ">=", "!=", "<", ">", "=")


def _half_comparison(text: str, position: int) -> tuple | None:
    """`x >= 10 and <= 12`: the second comparison without the value it compares, as
    speech writes it; said with the value written again, or as a range."""
    op = next((c for c in _COMPARISONS if text.startswith(c, position)), None)
    before = text[max(0, position - 80) : position].rstrip()
    joint = before.rsplit(None, 1)[-1] if before else ""
    if op is None or joint not in ("and", "or"):
        return None
    words = before[: -len(joint)].split()
    value = text[position + len(op) : position + len(op) + 40].split(None, 1)
    named = len(words) >= 3 and _plain(words[-3]) and _plain(words[-1]) and value
    if named and words[-2] in _COMPARISONS and _plain(value[0]) and len(words[-3]) <= 40:
        subject, first = words[-3], f"{words[-3]} {words[-2]} {words[-1]}"
        example = f"{first} {joint} {subject} {op} {value[0]}"
        hint = tr("write the value compared again: {example}", example=example)
        if joint == "and" and {words[-2], op} == {">=", "<="}:
            low, high = (words[-1], value[0]) if words[-2] == ">=" else (value[0], words[-1])
            hint = tr("{hint}, or {range}", hint=hint, range=f"{subject} in {low}..{high}")
    else:
        hint = tr("write the value compared again: {example}", example="x >= 10 and x <= 12")
    return (
        tr("`{op}` compares two values: the one before it is missing", op=op),
        position,
        position + len(op),
        hint,
    )


def _plain(word: str) -> bool:
    """A name (`x`, `r.total`) or a number written alone: not dice (read again, they
    would roll again), nor a piece of a parenthesised expression."""
    dice = word[:1] in ("d", "D") and word[1:2].isdigit()
    return (
        bool(word)
        and not dice
        and all(c.isalnum() or c in "._'" for c in word)
        and (word.isdigit() or not word[0].isdigit())
    )


def other_spelling(text: str, position: int) -> tuple | None:
    """(message, start, end, hint) for a syntax error at `position` that is another roller's
    spelling, the span pointing at what differs; None if it is not one we know."""
    command = _CHAT_COMMAND.match(text)
    if command is not None and position <= command.end():
        return (
            tr("`{command}` is the chat's command, not part of the roll", command=command.group(1)),
            command.start(1),
            command.end(1),
            tr("write the roll alone: {roll}", roll=text[command.end() :].strip() or "1d20"),
        )
    for match in _TARGET_AND_FAILURE.finditer(text, max(0, position - 40), position + 40):
        if match.start(2) <= position <= match.end(4):
            term, op, target, failure = match.groups()
            ours = f"{term}cs{op}={target}df={failure}"
            return (
                tr(
                    "`{op}{target}f{failure}` is how Roll20 counts successes and failures",
                    op=op,
                    target=target,
                    failure=failure,
                ),
                match.start(2),
                match.end(4),
                tr("here, write {ours}", ours=ours),
            )
    for match in _TIMES.finditer(text, max(0, position - 40), position + 40):
        at = match.start(1) if match.group(1) else match.start(2)
        if at == position:
            return (
                tr("`{sign}` is not an operator here; to multiply, write *", sign=text[at]),
                at,
                at + 1,
                tr("as in {example}", example="2d6 * 3"),
            )
    at_position = _at_position(text, position)
    if at_position is not None:
        return at_position
    for match in _EXPONENT.finditer(text, max(0, position - 40), position + 40):
        if match.start() <= position < match.end():
            written = _with_digits(*match.groups())
            return (
                tr(
                    "`{number}` is not a number here: a number is written with its digits",
                    number=match.group(),
                ),
                match.start(),
                match.end(),
                tr("here, write {ours}", ours=written) if written else None,
            )
    worded = _worded(text, position)
    if worded is not None:
        return worded
    for match in _SPACED_MODIFIER.finditer(text, max(0, position - 40), position + 40):
        if match.start(2) <= position < match.end(2):
            dice, modifier = match.groups()
            return (
                tr("a dice modifier follows its dice with no space between"),
                match.start(2),
                match.end(2),
                tr("here, write {ours}", ours=dice + modifier),
            )
    for match in _ANYDICE_AT.finditer(text, max(0, position - 40), position + 40):
        if match.start() <= position <= match.end():
            place, pool = match.groups()
            ours = f"highest({pool})" if place == "1" else f"lowest(highest({pool}, {place}))"
            return (
                tr(
                    "`{place}@{pool}` is AnyDice's die at place {place} from the highest",
                    place=place,
                    pool=pool,
                ),
                match.start(),
                match.end(),
                tr("here, write {ours}", ours=ours),
            )
    for match in _D20_SET.finditer(text, max(0, position - 200), position + 200):
        if match.start() <= position < match.end():
            keep = match.group(2).replace("ph", "dh").replace("pl", "dl").replace("p", "dl")
            return (
                tr("a group of rolls is written with braces here, not parentheses"),
                match.start(),
                match.end(),
                tr("as in {example}", example="{" + match.group(1).strip() + "}" + keep),
            )
    for match in _GROUP_TARGET.finditer(text, max(0, position - 200), position + 200):
        if match.start() <= position < match.end():
            inside, op, target = match.groups()
            several = len([p for p in inside.split(",") if p.strip()]) > 1
            ours = (
                f"{{{inside}}}cs{op}={target}" if several else f"({inside.strip()}) {op}= {target}"
            )
            return (
                tr(
                    "in Roll20, `{op}{target}` after a group counts its rolls", op=op, target=target
                ),
                match.start(2),
                match.end(3),
                tr("here, write {ours}", ours=ours),
            )
    for match in _GROUP_MODIFIER.finditer(text, max(0, position - 200), position + 200):
        if match.start() <= position < match.end():
            taken = _GROUP_TAKES.match(match.group(1))  # (both match, if only nothing)
            start = match.start(1) + (taken.end() if taken else 0)
            read = _MODIFIER_WORD.match(text, start)
            word = (read.group() if read else "") or text[start : start + 1]
            return (
                tr("`{modifier}` is not a modifier of a group", modifier=word),
                start,
                start + max(len(word), 1),
                tr(
                    "a group keeps or drops (kh, kl, dh, dl, k, d), then may count (cs, cf,"
                    " df): {example}",
                    example="{1d20+5, 1d20+3}kh1, {3d6, 3d6, 3d6}cs>=10",
                ),
            )
    return None
