"""Odds as text: a row per outcome with its probability, P(at least) and a bar; a progress bar."""

from __future__ import annotations

import sys
from fractions import Fraction

from dsl.messages import tr
from interpreter.odds import Odds
from interpreter.odds.answer import order_key, outcome_key


def progress_bar(stream=sys.stderr):
    """A progress bar on the terminal, shown once a computation passes a second."""
    if not stream.isatty():
        return None

    def show_progress(done: int, total: int, elapsed: float, what: str = "sampling") -> None:
        if elapsed < 1:
            return
        width = 30
        filled = width * min(done, total) // max(total, 1)
        stream.write(f"\r  {what} [{'#' * filled}{' ' * (width - filled)}] {done}/{total} ")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show_progress


def to_text(odds: Odds, fractions: bool = False, language: str | None = None) -> str:
    """A row per outcome: probability, P(at least), a bar (as AnyDice draws them); yes/no
    and the action's failures in the output's language."""
    lines = []
    subject = odds.subject.get("expression") or odds.subject.get("action")
    head = f"{subject}" + (f" · {odds.field}" if odds.field else "")
    lines.append(head)
    omitted = f"{float(odds.omitted):.3g}"
    if odds.exact:
        lines.append("  " + tr("(exact; omitted mass {omitted})", omitted=omitted).render(language))
    else:
        lines.append("  " + tr("(sampled, {trials} trials)", trials=odds.trials).render(language))
        if fractions:
            reason = tr(
                "no fractions: sampled odds are estimates from the trials, not exact "
                "fractions (a larger --budget may give exact odds)"
            )
            lines.append("  " + reason.render(language))
    show_fractions = odds.exact and (fractions or len(odds.probabilities) <= 10)
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
            row += f"  {p.numerator}/{p.denominator}"
        lines.append(row)
    if numeric:
        lines.append(
            "  "
            + tr(
                "mean {mean}, standard deviation {stdev}",
                mean=f"{float(odds.mean):.4f}",
                stdev=f"{odds.stdev:.4f}",
            ).render(language)
        )
    return "\n".join(lines)


def compare_text(a: Odds, b: Odds, names: tuple[str, str], language: str | None = None) -> str:
    """Two distributions side by side, with the change in each probability and the mean."""
    seen = set(a.probabilities) | set(b.probabilities)
    outcomes = sorted(seen, key=order_key(seen, a.orders or b.orders))
    keys = {o: outcome_key(o, language) for o in outcomes}
    width = max((len(k) for k in keys.values()), default=1)
    lines = [
        f"  A: {names[0]}",
        f"  B: {names[1]}",
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
        lines.append(
            "  "
            + tr(
                "mean {before} → {after} ({change})",
                before=f"{float(a.mean):.4f}",
                after=f"{float(b.mean):.4f}",
                change=f"{float(b.mean - a.mean):+.4f}",
            ).render(language)
        )
    return "\n".join(lines)
