"""Texts for people in the rulebook's language: written in English, rendered from a catalogue.

    raise InsufficientResource(
        tr("You cannot spend {amount} {place}: you have {have}", amount=3, place=..., have=2),
        span,
    )
    tr_n("{n} warning", "{n} warnings", count)

`tr` makes a `Message`: a `str` whose value is the English text (so it can be compared,
logged and tested as text), which remembers its template and parameters so that
`render(language)` gives it in another language from the gettext catalogue
(`dsl/locale/<language>.po`). Parameters are rendered in the same language: a nested
Message is translated, yes/no and none are the language's words, a fraction is `7/2`.

The language is chosen where a text is shown (the command line, the HTTP API, a JSON
document), not where it is made: `language_for(--lang, rulebook.language)`. How to add a
message and its translation: docs/messages.md.
"""

from __future__ import annotations

import functools
import gettext
import io
from collections.abc import Iterable, Mapping
from fractions import Fraction
from importlib import resources

#: the language the code writes its messages in (the catalogues' msgid)
SOURCE_LANGUAGE = "en"


class Message(str):
    """A text for people: English as a `str`; `render(language)` in any catalogued language."""

    template: str
    params: dict
    # (what most messages have, not set in each: a message is made for every text a
    # trace shows)
    plural: str | None = None
    count: int | None = None  # type: ignore[assignment]  # (a plural's count: str.count is never used on a Message)
    parts: tuple | None = None
    separator: str = ""
    #: the same text in every language (joined of the rulebook's words and whole numbers
    #: only): rendered as it is, its parts not gone through again
    everywhere: bool = False
    #: (language, text): its last rendering in a language other than English
    _shown: tuple[str, str] | None = None

    def __new__(
        cls,
        template: str,
        params: Mapping | None = None,
        plural: str | None = None,
        count: int | None = None,
    ) -> Message:
        params = dict(params or {})
        chosen = template if plural is None or count == 1 else plural
        self = super().__new__(cls, _english(chosen, params))
        self.template, self.params = template, params
        if plural is not None or count is not None:
            self.plural, self.count = plural, count
        return self

    @classmethod
    def _of(cls, template: str, params: dict) -> Message:
        """`Message(template, params)` of a dict of its own (`tr`'s keywords: not copied)."""
        self = str.__new__(cls, _english(template, params))
        self.template, self.params = template, params
        return self

    @classmethod
    def joined(cls, parts: Iterable, separator: str = "") -> Message:
        """Texts and values one after another, each rendered in the language asked for."""
        parts = tuple(parts)
        texts: list[str] = []
        everywhere = True
        for part in parts:
            kind = type(part)
            if kind is str:
                texts.append(part)
            elif kind is Message:  # (its English text is itself: as show_value gives it)
                texts.append(part)
                if everywhere and not part.everywhere:
                    everywhere = False
            elif kind is int:
                texts.append(str(part))
            else:
                texts.append(show_value(part))
                everywhere = False
        self = str.__new__(cls, separator.join(texts))
        self.template, self.params, self.parts = "", {}, parts
        if separator:
            self.separator = separator
        if everywhere:
            self.everywhere = True
        return self

    def fill(self, **params) -> Message:
        """The same message with (more) parameters: a template declared once with `tr`,
        given its values where it is used (`str.format` would give plain English)."""
        return Message(self.template, {**self.params, **params}, self.plural, self.count)

    def format(self, *args, **kwargs) -> str:
        raise TypeError("a Message is filled with .fill(name=value), not formatted")

    def render(self, language: str | None = None) -> str:
        """The text in `language` (English when it is None, "en" or has no catalogue).
        Rendered once per language asked last: a Message is immutable (its English
        text made when it was), and a trace renders the same one in several steps
        (a check's tail in its text and its detail, `no` in every condition)."""
        if language is None or language == SOURCE_LANGUAGE or self.everywhere:
            return str.__str__(self)
        shown = self._shown
        if shown is not None and shown[0] == language:
            return shown[1]
        text = self._rendered(language)
        self._shown = (language, text)
        return text

    def _rendered(self, language: str) -> str:
        if self.parts is not None:
            return self.separator.join([show_value(p, language) for p in self.parts])
        catalogue = catalogue_for(language)
        if catalogue is None:
            return str.__str__(self)
        if self.plural is None:
            template = catalogue.gettext(self.template)
        else:
            template = catalogue.ngettext(self.template, self.plural, self.count or 0)
        try:
            return _format(template, self.params, language)
        except (KeyError, IndexError, ValueError):  # a broken translation: the English
            return str.__str__(self)

    def __reduce__(self):
        if self.parts is not None:
            return (Message.joined, (self.parts, self.separator))
        return (Message, (self.template, self.params, self.plural, self.count))


