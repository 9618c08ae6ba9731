"""The working sheet of one run: its characters, the places rules write, and `State`.

A place is a field's name (`"Esencia"`), a (family, key) pair (`("dinamis",
"Virtus")`), or a place on another character's sheet (`Elsewhere`). The run side's seam
(interpreter.runtime) holds a `State` in its `Context`; the odds engine copies and merges
them as its worlds.
"""

from __future__ import annotations

from dsl.messages import tr
from interpreter.errors import EvaluationError

#: a key a mapping does not hold (distinct from every value, `none` included)
MISSING = object()


# ─── the state of one run ───────────────────────────────────────────────────


class Character:
    """Another character of a run (an action's parameter `objetivo: character`): its role
    (the parameter's name) and the sheet it started from."""

    __slots__ = ("role", "sheet")

    def __init__(self, role: str, sheet):
        self.role, self.sheet = role, sheet

    @property
    def label(self) -> str:
        """How the trace names it: its sheet's file name, or its role."""
        path = getattr(self.sheet, "path", None)
        if not path:
            return self.role
        return str(path).replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]

    def __eq__(self, other) -> bool:
        return isinstance(other, Character) and (other.role, other.sheet) == (self.role, self.sheet)

    def __hash__(self) -> int:
        return hash((self.role, id(self.sheet)))

    def __str__(self) -> str:
        return self.label

    __repr__ = __str__


class Elsewhere:
    """A place on another character's sheet: `objetivo.Vida`."""

    __slots__ = ("character", "place")

    def __init__(self, character: Character, place):
        self.character, self.place = character, place


class State:
    """The working sheet of one run: the sheet's values, copied on the first write.

    A place is a field's name (`"Esencia"`), a (family, key) pair (`("dinamis",
    "Virtus")`), or a place on another character's sheet (`Elsewhere`). `before` remembers
    the first value each written place had. The other characters' states are in `cast`
    (role → State, the acting character's under "self"), shared by all of them and made
    on first use, so that a run that never looks at a character costs nothing for it.
    """

    __slots__ = (
        "before",
        "cast",
        "copied",
        "open_default",
        "own",
        "shared",
        "summary",
        "values",
        "who",
    )

    def __init__(self, values: dict, open_default: int = 0, who: Character | None = None):
        self.values = values
        self.own = False  # written to: `values` differ from the sheet's
        self.shared = False  # `values` are another State's too: copy them before writing
        self.before: dict = {}
        #: families (dinamis...) this State has a copy of (made on its first write)
        self.copied: set | None = None
        self.open_default = open_default
        self.summary = ()  # the snapshot, while nothing is written (None: make it again)
        self.cast: dict | None = None
        self.who = who  # None: the acting character

    def of(self, character: Character) -> State:
        """The working sheet of another character of this run."""
        cast = self.cast
        if cast is None:
            cast = self.cast = {"self": self}
        found = cast.get(character.role)
        if found is None:
            found = State(character.sheet._values, self.open_default, character)
            found.cast = cast
            cast[character.role] = found
        return found

    def others(self) -> list:
        """The other characters' states (those the run looked at), in the order met."""
        return [s for role, s in (self.cast or {}).items() if role != "self"]

    def read(self, place):
        if place is None:
            return 0
        if type(place) is str:
            value = self.values.get(place, MISSING)
            return self.open_default if value is MISSING else value
        if type(place) is Elsewhere:
            return self.of(place.character).read(place.place)
        return self.values[place[0]][place[1]]

    def write(self, place, value) -> None:
        if type(place) is Elsewhere:
            self.of(place.character).write(place.place, value)
            return
        self.summary = None
        if not self.own or self.shared:
            self.values = dict(self.values)
            self.own = True
            self.shared = False
            self.copied = set()
        if type(place) is str:
            path = place
            old = self.values.get(place, self.open_default)
            self.values[place] = value
        else:
            name, key = place
            if name not in self.copied:
                self.values[name] = dict(self.values[name])
                self.copied.add(name)
            path = f"{name}.{key}"
            old = self.values[name].get(key)
            self.values[name][key] = value
        self.before.setdefault(path, old)

    def remove(self, place: tuple) -> None:
        """Take an entry out of a mapping on the sheet (a lasting effect that ends)."""
        if type(place) is Elsewhere:
            self.of(place.character).remove(place.place)
            return
        name, key = place
        if key not in self.values[name]:
            return
        if not self.own or self.shared:
            self.values = dict(self.values)
            self.own = True
            self.shared = False
            self.copied = set()
        if name not in self.copied:
            self.values[name] = dict(self.values[name])
            self.copied.add(name)
        self.summary = None
        old = self.values[name].pop(key)
        self.before.setdefault(f"{name}.{key}", old)

    def changes(self) -> list[tuple]:
        out = []
        for path, before in self.before.items():
            name, _, key = path.partition(".")
            after = self.values[name].get(key) if key else self.values[name]
            if after != before:
                out.append((path, before, after))
        return out

    def snapshot(self) -> tuple:
        """A hashable summary of what changed (the odds engine merges equal worlds), on
        every character's sheet."""
        own = self.snapshot_own()
        if self.cast is None:
            return own
        return (own, tuple((s.who.role, s.snapshot_own()) for s in self.others() if s.before))

    def snapshot_own(self) -> tuple:
        found = self.summary
        if found is None:
            found = self.summary = tuple(
                sorted((path, _freeze(self._current(path))) for path in self.before)
            )
        return found

    def _current(self, path: str):
        """What a written place holds now (None for an entry taken out)."""
        name, _, key = path.partition(".")
        return self.values[name].get(key) if key else self.read(name)

    def copy(self) -> State:
        """A copy to go on from (the odds engine's worlds): every character's state."""
        if self.cast is None:
            return self.copy_own()
        cast = {role: state.copy_own() for role, state in self.cast.items()}
        for state in cast.values():
            state.cast = cast
        return cast["self"] if self.who is None else cast[self.who.role]

    def copy_own(self) -> State:
        """This character's state again, the two copying the values on their first write."""
        other = State(self.values, self.open_default, self.who)
        if self.own:
            other.own = other.shared = self.shared = True
        other.before = dict(self.before)
        other.summary = self.summary
        return other


