"""Whole encounters: who wins, in how many rounds, with what left; exact or sampled.

    engine.encounter("examples/games/encounters/ogre.yaml")        # Engine.encounter
    answer.exact, answer.reason            # counted state by state, or why it was sampled
    answer.winners()                       # {side or None (undecided): probability}
    answer.rounds(), answer.mean_rounds()  # when it ended
    answer.left("party")                   # {healths left: probability} where party won
    answer.interval("party")               # 95% Wilson interval (sampled); exact: (p, p)

The chain (encounters.chain) is tried first; past its limits, or where a turn's odds are not
exact, the encounter is sampled (encounters.trials) and the answer says so and why.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from dsl.messages import tr
from interpreter.balance.encounters import turns
from interpreter.balance.encounters.chain import NotCounted, count_exactly
from interpreter.balance.encounters.description import Encounter, encounter_from_data
from interpreter.balance.encounters.trials import sample
from interpreter.errors import ParameterError
from interpreter.json_data import encounter_data
from interpreter.sheets.character import parse_text, read_file

#: trials of a sampled encounter unless asked otherwise
TRIALS = 2_000
#: the normal quantile of the 95% intervals of sampled answers
Z95 = 1.959963984540054
METHODS = ("auto", "exact", "sampled")


class EncounterOdds:
    """The tally of an encounter's ends, {(winner or None, rounds, state): weight}: exact
    probabilities (Fractions), or a sample's counts out of `trials`."""

    def __init__(self, encounter: Encounter, tally: dict, exact: bool, reason=None, trials=None):
        self.sides = encounter.sides
        #: the combatants in the file's order: how `names`, `left` and states list them
        self.names = tuple(c.name for c in encounter.combatants)
        self.max_rounds = encounter.rounds
        self.tally, self.exact, self.reason, self.trials = tally, exact, reason, trials

    def _share(self, weight):
        return weight if self.exact else Fraction(weight, self.trials)

    def _sum(self, holds) -> Fraction:
        return sum((self._share(w) for key, w in self.tally.items() if holds(key)), Fraction(0))

    def winners(self) -> dict:
        """Each side's probability of winning, and None's: undecided after the last round."""
        return {s: self._sum(lambda k, s=s: k[0] == s) for s in (*self.sides, None)}

    def rounds(self) -> dict:
        """{rounds: probability that the encounter stopped after that many}."""
        out: dict = {}
        for (_, n, _), w in sorted(self.tally.items(), key=lambda kw: kw[0][1]):
            out[n] = out.get(n, Fraction(0)) + self._share(w)
        return out

    def mean_rounds(self) -> Fraction:
        return sum((n * p for n, p in self.rounds().items()), Fraction(0))

    def left(self, side) -> dict:
        """{each combatant's health at the end, in the file's order: probability}, over
        the ends `side` won."""
        out: dict = {}
        for (winner, _, state), w in self.tally.items():
            if winner == side:
                healths = tuple(health for health, _changed in state)
                out[healths] = out.get(healths, Fraction(0)) + self._share(w)
        return dict(sorted(out.items(), key=lambda sp: -sp[1]))

    def sheets_left(self, side) -> list:
        """[(each combatant's health, {name: {field: value}} of what else its sheet holds
        that changed, probability)], most likely first, over the ends `side` won: the
        whole sheets, where `left` gives the healths."""
        ends: dict = {}
        for (winner, _, state), w in self.tally.items():
            if winner == side:
                ends[state] = ends.get(state, Fraction(0)) + self._share(w)
        out = []
        for state, p in sorted(ends.items(), key=lambda sp: -sp[1]):
            changed = {
                name: {field: turns.thaw(value) for field, value in delta}
                for name, (_, delta) in zip(self.names, state)
                if delta
            }
            out.append((tuple(health for health, _ in state), changed, p))
        return out

    def interval(self, side) -> tuple:
        """The 95% interval of P(side wins): Wilson's for a sample; (p, p) when exact."""
        p = self.winners()[side]
        if self.exact:
            return p, p
        return wilson(p, self.trials)

    def rounds_interval(self) -> tuple:
        """The 95% interval of the mean number of rounds (normal); (m, m) when exact."""
        mean = self.mean_rounds()
        if self.exact:
            return mean, mean
        second = sum((n * n * p for n, p in self.rounds().items()), Fraction(0))
        half = Z95 * math.sqrt(max(0.0, float(second - mean * mean)) / self.trials)
        return float(mean) - half, float(mean) + half

    def to_json(self, language: str | None = None) -> dict:
        """Plain JSON data (interpreter.json_data.encounter_data, its schema "encounter")."""
        return encounter_data(self, language)


def wilson(p: Fraction, n: int) -> tuple:
    """Wilson's 95% score interval of a proportion `p` seen in `n` trials."""
    q, z2 = float(p), Z95 * Z95
    centre = (q + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(q * (1 - q) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # (it always holds p: kept so where rounding would put an end a hair past it)
    return max(0.0, min(q, centre - half)), min(1.0, max(q, centre + half))


def encounter_odds(
    engine,
    description,
    *,
    method: str = "auto",
    trials: int = TRIALS,
    seed: int = 0,
    workers: int | None = None,
    scheduler: str | None = None,
    progress=None,
    seconds: float | None = None,
    folder: str | Path | None = None,
) -> EncounterOdds:
    """An encounter's answer. `description`: an encounter file's path, its plain data
    (sheets as paths from `folder`, shipped characters' names, or Sheets), or an
    Encounter. `method`: "exact" (or refused, saying why), "sampled", or "auto" (exact
    where the chain fits its limits). `workers` processes (None: one per core), or the
    Dask cluster at `scheduler` ("tcp://host:port"), share a sample: the same numbers on
    any count; `progress(done, total)` counts its tasks. `seconds` bounds each turn's
    odds computation."""
    if method not in METHODS:
        raise ParameterError(tr("method: one of {names}", names=", ".join(METHODS)))
    source = None
    if isinstance(description, (str, Path)):  # a file: its data, its sheets from its folder
        path = Path(description)
        text, text_format = read_file(path)
        description, folder = parse_text(text, text_format, str(path)), path.parent
    if isinstance(description, Encounter):
        encounter = description
    else:
        folder = Path(folder) if folder is not None else None
        encounter = encounter_from_data(description, engine, folder)
        if _plain(description):
            source = (description, folder)
    reason = None
    if method != "sampled":
        try:
            tally = count_exactly(engine, encounter, seconds=seconds)
            return EncounterOdds(encounter, tally, True)
        except NotCounted as refused:
            if method == "exact":
                raise ParameterError(
                    tr("the encounter cannot be counted exactly: {why}", why=refused.reason)
                ) from None
            reason = refused.reason
    tally = sample(engine, encounter, trials, seed, workers, source, scheduler, progress)
    return EncounterOdds(encounter, tally, False, reason or tr("sampling was asked for"), trials)


def _plain(data) -> bool:
    """Whether data is plain (what a worker process can be handed); walked with a stack,
    not recursion, however deep a file nests it."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif not (item is None or isinstance(item, (str, int, float, bool))):
            return False
    return True
