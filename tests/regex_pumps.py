"""Texts built to make a backtracking regular expression work hard, and a measure of how
its work grows with them: what tests/test_grammar_linear.py runs on every terminal of
the grammar, the lexer as a whole, and every pattern the front end applies to text.

A pattern is read with Python's own parser of regular expressions (`re._parser`); for
each part of it that repeats, a *pump* is (prefix, unit, after): a text that leads up
to that part, one pass of it, and what the pattern wants after it. The hard texts are
`prefix + unit * k + after + ending`, with endings that make the match fail at the very
end, so that a matcher that can split the pumped run several ways tries them all.

Work is counted, never timed: the steps of tests/regex_steps.py's backtracking matcher
(which matches as `re` does, in `re`'s order) at 4k units over its steps at k. The
answer is the same on any machine under any load. Sizes double until the text is long
enough or one match takes MAX_STEPS steps, so an exponential case stops within a few
units instead of hanging the test.
"""

from __future__ import annotations

import itertools
import re
import tracemalloc
from collections.abc import Callable
from functools import cache
from re import _constants as c
from re import _parser as sre

import regex_steps

#: characters tried where a class of characters is wanted (the first that fits is used)
POOL = "a1 _-.=<>!()[]{}:,#'\"\\/%+*dDkhlxoprcsfmin\n\t\x00é١"
#: what ends a hard text: each makes some pattern fail only at the end
ENDINGS = ("", "_", "!", "\n", "1", "é", '"')
#: samples kept for any one part of a pattern (its alternatives, its repeats)
SAMPLES = 4
#: characters past which a hard text stops growing (enough for a quadratic match's steps
#: to be ten times a linear one's: the ratios below are then far apart)
MAX_CHARS = 400
#: steps past which one match stops (an exponential case reaches them within a few units;
#: a linear match of MAX_CHARS characters takes a few thousand)
MAX_STEPS = 100_000
#: steps at 4k units over steps at k past which growth is super-linear: linear work is
#: a + b·k, whose ratio is at most 4; quadratic work's tends to 16. Steps are counted, so
#: no noise needs a margin: the limit only leaves room for work that settles late
MAX_RATIO = 6.0
#: bytes one match of `re` may hold, whatever the length of its text (a matcher that
#: keeps a state per character or per repeat held over 100 kB for the texts measured here)
MAX_HELD = 32_000


def _chars_in(items, negate: bool) -> list[str]:
    pattern = sre_class(items)
    fits = [ch for ch in POOL if (re.fullmatch(pattern, ch) is not None) != negate]
    return fits[:SAMPLES]


def sre_class(items) -> str:
    """A regular expression for one character of an IN item list (without NEGATE)."""
    parts = []
    for op, av in items:
        if op is c.LITERAL:
            parts.append(re.escape(chr(av)))
        elif op is c.RANGE:
            parts.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif op is c.CATEGORY:
            parts.append(_CATEGORIES[av])
    return "[" + "".join(parts) + "]" if parts else "[^\\s\\S]"


_CATEGORIES = {
    c.CATEGORY_DIGIT: r"\d",
    c.CATEGORY_NOT_DIGIT: r"\D",
    c.CATEGORY_SPACE: r"\s",
    c.CATEGORY_NOT_SPACE: r"\S",
    c.CATEGORY_WORD: r"\w",
    c.CATEGORY_NOT_WORD: r"\W",
}


def samples(seq) -> list[str]:
    """A few texts that a sequence of parsed items matches (or nearly: assertions and
    anchors are left out)."""
    out = [""]
    for item in seq:
        mine = item_samples(item)
        if not mine:
            return []
        out = [a + b for a, b in itertools.islice(itertools.product(out, mine), SAMPLES)]
    return out


def item_samples(item) -> list[str]:
    op, av = item
    if op is c.LITERAL:
        return [chr(av)]
    if op is c.NOT_LITERAL:
        return [ch for ch in POOL if ord(ch) != av][:SAMPLES]
    if op is c.ANY:
        return ["a"]
    if op is c.IN:
        negate = bool(av) and av[0][0] is c.NEGATE
        return _chars_in(av[1:] if negate else av, negate)
    if op is c.BRANCH:
        found = [s for branch in av[1] for s in samples(branch)[:2]]
        return found[:SAMPLES]
    if op in (c.SUBPATTERN, c.ATOMIC_GROUP):
        return samples(group_body(op, av))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        low, _high, body = av
        once = samples(body)
        if low == 0:
            return ["", *once[: SAMPLES - 1]]
        return [s * low for s in once]
    return [""]  # AT, ASSERT, ASSERT_NOT, GROUPREF: nothing consumed here


def group_body(op, av):
    """The sequence inside a group: a capturing one's, or an atomic one's."""
    return av[3] if op is c.SUBPATTERN else av


