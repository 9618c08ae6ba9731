"""Texts built to make a backtracking regular expression work hard, and a measure of how
its time grows with them: what tests/test_grammar_linear.py runs on every terminal of
the grammar, the lexer as a whole, and every pattern the front end applies to text.

A pattern is read with Python's own parser of regular expressions (`re._parser`); for
each part of it that repeats, a *pump* is (prefix, unit, after): a text that leads up
to that part, one pass of it, and what the pattern wants after it. The hard texts are
`prefix + unit * k + after + ending`, with endings that make the match fail at the very
end, so that a matcher that can split the pumped run several ways tries them all.

Time is measured as growth, never against a wall-clock bound: the time at 4k units
over the time at k, the least of several repeats. Sizes grow one unit at a time at
first and stop growing once one match is slow, so that an exponential case is seen
(and fails) within a fraction of a second instead of hanging the test.
"""

from __future__ import annotations

import itertools
import re
import time
import tracemalloc
from collections.abc import Callable
from re import _constants as c
from re import _parser as sre

#: characters tried where a class of characters is wanted (the first that fits is used)
POOL = "a1 _-.=<>!()[]{}:,#'\"\\/%+*dDkhlxoprcsfmin\n\t\x00é١"
#: what ends a hard text: each makes some pattern fail only at the end
ENDINGS = ("", "_", "!", "\n", "1", "é", '"')
#: samples kept for any one part of a pattern (its alternatives, its repeats)
SAMPLES = 4
#: characters past which a hard text stops growing (linear matching of it takes < 1 ms)
MAX_CHARS = 16_000
#: one match slower than this stops the growth: the sizes measured so far decide
SLOW = 0.02
#: time at 4k units over time at k past which growth is super-linear (linear is 4,
#: quadratic 16; noise on a loaded machine stays well under 8 once times are measurable)
MAX_RATIO = 8.0
#: bytes one match may hold, whatever the length of its text (a matcher that keeps a
#: state per character or per repeat held megabytes for the texts measured here)
MAX_HELD = 64_000
#: the time below which a match is too fast to tell linear from quadratic: such a case
#: passes (even a quadratic one is then harmless at MAX_CHARS)
FLOOR = 0.0005


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


def seconds(call: Callable[[], object], repeats: int = 5, least: float = 0.002) -> float:
    """The time of one call: the least of `repeats` runs of a loop of calls long enough
    to measure (at least `least` seconds)."""
    number = 1
    while True:
        started = time.thread_time()
        for _ in range(number):
            call()
        spent = time.thread_time() - started
        if spent >= least or number >= 1 << 16:
            break
        number *= 4
    best = spent / number
    for _ in range(repeats - 1):
        started = time.thread_time()
        for _ in range(number):
            call()
        best = min(best, (time.thread_time() - started) / number)
    return best


def sizes():
    """Unit counts growing by an eighth at most (one by one up to 8) until 64, where an
    exponential case has long been slow and seen; then doubling."""
    k = 1
    while True:
        yield k
        k += max(1, k // 8) if k < 64 else k


def growth(make: Callable[[int], Callable[[], object]], length: Callable[[int], int]) -> tuple:
    """(ratio, k, seconds at k): how the time of `make(k)()` grows from k/4 to k units,
    at the largest k reached before MAX_CHARS or before one call took SLOW seconds.
    Times are this thread's CPU time (the machine's other load does not count); a ratio
    past MAX_RATIO in the first look is measured again with repeated loops."""
    times: dict[int, float] = {}
    for k in sizes():
        call = make(k)
        times[k] = _once(call)
        if times[k] > SLOW or length(k) > MAX_CHARS:
            break
        if k >= 256 and times[k] < 2 * times[_quarter(times, k)]:
            break  # the match does not look at the pumped run: nothing grows with it
    k = max(times)
    quarter = _quarter(times, k)
    if quarter is None or times[k] < FLOOR:
        return 1.0, k, times[k]
    big, small = make(k), make(quarter)
    times[k] = min(times[k], _once(big), _once(big))
    times[quarter] = min(times[quarter], _once(small), _once(small))
    ratio = times[k] / max(times[quarter], 1e-9) * quarter * 4 / k
    if ratio <= MAX_RATIO:
        return ratio, k, times[k]
    slow = seconds(big, repeats=3)
    return slow / max(seconds(small), 1e-9) * quarter * 4 / k, k, slow


def _quarter(times: dict, k: int) -> int | None:
    """The largest size measured that is at most a quarter of k."""
    return max((j for j in times if j * 4 <= k), default=None)


def _once(call: Callable[[], object]) -> float:
    started = time.thread_time()
    call()
    return time.thread_time() - started


def worst_growth(pattern: re.Pattern, cases, method: str = "match") -> Worst:
    """The case whose time grows fastest, and the one whose match holds the most memory
    (measured where its time grew linearly up to MAX_CHARS); `method` is how the pattern
    is applied (`match` as a lexer does at a position, `search` as a scan does)."""
    apply = getattr(pattern, method)
    worst = Worst()
    for head, unit, tail in cases:

        def make(k, head=head, unit=unit, tail=tail):
            text = head + unit * k + tail
            return lambda: apply(text)

        ratio, k, spent = growth(
            make, lambda k, u=unit, h=head, t=tail: len(h) + len(u) * k + len(t)
        )
        if ratio > worst.ratio:
            worst.ratio, worst.case, worst.units = ratio, (head, unit, tail), k
            if ratio > MAX_RATIO:
                break  # one case is enough to fail: the rest are not measured
        if FLOOR / 8 < spent < SLOW:  # a match that did work on the text (or it holds nothing)
            held = peak_bytes(make(k))
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
            f"time x{self.ratio:.1f} from k/4 to k={self.units} units of {self.case!r}; "
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