def tr(template: str, /, **params) -> Message:
    """A message for people; `{name}` in the template is replaced by the parameter `name`."""
    return Message._of(template, params)


def tr_n(singular: str, plural: str, n: int, /, **params) -> Message:
    """A message with singular and plural forms, chosen by `n` (also `{n}` in them)."""
    params.setdefault("n", n)
    return Message(singular, params, plural, n)


def translate(text, language: str | None = None) -> str:
    """Any text in `language`: a Message is rendered; other text (a rulebook's own
    words, a name) is shown as it is."""
    if isinstance(text, Message):
        return text.render(language)
    return show_value(text, language)


#: the types of a parameter written in an English text as `format` writes it: a text (a
#: Message's English is itself), a whole number, a float (a decimal point in English)
_AS_WRITTEN = frozenset({str, int, float, Message})


def _english(template: str, params: dict) -> str:
    """`_format` in English, its parameters formatted as they are when each is of a type
    written so (`_AS_WRITTEN`: what most messages are given; no dict made for them)."""
    if not params:
        return template
    for value in params.values():
        if type(value) not in _AS_WRITTEN:
            return _format(template, params, SOURCE_LANGUAGE)
    return template.format_map(params)


def _format(template: str, params: dict, language: str) -> str:
    if not params:
        return template
    for value in params.values():  # (texts and whole numbers only: written as they are)
        if type(value) is not str and type(value) is not int:
            break
    else:
        return template.format_map(params)
    # Numbers go in as they are, so that a template may format them (`{seconds:g}`),
    # written as the language writes numbers (`1,7` in Spanish).
    comma = decimal_comma(language)
    return template.format_map(
        {
            k: (_CommaNumber(v) if comma and type(v) is float else v)
            if type(v) is int or type(v) is float
            else show_value(v, language)
            for k, v in params.items()
        }
    )


# ─── numbers ────────────────────────────────────────────────────────────────

#: the languages that write a decimal comma and a point between thousands (`1.234,5`),
#: and a space before the percent sign (`8,3333 %`)
DECIMAL_COMMA = frozenset({"es"})
_SWAPPED = str.maketrans({".": ",", ",": "."})


@functools.lru_cache(maxsize=64)
def decimal_comma(language: str | None) -> bool:
    """Whether `language` writes a decimal comma (`es`, `es_ES`), not a point."""
    return language is not None and language.replace("-", "_").split("_")[0] in DECIMAL_COMMA


def number_text(value, language: str | None = None, spec: str = "") -> str:
    """A number as the language writes it, `spec` as `format` reads it: `1.7`, `8.3333%`,
    `1,000` in English; `1,7`, `8,3333 %`, `1.000` in Spanish. The one place a number
    of a text for people is given its decimal sign (JSON keeps numbers as numbers)."""
    text = format(value, spec)
    return _with_comma(text, spec) if decimal_comma(language) else text


def _with_comma(text: str, spec: str) -> str:
    """`8.3333%` → `8,3333 %`, `1,234.5` → `1.234,5`."""
    if spec.endswith("%"):
        return text[:-1].translate(_SWAPPED) + " %"
    return text.translate(_SWAPPED)


