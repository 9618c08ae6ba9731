"""argparse's own words (`usage:`, `options:`, its error texts) in the language asked for.

argparse writes its texts with `gettext` bound at import (`argparse._`, `argparse.ngettext`)
and offers no other hook. The gettext way would install a text domain for the whole
process, read from the environment; instead, while a parser of ours builds, parses or
prints, those two names answer from our catalogue (`speaking(language)`), and put back
afterwards. The texts argparse shows to a person are declared below, so that the
catalogue (`python -m dsl.catalogue`) keeps them with their Spanish.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import threading

from dsl.messages import catalogue_for, tr, tr_n
from dsl.unicode_text import digits_refused

#: argparse's texts for the person at the command line (its msgids, written as argparse
#: writes them, `%`-placeholders and all); its errors of programming stay in English
ARGPARSE_WORDS = (
    tr("usage: "),
    tr("positional arguments"),
    tr("options"),
    tr("show this help message and exit"),
    tr("%(prog)s: error: %(message)s\n"),
    tr("argument %(argument_name)s: %(message)s"),
    tr("the following arguments are required: %s"),
    tr("one of the arguments %s is required"),
    tr("unrecognized arguments: %s"),
    tr("ambiguous option: %(option)s could match %(matches)s"),
    tr("invalid choice: %(value)r (choose from %(choices)s)"),
    tr("invalid %(type)s value: %(value)r"),
    tr("can't open '%(filename)s': %(error)s"),
    tr("expected one argument"),
    tr("expected at most one argument"),
    tr("expected at least one argument"),
    tr_n("expected %s argument", "expected %s arguments", 2),
    tr("not allowed with argument %s"),
    tr("ignored explicit argument %r"),
    tr("unexpected option string: %s"),
    tr("unknown parser %(parser_name)r (choices: %(choices)s)"),
    tr("subcommands"),
)

#: the language a parser of ours is speaking now (None: argparse's own English)
SPOKEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("spoken", default=None)
#: argparse's two names are the process's: one parser at a time changes them
_SWAP = threading.RLock()


@contextlib.contextmanager
def speaking(language: str | None):
    """While inside, argparse says its words in `language` (English without a catalogue)."""
    catalogue = catalogue_for(language) if language else None
    token = SPOKEN.set(language)
    if catalogue is None:
        try:
            yield
        finally:
            SPOKEN.reset(token)
        return
    with _SWAP:
        names = vars(argparse)  # (argparse's own `_` and `ngettext`, swapped for ours)
        saved = names["_"], names["ngettext"]
        names["_"], names["ngettext"] = catalogue.gettext, catalogue.ngettext
        try:
            yield
        finally:
            names["_"], names["ngettext"] = saved
            SPOKEN.reset(token)


def said(message) -> str:
    """A message in the language being spoken (for argparse, which shows `str(error)`)."""
    return message.render(SPOKEN.get())


def number(kind: type, above_zero: bool = False):
    """An argparse type reading a number of `kind` (int or float), refused in words."""

    def read(text: str):
        refused = digits_refused(text)  # int() and float() would read `١٢` as 12
        if refused is not None:
            raise argparse.ArgumentTypeError(said(refused))
        try:
            value = kind(text)
        except ValueError:
            if kind is int:
                raise argparse.ArgumentTypeError(
                    said(tr("{text} is not a whole number", text=repr(text)))
                ) from None
            raise argparse.ArgumentTypeError(
                said(tr("{text} is not a number", text=repr(text)))
            ) from None
        if above_zero and (not value > 0 or value != value or value == float("inf")):
            raise argparse.ArgumentTypeError(said(tr("{text}: give a number above 0", text=text)))
        return value

    read.__name__ = kind.__name__
    return read
