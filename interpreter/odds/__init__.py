"""Exact odds: the distribution of a dice expression, or of a check's or action's result.

The odds engine runs the SAME compiled closures as a real run (interpreter.compile),
with a roller of its own (the seam is interpreter.runtime):

- a dice term gives its exact distribution (`pools.pool_distribution`, counted
  combinatorially) instead of faces, and arithmetic, comparisons and rounding on
  distributions combine them (`distribution.Dist.lift`);
- where the rules need a concrete value (a condition, a `let`, an amount, a table key),
  the roller *branches*: the statement is run once per possible value, each run a
  "world" with its probability (`explore`);
- after each statement, worlds that agree on everything still needed later (liveness)
  are merged, so a long action stays small; a `let` branches only on the fields of its
  value read later, and the worlds it makes are merged as they come;
- loops (`repeat`, `for each`) run pass by pass and called actions statement by
  statement (`passes`), merged in between, so independent draws add up instead of
  multiplying the worlds;
- an opposed check combines its two sides' distributions at once, ties rerolled as a
  geometric series (`contest`), and a check's records are remembered by what they read
  of the sheet (`reads`).

Open-ended rolls (explosions, rerolls, custom procedures such as Brujería's open d10) are
expanded until the probability left out is below `epsilon`, and that mass is reported.
When the exact computation would pass `budget`, the engine falls back to Monte Carlo over
the real engine and says so (`exact: false`, `trials`, standard errors: `sampling`).

    distribution  Dist, the exact distributions computed with
    polynomials   convolution and powers of distributions, by big integers
    pools         one dice term's distribution; keeps and walker: its keeps, its chains
    roller        the odds roller; draws: rolls counted through the real roller
    explore       branching and merging; worlds: what a world holds, what is read
    passes        loops, a step at a time; called: called actions; weights: exact weights
    contest       opposed checks; reads: results remembered by what they read
    answer        Odds, the answer
    compute       the entry points; sampling: the Monte Carlo fallback
"""

from __future__ import annotations

from interpreter.odds.answer import Odds
from interpreter.odds.compute import BUDGET, EPSILON, TRIALS, action_odds, expression_odds
from interpreter.odds.distribution import Dist
from interpreter.odds.polynomials import TooComplex
from interpreter.odds.pools import pool_distribution
from interpreter.odds.worlds import Failure

__all__ = [
    "BUDGET",
    "EPSILON",
    "TRIALS",
    "Dist",
    "Failure",
    "Odds",
    "TooComplex",
    "action_odds",
    "expression_odds",
    "pool_distribution",
]
