"""`rulebook encounter FILE`: who wins a whole encounter, in how many rounds, with what left."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import dsl
from dsl.messages import Message, number_text, tr, tr_n
from interpreter.cli import options, words
from interpreter.json_data import dumps

#: the ends of each winning side shown by what is left (the JSON has them all)
SHOWN_LEFT = 5

EXAMPLES = """\
  rulebook encounter examples/games/encounters/duel.yaml
  rulebook encounter examples/games/encounters/ogre.yaml --json
  rulebook encounter examples/encounters/brujeria_pelea.yaml --trials 4000 --workers 2
  rulebook encounter examples/games/encounters/duel.yaml --sampled --seed 7
  rulebook encounter examples/games/encounters/ogre.yaml --scheduler tcp://10.0.0.5:8786
"""


def add_parser(commands) -> None:
    p = commands.add_parser(
        "encounter",
        help=tr("odds of a whole encounter: who wins, in how many rounds, with what left"),
        description=Message.joined(
            [
                tr("Rounds of two sides' actions until one side falls or the rounds run out:"),
                "\n",
                tr("who wins, in how many rounds, with what left. Counted exactly where the"),
                "\n",
                tr("states are few, else sampled with 95% intervals (it says which, and why)."),
                "\n",
                tr("FILE is an encounter's description in YAML: see docs/encounters.md."),
            ]
        ),
        epilog=Message.joined([tr("examples:"), "\n", EXAMPLES]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", metavar="FILE", help=tr("the encounter's description (YAML)"))
    way = p.add_mutually_exclusive_group()
    say = p.language  # (a group's arguments are not translated by the parser: said here)
    way.add_argument(
        "--exact", action="store_true", help=tr("count exactly, or refuse").render(say)
    )
    way.add_argument(
        "--sampled", action="store_true", help=tr("sample, even if it could count").render(say)
    )
    number = words.number(int, above_zero=True)
    p.add_argument(
        "--trials", type=number, metavar="N", help=tr("trials when sampling (default 2000)")
    )
    p.add_argument("--seed", type=int, default=0, metavar="N", help=tr("the samples' seed"))
    p.add_argument(
        "--workers",
        type=number,
        metavar="N",
        help=tr("processes sharing a sample (default: one per core)"),
    )
    p.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help=tr("sample on this Dask distributed cluster instead"),
    )
    p.add_argument(
        "--json",
        action="store_true",
        help=tr("print JSON (errors too, on stdout, with a stable code)"),
    )


def cmd_encounter(args) -> int:
    from interpreter.balance.encounters.answering import TRIALS
    from interpreter.balance.encounters.description import rulebook_reference
    from interpreter.engine import Engine
    from interpreter.sheets.character import parse_text, read_file

    path = Path(args.file)
    text, text_format = read_file(path)
    data = parse_text(text, text_format, str(path))
    engine = Engine.of(dsl.load(rulebook_reference(data, path.parent)))
    language = options.language(args, engine.rulebook)
    method = "exact" if args.exact else "sampled" if args.sampled else "auto"
    answer = engine.encounter(
        data,
        folder=path.parent,
        method=method,
        trials=args.trials or TRIALS,
        seed=args.seed,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=_progress(language),
    )
    if args.json:
        print(dumps(answer.to_json(language)))
        return 0
    for line in text_lines(answer, language):
        print(line)
    return 0


def _progress(language: str):
    """The sample's tasks done, on a terminal (interpreter.cli.render's bar)."""
    from interpreter.cli.render import progress_bar

    bar = progress_bar(language=language)
    if bar is None:
        return None
    started = time.monotonic()
    return lambda done, total: bar(done, total, time.monotonic() - started)


def undecided(rounds: int) -> Message:
    """`undecided after 1 round` / `after 3 rounds`: the side of runs no side won."""
    return tr_n("undecided after {n} round", "undecided after {n} rounds", rounds)


def text_lines(answer, language: str) -> list:
    """The answer for people: the method, each side's chance, the rounds, what is left."""

    def say(message) -> str:
        return message.render(language)

    if answer.exact:
        lines = [say(tr("exact: every state counted"))]
    else:
        why = answer.reason.render(language) if hasattr(answer.reason, "render") else answer.reason
        lines = [say(tr("sampled ({trials} trials): {why}", trials=answer.trials, why=why))]
    winners = answer.winners()
    names = {s: s if s is not None else say(undecided(answer.max_rounds)) for s in winners}
    width = max(map(len, names.values()), default=0) + 1  # (the chances in one column)
    for side, p in winners.items():
        name = f"{names[side]}:".ljust(width)
        shown = number_text(float(p), language, "8.2%")
        if answer.exact:
            shown += f"  ({p.numerator}/{p.denominator})" if len(str(p)) <= 40 else ""
        else:
            low, high = answer.interval(side)
            interval = [number_text(x, language, ".2%") for x in (low, high)]
            shown += f"  [{interval[0]} – {interval[1]}]"
        lines.append(f"  {name} {shown}")
    low, high = answer.rounds_interval()
    mean = number_text(float(answer.mean_rounds()), language, ".3f")
    if not answer.exact:
        interval = [number_text(x, language, ".3f") for x in (low, high)]
        mean += f" [{interval[0]} – {interval[1]}]"
    lines.append(say(tr("mean rounds: {mean}", mean=mean)))
    for side in answer.sides:
        if answer.left(side):
            lines.append(say(tr("{side} wins, with left:", side=side)))
        for state, p in list(answer.left(side).items())[:SHOWN_LEFT]:
            left = ", ".join(f"{n} {h}" for n, h in zip(answer.names, state))
            lines.append(f"  {number_text(float(p), language, '7.2%')}  {left}")
    return lines