def percent_text(chance, language: str | None = None, spec: str = ".4f") -> str:
    """A chance (0 to 1) as a percentage, its number formatted by `spec`: `8.3333%`;
    in Spanish `8,3333 %`."""
    text = number_text(float(chance) * 100, language, spec)
    return text + (" %" if decimal_comma(language) else "%")


def number_signs(language: str | None) -> dict[str, str]:
    """How `language` writes numbers, for the page's scripts: its decimal sign and what
    follows a percentage (`{"decimal": ",", "percent": " %"}` in Spanish)."""
    return {
        "decimal": number_text(0.5, language)[1],
        "percent": percent_text(0, language, ".0f")[1:],
    }


class _CommaNumber(float):
    """A float a template formats (`{mean:.4f}`) in a language of decimal commas."""

    def __format__(self, spec: str) -> str:
        return _with_comma(format(float(self), spec), spec)


class Number:
    """A number inside a message, formatted when the message is rendered in a language
    (`Number(1.7)`: `1.7`; in Spanish `1,7`); `spec` as `format` reads it (`g`, `.3f`)."""

    __slots__ = ("spec", "value")

    def __init__(self, value, spec: str = "") -> None:
        self.value, self.spec = value, spec

    def shown(self, language: str | None = None) -> str:
        return number_text(self.value, language, self.spec)

    def __str__(self) -> str:
        return self.shown()

    def __repr__(self) -> str:
        return f"Number({self.value!r}, {self.spec!r})"


# ─── values inside messages ─────────────────────────────────────────────────


class Counted(str):
    """A word of the rulebook's own counted `count` times (a unit of time: `turno`),
    shown in the plural the language gives it when the count is not 1 (`8 turnos`)."""

    count: int  # type: ignore[assignment]  # (str.count is never used on a Counted)

    def __new__(cls, word: str, count) -> Counted:
        self = super().__new__(cls, word)
        self.count = count
        return self

    def shown(self, language: str | None) -> str:
        if self.count == 1:
            return str.__str__(self)
        return plural_of(str.__str__(self), language)

    def __reduce__(self):
        return (Counted, (str.__str__(self), self.count))


def plural_of(word: str, language: str | None) -> str:
    """A word's plural by the language's regular rule (Spanish `turno` → `turnos`, `mes`
    → `meses`; English `round` → `rounds`); a word of several pluralises its head (its
    first in Spanish, `hora de juego` → `horas de juego`; its last in English). A word
    already plural, or that the rule does not know, is left as it is."""
    parts = word.split(" ")
    spanish = language == "es"
    at = 0 if spanish else len(parts) - 1
    head = parts[at]
    if not head or not head[-1].isalpha():
        return word
    last = head[-1]
    if spanish:
        if last in "aeiouáéó":
            head += "s"
        elif last in "sx" and len(head) > 1 and head[-2] in "aeiou" and _stress_before_last(head):
            pass  # (lunes, crisis: the same in the plural)
        elif last == "z":
            head = head[:-1] + "ces"
        else:
            head = _unaccented(head) + "es"
    elif language in (None, "en"):
        if head.endswith(("s", "x", "z", "ch", "sh")):
            head += "es"
        elif last == "y" and len(head) > 1 and head[-2] not in "aeiou":
            head = head[:-1] + "ies"
        else:
            head += "s"
    else:
        return word
    parts[at] = head
    return " ".join(parts)


def _stress_before_last(word: str) -> bool:
    """A Spanish word ending in -s whose stress falls before its last syllable (no
    written accent and more than one vowel group): `lunes`, `crisis`; not `mes`."""
    groups, before = 0, False
    for letter in word.lower():
        vowel = letter in "aeiouáéíóú"
        if vowel and not before:
            groups += 1
        before = vowel
    return groups > 1 and not any(c in word for c in "áéíóú")


def _unaccented(word: str) -> str:
    """The written accent of a last syllable dropped before `-es` (`acción` → `accion`es)."""
    for accented, plain in zip("áéíóú", "aeiou", strict=True):
        index = word.rfind(accented)
        if index >= len(word) - 3 and index != -1:
            return word[:index] + plain + word[index + 1 :]
    return word


