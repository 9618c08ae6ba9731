"""Where an exact odds computation's worlds multiply: worlds and CPU time per statement.

    python benchmarks/worlds_per_statement.py arcana_mundi combate_teurgico menecma \\
        --param "numina=La fortaleza de Perséfone"
    python benchmarks/worlds_per_statement.py arcana_mundi usar_numina menecma --why 3
    python benchmarks/worlds_per_statement.py ... --forget Impietas   # an experiment

The case is benchmarks/all_actions.py's (the words name its rulebook, action and
character, as its `--only` does; `--param` changes one parameter, as its `--variants`
does). `Engine.odds` of the whole result is asked once, with each statement the explorer
runs over a list of worlds (interpreter.odds.explore.Explorer.step, at every depth of
called actions) timed and counted: how often it ran, the worlds it was given and those
it gave back, the CPU time of its runs (a statement's time holds that of the statements
inside it). The table lists the statements by time, each by its place in the rulebook.

`--why N`: for the N statements given the most worlds at once, what tells those worlds
apart, as the merge before the statement keys them: each name and the sheet (and each field
changed on it), with how many distinct values it holds there, and how many distinct
worlds there would be without it (a name or the sheet whose removal divides the worlds
is what multiplies them; whether a later statement branches on it decides whether it
must).

`--forget FIELD`: the merges inside called actions keep nothing of the sheet fields
whose name holds FIELD that their callers read after the call (`Calls.outer_of`). The
ANSWER IS THEN WRONG: this bounds what carrying such a field as a distribution, not as
a world per value, could save (issue 24: Arcana Mundi's Impietas in combate_teurgico).

Times are CPU time (`time.process_time`) and include the counting's own overhead.
This is a diagnostic, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (all_actions, this tree's)

import all_actions

from interpreter.odds.called import Calls
from interpreter.odds.carried import Held
from interpreter.odds.explore import Explorer
from interpreter.odds.worlds import Live, cuts_of, key_of


def where(node) -> str:
    """A statement's place and first line of text."""
    span = getattr(node, "span", None)
    if span is None:
        return type(node).__name__
    text = span.text.split("\n", 1)[0].strip()
    return f"{span.location().rsplit('/', 1)[-1]}  {text[:60]}"


class Counting:
    """Explorer.step timed and counted per statement (its number), while installed."""

    def __init__(self, why: int) -> None:
        self.rows: dict = defaultdict(lambda: [0, 0, 0, 0.0, "", 0])  # runs, in, out, s
        self.widest: list = []  # (worlds, place, what tells them apart)
        self.why = why
        self.step = Explorer.step

    def install(self) -> None:
        step, rows = self.step, self.rows

        def counted(explorer, statements, index, worlds, live, live_out):
            statement = statements[index]
            given = len(worlds) if type(worlds) is not Held else 0
            if self.why and given > 100:
                before = live[index - 1] if index else None
                if before is not None:
                    self.apart(explorer, statement, worlds, before)
            started = time.process_time()
            out = step(explorer, statements, index, worlds, live, live_out)
            row = rows[statement.number]
            row[0] += 1
            row[1] += given
            row[2] += len(out[0]) if type(out[0]) is not Held else 0
            row[3] += time.process_time() - started
            row[4], row[5] = where(statement.node), explorer.depth
            return out

        Explorer.step = counted  # type: ignore[method-assign]

    def apart(self, explorer, statement, worlds: list, live: Live) -> None:
        """What tells the worlds given to a statement apart (kept for the widest)."""
        place = where(statement.node)
        if any(place == seen for _, seen, _ in self.widest):
            return
        if len(self.widest) >= self.why and len(worlds) <= min(w for w, _, _ in self.widest):
            return
        names = tuple(sorted(set().union(*(w.env for w in worlds)) & set(live.needs)))
        cuts, sheet = cuts_of(names, live.needs), explorer.kept(live)
        keys = [key_of(w.env, names, cuts, w.state, sheet) for w in worlds]
        lines = []
        for i, name in enumerate(names):
            distinct = len({repr(k[0][i]) for k in keys})
            if distinct > 1:
                without = len({(k[0][:i] + k[0][i + 1 :], k[1]) for k in keys})
                lines.append(f"{name}: {distinct} values, {without} worlds without it")
        sheets = len({repr(k[1]) for k in keys})
        lines.append(f"the sheet: {sheets} values, {len({k[0] for k in keys})} worlds without it")
        changed = defaultdict(set)  # a field changed in some world → its values
        for world in worlds:
            snapshot = world.state.snapshot()
            for entry in snapshot if world.state.cast is None else snapshot[0]:
                changed[entry[0]].add(repr(entry[1]))
        lines.extend(f"    {field}: {len(v)} values" for field, v in sorted(changed.items()))
        self.widest.append((len(worlds), place, lines))
        self.widest.sort(key=lambda row: -row[0])
        del self.widest[self.why :]


def forgetting(words: list[str]) -> None:
    """Calls.outer_of without the sheet fields named by any of `words` (wrong answers)."""
    outer_of = Calls.outer_of

    def forgot(explorer, live_out):
        found = outer_of(explorer, live_out)
        if found is None:
            return None
        needs = {k: v for k, v in found.needs.items() if not any(w in k for w in words)}
        return Live(needs, {k: found.counts[k] for k in needs})

    Calls.outer_of = forgot  # type: ignore[method-assign]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("words", nargs="+", help="rulebook, action, character (all_actions')")
    parser.add_argument("--param", action="append", default=[], help="name=value, changed")
    parser.add_argument("--top", type=int, default=25, help="the N dearest statements")
    parser.add_argument("--why", type=int, default=0, help="what parts the N widest")
    parser.add_argument("--forget", action="append", default=[], help="EXPERIMENT: see above")
    args = parser.parse_args(argv)
    if args.forget:
        forgetting(args.forget)
        print(f"FORGETTING {args.forget} past each call: the answer is wrong")
    for name, engine, action, character, params in all_actions.cases(args.words):
        if action not in args.words:
            continue
        sheet = engine.load_sheet(character)
        params = all_actions.fitted(engine, action, sheet, params)
        params = {**params, **dict(p.split("=", 1) for p in args.param)}
        counting = Counting(args.why)
        counting.install()
        started = time.process_time()
        try:
            odds = engine.odds(action, sheet, params, None, budget=all_actions.BUDGET)
        finally:
            Explorer.step = counting.step  # type: ignore[method-assign]
        took = time.process_time() - started
        print(f"{name} {action} ({character.stem}) {params}: {took:.3f} s CPU, "
              f"{'exact' if odds.exact else 'SAMPLED'}")  # fmt: skip
        print(f"{'s':>7} {'runs':>6} {'worlds in':>10} {'out':>8} depth  statement")
        rows = sorted(counting.rows.values(), key=lambda row: -row[3])
        for runs, given, out, seconds, place, depth in rows[: args.top]:
            print(f"{seconds:7.3f} {runs:6d} {given:10d} {out:8d} {depth:5d}  {place}")
        for worlds, place, lines in counting.widest:
            print(f"\n{worlds} worlds given to {place}:")
            for line in lines:
                print(f"    {line}")
        return 0
    print("no case matches")
    return 1


if __name__ == "__main__":
    sys.exit(main())