def pumps(seq) -> list[tuple[str, str, str]]:
    """(prefix, unit, after) for every repeated part of a sequence, in context."""
    out = []
    for index, item in enumerate(seq):
        inner = item_pumps(item)
        if not inner:
            continue
        before = samples(seq[:index])[:2] or [""]
        after = samples(seq[index + 1 :])[:2] or [""]
        for (prefix, unit, rest), b, a in itertools.product(inner, before, after):
            out.append((b + prefix, unit, rest + a))
    return out


def item_pumps(item) -> list[tuple[str, str, str]]:
    op, av = item
    if op is c.BRANCH:
        return [p for branch in av[1] for p in pumps(branch)]
    if op in (c.SUBPATTERN, c.ATOMIC_GROUP):
        return pumps(group_body(op, av))
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        low, high, body = av
        found = []
        if high > 1:
            units = samples(body)
            # one pass each way, and two ways in turn (`ab` pumps `(?:a|b)*` both ways)
            found += [("", u, "") for u in units if u]
            found += [("", a + b, "") for a, b in itertools.combinations(units, 2) if a and b]
        lead = samples(body)[:1] * max(low, 0)
        found += [(lead[0] if lead else "", u, a) for (_, u, a) in pumps(body)]
        return found
    return []


def hard_texts(pattern: str, flags: int = 0) -> list[tuple[str, str, str]]:
    """(head, unit, tail) triples: `head + unit * k + tail` is hard for `pattern`; the
    shortest units first (the likeliest to be split many ways, so a bad case fails soon)."""
    parsed = sre.parse(pattern, flags)
    found = dict.fromkeys(
        (prefix, unit, rest + ending)
        for prefix, unit, after in pumps(list(parsed))
        for rest in dict.fromkeys((after, ""))
        for ending in ENDINGS
    )
    return sorted(found, key=lambda case: (len(case[1]), len(case[0]) + len(case[2])))


def sizes():
    """Unit counts doubling from one: a case's steps at 4k are compared with its steps at k."""
    k = 1
    while True:
        yield k
        k *= 2


def growth(count: Callable[[int], int], length: Callable[[int], int]) -> tuple:
    """(ratio, k, steps at k): how the steps of `count(k)` grow from k/4 to k units, at
    the largest k reached before MAX_CHARS or before one match took MAX_STEPS steps."""
    steps: dict[int, int] = {}
    for k in sizes():
        steps[k] = count(k)
        if steps[k] > MAX_STEPS or length(k) > MAX_CHARS:
            break
        if k >= 64 and steps[k] < 2 * steps[k // 4]:
            break  # the match does not look at the pumped run: nothing grows with it
    k = max(steps)
    if steps[k] > MAX_STEPS and k >= 8:  # (cut short at MAX_STEPS: the size before decides)
        k //= 2
    if k < 4:  # too few sizes to compare: only a match past MAX_STEPS already is bad
        return (float("inf") if steps[k] > MAX_STEPS else 1.0), k, steps[k]
    return steps[k] / max(steps[k // 4], 1), k, steps[k]


@cache
def matcher(pattern: str, flags: int) -> regex_steps.Matcher:
    """The counting matcher of a pattern (compiled once)."""
    return regex_steps.Matcher(pattern, flags, limit=MAX_STEPS)


def worst_growth(pattern: re.Pattern, cases, method: str = "match") -> Worst:
    """The case whose steps grow fastest, and the one whose match by `re` holds the most
    memory (measured at the largest size counted, where its steps grew); `method` is how the pattern
    is applied (`match` as a lexer does at a position, `search` as a scan does)."""
    counter = matcher(pattern.pattern, pattern.flags)
    apply = getattr(pattern, method)
    worst = Worst()
    for head, unit, tail in cases:

        def count(k, head=head, unit=unit, tail=tail):
            return counter.count(method, head + unit * k + tail)

        ratio, k, _ = growth(count, lambda k, u=unit, h=head, t=tail: len(h) + len(u) * k + len(t))
        if ratio > worst.ratio:
            worst.ratio, worst.case, worst.units = ratio, (head, unit, tail), k
            if ratio > MAX_RATIO:
                break  # one case is enough to fail: the rest are not measured
        if ratio >= 2:  # a match that reads the pumped run (or it holds nothing)
            text = head + unit * k + tail
            held = peak_bytes(lambda text=text: apply(text))
            if held > worst.held:
                worst.held, worst.held_case = held, (head, unit, tail)
    return worst


class Worst:
    """What worst_growth found: the fastest growth (`ratio` at `units` units of `case`)
    and the most memory one match held (`held` bytes, for `held_case`)."""

    def __init__(self):
        self.ratio, self.case, self.units = 0.0, None, 0
        self.held, self.held_case = 0, None

    def __repr__(self) -> str:
        return (
            f"steps x{self.ratio:.1f} from k/4 to k={self.units} units of {self.case!r}; "
            f"{self.held} bytes held by a match of {self.held_case!r}"
        )


def peak_bytes(call: Callable[[], object]) -> int:
    """The most memory Python allocated during one call (the match's own state: its
    text is allocated before)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        call()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
