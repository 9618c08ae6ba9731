"""The bounds every evaluation runs under; an embedding app may choose its own."""

from __future__ import annotations

import math

import attrs

#: the most digits Python turns into text (`sys.get_int_max_str_digits`'s default): a
#: number any longer could be built but not printed, saved or sent
PRINTABLE_DIGITS = 4300


@attrs.frozen(cache_hash=True)
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
    #: steps of evaluation one run may take (README: "what a step is"): each statement,
    #: operation, call, table read, loop pass, branch and dice term, and each cell of a
    #: value an operation goes through; also of one sheet's check, one parameter's default,
    #: one world of the odds engine
    steps_per_run: int = 250_000
    #: passes one `repeat` may make
    repeat_count: int = 1_000
    #: checks, actions and formulas that may be calling one another at once
    call_depth: int = 32
    #: times a tied opposed check with `tie reroll` may be rolled again
    tie_rerolls: int = 100
    #: characters of text an evaluation may build (texts with {…} parts)
    text_length: int = 100_000
    #: decimal digits of a number an evaluation builds (of a fraction: its numerator)
    number_digits: int = 1_000
    #: decimal digits of a fraction's denominator
    denominator_digits: int = 100
    #: items of a list an evaluation builds (a list on the sheet, a `let` list, a catalog)
    list_length: int = 10_000
    #: cells of one list or record an evaluation builds, counting those of the lists,
    #: records and texts inside it (a cell: an item, 64 characters of a text, 77 digits)
    value_size: int = 100_000
    #: seconds of computing `rulebook odds` (Engine.odds) may take, exact work and sampling
    odds_seconds: float = 5.0
    #: seconds one run may take (a server's bound on an untrusted rulebook; inf: none)
    run_seconds: float = math.inf
    #: steps a trace shows; past them, one more line says how many were left out
    trace_steps: int = 1_000
    #: characters of one value a trace step or an error shows; past them, cut short
    shown_length: int = 300
    #: outcomes one distribution of the odds engine may hold (its memory bound)
    odds_outcomes: int = 100_000
    #: bytes of big-integer arithmetic one step of the odds engine may hold at once
    odds_bytes: int = 32_000_000

    # 10**digits, computed once: a number is too long when its absolute value reaches it
    number_bound: int = attrs.field(init=False, eq=False, repr=False)
    denominator_bound: int = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self):
        for field in attrs.fields(type(self)):
            if field.init and getattr(self, field.name) < 0:
                raise ValueError(f"Limits.{field.name} cannot be negative")
        if not (self.odds_seconds > 0 and self.run_seconds > 0):  # NaN too: never reached
            raise ValueError("Limits.odds_seconds and Limits.run_seconds must be positive")
        for name in ("number_digits", "denominator_digits"):
            if getattr(self, name) > PRINTABLE_DIGITS:
                raise ValueError(f"Limits.{name} cannot be more than {PRINTABLE_DIGITS}")
        object.__setattr__(self, "number_bound", 10**self.number_digits)
        object.__setattr__(self, "denominator_bound", 10**self.denominator_digits)


DEFAULT_LIMITS = Limits()

#: cases one sweep asked of the server may have (`POST /api/sweep`): each is an odds
#: computation, run one after another in one worker process
WEB_SWEEP_CASES = 400
#: the time one sweep asked of the server may take, in odds computations' time bounds
#: (`serve --odds-timeout`): the whole sweep is stopped past it
WEB_SWEEP_ODDS_TIMES = 12
