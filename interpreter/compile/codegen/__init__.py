"""Actions, checks and formulas generated as Python source, compiled once, for real runs.

A compiled action, check or formula (interpreter.compile.actions, checks, compiler) keeps
its closures, which the odds engine uses; an untraced real run calls instead the
function generated for it here after its first few runs (`emit_steps`), which does the
same work with the hot constructs written inline and every other one through its
closure; a traced real run, an action's body and a check's record generated for it (the
steps written inline recorded as their closures record them, the others' closures
called: `traced`). No text of the rulebook is in the generated source:
every value reaches it as a constant (`emitted`).

`SWITCH.generated` turns the generated functions off (closures only): the environment
variable RULEBOOK_CLOSURES_ONLY=1 at start, or `closures_only()` for a while (the
agreement tests run both ways); `SWITCH.after` is how many runs go through the closures
before the function is made (generating costs some milliseconds: a run made once never
pays it).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

#: runs through the closures before an action's (check's, formula's) code is generated
AFTER = 2


class Switch:
    """Whether real runs call the generated functions (else the closures alone)."""

    __slots__ = (
        "after",
        "flat_steps",
        "generated",
        "lazy_steps",
        "traced_dice",
        "traced_faces",
        "traced_formulas",
        "traced_inline",
        "traced_labels",
        "traced_lookup_steps",
        "traced_lookups",
        "traced_notes",
        "traced_places",
        "traced_steps",
        "traced_straight",
        "traced_whole",
        "traced_whole_within",
    )

    def __init__(self) -> None:
        self.generated = os.environ.get("RULEBOOK_CLOSURES_ONLY", "") not in ("1", "yes", "true")
        #: untraced real runs (calls, of a formula) through the closures before the
        #: function is generated: one run alone (`rulebook run`) never pays for making it
        self.after = AFTER
        #: a traced run's generated code writes a called check inline (its frame, terms,
        #: record and step: `traced.inline_traced_check`), else calls its closure
        self.traced_inline = True
        #: a traced run's generated code reads a one-key table's remembered rows (the
        #: lookup's step recorded as the lookup records it), else calls the lookup
        self.traced_lookups = True
        #: (with `traced_lookups` and `traced_steps`) the step of a row read there is put
        #: in the trace by the generated code itself (`lookups.put_lookup_step`),
        #: else by calling the function recording it (`tables.lookup_step`)
        self.traced_lookup_steps = True
        #: a traced run's generated code draws one plain die itself (its roll and step
        #: made as its closure makes them: `step_texts.rolled_die`), else calls its closure
        self.traced_dice = True
        #: a traced run's closure of one plain die (`Expressions.ex_dice`) draws its face
        #: as an untraced run does (`Roller.face`), its roll and step made as the generated
        #: code makes them (`step_texts.rolled_die`), else rolls it as a pool
        self.traced_faces = True
        #: a traced run's generated code names a check's term's values itself (the
        #: places a name names: `traced._label_written`), else calls its label
        self.traced_labels = True
        #: a formula recording no step (`emit_values.records_nothing`) called by a closure
        #: in a traced run calls its generated function, else runs its closures
        self.traced_formulas = True
        #: a traced run's generated code finds the place a check's term names itself (a
        #: field's name, a local's value: `Values.place`), else calls its closure
        self.traced_places = True
        #: a traced run's commonest steps (a let's, a set's, an if's, a lookup's, a
        #: check's) recorded as what makes them (`Step._m`), made when first read; else
        #: made as they are recorded
        self.lazy_steps = True
        #: those steps (with `lazy_steps`) put in the trace flat, as the tuple that makes
        #: them, each made a `Step` when the trace is first read (`Trace.flat`); else a
        #: `Step` is made for each as it is recorded
        self.flat_steps = True
        #: (with `flat_steps`) a traced run's generated code puts a let's, a set's, an
        #: if's, a plain die's and an inline check's step in the trace itself (the trace
        #: and its room read once per function: `step_texts.recording`), else calls the
        #: function recording it (`step_texts.let_step`, ...)
        self.traced_steps = True
        #: (with `traced_steps`) a traced run's generated code computes a note's value and
        #: puts its step itself (`step_texts.noted_step`), the locals it knew still known
        #: after it, else calls the note's closure (which may write any local, as far as
        #: the code knows: they are read again from the frame)
        self.traced_notes = True
        #: an action or a check a traced run runs on its own (at depth 0) calls one
        #: function generated for it all (its frame, body and step: `traced.generated_whole`),
        #: else enters its frame itself and calls its traced body
        self.traced_whole = True
        #: (with `traced_whole`) `Engine.run` calls that function itself for a traced run
        #: once it is made (`CallFrame.whole`), else calls the compiled action or check,
        #: which calls it
        self.traced_straight = True
        #: (with `traced_whole`) a check a closure calls in a traced run (an opposed
        #: check's sides, a check in a formula's closure) calls that function too, at
        #: whatever depth (it reads the depth as it runs), else enters its frame itself
        self.traced_whole_within = True


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


def safely(generate: Callable[..., Any], *args: Any) -> Any:
    """What `generate(*args)` gives, or None if it fails in any way (a bug of the
    generator, or a refusal of its source): then the closures run, which are the
    reference, and nothing generated is run. The tests hold every shipped action and
    check, and hostile rulebooks, to having their generated function."""
    try:
        return generate(*args)
    except Exception:  # any failure to generate: the closures run instead
        return None
