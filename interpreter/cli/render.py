"""Odds as text: a row per outcome with its probability, P(at least) and a bar; a progress bar."""

from __future__ import annotations

import math
import sys
from fractions import Fraction

from dsl.messages import Number, number_text, percent_text, show_value, tr, tr_n, translate
from interpreter.odds import Odds
from interpreter.odds.answer import in_order, outcome_key
from interpreter.odds.listing import (
    LISTED_OUTCOMES,
    REDUCED_BITS,
    Fractions,
    Listing,
    field_summaries,
    listing,
    side_by_side,
)
from interpreter.odds.worlds import Failure
from interpreter.values import Record, fraction_text, is_number, rounded

#: what a progress bar says it is doing, unless told otherwise
SAMPLING = tr("sampling")


def progress_bar(stream=None, language: str | None = None):
    """A progress bar on the terminal (stderr, unless `stream`), shown once a computation
    passes a second."""
    stream = sys.stderr if stream is None else stream
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


def exactness(odds: Odds, language: str | None = None) -> str:
    """How exact the answer is, in words a game master reads: exact, or about (from how
    many trials); and the chance left out (outcomes too unlikely to follow: dice that
    could go on exploding, branches below the explorer's cut), as one chance in so many,
    never a float's notation."""
    said = tr("exact") if odds.exact else tr("about, from {trials} trials", trials=odds.trials)
    if not odds.omitted:
        return said.render(language)
    return tr(
        "{said}; left out: outcomes too unlikely to follow, less than 1 chance in {odds}",
        said=said,
        odds=one_in(odds.omitted, language),
    ).render(language)


def one_in(chance, language: str | None = None) -> str:
    """`100,000,000,000,000` for a chance below 1 in 10^14 (the power of ten at or under
    1/chance), its thousands separated as the language writes them."""
    power = 10 ** max(0, math.floor(-math.log10(float(chance)))) if chance > 0 else 1
    return number_text(power, language, ",")