WORDS = {True: tr("yes"), False: tr("no"), None: tr("none")}
#: the types found to be Mappings (a record's): `isinstance` asks an ABC's hook, slowly
_MAPPINGS: set[type] = set()


def show_value(value, language: str | None = None) -> str:
    """A value as people read it: `yes`, `none`, `7/2`, `[1, 2]`, a row as `Bueno {a: 1}`."""
    kind = type(value)  # (the commonest kinds first, by their exact type: a trace shows many)
    if kind is str:
        return value
    if kind is Message:
        return value.render(language)
    if kind is int:
        return str(value)
    if isinstance(value, Message):
        return value.render(language)
    if kind is Counted or kind is Number:
        return value.shown(language)
    if kind is float:
        return number_text(value, language)
    if isinstance(value, str):
        return value
    if value is None or value is True or value is False:
        return WORDS[value].render(language)
    if type(value) is int:
        return str(value)
    if type(value) is Fraction:
        if value.denominator == 1:
            return str(value.numerator)
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, tuple | list):
        return "[" + ", ".join([show_value(v, language) for v in value]) + "]"
    if kind in _MAPPINGS or isinstance(value, Mapping):
        _MAPPINGS.add(kind)  # (a Mapping stays one: its type's hook not asked again)
        if kind not in KEEPS_SHOWN or not SHOWN.kept:
            return _mapping_shown(value, language)
        kept = getattr(value, "_shown", None)
        if kept is None:
            kept = value._shown = {}
        # (English asked as None or as "en" alike: a trace's texts made in English ask
        # both, a record made by the run shown once for them, not twice)
        key = SOURCE_LANGUAGE if language is None and SHOWN.english_once else language
        text = kept.get(key)
        if text is None:
            text = kept.get(_EVERY)
        if text is None:
            text = _mapping_shown(value, language)
            if len(kept) < 4:  # (a record shown in many languages: the first few kept)
                kept[_EVERY if SHOWN.everywhere and _everywhere(value) else key] = text
        return text
    return str(value)


#: the key of a record's text that is the same in every language (`_everywhere`)
_EVERY = "*"


def _everywhere(record: Mapping) -> bool:
    """Whether a record reads the same in every language: its label and values texts and
    whole numbers only (a row of a table: its words and numbers), not a lasting effect
    (said in words)."""
    for item in record.values():
        if type(item) is not str and type(item) is not int:
            return False
    return not EFFECT_FIELDS.issubset(record.keys())


class Shown:
    """Whether a mapping of a type in KEEPS_SHOWN keeps its text in each language (tests
    switch it off: then written each time it is shown); and whether its English text is
    kept once for a language of None and "en" (off: once for each); and a text that is
    the same in every language once for all (off: once for each)."""

    kept = True
    english_once = True
    #: a record that reads the same in every language (`_everywhere`) kept once for all
    everywhere = True


SHOWN = Shown()
#: the mapping types whose values are immutable and keep their text, by language, in a
#: slot `_shown` (interpreter.values.Record adds itself): a table's row that a trace shows
#: in its lookup's step and again in the check that read it, in English (its Message) and
#: in the page's language, is written once in each
KEEPS_SHOWN: set[type] = set()


def _mapping_shown(value: Mapping, language: str | None) -> str:
    """A record as people read it: `label {name: value, ...}`, a lasting effect in words."""
    if EFFECT_FIELDS.issubset(value.keys()) and len(value) - len(EFFECT_FIELDS) <= 1:
        shown = _effect_shown(value, language)
        if shown is not None:  # (else not an effect's shape: shown as any record)
            return shown
    label = value.get("label")
    inner = ", ".join([f"{k}: {show_value(v, language)}" for k, v in value.items() if k != "label"])
    if label is not None:
        return f"{show_value(label, language)} {{{inner}}}" if inner else str(label)
    return "{" + inner + "}"


