"""The bounds every evaluation runs under; an embedding app may choose its own."""

from __future__ import annotations

import attrs


@attrs.frozen
class Limits:
    """Passing any of these is an error naming the limit and the place; never a hang."""

    #: dice one term may roll before its modifiers add any (the N of NdX)
    dice_per_term: int = 10_000
    #: extra dice a single die may add by exploding, or draws it may take by rerolling
    extra_per_die: int = 100
    #: dice one evaluation (a roll, or a whole action) may draw in all
    dice_per_evaluation: int = 100_000
    #: faces a die may have
    faces_per_die: int = 1_000_000
    #: statements one action may execute, counting every pass through a loop
    steps_per_run: int = 100_000
    #: passes one `repeat` may make
    repeat_count: int = 1_000
    #: checks and actions that may be calling one another at once
    call_depth: int = 32
    #: times a tied opposed check with `tie reroll` may be rolled again
    tie_rerolls: int = 100
    #: characters of text an evaluation may build (texts with {…} parts)
    text_length: int = 100_000


DEFAULT_LIMITS = Limits()
