"""Did-you-mean hints (dsl.suggest): the same hints as comparing with every name where
the names that could be close are few; bounded work however many there are."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import given
from hypothesis import strategies as st

import dsl
from dsl import suggest
from dsl.errors import RulebookInvalid, did_you_mean

NAMES = st.text(alphabet="abcdeFGH_é", min_size=1, max_size=12)


def every_name_compared(name: str, candidates) -> list[str]:
    """The hint as it was worked out before dsl.suggest: every candidate compared."""
    folded = {c.casefold(): c for c in candidates}
    close = difflib.get_close_matches(name.casefold(), list(folded), n=3, cutoff=0.6)
    return [folded[c] for c in close]


@given(NAMES, st.lists(NAMES, max_size=60))
def test_few_candidates_get_the_hint_of_comparing_every_one(name, candidates):
    assert suggest.closest(name, candidates) == every_name_compared(name, candidates)


@given(NAMES, st.lists(NAMES, min_size=110, max_size=140))
def test_many_candidates_get_close_names_only(name, candidates):
    found = suggest.closest(name, candidates)
    assert len(found) <= 3
    folded = name.casefold()
    for candidate in found:
        assert candidate in candidates
        ratio = difflib.SequenceMatcher(None, candidate.casefold(), folded).ratio()
        assert ratio >= suggest.CUTOFF


def test_a_close_name_sharing_the_first_letters_is_found_among_thousands():
    names = [f"{a}{b}{i:03d}" for a in "abcdefghij" for b in "xyz" for i in range(100)]
    names.append("Fuerza")
    assert suggest.closest("Fuersa", names) == ["Fuerza"]
    assert did_you_mean("fuerZa", names) == "did you mean Fuerza?"


def test_a_long_name_gets_no_hint_and_costs_nothing(monkeypatch):
    calls = counting(monkeypatch)
    long = "a" * (suggest.MAX_SUGGESTED_LENGTH + 1)
    assert suggest.closest(long, [long, long + "b"]) == []
    assert calls == []


def counting(monkeypatch) -> list:
    """The comparisons difflib makes from now on (a list growing by one each)."""
    calls: list = []
    ratio = difflib.SequenceMatcher.ratio

    def counted(self):
        calls.append(1)
        return ratio(self)

    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", counted)
    return calls


def misspelled(known: int, unknown: int) -> str:
    lines = [f"formula known_{i:04d}(x: int) = x" for i in range(known)]
    lines += [f"formula bad_{i:04d}(x: int) = unknown_{i:04d}" for i in range(unknown)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("unknown", [200, 800])
def test_checking_spends_a_bounded_number_of_comparisons_on_hints(monkeypatch, unknown):
    # each unknown name once compared with every known one was the 20 s
    calls = counting(monkeypatch)
    with pytest.raises(RulebookInvalid) as caught:
        dsl.load_text(misspelled(800, unknown))
    errors = [d for d in caught.value.diagnostics if d.severity == "error"]
    assert len(errors) == unknown  # every unknown name is still reported
    # (difflib works a close pair's ratio out twice: once to keep it, once to sort)
    most = suggest.MAX_COMPARED_CHARACTERS // (2 * len("known_0000")) + suggest.MAX_COMPARED
    assert len(calls) <= 2 * most
    hinted = [d for d in errors if d.hint is not None]
    assert hinted and "known_" in str(hinted[0].hint)


def test_a_name_misspelled_again_and_again_gets_its_hint_each_time(monkeypatch):
    calls = counting(monkeypatch)
    uses = "".join(f"formula f{i}(x: int) = Fuersa\n" for i in range(300))
    text = f"sheet {{ attribute Fuerza in 1..5 }}\n{uses}"
    with pytest.raises(RulebookInvalid) as caught:
        dsl.load_text(text)
    hints = {str(d.hint) for d in caught.value.diagnostics if d.severity == "error"}
    assert hints == {"did you mean Fuerza?"}
    assert len(calls) <= 3  # worked out once
