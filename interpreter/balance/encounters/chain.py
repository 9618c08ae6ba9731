"""An encounter counted exactly: an absorbing Markov chain walked turn by turn in Fractions.

The state is every combatant's health (interpreter.balance.encounters.turns). A turn's transitions
from a state are the exact odds of the acting combatant's damage (`Engine.odds` of that
result field, its sheet and its rival's at the state's health), each remembered by what
it depends on. Mass moves forward turn by turn; a state where one side has fallen is
absorbing and is tallied by (winner, round, state); what still stands after the last
round is tallied undecided. Past a named limit the chain gives up, saying why, and the
encounter is sampled instead.
"""

from __future__ import annotations

import math
from fractions import Fraction

from dsl.messages import tr
from interpreter.balance.encounters import turns
from interpreter.balance.encounters.health_reads import may_read

#: states (healths of everyone) an encounter could pass through: every standing health
#: of each combatant, and down, multiplied together
MAX_STATES = 50_000
#: distinct turns (actor, its health, rival, its health) whose odds are computed
MAX_TURN_ODDS = 3_000
#: state-by-outcome steps of the whole chain
MAX_STEPS = 3_000_000
#: decimal digits of the states' common denominator (past it, numbers grow too costly)
MAX_DIGITS = 400


class NotCounted(Exception):
    """The chain passed a limit, or a turn's odds were not exact: `reason` says which."""

    def __init__(self, reason):
        super().__init__(str(reason))
        self.reason = reason


def count_exactly(engine, encounter, *, seconds: float | None = None) -> dict:
    """{(winner or None, rounds, final state): probability}, exact; raises NotCounted."""
    start = turns.start_state(encounter)
    reads = health_reads(engine.rulebook, encounter)
    if math.prod(h - c.falls_at + 1 for c, h in zip(encounter.combatants, start)) > MAX_STATES:
        raise NotCounted(tr("more than {count} states", count=MAX_STATES))
    if possible_turns(encounter, start, reads) > MAX_TURN_ODDS:  # known before counting
        raise NotCounted(tr("more than {count} turns to count", count=MAX_TURN_ODDS))
    # whole numbers over one common denominator, `scale` (a Fraction per state and step
    # spent most of the time in gcds): a state's probability is its mass / scale
    alive, scale = {start: 1}, 1
    ended: dict = {}
    odds_of = _TurnOdds(engine, encounter, seconds, reads)
    steps = 0
    for round_number in range(1, encounter.rounds + 1):
        for index in range(len(encounter.combatants)):
            moves, common = [], 1
            for state, mass in alive.items():
                if not turns.standing(encounter, state, index):
                    moves.append((state, mass, None, None))
                    continue
                target = turns.target_of(encounter, state, index)
                odds = odds_of(state, index, target)
                common = math.lcm(common, odds[0])
                moves.append((state, mass, target, odds))
            following: dict = {}
            for state, mass, target, odds in moves:
                if odds is None:  # down: it does not act
                    following[state] = following.get(state, 0) + mass * common
                    continue
                denominator, outcomes = odds
                mass *= common // denominator
                steps += len(outcomes)
                for damage, weight in outcomes:
                    after = turns.struck(encounter, state, target, damage)
                    following[after] = following.get(after, 0) + mass * weight
            if steps > MAX_STEPS:
                raise NotCounted(tr("more than {count} steps", count=MAX_STEPS))
            scale *= common
            alive = {}
            for state, mass in following.items():
                side = turns.winner(encounter, state)
                if side is None:
                    alive[state] = mass
                else:
                    key = (side, round_number, state)
                    ended[key] = ended.get(key, 0) + Fraction(mass, scale)
            alive, scale = _reduced(alive, scale)
        if not alive:
            break
    for state, mass in alive.items():
        ended[(None, encounter.rounds, state)] = Fraction(mass, scale)
    return ended


def health_reads(book, encounter) -> tuple:
    """For each combatant: (whether its action may read its own health, whether it may
    read its rival's), the rival's only when its sheet is given (health_reads.may_read)."""
    out = []
    for actor in encounter.combatants:
        rivals = encounter.of_side(encounter.rival_of(actor.side))
        own = may_read(book, actor.health, actor.damage, actor.params)
        rival = actor.target is not None and any(
            may_read(book, encounter.combatants[t].health, actor.damage, actor.params)
            for t in rivals
        )
        out.append((own, rival))
    return tuple(out)


def possible_turns(encounter, start: tuple, reads: tuple) -> int:
    """How many distinct turns the chain may have to count: for each actor and rival,
    each standing health of either that its action may read."""
    standing = [h - c.falls_at for c, h in zip(encounter.combatants, start)]
    total = 0
    for index, actor in enumerate(encounter.combatants):
        own, rival = reads[index]
        rivals = encounter.of_side(encounter.rival_of(actor.side))
        per_rival = sum(standing[t] if rival else 1 for t in rivals)
        total += (standing[index] if own else 1) * per_rival
    return total


def _reduced(alive: dict, scale: int) -> tuple:
    """The masses and their scale divided by what they share; refused past MAX_DIGITS."""
    shared = math.gcd(scale, *alive.values())
    if shared > 1:
        alive, scale = {state: mass // shared for state, mass in alive.items()}, scale // shared
    if len(str(scale)) > MAX_DIGITS:
        raise NotCounted(tr("probabilities of more than {count} digits", count=MAX_DIGITS))
    return alive, scale


class _TurnOdds:
    """A turn's ((damage, probability), ...) by what it depends on: the actor, and its
    health if its rules may read it; the rival, and its health if the action is given
    the rival's sheet and may read it."""

    def __init__(self, engine, encounter, seconds, reads: tuple):
        self.engine, self.encounter, self.seconds = engine, encounter, seconds
        self.reads = reads
        self.known: dict = {}

    def __call__(self, state: tuple, index: int, target: int) -> tuple:
        """(a common denominator, ((damage, its probability's numerator over it), ...))."""
        own, rival = self.reads[index]
        key = (index, state[index] if own else None, target, state[target] if rival else None)
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
        denominator = math.lcm(*(p.denominator for _, p in out)) if out else 1
        return denominator, tuple((v, p.numerator * (denominator // p.denominator)) for v, p in out)