#: what a lasting effect holds (interpreter.sheets.validation.EFFECT_KEYS), and its name
EFFECT_FIELDS = frozenset(("modifier", "targets", "left", "unit"))
#: the fields of a lasting effect as a path names them (`Efectos.Temblores.left`)
EFFECT_FIELD_WORDS = {
    "name": tr("name"),
    "modifier": tr("modifier"),
    "targets": tr("applies to"),
    "left": tr("time left"),
    "unit": tr("unit of time"),
}
EFFECT_ON = tr("{modifier} on {targets}")


def _effect_shown(effect: Mapping, language: str | None) -> str | None:
    """A lasting effect in words, never its keys: `Temblores: -2 a acciones, quedan 2
    turnos` (`{name: Temblores, modifier: -2, ...}` as the sheet file holds it); None for
    a mapping with an effect's keys but not its shape (a journal record may hold any)."""
    modifier, targets, left = effect["modifier"], effect["targets"], effect["left"]
    if not isinstance(targets, list | tuple) or type(left) is not int:
        return None
    parts: list = [effect["name"]] if effect.get("name") is not None else []
    if targets and modifier:
        on = ", ".join(show_value(t, language) for t in targets)
        parts.append(EFFECT_ON.fill(modifier=_signed(modifier), targets=on))
    elif modifier:
        parts.append(_signed(modifier))
    unit = Counted(show_value(effect["unit"], language), left)
    if not parts:
        return tr("time left: {left} {unit}", left=left, unit=unit).render(language)
    return tr(
        "{effect}, time left: {left} {unit}",
        effect=Message.joined(parts, ": "),
        left=left,
        unit=unit,
    ).render(language)


def _signed(number) -> str:
    """A modifier as a rule writes it: `+2`, `-2`."""
    text = show_value(number)
    return text if text.startswith("-") or text == "0" else "+" + text


def path_shown(path: str, language: str | None = None) -> str:
    """A place on a sheet as people read it: a lasting effect's field by its word in the
    language (`Efectos.Temblores.left` → `Efectos.Temblores.tiempo restante`)."""
    head, dot, last = path.rpartition(".")
    if dot and head.count(".") >= 1 and last in EFFECT_FIELD_WORDS:
        return f"{head}.{EFFECT_FIELD_WORDS[last].render(language)}"
    return path


# ─── catalogues and the choice of language ──────────────────────────────────


@functools.cache
def available_languages() -> tuple[str, ...]:
    """The languages messages can be shown in: English and every catalogue shipped (read
    once: the catalogues are the package's)."""
    folder = resources.files("dsl") / "locale"
    found = sorted(entry.name[:-3] for entry in folder.iterdir() if entry.name.endswith(".po"))
    return (SOURCE_LANGUAGE, *found)


def normalize_language(code: str | None) -> str | None:
    """`es`, `es_ES`, `es-AR.UTF-8` → `es`; None stays None."""
    if not code:
        return None
    return code.strip().split(".")[0].replace("-", "_").split("_")[0].lower() or None


@functools.lru_cache(maxsize=16)
def book_language(code: str | None) -> str:
    """language_for a rulebook's `language` alone, found once for each (an engine made
    for every question reads it)."""
    return language_for(code)


def language_for(*preferences: str | None) -> str:
    """The first of the preferences (`--lang`, then the rulebook's `language`) that has a
    catalogue; English when none has."""
    known = available_languages()
    for preference in preferences:
        code = normalize_language(preference)
        if code in known:
            return code
    return SOURCE_LANGUAGE


@functools.cache
def catalogue_for(language: str) -> gettext.NullTranslations | None:
    """The gettext translations of one language, read from its .po file (None: none)."""
    if language == SOURCE_LANGUAGE or not language.isalpha():
        return None
    entry = resources.files("dsl") / "locale" / f"{language}.po"
    if not entry.is_file():
        return None
    # Babel reads the text catalogue; the stdlib's gettext answers from it.
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with entry.open("rb") as handle:
        catalog = read_po(handle, locale=language)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)
