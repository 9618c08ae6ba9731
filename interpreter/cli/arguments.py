"""The options several commands' parsers share: dice, output, language, a run's inputs."""

from __future__ import annotations

import argparse
import weakref

from dsl.messages import available_languages, normalize_language, tr
from interpreter.cli import words


def positive(kind):
    """An argparse type: a number of `kind` above zero (`--trials 0` means nothing)."""
    return words.number(kind, above_zero=True)


def output_options(p) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help=tr(
            "print JSON (errors too, on stdout, with a stable code); the "
            "schemas are in interpreter/schemas/"
        ),
    )
    language_option(p)


#: the parsers given --lang so far (the journal's commands get it afterwards)
SPEAKING: weakref.WeakSet = weakref.WeakSet()


def language_option(p, dest: str = "lang") -> None:
    SPEAKING.add(p)
    p.add_argument(
        "--lang",
        dest=dest,
        metavar="LANG",
        type=_language,
        help=tr(
            "the language of the output: {languages} (by default the rulebook's own `language`)",
            languages=", ".join(available_languages()),
        ),
    )


def _language(text: str) -> str:
    code = normalize_language(text)
    if code not in available_languages():
        raise argparse.ArgumentTypeError(
            words.said(
                tr(
                    "{text}: the languages are {join}",
                    text=repr(text),
                    join=", ".join(available_languages()),
                )
            )
        )
    return code


def run_options(p) -> None:
    p.add_argument(
        "--char",
        metavar="FILE",
        help=tr("the character sheet (YAML or JSON), or a shipped character's name"),
    )
    p.add_argument(
        "--set",
        metavar="NAME=VALUE",
        action="append",
        default=[],
        help=tr("an action parameter (repeat for several)"),
    )
    p.add_argument(
        "--target",
        dest="targets",
        metavar="NAME=FILE",
        action="append",
        default=[],
        help=tr(
            "another character of the action (its parameter NAME): a "
            "sheet file or a shipped character (repeat for several)"
        ),
    )


def dice_options(p, ask: bool) -> None:
    group = p.add_mutually_exclusive_group()
    say = p.language
    group.add_argument(
        "--seed",
        type=words.number(int),
        metavar="N",
        help=tr("reproducible random dice").render(say),
    )
    group.add_argument(
        "--dice",
        metavar="LIST",
        help=tr("the faces to use, in draw order: 6,5,3,1").render(say),
    )
    if ask:
        group.add_argument(
            "--ask",
            action="store_true",
            help=tr(
                "ask for each die as it is needed (physical dice); a line may give several "
                "dice's faces: 6 3 6"
            ).render(say),
        )