def _freeze(value):
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value


def place_text(place) -> str:
    """A place as a person reads it: `Esencia`, `dinamis[Virtus]` (in Spanish `dinamis de
    Virtus`: a Message), `orco.Vida` (on another character's sheet)."""
    if type(place) is str:
        return place
    if type(place) is Elsewhere:
        return tr("{who}.{place}", who=place.character.label, place=place_text(place.place))
    return tr("{field}[{key}]", field=place[0], key=place[1])


def place_path(place) -> str:
    """A place as a path in the sheet's data: `Esencia`, `dinamis.Virtus` (another
    character's: `objetivo:Vida`, its role first)."""
    if type(place) is str:
        return place
    if type(place) is Elsewhere:
        return f"{place.character.role}:{place_path(place.place)}"
    return f"{place[0]}.{place[1]}"


def sheet_of(ctx, place) -> tuple:
    """(the state a place is on, the place there): `Elsewhere` unwrapped, for what must
    be computed on that character's sheet (its resource's maximum, its ranges)."""
    if type(place) is Elsewhere:
        return ctx.state.of(place.character), place.place
    return ctx.state, place


def to_write(place, span, shown: str):
    """`place` (a closure giving the place a `set`, a change or an `add` writes), refusing
    what names no field (`none`: a parameter `p: attribute = none` left out, a family's
    key none; a value read from one): the rulebook's error, at `span` (`shown`: how the
    rules wrote the place)."""

    def where(ctx):
        found = place(ctx)
        own = found.place if type(found) is Elsewhere else found
        if type(own) is str or (type(own) is tuple and len(own) == 2 and own[1] is not None):
            return found
        value = "none" if own is None or type(own) is tuple else own
        raise EvaluationError(
            tr("{place} names no field to change: it is {value}", place=shown, value=value), span
        )

    return where
