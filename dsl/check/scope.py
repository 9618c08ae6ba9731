"""Local names and the names every rulebook has: fields, types (functions: dsl.functions)."""

from __future__ import annotations

from dsl import types as t

#: deepest a definition may nest with everything it calls: a level per expression, two
#: per statement, and at each call CALL_NESTING more and the callee's own nesting. Checking,
#: compiling and evaluating recurse in Python by about two frames per level; this keeps
#: them well within its stack (1000 frames by default), whatever the rules look like.
MAX_CALL_NESTING = 200
#: what entering a called definition (a formula, a check, an action) adds to the nesting
CALL_NESTING = 3

#: names a check's fields can use, and what they are
CHECK_NAMES = {"total": t.NUMBER, "target": t.NUMBER, "success": t.BOOL, "margin": t.NUMBER}
#: a check's fields the author may define in place of the built-in ones, and their types
OWN_OUTCOME = {"success": t.BOOL}
#: names a roll's `on` and `again` conditions can use
ROLL_NAMES = {"die": t.NUMBER, "dice": t.list_of(t.NUMBER), "total": t.NUMBER, "doubles": t.BOOL}
PARAM_TYPES = {
    "int": t.NUMBER,
    "number": t.NUMBER,
    "bool": t.BOOL,
    "text": t.TEXT,
    "attribute": t.ref("attribute"),
    "skill": t.ref("skill"),
    "resource": t.ref("resource"),
    "counter": t.ref("counter"),
    "stat": t.ref("stat"),
    "character": t.CHARACTER,
}


class Scope:
    """Local names: parameters, `let`s, loop variables, a check's `total`, ..."""

    def __init__(self, parent: Scope | None = None, names: dict | None = None):
        self.parent = parent
        self.names: dict[str, tuple[str, t.Type]] = dict(names or {})
        self.read: set[str] = set()  # its names read somewhere (a `let` never read: warned)

    def note_read(self, name: str) -> None:
        """The local `name` is read: marked in the scope that holds it."""
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                scope.read.add(name)
                return
            scope = scope.parent

    def lookup(self, name: str):
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def all_names(self) -> list[str]:
        out: list[str] = []
        scope: Scope | None = self
        while scope is not None:
            out.extend(scope.names)
            scope = scope.parent
        return out

    def child(self, names: dict | None = None) -> Scope:
        return Scope(self, names)
