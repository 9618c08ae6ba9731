"""The working sheet of one run: its characters, the places rules write, and `State`.

A place is a field's name (`"Esencia"`), a (family, key) pair (`("dinamis",
"Virtus")`), or a place on another character's sheet (`Elsewhere`). The run side's seam
(interpreter.runtime) holds a `State` in its `Context`; the odds engine copies and merges
them as its worlds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, final

from dsl.errors import Span
from dsl.messages import tr
from interpreter.errors import EvaluationError

if TYPE_CHECKING:  # (`rulebook roll d20` imports no AST node: tests/test_plain_dice.py)
    from dsl.nodes.base import Number

#: a key a mapping does not hold (distinct from every value, `none` included)
MISSING = object()


# ─── the state of one run ───────────────────────────────────────────────────


class Character:
    """Another character of a run (an action's parameter `objetivo: character`): its role
    (the parameter's name) and the sheet it started from."""

    __slots__ = ("_label", "role", "sheet")

    def __init__(self, role: str, sheet: Any):  # an interpreter.sheets Sheet (above this)
        self.role, self.sheet = role, sheet
        self._label: str | None = None

    @property
    def label(self) -> str:
        """How the trace names it: its sheet's file name, or its role (worked out once)."""
        found = self._label
        if found is None:
            path = getattr(self.sheet, "path", None)
            if not path:
                found = self.role
            else:
                found = str(path).replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
            self._label = found
        return found

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Character) and (other.role, other.sheet) == (self.role, self.sheet)

    def __hash__(self) -> int:
        return hash((self.role, id(self.sheet)))

    def __str__(self) -> str:
        return self.label

    __repr__ = __str__


@final
class Elsewhere:
    """A place on another character's sheet: `objetivo.Vida`."""

    __slots__ = ("character", "place")

    def __init__(self, character: Character, place: OwnPlace):
        self.character, self.place = character, place


#: a place on a sheet: a field's name, or a (family, key) pair; or one on another
#: character's sheet
OwnPlace: TypeAlias = str | tuple[str, Any]
Place: TypeAlias = OwnPlace | Elsewhere


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

    def __init__(
        self, values: dict[str, Any], open_default: Number = 0, who: Character | None = None
    ):
        self.values = values
        self.own = False  # written to: `values` differ from the sheet's
        self.shared = False  # `values` are another State's too: copy them before writing
        self.before: dict[str, Any] = {}
        #: families (dinamis...) this State has a copy of (made on its first write)
        self.copied: set[str] | None = None
        self.open_default = open_default
        #: the snapshot, while nothing is written (None: make it again)
        self.summary: tuple[Any, ...] | None = ()
        self.cast: dict[str, State] | None = None
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

    def others(self) -> list[State]:
        """The other characters' states (those the run looked at), in the order met."""
        return [s for role, s in (self.cast or {}).items() if role != "self"]

    def read(self, place: Place | None) -> Any:
        if place is None:
            return 0
        if type(place) is str:
            value = self.values.get(place, MISSING)
            return self.open_default if value is MISSING else value
        if type(place) is Elsewhere:
            return self.of(place.character).read(place.place)
        return self.values[place[0]][place[1]]

    def _own_values(self) -> set[str]:
        """Make `values` this State's own before a write (copied on the first one): the
        families copied so far."""
        copied = self.copied
        if copied is None or not self.own or self.shared:
            self.values = dict(self.values)
            self.own = True
            self.shared = False
            copied = self.copied = set()
        return copied

    def write(self, place: Place, value: Any) -> None:
        if type(place) is Elsewhere:
            self.of(place.character).write(place.place, value)
            return
        self.summary = None
        copied = self._own_values()
        if isinstance(place, str):
            path = place
            old = self.values.get(place, self.open_default)
            self.values[place] = value
        else:
            name, key = place
            if name not in copied:
                self.values[name] = dict(self.values[name])
                copied.add(name)
            path = f"{name}.{key}"
            old = self.values[name].get(key)
            self.values[name][key] = value
        self.before.setdefault(path, old)

    def remove(self, place: tuple[str, Any] | Elsewhere) -> None:
        """Take an entry out of a mapping on the sheet (a lasting effect that ends)."""
        if type(place) is Elsewhere:
            self.of(place.character).remove(place.place)  # type: ignore[arg-type]  # (an entry)
            return
        name, key = place
        if key not in self.values[name]:
            return
        copied = self._own_values()
        if name not in copied:
            self.values[name] = dict(self.values[name])
            copied.add(name)
        self.summary = None
        old = self.values[name].pop(key)
        self.before.setdefault(f"{name}.{key}", old)

    def changes(self) -> list[tuple[str, Any, Any]]:
        out = []
        for path, before in self.before.items():
            name, _, key = path.partition(".")
            after = self.values[name].get(key) if key else self.values[name]
            if after != before:
                out.append((path, before, after))
        return out

    def snapshot(self) -> tuple[Any, ...]:
        """A hashable summary of what changed (the odds engine merges equal worlds), on
        every character's sheet."""
        own = self.snapshot_own()
        if self.cast is None:
            return own
        others = tuple((s.role, s.snapshot_own()) for s in self.others() if s.before)
        return (own, others)

    @property
    def role(self) -> str:
        """Whose state this is: an other character's role, or "self"."""
        return "self" if self.who is None else self.who.role

    def snapshot_own(self) -> tuple[Any, ...]:
        found = self.summary
        if found is None:
            found = self.summary = tuple(
                sorted((path, _freeze(self._current(path))) for path in self.before)
            )
        return found

    def _current(self, path: str) -> Any:
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
        return cast[self.role]

    def copy_own(self) -> State:
        """This character's state again, the two copying the values on their first write."""
        other = State(self.values, self.open_default, self.who)
        if self.own:
            other.own = other.shared = self.shared = True
        other.before = dict(self.before)
        other.summary = self.summary
        return other


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value


def place_text(place: Place) -> str:
    """A place as a person reads it: `Esencia`, `dinamis[Virtus]` (in Spanish `dinamis de
    Virtus`: a Message), `orco.Vida` (on another character's sheet)."""
    if type(place) is str:
        return place
    if type(place) is Elsewhere:
        return tr("{who}.{place}", who=place.character.label, place=place_text(place.place))
    return tr("{field}[{key}]", field=place[0], key=place[1])


def place_path(place: Place) -> str:
    """A place as a path in the sheet's data: `Esencia`, `dinamis.Virtus` (another
    character's: `objetivo:Vida`, its role first)."""
    if type(place) is str:
        return place
    if type(place) is Elsewhere:
        return f"{place.character.role}:{place_path(place.place)}"
    return f"{place[0]}.{place[1]}"


class OnSheets(Protocol):
    """What reads a place's sheet: a run's context (interpreter.runtime.Context)."""

    state: State | None


def sheet_of(ctx: OnSheets, place: Place) -> tuple[State, OwnPlace]:
    """(the state a place is on, the place there): `Elsewhere` unwrapped, for what must
    be computed on that character's sheet (its resource's maximum, its ranges)."""
    state = ctx.state
    if state is None:  # (a run that writes has its sheet)
        raise AssertionError("a place on a sheet, in a run without one")
    if type(place) is Elsewhere:
        return state.of(place.character), place.place
    return state, place


def to_write(place: Callable[[Any], Any], span: Span | None, shown: str) -> Callable[[Any], Place]:
    """`place` (a closure giving the place a `set`, a change or an `add` writes), refusing
    what names no field (`none`: a parameter `p: attribute = none` left out, a family's
    key none; a value read from one): the rulebook's error, at `span` (`shown`: how the
    rules wrote the place)."""

    def where(ctx: Any) -> Place:
        found = place(ctx)
        own = found.place if type(found) is Elsewhere else found
        if type(own) is str or (type(own) is tuple and len(own) == 2 and own[1] is not None):
            return found  # type: ignore[no-any-return]  # (a place: checked just above)
        value = "none" if own is None or type(own) is tuple else own
        raise EvaluationError(
            tr("{place} names no field to change: it is {value}", place=shown, value=value), span
        )

    return where
