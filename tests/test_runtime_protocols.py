"""The seam's protocols (interpreter.runtime): every roller follows RollerProtocol, the
odds engine's CountingRoller too, and a distribution is an UnknownValue; each method
takes what the protocol says it is called with."""

from __future__ import annotations

import inspect
from fractions import Fraction

import pytest

from interpreter import DEFAULT_LIMITS, ForcedDice
from interpreter.odds.deferred import Narrowed
from interpreter.odds.distribution import Dist
from interpreter.odds.roller import OddsRoller
from interpreter.runtime import CountingRoller, Roller, RollerProtocol, Unknown, UnknownValue


def _methods(protocol) -> dict:
    """The protocol's own methods (those it and its protocol bases declare), by name."""
    out = {}
    for klass in reversed(protocol.__mro__):
        if klass in (RollerProtocol, CountingRoller, UnknownValue):
            out.update(
                (k, v)
                for k, v in vars(klass).items()
                if inspect.isfunction(v) and not k.startswith("_")
            )
    return out


def _takes_what_the_protocol_gives(implementation, declared) -> None:
    """The implementation accepts every call the protocol's signature allows."""
    wanted = inspect.signature(declared)
    given = inspect.signature(implementation)
    positional = [p for p in wanted.parameters.values() if p.default is p.empty]
    given.bind(*positional)  # raises TypeError if the implementation takes fewer or more
    optional = [p.name for p in wanted.parameters.values() if p.default is not p.empty]
    for name in optional:
        assert name in given.parameters, (implementation, name)


ROLLERS = [
    (Roller(ForcedDice([]), DEFAULT_LIMITS), RollerProtocol),
    (OddsRoller(Fraction(1, 10**9), 10_000, DEFAULT_LIMITS), CountingRoller),
]


@pytest.mark.parametrize(("roller", "protocol"), ROLLERS, ids=["real", "odds"])
def test_every_roller_follows_its_protocol(roller, protocol):
    assert isinstance(roller, protocol)
    for name, declared in _methods(protocol).items():
        _takes_what_the_protocol_gives(getattr(type(roller), name), declared)
    assert roller.lifts is (protocol is CountingRoller)
    # (a method added to a protocol is added here on purpose: `kept` for values kept together)
    assert len(_methods(protocol)) == (12 if protocol is CountingRoller else 6)


@pytest.mark.parametrize(
    "value", [Dist.point(3), Dist.uniform(range(1, 7))], ids=["point", "uniform"]
)
def test_a_distribution_is_an_unknown_value(value):
    assert isinstance(value, Unknown) and isinstance(value, UnknownValue)
    for name, declared in _methods(UnknownValue).items():
        _takes_what_the_protocol_gives(getattr(type(value), name), declared)
    assert value.map(lambda v: v * 2).lift(lambda a, b: a + b, (value, 1)) is not None


def test_every_kind_of_unknown_value_follows_the_protocol():
    for kind in (Unknown, Dist, Narrowed):
        for name, declared in _methods(UnknownValue).items():
            _takes_what_the_protocol_gives(getattr(kind, name), declared)
