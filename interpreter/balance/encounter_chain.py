"""An encounter counted exactly: an absorbing Markov chain walked turn by turn in Fractions.

The state is every combatant's health (interpreter.balance.turns). A turn's transitions
from a state are the exact odds of the acting combatant's damage (`Engine.odds` of that
result field, its sheet and its rival's at the state's health), each remembered by what
it depends on. Mass moves forward turn by turn; a state where one side has fallen is
absorbing and is tallied by (winner, round, state); what still stands after the last
round is tallied undecided. Past a named limit the chain gives up, saying why, and the
encounter is sampled instead.
"""

from __future__ import annotations

from fractions import Fraction

from dsl.messages import tr
from interpreter.balance import turns

#: states (healths of everyone) alive at once between two turns
MAX_STATES = 20_000
#: distinct turns (actor, its health, rival, its health) whose odds are computed
MAX_TURN_ODDS = 3_000
#: state-by-outcome steps of the whole chain
MAX_STEPS = 3_000_000
#: decimal digits of a probability's denominator (past it, fractions grow too costly)
MAX_DIGITS = 400


class NotCounted(Exception):
    """The chain passed a limit, or a turn's odds were not exact: `reason` says which."""

    def __init__(self, reason):
        super().__init__(str(reason))
        self.reason = reason


def count_exactly(engine, encounter, *, seconds: float | None = None) -> dict:
    """{(winner or None, rounds, final state): probability}, exact; raises NotCounted."""
    start = turns.start_state(encounter)
    if possible_turns(encounter, start) > MAX_TURN_ODDS:  # known before any is counted
        raise NotCounted(tr("more than {count} turns to count", count=MAX_TURN_ODDS))
    alive = {start: Fraction(1)}
    ended: dict = {}
    odds_of = _TurnOdds(engine, encounter, seconds)
    steps = 0
    for round_number in range(1, encounter.rounds + 1):
        for index in range(len(encounter.combatants)):
            following: dict = {}
            for state, mass in alive.items():
                if not turns.standing(encounter, state, index):
                    following[state] = following.get(state, 0) + mass
                    continue
                target = turns.target_of(encounter, state, index)
                for damage, p in odds_of(state, index, target):
                    steps += 1
                    after = turns.struck(encounter, state, target, damage)
                    following[after] = following.get(after, 0) + mass * p
            if steps > MAX_STEPS:
                raise NotCounted(tr("more than {count} steps", count=MAX_STEPS))
            alive = {}
            for state, mass in following.items():
                side = turns.winner(encounter, state)
                if side is None:
                    alive[state] = mass
                else:
                    key = (side, round_number, state)
                    ended[key] = ended.get(key, 0) + mass
            _check_size(alive)
        if not alive:
            break
    for state, mass in alive.items():
        ended[(None, encounter.rounds, state)] = mass
    return ended


def possible_turns(encounter, start: tuple) -> int:
    """How many distinct turns the chain may have to count: each standing health of an
    actor, times each standing health of a rival when its sheet is given to the action."""
    standing = [h - c.falls_at for c, h in zip(encounter.combatants, start)]
    total = 0
    for index, actor in enumerate(encounter.combatants):
        rivals = encounter.of_side(encounter.rival_of(actor.side))
        per_rival = (standing[t] if actor.target is not None else 1 for t in rivals)
        total += standing[index] * sum(per_rival)
    return total


def _check_size(alive: dict) -> None:
    if len(alive) > MAX_STATES:
        raise NotCounted(tr("more than {count} states at once", count=MAX_STATES))
    for mass in alive.values():
        if mass.denominator.bit_length() > MAX_DIGITS * 3.33:
            raise NotCounted(tr("probabilities of more than {count} digits", count=MAX_DIGITS))


class _TurnOdds:
    """A turn's ((damage, probability), ...) by what it depends on: the actor and its
    health, and the rival and its health when the action is given the rival's sheet."""

    def __init__(self, engine, encounter, seconds):
        self.engine, self.encounter, self.seconds = engine, encounter, seconds
        self.known: dict = {}

    def __call__(self, state: tuple, index: int, target: int) -> tuple:
        actor = self.encounter.combatants[index]
        rival_health = state[target] if actor.target is not None else None
        key = (index, state[index], target, rival_health)
        found = self.known.get(key)
        if found is None:
            if len(self.known) >= MAX_TURN_ODDS:
                raise NotCounted(tr("more than {count} turns to count", count=MAX_TURN_ODDS))
            found = self.known[key] = self._count(state, index, target)
        return found

    def _count(self, state, index, target) -> tuple:
        actor = self.encounter.combatants[index]
        sheet, params = turns.arguments(self.encounter, state, index, target)
        options = {} if self.seconds is None else {"seconds": self.seconds}
        odds = self.engine.odds(actor.action, sheet, params, actor.damage, **options)
        if not odds.exact or odds.omitted:
            why = tr("its odds are sampled") if not odds.exact else tr("its odds leave out a tail")
            raise NotCounted(
                tr("{name}'s {action}: {why}", name=actor.name, action=actor.action, why=why)
            )
        out = []
        for value, p in odds.probabilities.items():
            if type(value) is not int or type(value) is bool or value < 0:
                raise NotCounted(
                    tr(
                        "{name}'s {action} may give {value} as its damage",
                        name=actor.name,
                        action=actor.action,
                        value=repr(value),
                    )
                )
            out.append((value, p))
        return tuple(out)
