"""A backtracking matcher of Python's regular expressions that counts its steps.

How much work a match does, the same on any machine under any load. It reads the output
of Python's own parser (`re._parser.parse`) and matches as `_sre` does: alternatives and
repeats tried in sre's order (greedy, lazy, possessive), atomic groups and lookarounds
matched once and never backtracked into, the empty-iteration rule of sre's repeats,
anchors and categories with Unicode or ASCII meaning. Each instruction run and each
backtrack is one step; a match past `limit` steps stops with TooManySteps.

What it does not read it refuses with Unsupported, naming the part: back-references,
conditional groups, IGNORECASE and LOCALE.
"""

from __future__ import annotations

from collections.abc import Callable
from re import _constants as c
from re import _parser as sre

#: copies a repeat (`x{2,5}`) is unrolled to at most: past it, a loop counts its iterations
UNROLL = 64
#: steps one call may take unless told otherwise
LIMIT = 1_000_000

# instructions: (kind, ...) tuples
_CHAR, _SPLIT, _JMP, _MARK, _PROGRESS, _AT, _SUB, _MATCH, _END, _LOOP, _SET, _INC, _RUN = range(13)
# how a sub-program's answer is used
_ATOMIC, _AHEAD, _NOT_AHEAD, _BEHIND, _NOT_BEHIND = range(5)


class Unsupported(ValueError):
    """A part of a pattern this matcher does not read."""


class TooManySteps(Exception):
    """A match went past its limit of steps."""

    def __init__(self, steps: int):
        super().__init__(f"more than {steps} steps")
        self.steps = steps


