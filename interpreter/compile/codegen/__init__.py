"""Actions, checks and formulas generated as Python source, compiled once, for real runs.

A compiled action, check or formula (interpreter.compile.actions, checks, compiler) keeps
its closures, which the odds engine and a traced run use; an untraced real run calls
instead the function generated for it here on its first such run (`emit_steps`), which
does the same work with the hot constructs written inline and every other one through
its closure. No text of the rulebook is in the generated source: every value reaches it
as a constant (`emitted`).

`SWITCH.generated` turns the generated functions off (closures only): the environment
variable RULEBOOK_CLOSURES_ONLY=1 at start, or `closures_only()` for a while (the
agreement tests run both ways).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator


class Switch:
    """Whether real runs call the generated functions (else the closures alone)."""

    __slots__ = ("generated",)

    def __init__(self) -> None:
        self.generated = os.environ.get("RULEBOOK_CLOSURES_ONLY", "") not in ("1", "yes", "true")


SWITCH = Switch()


@contextlib.contextmanager
def closures_only() -> Iterator[None]:
    """Real runs through the closures alone while inside (not for several threads)."""
    before = SWITCH.generated
    SWITCH.generated = False
    try:
        yield
    finally:
        SWITCH.generated = before
