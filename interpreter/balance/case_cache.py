"""A sweep's cases kept on disk by a hash of what decides them: data (JSON), bounded.

Each case is one small JSON file named by its key (a hash of the rulebook's texts, the
sheet, the action, its parameters and options, and the package's version), so a sweep
that was interrupted resumes where it stopped and a repeated one computes nothing. What
is read back is only data: outcomes (yes/no, whole numbers, texts), fractions written
as digits, flags; a file that is not exactly that shape, too large, a link, or someone
else's is refused (counted, and the case computed again and written over it)."""

from __future__ import annotations

import contextlib
import json
import os
import re
from fractions import Fraction
from pathlib import Path

from dsl.reading import read_regular
from interpreter.version import VERSION

#: most bytes of one case's file (its outcomes' probabilities as exact fractions)
MAX_CASE_BYTES = 2_000_000
#: most digits of a fraction's numerator or denominator read back from a file
MAX_DIGITS = 100_000
#: most case files a cache folder keeps (the oldest are removed past it)
MAX_CASES = 200_000
#: the shape of this file format: a file of another is refused
FORMAT = 1

_FRACTION = re.compile(rf"(-?[0-9]{{1,{MAX_DIGITS}}})/([0-9]{{1,{MAX_DIGITS}}})")


class Refused(Exception):
    """A cache file that is not a case this cache wrote."""


def package_version() -> str:
    """The version a kept case was computed by (a new version computes them again)."""
    return VERSION


def default_folder() -> Path:
    """The user's cache folder for sweeps: `$XDG_CACHE_HOME/rulebook/sweeps`, else
    `~/.cache/rulebook/sweeps`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulebook" / "sweeps"


def fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def read_fraction(text) -> Fraction:
    if not isinstance(text, str):
        raise Refused
    match = _FRACTION.fullmatch(text)
    if match is None or int(match[2]) == 0:
        raise Refused
    return Fraction(int(match[1]), int(match[2]))


class SweepCache:
    """The cases of sweeps kept in one folder (made when first written)."""

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder is not None else default_folder()
        self.refused = 0  # files found corrupt (or not ours), computed again

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The case kept under `key`, or None (none kept, or a file refused)."""
        path = self._path(key)
        try:
            if path.lstat().st_uid != os.getuid():
                raise Refused
            data = read_regular(path, MAX_CASE_BYTES, follow=False)
            return decode(json.loads(data.decode("utf-8")), key)
        except FileNotFoundError:
            return None
        except (OSError, ValueError, Refused, RecursionError):
            self.refused += 1
            return None

    def put(self, key: str, case: dict) -> None:
        """Keep a case (atomically: a reader sees the old file or the new one). A cache
        that cannot be written is no error: the sweep goes on."""
        text = json.dumps(encode(case, key), ensure_ascii=False)
        if len(text.encode("utf-8")) > MAX_CASE_BYTES:
            return
        temporary = self.folder / f".{key}.{os.getpid()}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temporary.write_text(text, encoding="utf-8")
            os.replace(temporary, self._path(key))
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()

    def prune(self) -> None:
        """Remove the oldest case files past MAX_CASES."""
        try:
            entries = [(p.stat().st_mtime, p) for p in self.folder.glob("*.json")]
        except OSError:
            return
        entries.sort(reverse=True)
        for _mtime, path in entries[MAX_CASES:]:
            with contextlib.suppress(OSError):
                path.unlink()


def encode(case: dict, key: str) -> dict:
    """A case as JSON data: its outcomes' probabilities and mean as fraction texts."""
    return {
        "format": FORMAT,
        "key": key,
        "outcomes": [[o, fraction_text(p)] for o, p in case["outcomes"]],
        "mean": None if case["mean"] is None else fraction_text(case["mean"]),
        "exact": case["exact"],
        "trials": case["trials"],
        "error": case["error"],
    }


def decode(data, key: str) -> dict:
    """A case read back from its JSON data, checked to be exactly what `encode` writes."""
    if not isinstance(data, dict) or set(data) != {
        "format",
        "key",
        "outcomes",
        "mean",
        "exact",
        "trials",
        "error",
    }:
        raise Refused
    if data["format"] != FORMAT or data["key"] != key:
        raise Refused
    outcomes = data["outcomes"]
    if not isinstance(outcomes, list):
        raise Refused
    read = []
    for pair in outcomes:
        if not (isinstance(pair, list) and len(pair) == 2):
            raise Refused
        outcome, probability = pair
        if not isinstance(outcome, bool | int | str) or (
            isinstance(outcome, int) and abs(outcome) > 10**MAX_DIGITS
        ):
            raise Refused
        read.append((outcome, read_fraction(probability)))
    mean = data["mean"]
    trials = data["trials"]
    if not isinstance(data["exact"], bool):
        raise Refused
    if trials is not None and (type(trials) is not int or trials < 0):
        raise Refused
    if data["error"] is not None and not isinstance(data["error"], str):
        raise Refused
    return {
        "outcomes": read,
        "mean": None if mean is None else read_fraction(mean),
        "exact": data["exact"],
        "trials": trials,
        "error": data["error"],
    }
