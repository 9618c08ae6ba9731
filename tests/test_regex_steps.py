"""The counting matcher (tests/regex_steps.py) answers as `re` does.

On every construct it reads, on the front end's patterns and their hard texts, and on
random texts: the same match or none, ending at the same place."""

from __future__ import annotations

import contextlib
import re

import pytest
import regex_pumps as pumps
import regex_steps
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grammar_linear import OLD_DICE, front_end_patterns, terminals

#: one pattern for each construct the matcher reads, and their mixtures
CONSTRUCTS = [
    (r"a*b", 0),
    (r"a*?b", 0),
    (r"a*+ab", 0),
    (r"(?>a|ab)c", 0),
    (r"(?:a|ab)c", 0),
    (r"(?:a|)*?b", 0),
    (r"(?:x?){3,100}y", 0),
    (r"(?:x?){3,100}?y", 0),
    (r"a{2,70}?a", 0),
    (r"a{2,5}+a", 0),
    (r"(?:ab?){2}", 0),
    (r"(?:\b|a)*\Bz", 0),
    (r"(?<=a)b|(?<!c)d", 0),
    (r"a(?=b)|a(?!c)\w", 0),
    (r"^a$|^b", re.MULTILINE),
    (r"^a$|\Ab\Z", 0),
    (r"a.b", 0),
    (r"a.b", re.DOTALL),
    (r"[^\d\s]\w+\W", 0),
    (r"[\D\S][^\W_]+", re.ASCII),
    (r"\s*[a-c_]+\b", 0),
    (r"(?:(?:a|b)*c)*", 0),
    (r"(?:|a)+b", 0),
]

ALPHABET = st.sampled_from(list("abcxyz_ 1٦é\n-!("))
TEXTS = st.text(ALPHABET, max_size=12)


def agree(pattern: str, flags: int, text: str) -> None:
    counted, expected = regex_steps.Matcher(pattern, flags), re.compile(pattern, flags)
    for method in ("match", "fullmatch", "search"):
        found = getattr(expected, method)(text)
        wanted = None if found is None else found.span() if method == "search" else found.end()
        # (only the old dice pattern, exponential, takes so many steps on short texts)
        with contextlib.suppress(regex_steps.TooManySteps):
            assert getattr(counted, method)(text) == wanted, (method, pattern, text)
    for pos in range(min(len(text), 3)):
        found = expected.match(text, pos, len(text) - 1)
        assert counted.match(text, pos, len(text) - 1) == (found and found.end())


@pytest.mark.parametrize("pattern, flags", CONSTRUCTS)
@settings(max_examples=60, deadline=None)
@given(text=TEXTS)
def test_the_matcher_answers_as_re_does_on_every_construct(pattern, flags, text):
    agree(pattern, flags, text)


def shipped() -> list[tuple[str, int]]:
    patterns = [(p.pattern, p.flags) for p in terminals().values()]
    patterns += [(p.pattern, p.flags) for p, _ in front_end_patterns().values()]
    return [*dict.fromkeys(patterns), (OLD_DICE, 0)]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(shipped()), TEXTS, st.integers(0, 9), st.data())
def test_the_matcher_answers_as_re_does_on_the_front_ends_patterns(found, text, k, data):
    """On random texts, and on the hard texts the linearity test pumps (at a few units:
    the old dice pattern takes `re` itself seconds past twenty)."""
    pattern, flags = found
    agree(pattern, flags, text)
    head, unit, tail = data.draw(
        st.sampled_from(pumps.hard_texts(pattern, flags) or [("", "", "")])
    )
    agree(pattern, flags, head + unit * k + tail)


def test_steps_are_counted_and_bounded():
    linear = regex_steps.Matcher(r"a*b")
    assert linear.count("match", "a" * 40 + "b") < 4 * linear.count("match", "a" * 10 + "b")
    assert linear.count("search", "a" * 40) > 16 * linear.count("search", "a" * 10) / 2
    stopped = regex_steps.Matcher(r"(?:a|a)*b", limit=10_000)
    with pytest.raises(regex_steps.TooManySteps):
        stopped.match("a" * 30)
    assert stopped.count("match", "a" * 30) == 10_001


@pytest.mark.parametrize(
    "pattern, flags", [(r"(a)\1", 0), (r"(a)?(?(1)b|c)", 0), ("a", re.IGNORECASE)]
)
def test_what_the_matcher_does_not_read_is_refused(pattern, flags):
    with pytest.raises(regex_steps.Unsupported):
        regex_steps.Matcher(pattern, flags)
