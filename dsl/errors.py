"""Errors and warnings that point at the rulebook text: file:line:col, the line, a caret."""

from __future__ import annotations

from bisect import bisect_right

import attrs

from dsl.messages import tr, tr_n, translate
from dsl.suggest import closest
from dsl.unicode_text import DIRECTION_CONTROLS, describe, look_alike


@attrs.frozen
class Source:
    """A text and the name it is shown under (a file path, `<expression>`, ...)."""

    name: str
    text: str = attrs.field(repr=False)
    _starts: list[int] | None = attrs.field(default=None, init=False, eq=False, repr=False)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        starts = self._line_starts()
        line = bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    def _line_starts(self) -> list[int]:
        # Computed once per source, on first use (a trace asks for many lines).
        found = self._starts
        if found is None:
            found = [0]
            find = self.text.find
            position = find("\n")
            while position >= 0:
                found.append(position + 1)
                position = find("\n", position + 1)
            object.__setattr__(self, "_starts", found)
        return found

    def line_text(self, line: int) -> str:
        """The text of a 1-based line (found from the line starts: many errors in one
        long file cost no more than one each)."""
        starts = self._line_starts()
        if not 0 < line <= len(starts):
            return ""
        end = self.text.find("\n", starts[line - 1])
        return self.text[starts[line - 1] : end if end >= 0 else len(self.text)]


@attrs.frozen
class Span:
    """Where a piece of syntax came from: character offsets into a source."""

    source: Source = attrs.field(repr=False)
    start: int
    end: int

    @property
    def line(self) -> int:
        """The 1-based line where the span starts (a trace asks for one a step)."""
        return bisect_right(self.source._line_starts(), max(0, self.start))

    @property
    def column(self) -> int:
        """The 1-based column where the span starts."""
        return self.source.line_col(self.start)[1]

    @property
    def text(self) -> str:
        """The source text the span covers."""
        return self.source.text[self.start : self.end]

    def location(self) -> str:
        """`file:line:col` of the start."""
        line, col = self.source.line_col(self.start)
        return f"{self.source.name}:{line}:{col}"

    def excerpt(self) -> str:
        """The source line and a caret under the span (clipped to that line)."""
        line, col = self.source.line_col(self.start)
        text = self.source.line_text(line)
        end_line, end_col = self.source.line_col(max(self.start, self.end))
        width = (end_col - col) if end_line == line else len(text) - col + 1
        text, col, width = windowed(text, col, width)
        caret = " " * (col - 1) + "^" * max(1, width)
        return f"    {shown(text)}\n    {caret}"

    def to(self, other: Span) -> Span:
        """The span from this one's start to the other's end."""
        return Span(self.source, self.start, max(self.end, other.end))


#: most characters of a source line an excerpt shows (a longer one is cut around the span,
#: showing this many before the span's start)
EXCERPT_WIDTH = 160
EXCERPT_BEFORE = 60


def windowed(text: str, col: int, width: int) -> tuple[str, int, int]:
    """A line to show with a caret under `width` characters from `col` (1-based): a line
    longer than EXCERPT_WIDTH cut around them, with … where it was cut, and where the
    caret then goes (its column and width)."""
    if len(text) <= EXCERPT_WIDTH:
        return text, col, width
    first = max(0, min(col - 1 - EXCERPT_BEFORE, len(text) - EXCERPT_WIDTH))
    cut_before, cut_after = first > 0, first + EXCERPT_WIDTH < len(text)
    text = "…" * cut_before + text[first : first + EXCERPT_WIDTH] + "…" * cut_after
    col = col - first + cut_before
    return text, col, min(width, len(text) - col + 1 - cut_after)


def shown(line: str) -> str:
    """A line as an excerpt shows it, one character for one (the caret stays under its
    place): a terminal's control (ESC, CR, NUL, DEL) as its picture (␛, ␍, ␀, ␡); a C1
    control, a control that would reorder how the line around it is shown (or the
    terminal's next lines), or half a character that no output can hold, as �."""
    if line.isascii() and line.isprintable():
        return line
    return line.translate(_SHOWN)


_SHOWN = dict.fromkeys(map(ord, DIRECTION_CONTROLS), "\ufffd")
_SHOWN.update(dict.fromkeys(range(0xD800, 0xE000), "\ufffd"))
_SHOWN.update({code: chr(0x2400 + code) for code in range(0x20) if chr(code) != "\t"})
_SHOWN[0x7F] = "\u2421"
_SHOWN.update(dict.fromkeys(range(0x80, 0xA0), "\ufffd"))
_SHOWN.update(dict.fromkeys((0x2028, 0x2029), "\ufffd"))


