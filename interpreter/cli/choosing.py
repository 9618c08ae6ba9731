"""Choices on the command line: answered in advance (`--choose`), else asked at the table.

`--choose NAME=VALUE` answers a choice before the run; the others are asked on the
terminal as `--ask` asks for dice. (`--best GOAL`, for the odds, is an option of `odds`.)
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from dsl.messages import show_value, tr
from interpreter.cli import options
from interpreter.errors import ParameterError

if TYPE_CHECKING:
    from interpreter.choosers import Chooser


def choose_option(p) -> None:
    p.add_argument(
        "--choose",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help=tr(
            "answer a choice the action makes after the roll (`choose "
            "NAME`), in advance (repeat for several); the others are "
            "asked at the table"
        ),
    )


def answers_of(pairs: list[str]) -> dict:
    answers = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ParameterError(tr("--choose {pair}: write NAME=VALUE", pair=repr(pair)))
        answers[name.strip()] = value.strip()
    return answers


def chooser_of(args, language: str | None) -> Chooser:
    """Answers given with --choose; any other choice is asked on the terminal."""
    from interpreter.choosers import Chooser

    return Chooser(answers_of(args.choose), lambda question: ask_choice(question, language))


def ask_choice(question, language: str | None = None):
    """Ask the person at the table which option they take."""
    listed = ", ".join(show_value(o, language) for o in question.options)
    while True:
        asked = tr(
            "{name}{label} [{options}]? ",
            name=question.name,
            label=f": {question.label}" if question.label else "",
            options=listed,
        )
        if question.who is not None:
            asked = tr("{who} decides: {asked}", who=question.who, asked=asked)
        line = options.answer_to(asked.render(language))
        if not line:
            raise ParameterError(
                tr("no answer typed for the choice {name}", name=question.name),
                None,
                tr("answer it in advance: --choose {name}=VALUE", name=question.name),
            )
        text = line.strip()
        if any(show_value(o) == text or show_value(o, language) == text for o in question.options):
            return text
        sys.stderr.write(
            "  " + tr("{text} is not one of the options", text=repr(text)).render(language) + "\n"
        )
