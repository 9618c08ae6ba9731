"""An encounter counted exactly: an absorbing Markov chain walked turn by turn in Fractions.

The state is both sides' sheets: every combatant's health and whatever else its sheet
holds that the actions changed (interpreter.balance.encounters.turns). A turn's transitions
from a state are the exact joint odds of the acting combatant's damage and of everything
its run writes to either sheet (`Engine.counting().effects`), each remembered by what it
depends on. Mass moves forward turn by turn; a state where one side has fallen is
absorbing and is tallied by (winner, round, state); what still stands after the last
round is tallied undecided. A rolled initiative starts the chain once per turn order, each
with its exact probability. Past a named limit the chain gives up, saying why, and the
encounter is sampled instead.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from dsl.messages import tr
from interpreter.balance.encounters import turns
from interpreter.balance.encounters.health_reads import may_read, may_write

#: states (both sides' sheets) an encounter may pass through: known beforehand for the
#: healths alone (every standing health of each combatant, and down, multiplied
#: together), and counted as the chain meets them
MAX_STATES = 50_000
#: distinct turns (actor, its sheet, rival, its sheet) whose odds are computed
MAX_TURN_ODDS = 3_000
#: state-by-outcome steps of the whole chain
MAX_STEPS = 3_000_000
#: decimal digits of the states' common denominator (past it, numbers grow too costly)
MAX_DIGITS = 400
#: turn orders a rolled initiative may give (each counted on its own)
MAX_ORDERS = 5_040
#: combinations of initiative rolls looked at to find the orders
MAX_ROLLS = 200_000


class NotCounted(Exception):
    """The chain passed a limit, or a turn's odds were not exact: `reason` says which."""

    def __init__(self, reason):
        super().__init__(str(reason))
        self.reason = reason


def count_exactly(engine, encounter, *, seconds: float | None = None) -> dict:
    """{(winner or None, rounds, final state): probability}, exact; raises NotCounted."""
    start = turns.start_state(encounter)
    reads = health_reads(engine.rulebook, encounter)
    healths = [held[0] - c.falls_at + 1 for c, held in zip(encounter.combatants, start)]
    if math.prod(healths) > MAX_STATES:
        raise NotCounted(tr("more than {count} states", count=MAX_STATES))
    if possible_turns(encounter, start, reads) > MAX_TURN_ODDS:  # known before counting
        raise NotCounted(tr("more than {count} turns to count", count=MAX_TURN_ODDS))
    counting = engine.counting()
    odds_of = _TurnOdds(counting, encounter, seconds, reads)
    ended: dict = {}
    seen: set = set()
    for order, p in orders(counting, encounter).items():
        for key, q in _walk(encounter, order, start, odds_of, seen).items():
            ended[key] = ended.get(key, 0) + p * q
    return ended


def orders(counting, encounter) -> dict:
    """{turn order: probability}: the fixed one, or each a rolled initiative may give."""
    if not encounter.rolled:
        return {encounter.order: Fraction(1)}
    rolled = [i for i, c in enumerate(encounter.combatants) if type(c.initiative) is str]
    laws = []
    for i in rolled:
        law = counting.expression(encounter.combatants[i].initiative)
        if law is None:
            raise NotCounted(
                tr("{name}'s initiative is not counted exactly", name=encounter.combatants[i].name)
            )
        laws.append(list(law.items()))
    if math.prod(len(law) for law in laws) > MAX_ROLLS:
        raise NotCounted(tr("more than {count} initiative rolls", count=MAX_ROLLS))
    out: dict = {}
    for combination in itertools.product(*laws):
        order = encounter.order_of({i: value for i, (value, _) in zip(rolled, combination)})
        p = math.prod((q for _, q in combination), start=Fraction(1))
        out[order] = out.get(order, 0) + p
        if len(out) > MAX_ORDERS:
            raise NotCounted(tr("more than {count} turn orders", count=MAX_ORDERS))
    return out


def _walk(encounter, order: tuple, start: tuple, odds_of, seen: set) -> dict:
    """The chain in one turn order: {(winner or None, rounds, final state): probability}."""
    # whole numbers over one common denominator, `scale` (a Fraction per state and step
    # spent most of the time in gcds): a state's probability is its mass / scale
    alive, scale = {start: 1}, 1
    ended: dict = {}
    steps = 0
    for round_number in range(1, encounter.rounds + 1):
        for index in order:
            moves: list = []
            common = 1
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
                for (actor_held, target_held, damage), weight in outcomes:
                    after = turns.after_turn(
                        encounter, state, index, target,
                        odds_of.held(state, index, actor_held),
                        odds_of.held(state, target, target_held), damage,
                    )  # fmt: skip
                    following[after] = following.get(after, 0) + mass * weight
            if steps > MAX_STEPS:
                raise NotCounted(tr("more than {count} steps", count=MAX_STEPS))
            scale *= common
            alive = {}
            for state, mass in following.items():
                if not turns.ended(encounter, state):
                    alive[state] = mass
                    if state not in seen:
                        seen.add(state)
                        if len(seen) > MAX_STATES:
                            raise NotCounted(tr("more than {count} states", count=MAX_STATES))
                else:
                    key = (turns.winner(encounter, state), round_number, state)
                    ended[key] = ended.get(key, 0) + Fraction(mass, scale)
            if alive:
                alive, scale = _reduced(alive, scale)
        if not alive:
            break
    for state, mass in alive.items():
        key = (None, encounter.rounds, state)
        ended[key] = ended.get(key, 0) + Fraction(mass, scale)
    return ended