class Matcher:
    """One pattern compiled to this matcher's instructions. `match`, `fullmatch` and
    `search` answer as `re`'s do (the end of the match, or its span for `search`), and
    leave the steps they took in `steps`."""

    def __init__(self, pattern: str, flags: int = 0, limit: int = LIMIT):
        parsed = sre.parse(pattern, flags)
        if parsed.state.flags & (c.SRE_FLAG_IGNORECASE | c.SRE_FLAG_LOCALE):
            raise Unsupported("IGNORECASE and LOCALE are not read")
        if not isinstance(pattern, str):
            raise Unsupported("bytes patterns are not read")
        self.limit, self.steps = limit, 0
        self._registers = 0
        self._code = self._program(parsed, parsed.state.flags, full=False)
        self._full = self._program(parsed, parsed.state.flags, full=True)

    # ─── answers ───────────────────────────────────────────────────────────────

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> int | None:
        """The end of the match at `pos`, or None."""
        self.steps = 0
        return self._run(self._code, text, pos, _end(text, endpos))

    def fullmatch(self, text: str, pos: int = 0, endpos: int | None = None) -> int | None:
        """The end of a match at `pos` that reaches `endpos`, or None."""
        self.steps = 0
        return self._run(self._full, text, pos, _end(text, endpos))

    def search(self, text: str, pos: int = 0, endpos: int | None = None) -> tuple | None:
        """The span of the first match at `pos` or later, or None."""
        self.steps = 0
        end = _end(text, endpos)
        for start in range(pos, end + 1):
            found = self._run(self._code, text, start, end)
            if found is not None:
                return start, found
        return None

    def count(self, method: str, text: str) -> int:
        """The steps `method` takes on `text` (the limit and one more if it went past)."""
        try:
            getattr(self, method)(text)
        except TooManySteps as stop:
            return stop.steps
        return self.steps

    # ─── the machine ───────────────────────────────────────────────────────────

    def _run(self, code: list, text: str, pos: int, end: int) -> int | None:  # noqa: C901
        # (one case per instruction, in one loop: a call per step would be slower)
        steps, limit = self.steps, self.limit
        stack: list = []
        pc, at, registers = 0, pos, (0,) * self._registers
        while True:
            steps += 1
            if steps > limit:
                raise TooManySteps(steps)
            op = code[pc]
            kind = op[0]
            if kind == _CHAR:
                if at < end and op[1](text[at]):
                    at += 1
                    pc += 1
                    continue
            elif kind == _RUN:  # (_RUN, test, low, high, possessive): one character repeated
                test, start = op[1], at
                last = end if op[3] is None else min(end, at + op[3])
                while at < last and test(text[at]):
                    at += 1
                steps += at - start  # a step for each character taken
                if at - start >= op[2]:
                    if not op[4]:  # what may be given back, the longest first
                        stack.extend((pc + 1, back, registers) for back in range(start + op[2], at))
                    pc += 1
                    continue
            elif kind == _SPLIT:
                stack.append((op[2], at, registers))
                pc = op[1]
                continue
            elif kind == _JMP:
                pc = op[1]
                continue
            elif kind == _MARK:
                index = op[1]
                registers = (*registers[:index], at, *registers[index + 1 :])
                pc += 1
                continue
            elif kind == _PROGRESS:
                pc = op[2] if at == registers[op[1]] else pc + 1
                continue
            elif kind == _AT:
                if op[1](text, at, end):
                    pc += 1
                    continue
            elif kind == _SUB:
                self.steps = steps
                found = self._sub(op, text, at, end)
                steps = self.steps
                if found is not None:
                    at = found
                    pc += 1
                    continue
            elif kind == _MATCH:
                self.steps = steps
                return at
            elif kind == _END:
                if at == end:
                    pc += 1
                    continue
            elif kind == _LOOP:  # (_LOOP, counter, low, high, greedy, exit)
                done = registers[op[1]]
                if done < op[2]:
                    pc += 1
                    continue
                if op[3] is not None and done >= op[3]:
                    pc = op[5]
                    continue
                more, rest = (pc + 1, op[5]) if op[4] else (op[5], pc + 1)
                stack.append((rest, at, registers))
                pc = more
                continue
            elif kind in (_SET, _INC):
                index = op[1]
                value = op[2] if kind == _SET else registers[index] + 1
                registers = (*registers[:index], value, *registers[index + 1 :])
                pc += 1
                continue
            # failed here: back to the last choice left
            if not stack:
                self.steps = steps
                return None
            pc, at, registers = stack.pop()

    def _sub(self, op: tuple, text: str, at: int, end: int) -> int | None:
        """Where a sub-program leaves the text (`at` for an assertion), or None if it
        fails: an atomic group moves on, an assertion only looks."""
        _, code, use, width = op
        if use == _ATOMIC:
            return self._run(code, text, at, end)
        if use in (_AHEAD, _NOT_AHEAD):
            found = self._run(code, text, at, end) is not None
        else:
            start = at - width
            found = start >= 0 and self._run(code, text, start, end) is not None
        return at if found == (use in (_AHEAD, _BEHIND)) else None

    # ─── compiling ─────────────────────────────────────────────────────────────

    def _program(self, items, flags: int, full: bool = False) -> list:
        code: list = []
        self._emit(code, items, flags)
        if full:
            code.append((_END,))
        code.append((_MATCH,))
        return code

    def _emit(self, code: list, items, flags: int) -> None:
        for op, av in items:
            self._item(code, op, av, flags)

    def _item(self, code: list, op, av, flags: int) -> None:
        if op in _ONE_CHARACTER:
            code.append((_CHAR, character_test(op, av, flags)))
        elif op is c.BRANCH:
            self._branch(code, av[1], flags)
        elif op is c.SUBPATTERN:
            _group, add, remove, body = av
            self._emit(code, body, (flags | add) & ~remove)
        elif op is c.ATOMIC_GROUP:
            code.append((_SUB, self._program(av, flags), _ATOMIC, 0))
        elif op in (c.MAX_REPEAT, c.POSSESSIVE_REPEAT) and _one_character(av[2]):
            low, high, body = av
            bound = None if high is c.MAXREPEAT else high
            test = character_test(body[0][0], body[0][1], flags)
            code.append((_RUN, test, low, bound, op is c.POSSESSIVE_REPEAT))
        elif op is c.POSSESSIVE_REPEAT:
            inner: list = []
            self._repeat(inner, av, flags, greedy=True)
            inner.append((_MATCH,))
            code.append((_SUB, inner, _ATOMIC, 0))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            self._repeat(code, av, flags, greedy=op is c.MAX_REPEAT)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            direction, body = av
            if direction == 1:
                use = _AHEAD if op is c.ASSERT else _NOT_AHEAD
            else:
                use = _BEHIND if op is c.ASSERT else _NOT_BEHIND
            width = body.getwidth()[0] if direction != 1 else 0
            code.append((_SUB, self._program(body, flags), use, width))
        elif op is c.AT:
            code.append((_AT, anchor_test(av, flags)))
        else:
            raise Unsupported(f"{op} is not read by this matcher")

    def _branch(self, code: list, branches, flags: int) -> None:
        jumps = []
        for index, branch in enumerate(branches):
            if index < len(branches) - 1:
                split = len(code)
                code.append(None)
                self._emit(code, branch, flags)
                jumps.append(len(code))
                code.append(None)
                code[split] = (_SPLIT, split + 1, len(code))
            else:
                self._emit(code, branch, flags)
        for jump in jumps:
            code[jump] = (_JMP, len(code))

    def _repeat(self, code: list, av, flags: int, greedy: bool) -> None:
        """`low` copies, then either a loop or `high - low` optional copies, each of
        them ended when an iteration matched nothing (sre's rule: an empty iteration
        goes on to what follows, never round again)."""
        low, high, body = av
        unbounded = high is c.MAXREPEAT
        if low > UNROLL or (not unbounded and high > UNROLL):
            self._counted(code, av, flags, greedy)
            return
        for _ in range(low):
            self._emit(code, body, flags)
        nullable = body.getwidth()[0] == 0
        exits = []
        for _ in range(1 if unbounded else high - low):
            top = len(code)
            code.append(None)  # the choice: one more, or what follows
            register = self._new_register() if nullable else None
            if register is not None:
                code.append((_MARK, register))
            self._emit(code, body, flags)
            if register is not None:
                exits.append(len(code))
                code.append((_PROGRESS, register, None))
            if unbounded:
                code.append((_JMP, top))
            exits.append(top)
        done = len(code)
        for index in exits:
            if code[index] is None:
                more = index + 1
                code[index] = (_SPLIT, more, done) if greedy else (_SPLIT, done, more)
            else:
                code[index] = (_PROGRESS, code[index][1], done)

    def _counted(self, code: list, av, flags: int, greedy: bool) -> None:
        """A repeat of many copies as a loop that counts its iterations in a register."""
        low, high, body = av
        counter = self._new_register()
        progress = self._new_register() if body.getwidth()[0] == 0 else None
        code.append((_SET, counter, 0))
        top = len(code)
        code.append(None)
        if progress is not None:
            code.append((_MARK, progress))
        self._emit(code, body, flags)
        check = len(code)
        if progress is not None:
            code.append(None)
        code += [(_INC, counter), (_JMP, top)]
        bound = None if high is c.MAXREPEAT else high
        code[top] = (_LOOP, counter, low, bound, greedy, len(code))
        if progress is not None:
            code[check] = (_PROGRESS, progress, len(code))

    def _new_register(self) -> int:
        self._registers += 1
        return self._registers - 1