def to_text(odds: Odds, fractions: bool = False, language: str | None = None) -> str:
    """A row per outcome: probability, P(at least), a bar (as AnyDice draws them); the
    outcomes in the output's language (yes/no as `rulebook run` shows them). At most
    LISTED_OUTCOMES rows (interpreter.odds.listing): the likeliest outcomes side by side,
    a line for those left out before and after them, and the summary of all. A whole
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
    lines.append(f"  ({exactness(odds, language)})")
    if odds.note:
        lines.append(f"  ({translate(odds.note, language)})")
    if fractions and not odds.exact:
        lines.append("  " + NO_FRACTIONS.render(language))
    lines += each_field_alone(odds, language)
    listed = odds.listing()
    table = listed.table
    total = table.total
    if odds.numeric() and not fractions:
        listed = negligible_ends_folded(listed)
    exact = Fractions(total) if odds.exact and (fractions or short_fractions(odds)) else None
    numeric = odds.numeric()
    keys = {o: outcome_key(o, language) for o, _, _ in listed.rows}
    width = max((len(k) for k in keys.values()), default=1)
    peak = max((w for _, w, _ in listed.rows), default=1) or 1
    beyond = float(1 - odds.omitted - Fraction(table.mass, total)) if total else 0.0
    if listed.below[0]:
        count, weight = listed.below
        lines.append(
            "  " + left_out(BELOW, count, percent_text(weight / total, language), language)
        )
    for outcome, w, before in listed.rows:
        bar = "█" * round(40 * w / peak)
        row = f"  {keys[outcome]:>{width}}  {percent_text(w / total, language, '8.4f')}"
        if numeric:
            at_least = (table.mass - before) / total + beyond
            row += f"  ≥ {percent_text(at_least, language, '8.4f')}"
        if not odds.exact and (error := odds.stderr(outcome)) is not None:
            row += f"  ± {number_text(error * 100, language, '.3f')}"
        row += f"  {bar}"
        if exact is not None:
            value = exact.of(w)
            shown = (fraction_text(value) if value is not None else None) or TOO_LONG.render(
                language
            )
            row += f"  {shown}"
        lines.append(row)
    if listed.above[0]:
        count, weight = listed.above
        lines.append(
            "  " + left_out(ABOVE, count, percent_text(weight / total, language), language)
        )
    if listed.left_out:
        lines.append("  " + listed_text(odds, listed, language))
    if numeric and (moments := odds.spread()) is not None:
        mean, stdev = moments
        spread = tr(
            "mean {mean}, standard deviation {stdev}",
            mean=Number(mean, ".4f"),
            stdev=Number(stdev, ".4f"),
        )
        lines.append("  " + spread.render(language))
    if odds.goal is not None:
        best = tr("choosing the best for {goal}:", goal=goal_text(odds.goal))
        worth = odds.goal_worth  # set with the goal (interpreter.odds.best_play)
        if odds.goal.expression is not None and worth is not None:  # the expression's mean
            best = tr(
                "choosing the best for {goal} (worth {worth} = {fraction}):",
                goal=goal_text(odds.goal),
                worth=Number(rounded(worth), ".4f"),
                fraction=str(worth) if worth.denominator < 10**12 else "…",
            )
        if not odds.decisions:  # (`--best` of an action that asks nothing: say so)
            best = tr("{best} the action makes no choice", best=best)
        lines.append("  " + best.render(language))
        labels = [f"{c} = {show_value(o, language)}" for c, o in odds.decisions]
        width = max(map(len, labels), default=0)  # the chances in one column
        for label, p in zip(labels, odds.decisions.values(), strict=True):
            lines.append(f"    {label:<{width}}  {percent_text(p, language, '8.4f')}")
    return "\n".join(lines)


def each_field_alone(odds: Odds, language: str | None) -> list[str]:
    """A long table of whole results opens with each field on its own (listing.
    field_summaries): `success: yes 51.0000%, no 49.0000%`, `total: 1 to 100, mean
    50.5000`; then `every outcome:` heads the table."""
    table = odds.table
    summaries = field_summaries(table, Record, is_number)
    if not summaries:
        return []
    lines = ["  " + EACH_FIELD.render(language)]
    for summary in summaries:
        if summary.values is not None and len(summary.values) == 1:  # (always the same)
            shown = show_value(summary.values[0][0], language)
        elif summary.values is not None:
            weights = dict(summary.values)
            shown = ", ".join(
                f"{show_value(value, language)} "
                + percent_text(weights[value] / table.total, language, ".4f")
                for value in in_order(list(weights), odds.orders)
            )
        else:
            shown = tr(
                "{low} to {high}, mean {mean}",
                low=summary.low,
                high=summary.high,
                mean=Number(rounded(summary.mean), ".4f"),
            ).render(language)
        lines.append(f"    {summary.name}: {shown}")
    lines.append("  " + EVERY_OUTCOME.render(language))
    return lines


#: the heads of a long table of whole results (each_field_alone)
EACH_FIELD = tr("each field on its own:")
EVERY_OUTCOME = tr("every outcome:")


#: a probability a table's four decimals write as 0.0000% (under half of 0.0001%)
NEGLIGIBLE = Fraction(1, 2_000_000)
#: rows written out at each end of a table, however negligible, before they are folded
KEPT_AT_ENDS = 3


def negligible_ends_folded(listed: Listing) -> Listing:
    """A numeric table's rows without its runs of outcomes at either end whose chance
    (each, and of all beyond) writes as 0.0000%, folded into the lines of outcomes left
    out (`1d6!`: 4 to 119 not written one by one; `--fractions` writes them all)."""
    table, rows = listed.table, listed.rows
    negligible = NEGLIGIBLE * table.total
    first = 0
    while first < len(rows) and rows[first][1] + rows[first][2] < negligible:
        first += 1  # (everything up to this row, with the rows left out before, is negligible)
    last = len(rows)
    while last > first and table.mass - rows[last - 1][2] < negligible:
        last -= 1  # (this row and every one after it are negligible)
    first = first if first >= KEPT_AT_ENDS else 0
    last = last if len(rows) - last >= KEPT_AT_ENDS else len(rows)
    if first == 0 and last == len(rows):
        return listed
    below = (listed.below[0] + first, listed.below[1] + sum(w for _, w, _ in rows[:first]))
    above = (
        listed.above[0] + len(rows) - last,
        listed.above[1] + sum(w for _, w, _ in rows[last:]),
    )
    return Listing(table, rows[first:last], below, above)


#: the outcomes left out of a listing before its rows, and after them
BELOW = "below"
ABOVE = "above"


def left_out(where: str, count: int, percent: str, language: str | None) -> str:
    """`… 24900 more outcomes before these (0.0012%)`."""
    if where == BELOW:
        text = tr_n(
            "… {n} more outcome before these ({percent})",
            "… {n} more outcomes before these ({percent})",
            count,
            percent=percent,
        )
    else:
        text = tr_n(
            "… {n} more outcome after these ({percent})",
            "… {n} more outcomes after these ({percent})",
            count,
            percent=percent,
        )
    return text.render(language)


def listed_text(odds: Odds, listed, language: str | None) -> str:
    """`200 of 50001 outcomes listed, 99.9976% of the probability; from 10000 to 60000`."""
    table = listed.table
    shown = sum(w for _, w, _ in listed.rows)
    text = tr(
        "{listed} of {size} outcomes listed, {percent} of the probability",
        listed=len(listed.rows),
        size=len(table),
        percent=Number(shown / table.total, ".4%"),
    )
    if odds.numeric():
        text = tr(
            "{listed}; from {low} to {high}",
            listed=text,
            low=table.outcomes[0],
            high=table.outcomes[-1],
        )
    return text.render(language)


#: fractions are shown unasked for a few outcomes whose fractions a person can read
SHORT_OUTCOMES = 10
SHORT_DIGITS = 12


def short_fractions(odds: Odds) -> bool:
    """Whether every probability is a fraction short enough to show unasked (`1/36`, not
    the 450 digits that the tail of an open-ended roll leaves)."""
    if odds.size > SHORT_OUTCOMES or odds.table.total.bit_length() > REDUCED_BITS:
        return False
    return all(p.denominator < 10**SHORT_DIGITS for p in odds.probabilities.values())


def goal_text(goal):
    """`success`, `degree = critical`, `mean damage`: a goal as it was asked for."""
    return goal.shown


#: a probability whose exact fraction has too many digits to print
TOO_LONG = tr("(a fraction too long to write out)")
#: --fractions asked for odds that are sampled
NO_FRACTIONS = tr(
    "no fractions: sampled odds are estimates from the trials, not exact fractions "
    "(a larger --budget may give exact odds)"
)


def compare_text(a: Odds, b: Odds, names: tuple, language: str | None = None) -> str:
    """Two distributions side by side, with the change in each probability and the mean:
    at most LISTED_OUTCOMES rows (those side by side most likely in either), the others
    counted."""
    ta, tb = a.table, b.table
    both = side_by_side(ta, tb, lambda seen: in_order(seen, a.orders or b.orders))
    listed = listing(both, LISTED_OUTCOMES, lambda o: isinstance(o, Failure))
    keys = {o: outcome_key(o, language) for o, _, _ in listed.rows}
    width = max((len(k) for k in keys.values()), default=1)
    # (the columns as wide as their percentages: `8,3333 %` in Spanish)
    wide = len(percent_text(0, language, "11.4f"))
    change_wide = len(percent_text(0, language, "+9.4f"))
    lines = [
        f"  A: {translate(names[0], language)}",
        f"  B: {translate(names[1], language)}",
        f"  {'':>{width}}  {'A':>{wide}}  {'B':>{wide}}  {'B - A':>{change_wide}}",
    ]

    def chance(table, outcome) -> float:
        return (table.weight(outcome) or 0) / table.total

    def skipped(where: str, count: int, outcomes) -> str:
        pa = percent_text(sum(chance(ta, o) for o in outcomes), language)
        pb = percent_text(sum(chance(tb, o) for o in outcomes), language)
        return "  " + left_out(where, count, f"A {pa}, B {pb}", language)

    shown = {o for o, _, _ in listed.rows}
    first = both.outcomes.index(listed.rows[0][0]) if listed.rows else 0
    if listed.below[0]:
        lines.append(skipped(BELOW, listed.below[0], both.outcomes[:first]))
    for outcome, _, _ in listed.rows:
        pa, pb = chance(ta, outcome), chance(tb, outcome)
        lines.append(
            f"  {keys[outcome]:>{width}}  {percent_text(pa, language, '11.4f')}  "
            f"{percent_text(pb, language, '11.4f')}  {percent_text(pb - pa, language, '+9.4f')}"
        )
    if listed.above[0]:
        rest = [o for o in both.outcomes[first:] if o not in shown]
        lines.append(skipped(ABOVE, listed.above[0], rest))
    mean_a, mean_b = a.mean, b.mean  # (None unless numeric)
    if mean_a is not None and mean_b is not None:
        change = tr(
            "mean {a} → {b} ({change})",
            a=Number(rounded(mean_a), ".4f"),
            b=Number(rounded(mean_b), ".4f"),
            change=Number(rounded(mean_b - mean_a), "+.4f"),
        )
        lines.append("  " + change.render(language))
    return "\n".join(lines)