def health_reads(book, encounter) -> tuple:
    """For each combatant: (whether its action may read or write its own health, whether
    it may read or write its rival's), the rival's only when its sheet is given
    (health_reads.may_read, may_write)."""
    out = []
    for actor in encounter.combatants:
        rivals = encounter.of_side(encounter.rival_of(actor.side))

        def touches(field, actor=actor):
            return may_read(book, field, actor.damage, actor.params) or may_write(book, field)

        own = touches(actor.health)
        rival = actor.target is not None and any(
            touches(encounter.combatants[t].health) for t in rivals
        )
        out.append((own, rival))
    return tuple(out)


def possible_turns(encounter, start: tuple, reads: tuple) -> int:
    """How many distinct turns the chain must count at least: for each actor and rival,
    each standing health of either that its action may read or write."""
    standing = [held[0] - c.falls_at for c, held in zip(encounter.combatants, start)]
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


#: a health a turn leaves as it was (the turn was counted without reading it)
KEPT = "kept"


class _TurnOdds:
    """A turn's outcomes by what they depend on: the actor's sheet, the rival's if the
    action is given it; a health left out where no rule may read or write it (the
    outcomes then keep it: KEPT). Should a run change a health left out all the same
    (a resource settled within a maximum that moved), that actor's turns are counted
    again with it."""

    def __init__(self, counting, encounter, seconds, reads: tuple):
        self.counting, self.encounter, self.seconds = counting, encounter, seconds
        self.reads = [list(r) for r in reads]
        self.known: dict = {}
        self.sheets: dict = {}  # (index, held) → its sheet

    def sheet(self, index: int, held: tuple):
        found = self.sheets.get((index, held))
        if found is None:
            if len(self.sheets) > MAX_STATES:
                self.sheets.clear()
            found = turns.sheet_of(self.encounter.combatants[index], held)
            self.sheets[(index, held)] = found
        return found

    def held(self, state: tuple, index, held):
        """A turn's outcome for one combatant as the state's (None: unchanged)."""
        if held is None or held[0] is not KEPT:
            return held
        return state[index][0], held[1]

    def __call__(self, state: tuple, index: int, target: int) -> tuple:
        """(a common denominator, (((actor's held, rival's held, damage), its
        probability's numerator over it), ...))."""
        key = self._key(state, index, target)
        found = self.known.get(key)
        if found is None:
            if len(self.known) >= MAX_TURN_ODDS:
                raise NotCounted(tr("more than {count} turns to count", count=MAX_TURN_ODDS))
            found = self._count(state, index, target)
            if found is None:  # a health left out changed: counted again with it
                self.known = {k: v for k, v in self.known.items() if k[0] != index}
                return self(state, index, target)
            self.known[key] = found
        return found

    def _key(self, state, index, target) -> tuple:
        own, rival = self.reads[index]
        actor = state[index] if own else (None, state[index][1])
        if self.encounter.combatants[index].target is None:
            return index, actor, target, None
        return index, actor, target, state[target] if rival else (None, state[target][1])

    def _count(self, state, index, target) -> tuple | None:
        encounter = self.encounter
        actor = encounter.combatants[index]
        sheet, params = turns.arguments(encounter, state, index, target, self.sheet)
        effects = self.counting.effects(actor.action, sheet, params, actor.damage, self.seconds)
        if effects is None or effects.omitted:
            why = tr("its odds are sampled") if effects is None else tr("its odds leave out a tail")
            raise NotCounted(
                tr("{name}'s {action}: {why}", name=actor.name, action=actor.action, why=why)
            )
        own, rival = self.reads[index]
        rival_of = encounter.combatants[target]
        out: dict = {}
        for (value, written), p in effects.outcomes.items():
            error = getattr(value, "error", None)
            if error is not None:
                if not isinstance(error, turns.REFUSED):
                    raise error
                out[None, None, 0] = out.get((None, None, 0), 0) + p  # refused: no change
                continue
            if type(value) is not int or type(value) is bool or value < 0:
                raise NotCounted(
                    tr(
                        "{name}'s {action} may give {value} as its damage",
                        name=actor.name,
                        action=actor.action,
                        value=repr(value),
                    )
                )
            mine, others = effects.sheets[written]
            actor_held = turns.held_of(actor, mine) if written else None
            target_held = None
            if actor.target in others:
                target_held = turns.held_of(rival_of, others[actor.target])
            if not own and actor_held is not None:
                if actor_held[0] != state[index][0]:
                    self.reads[index][0] = True
                    return None
                actor_held = (KEPT, actor_held[1])
            if not rival and target_held is not None:
                if target_held[0] != state[target][0]:
                    self.reads[index][1] = True
                    return None
                target_held = (KEPT, target_held[1])
            key = (actor_held, target_held, value)
            out[key] = out.get(key, 0) + p
        denominator = math.lcm(*(p.denominator for p in out.values())) if out else 1
        return denominator, tuple(
            (v, p.numerator * (denominator // p.denominator)) for v, p in out.items()
        )