def _one_character(body) -> bool:
    """Whether a repeat's body is one character's test (`[a-z]`, `\\d`, `x`)."""
    return len(body) == 1 and body[0][0] in _ONE_CHARACTER


def _end(text: str, endpos: int | None) -> int:
    return len(text) if endpos is None else max(0, min(endpos, len(text)))


_ONE_CHARACTER = (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN)


def character_test(op, av, flags: int) -> Callable[[str], bool]:
    """Whether one character fits a LITERAL, NOT_LITERAL, ANY or IN item."""
    if op is c.LITERAL:
        wanted = chr(av)
        return wanted.__eq__
    if op is c.NOT_LITERAL:
        refused = chr(av)
        return refused.__ne__
    if op is c.ANY:
        return (lambda ch: True) if flags & c.SRE_FLAG_DOTALL else "\n".__ne__
    negate = bool(av) and av[0][0] is c.NEGATE
    tests = [_set_item(item_op, item_av, flags) for item_op, item_av in av[negate:]]
    if negate:
        return lambda ch: not any(test(ch) for test in tests)
    return lambda ch: any(test(ch) for test in tests)


def _set_item(op, av, flags: int) -> Callable[[str], bool]:
    if op is c.LITERAL:
        return chr(av).__eq__
    if op is c.RANGE:
        low, high = av
        return lambda ch: low <= ord(ch) <= high
    if op is c.CATEGORY:
        return category_test(av, flags)
    raise Unsupported(f"{op} in a class is not read by this matcher")


_ASCII_SPACE = frozenset(" \t\n\r\f\v")


def _ascii_word(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def category_test(category, flags: int) -> Callable[[str], bool]:
    """A category as sre reads it: Unicode's digits (decimal), spaces and word
    characters (alphanumeric and `_`), or ASCII's under the ASCII flag."""
    ascii_only = bool(flags & c.SRE_FLAG_ASCII)
    digit = (lambda ch: "0" <= ch <= "9") if ascii_only else str.isdecimal
    space = _ASCII_SPACE.__contains__ if ascii_only else str.isspace
    word = _ascii_word if ascii_only else _word
    tests = {
        c.CATEGORY_DIGIT: digit,
        c.CATEGORY_SPACE: space,
        c.CATEGORY_WORD: word,
        c.CATEGORY_NOT_DIGIT: lambda ch: not digit(ch),
        c.CATEGORY_NOT_SPACE: lambda ch: not space(ch),
        c.CATEGORY_NOT_WORD: lambda ch: not word(ch),
    }
    if category not in tests:
        raise Unsupported(f"{category} is not read by this matcher")
    return tests[category]


def anchor_test(anchor, flags: int) -> Callable[[str, int, int], bool]:
    """Whether an anchor holds at a position of a text that ends at `end` (sre's `^`
    is the text's real beginning, never `pos`)."""
    multiline = bool(flags & c.SRE_FLAG_MULTILINE)
    word = _ascii_word if flags & c.SRE_FLAG_ASCII else _word

    def boundary(text: str, at: int, end: int) -> bool:
        before = at > 0 and word(text[at - 1])
        return before != (at < end and word(text[at]))

    tests: dict = {
        c.AT_BEGINNING_STRING: lambda text, at, end: at == 0,
        c.AT_END_STRING: lambda text, at, end: at == end,
        c.AT_BOUNDARY: lambda text, at, end: end > 0 and boundary(text, at, end),
        c.AT_NON_BOUNDARY: lambda text, at, end: end > 0 and not boundary(text, at, end),
    }
    if multiline:
        tests[c.AT_BEGINNING] = lambda text, at, end: at == 0 or text[at - 1] == "\n"
        tests[c.AT_END] = lambda text, at, end: at == end or text[at] == "\n"
    else:
        tests[c.AT_BEGINNING] = tests[c.AT_BEGINNING_STRING]
        tests[c.AT_END] = lambda text, at, end: at == end or (at == end - 1 and text[at] == "\n")
    if anchor not in tests:
        raise Unsupported(f"{anchor} is not read by this matcher")
    return tests[anchor]
