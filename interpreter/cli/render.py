"""Odds as text: a row per outcome with its probability, P(at least) and a bar; a progress bar."""

from __future__ import annotations

import sys
from fractions import Fraction

from dsl.messages import show_value, tr, translate
from interpreter.odds import Odds
from interpreter.odds.answer import order_key, outcome_key
from interpreter.values import fraction_text

#: what a progress bar says it is doing, unless told otherwise
SAMPLING = tr("sampling")


def progress_bar(stream=sys.stderr, language: str | None = None):
    """A progress bar on the terminal, shown once a computation passes a second."""
    if not stream.isatty():
        return None

    def show_progress(done: int, total: int, elapsed: float, what=SAMPLING) -> None:
        if elapsed < 1:
            return
        what = translate(what, language)
        width = 30
        filled = width * min(done, total) // max(total, 1)
        stream.write(f"\r  {what} [{'#' * filled}{' ' * (width - filled)}] {done}/{total} ")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show_progress


def to_text(odds: Odds, fractions: bool = False, language: str | None = None) -> str:
    """A row per outcome: probability, P(at least), a bar (as AnyDice draws them); the
    outcomes in the output's language (yes/no as `rulebook run` shows them). A whole
    result answered field by field (interpreter.odds.marginals): why, then a table per
    field."""
    fields = getattr(odds, "fields", None)
    if fields is not None:
        head = f"{odds.subject.get('action')}\n  ({translate(odds.note, language)})"
        return "\n\n".join([head, *(to_text(f, fractions, language) for f in fields.values())])
    lines = []
    subject = odds.subject.get("expression") or odds.subject.get("action")
    head = f"{subject}" + (f" · {odds.field}" if odds.field else "")
    lines.append(head)
    if odds.exact:
        exactness = tr("exact; omitted mass {mass:.3g}", mass=float(odds.omitted))
    else:
        exactness = tr(
            "sampled, {trials} trials; omitted mass {mass:.3g}",
            trials=odds.trials,
            mass=float(odds.omitted),
        )
    lines.append(f"  ({exactness.render(language)})")
    if odds.note:
        lines.append(f"  ({translate(odds.note, language)})")
    if fractions and not odds.exact:
        lines.append("  " + NO_FRACTIONS.render(language))
    show_fractions = odds.exact and (fractions or short_fractions(odds))
    numeric = odds.numeric()
    keys = {o: outcome_key(o, language) for o in odds.probabilities}
    width = max((len(k) for k in keys.values()), default=1)
    peak = max(odds.probabilities.values(), default=Fraction(1)) or Fraction(1)
    at_least = Fraction(1) - odds.omitted
    for outcome, p in odds.probabilities.items():
        bar = "█" * round(40 * p / peak)
        row = f"  {keys[outcome]:>{width}}  {float(p) * 100:8.4f}%"
        if numeric:
            row += f"  ≥ {float(at_least) * 100:8.4f}%"
            at_least -= p
        if not odds.exact:
            row += f"  ± {odds.stderr(outcome) * 100:.3f}"
        row += f"  {bar}"
        if show_fractions:
            shown = fraction_text(p) or TOO_LONG.render(language)
            row += f"  {shown}"
        lines.append(row)
    if numeric:
        spread = tr(
            "mean {mean:.4f}, standard deviation {stdev:.4f}",
            mean=float(odds.mean),
            stdev=odds.stdev,
        )
        lines.append("  " + spread.render(language))
    if odds.goal is not None:
        best = tr("choosing the best for {goal}:", goal=goal_text(odds.goal))
        lines.append("  " + best.render(language))
        for (choice, option), p in odds.decisions.items():
            lines.append(f"    {choice} = {show_value(option, language)}  {float(p) * 100:8.4f}%")
    return "\n".join(lines)


#: fractions are shown unasked for a few outcomes whose fractions a person can read
SHORT_OUTCOMES = 10
SHORT_DIGITS = 12


def short_fractions(odds: Odds) -> bool:
    """Whether every probability is a fraction short enough to show unasked (`1/36`, not
    the 450 digits that the tail of an open-ended roll leaves)."""
    return len(odds.probabilities) <= SHORT_OUTCOMES and all(
        len(str(p.denominator)) <= SHORT_DIGITS for p in odds.probabilities.values()
    )


def goal_text(goal):
    """`success`, `degree = critical`, `mean damage`: a goal as it was asked for."""
    if goal.mean:
        return tr("mean {field}", field=goal.field)
    if goal.value is True:
        return goal.field
    return tr("{field} = {value}", field=goal.field, value=goal.value)


#: a probability whose exact fraction has too many digits to print
TOO_LONG = tr("(a fraction too long to write out)")
#: --fractions asked for odds that are sampled
NO_FRACTIONS = tr(
    "no fractions: sampled odds are estimates from the trials, not exact fractions "
    "(a larger --budget or --timeout may give exact odds)"
)


def compare_text(a: Odds, b: Odds, names: tuple, language: str | None = None) -> str:
    """Two distributions side by side, with the change in each probability and the mean."""
    seen = set(a.probabilities) | set(b.probabilities)
    outcomes = sorted(seen, key=order_key(seen, a.orders or b.orders))
    keys = {o: outcome_key(o, language) for o in outcomes}
    width = max((len(k) for k in keys.values()), default=1)
    lines = [
        f"  A: {translate(names[0], language)}",
        f"  B: {translate(names[1], language)}",
        f"  {'':>{width}}  {'A':>12}  {'B':>12}  {'B - A':>10}",
    ]
    for outcome in outcomes:
        pa, pb = a.probability(outcome), b.probability(outcome)
        delta = float(pb - pa) * 100
        lines.append(
            f"  {keys[outcome]:>{width}}  {float(pa) * 100:11.4f}%  "
            f"{float(pb) * 100:11.4f}%  {delta:+9.4f}%"
        )
    if a.mean is not None and b.mean is not None:
        change = tr(
            "mean {a:.4f} → {b:.4f} ({change:+.4f})",
            a=float(a.mean),
            b=float(b.mean),
            change=float(b.mean - a.mean),
        )
        lines.append("  " + change.render(language))
    return "\n".join(lines)