#: Python's stack running out while checking or evaluating: the static bounds keep rules
#: well within it (dsl.check.scope.MAX_CALL_NESTING), but an app deep in its own stack may
#: leave too little; this is what the error says then
TOO_DEEP = tr(
    "the rules nest too deeply for the stack left (calls inside calls, expressions inside "
    "expressions)"
)


class RulebookError(Exception):
    """Base of every error the project raises for bad input.

    `exit_code` is what the command line exits with: 3 for text that is not a valid
    rulebook, expression or sheet; 4 for an evaluation that could not finish. `code` is a
    stable name of the kind of error for programs (the JSON `code`; schema: error).
    `message` and `hint` are texts for people (often `dsl.messages.Message`s);
    `render(language)` shows them in a language, by default the `language` of the
    rulebook the error came from, when it is known.
    """

    exit_code = 3
    code = "invalid_input"
    kind = "error"

    def __init__(self, message: str, span: Span | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint
        self.language: str | None = None  # the rulebook's, set where it is known

    def speak(self, language: str | None) -> RulebookError:
        """Say that this error belongs to a rulebook in `language` (unless already said)."""
        if self.language is None:
            self.language = language
        return self

    def render(self, language: str | None = None, verbose: bool = False) -> str:  # noqa: ARG002 (every error renders with (language, verbose))
        """As a compiler prints it: `file:line:col: error: message`, the line and a caret
        (`verbose` matters only to errors that print shorter without it)."""
        language = language or self.language
        head = f"{self.span.location()}: " if self.span else ""
        text = f"{head}{translate(KINDS.get(self.kind, self.kind), language)}: "
        text += translate(self.message, language)
        if self.span:
            text += "\n" + self.span.excerpt()
        if self.hint:
            text += f"\n    {translate(self.hint, language)}"
        return text

    def __str__(self) -> str:
        return self.render()


#: how the heads of errors and warnings read
KINDS = {"error": tr("error"), "warning": tr("warning")}


class RulebookSyntaxError(RulebookError):
    """The text does not follow the grammar."""

    code = "syntax_error"


class CheckError(RulebookError):
    """The text parses but breaks a static rule: an undefined name, a wrong arity, ..."""

    code = "check_error"


class Diagnostic(RulebookError):
    """One finding of the static checks; `severity` is 'error' or 'warning'."""

    code = "check_error"

    def __init__(self, severity: str, message: str, span: Span | None, hint: str | None = None):
        super().__init__(message, span, hint)
        self.severity = severity
        self.kind = severity


class RulebookInvalid(RulebookError):
    """A rulebook failed its static checks; holds every diagnostic, errors and warnings."""

    code = "invalid_rulebook"

    def __init__(self, diagnostics: list[Diagnostic]):
        errors = [d for d in diagnostics if d.severity == "error"]
        count = len(errors)
        message = tr_n("{n} error in the rulebook", "{n} errors in the rulebook", count)
        super().__init__(message, errors[0].span)
        self.diagnostics = diagnostics

    def speak(self, language: str | None) -> RulebookError:
        for diagnostic in self.diagnostics:
            diagnostic.speak(language)
        return super().speak(language)

    def render(self, language: str | None = None, verbose: bool = False) -> str:  # noqa: ARG002 (every error renders with (language, verbose))
        return "\n".join(d.render(language or self.language) for d in self.diagnostics)


def did_you_mean(name: str, candidates) -> str | None:
    """A `did you mean ...?` hint for a misspelled name, or None (`dsl.suggest`: the
    work it takes is bounded)."""
    close = closest(name, candidates)
    if not close:
        return None
    char = look_alike(name, close[0])
    if char is not None:  # `Fuеrza` for `Fuerza`: the letter that only looks the same
        return tr(
            "did you mean {name}? ({written} has {char})",
            name=_quote(close[0]),
            written=name,
            char=describe(char),
        )
    names = [_quote(c) for c in close]
    if len(names) == 1:
        return tr("did you mean {name}?", name=names[0])
    return tr("did you mean {names} or {last}?", names=", ".join(names[:-1]), last=names[-1])


def _quote(name: str) -> str:
    return name if name.replace("_", "a").isalnum() else f"'{name}'"
