"""Odds as text: a row per outcome with its probability, P(at least) and a bar; a progress bar."""

from __future__ import annotations

import sys
from fractions import Fraction

from dsl.messages import show_value, tr
from interpreter.odds import Odds
from interpreter.odds.answer import order_key, outcome_key
from interpreter.values import fraction_text


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


def to_text(odds: Odds, fractions: bool = False) -> str:
    """A row per outcome: probability, P(at least), a bar (as AnyDice draws them)."""
    lines = []
    subject = odds.subject.get("expression") or odds.subject.get("action")
    head = f"{subject}" + (f" · {odds.field}" if odds.field else "")
    lines.append(head)
    exactness = "exact" if odds.exact else f"sampled, {odds.trials} trials"
    lines.append(f"  ({exactness}; omitted mass {float(odds.omitted):.3g})")
    if odds.note:
        lines.append(f"  ({odds.note})")
    show_fractions = odds.exact and (fractions or len(odds.probabilities) <= 10)
    numeric = odds.numeric()
    width = max((len(outcome_key(o)) for o in odds.probabilities), default=1)
    peak = max(odds.probabilities.values(), default=Fraction(1)) or Fraction(1)
    at_least = Fraction(1) - odds.omitted
    for outcome, p in odds.probabilities.items():
        bar = "█" * round(40 * p / peak)
        row = f"  {outcome_key(outcome):>{width}}  {float(p) * 100:8.4f}%"
        if numeric:
            row += f"  ≥ {float(at_least) * 100:8.4f}%"
            at_least -= p
        if not odds.exact:
            row += f"  ± {odds.stderr(outcome) * 100:.3f}"
        row += f"  {bar}"
        if show_fractions:
            row += f"  {fraction_text(p) or '(a fraction too long to write out)'}"
        lines.append(row)
    if numeric:
        lines.append(f"  mean {float(odds.mean):.4f}, standard deviation {odds.stdev:.4f}")
    if odds.goal is not None:
        lines.append(str(tr("  choosing the best for {goal}:", goal=goal_text(odds.goal))))
        for (choice, option), p in odds.decisions.items():
            lines.append(f"    {choice} = {show_value(option)}  {float(p) * 100:8.4f}%")
    return "\n".join(lines)


def goal_text(goal) -> str:
    """`success`, `degree = critical`, `mean damage`: a goal as it was asked for."""
    if goal.mean:
        return f"mean {goal.field}"
    if goal.value is True:
        return goal.field
    return f"{goal.field} = {show_value(goal.value)}"


def compare_text(a: Odds, b: Odds, names: tuple[str, str]) -> str:
    """Two distributions side by side, with the change in each probability and the mean."""
    seen = set(a.probabilities) | set(b.probabilities)
    outcomes = sorted(seen, key=order_key(seen, a.orders or b.orders))
    width = max((len(outcome_key(o)) for o in outcomes), default=1)
    lines = [
        f"  A: {names[0]}",
        f"  B: {names[1]}",
        f"  {'':>{width}}  {'A':>12}  {'B':>12}  {'B - A':>10}",
    ]
    for outcome in outcomes:
        pa, pb = a.probability(outcome), b.probability(outcome)
        delta = float(pb - pa) * 100
        lines.append(
            f"  {outcome_key(outcome):>{width}}  {float(pa) * 100:11.4f}%  "
            f"{float(pb) * 100:11.4f}%  {delta:+9.4f}%"
        )
    if a.mean is not None and b.mean is not None:
        lines.append(
            f"  mean {float(a.mean):.4f} → {float(b.mean):.4f} ({float(b.mean - a.mean):+.4f})"
        )
    return "\n".join(lines)
