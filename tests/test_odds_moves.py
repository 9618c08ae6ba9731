"""A roll moved by a number is found by its place alone (interpreter.odds.order.moved),
not also by its operands (Dist.lift's memory): `d10 + 2 * Fuerza + Atletismo + m` in a
check made again and again, each move one look-up (distribution.SWITCH.moves_first)."""

from __future__ import annotations

import operator

import interpreter.odds.distribution as distribution
from interpreter.compiled import Operation
from interpreter.odds.distribution import LIFTS, Dist

ADD = Operation(operator.add, operator.add, operator.add)


class Memory(dict):
    """A lift memory that charges nothing (roller.LiftMemory's protocol)."""

    def work(self, values, function=None) -> int:
        return 1 << 20

    def settle(self, values: tuple) -> tuple:
        return values

    def poll(self) -> None:
        pass


def moves(memory: Memory) -> Dist:
    """d10 + 6 + 2 + 0 in an odds computation (`memory`), each `+` lifted as compiled."""
    token = LIFTS.set(memory)
    try:
        value = Dist.uniform(range(1, 11))
        for by in (6, 2, 0):
            value = value.lift(ADD, (value, by))
        return value
    finally:
        LIFTS.reset(token)


def test_a_move_is_remembered_by_its_place_alone():
    memory = Memory()
    moved = moves(memory)
    assert moved.weights == {face + 8: 1 for face in range(1, 11)} and moved.total == 10
    assert not [key for key in memory if type(key) is tuple and key[0] is ADD]
    again = moves(memory)  # (the same place: the same distribution, found again)
    assert again is moved


def test_without_it_every_move_is_remembered_by_its_operands_too(monkeypatch):
    monkeypatch.setattr(distribution.SWITCH, "moves_first", False)
    memory = Memory()
    moved = moves(memory)
    assert moved.weights == {face + 8: 1 for face in range(1, 11)}
    assert [key for key in memory if type(key) is tuple and key[0] is ADD]
