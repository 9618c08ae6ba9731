"""The public API: an Engine compiled once from a rulebook runs actions against sheets.

    book = dsl.load("arcana_mundi")
    engine = Engine(book)
    sheet = Sheet.load("rulebooks/characters/menecma.yaml", book)
    out = engine.run("usar_numina", sheet, {"numina": "Grito Báquico"}, dice=SeededDice(7))
    out.result, out.sheet, out.changes, out.trace

A run works on a copy of the sheet; if anything fails (a `require`, a `spend` of more
than the sheet holds, a limit) it raises and the caller still holds the untouched sheet.
The trace is built on demand by running again with the same dice, which the run recorded:
runs are deterministic given their dice, so the replay is the run.
"""

from __future__ import annotations

import weakref
from fractions import Fraction

import attrs

from dsl import nodes as n
from dsl.check import Checker, Rulebook, Scope
from dsl.errors import RulebookInvalid, did_you_mean
from interpreter.dice import DiceSource, ForcedDice, SeededDice
from interpreter.errors import EvaluationError, ParameterError, SheetError
from interpreter.evaluate import Compiler, Context, Roller, State
from interpreter.limits import DEFAULT_LIMITS, Limits
from interpreter.sheet import Sheet
from interpreter.trace import WORDS, Step
from interpreter.values import Record, is_number, show

_ENGINES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@attrs.frozen
class Change:
    """One value on the sheet that a run changed."""

    path: str
    before: object
    after: object


class Outcome:
    """What a run produced: its result, the new sheet, what changed, and how."""

    __slots__ = (
        "_replay",
        "_trace",
        "action",
        "changes",
        "dice",
        "origin",
        "params",
        "result",
        "sheet",
    )

    def __init__(self, action, params, result, sheet, changes, dice, origin, replay):
        self.action, self.params, self.result, self.sheet = action, params, result, sheet
        self.changes, self.dice, self.origin = changes, dice, origin
        self._replay = replay  # (engine, compiled action, input sheet, arguments)
        self._trace = None

    @property
    def trace(self) -> list[Step]:
        """Every roll, check, lookup, cost and change, in order (built on first use)."""
        if self._trace is None:
            engine, compiled, sheet, args = self._replay
            self._trace = engine._trace(
                compiled, sheet, args, self.dice, self.params, self.action, self.origin
            )
        return self._trace


class Engine:
    """A rulebook compiled once; reusable and safe to share between threads."""

    def __init__(self, rulebook: Rulebook, limits: Limits = DEFAULT_LIMITS):
        self.rulebook = rulebook
        self.limits = limits
        self.compiler = Compiler(rulebook)
        self.words = WORDS.get(rulebook.language, WORDS["en"])
        self._binders: dict = {}  # action → (compiled action, its parameter binder)
        self._other_binders: dict = {}  # checks and rolls run on their own

    @classmethod
    def of(cls, rulebook: Rulebook) -> Engine:
        """The engine of a rulebook, compiled once and kept while the rulebook lives."""
        engine = _ENGINES.get(rulebook)
        if engine is None:
            engine = _ENGINES[rulebook] = cls(rulebook)
        return engine

    # ─── running actions ────────────────────────────────────────────────────

    def run(
        self, action: str, sheet: Sheet, params: dict | None = None, dice: DiceSource | None = None
    ) -> Outcome:
        """Run an action; return its Outcome, or raise with nothing changed."""
        compiled, args, shown = self._prepare(action, sheet, params or {})
        source = dice if dice is not None else SeededDice()
        roller = Roller(source, self.limits)
        ctx = self._context(roller, sheet)
        result = compiled(ctx, args, compiled.node.span)
        if ctx.state.own:
            new_sheet, changes = self._commit(ctx, sheet)
        else:  # nothing was written: the same sheet, no changes, nothing to check again
            new_sheet, changes = sheet, ()
        source.finish()
        return Outcome(
            action,
            shown,
            result,
            new_sheet,
            tuple(changes),
            tuple(roller.drawn),
            source.origin,
            (self, compiled, sheet, args),
        )

    def _context(self, roller, sheet: Sheet, trace: list | None = None) -> Context:
        state = State(sheet._values, self.compiler.open_default)
        return Context(roller, self.limits, state, trace, self.words)

    def _trace(self, compiled, sheet, args, faces, shown, action, origin) -> list[Step]:
        steps: list[Step] = []
        params = ", ".join(f"{k}={show(v)}" for k, v in shown.items())
        steps.append(
            Step(
                "action",
                f"{compiled.label}({params})",
                compiled.node.span.line,
                {"action": action},
                -1,
                self.rulebook.path,
            )
        )
        replayed = ForcedDice(faces)
        replayed.origin = origin  # the trace says where the dice came from, not the replay
        ctx = self._context(Roller(replayed, self.limits), sheet, steps)
        compiled(ctx, args, compiled.node.span)
        self._commit(ctx, sheet)
        return steps

    def _prepare(self, action: str, sheet: Sheet, params: dict):
        prepared = self._binders.get(action)
        if prepared is None:
            if action not in self.rulebook.actions:
                hint = did_you_mean(action, list(self.rulebook.actions)) or (
                    "actions: " + ", ".join(self.rulebook.actions)
                )
                raise ParameterError(f"{self.rulebook.title} has no action {action!r}", None, hint)
            compiled = self.compiler.action(action)
            prepared = self._binders[action] = (compiled, _Binder(self, compiled.node))
        if sheet.rulebook is not self.rulebook:
            raise SheetError("this sheet was loaded for another rulebook", path=sheet.path)
        compiled, binder = prepared
        args, shown = binder(sheet, params)
        return compiled, args, shown

    def _arguments(self, node, sheet: Sheet, params: dict) -> tuple:
        """Parameter values in declaration order (defaults filled in), and how to show
        them; unknown, missing or ill-typed parameters are ParameterErrors."""
        if sheet.rulebook is not self.rulebook:
            raise SheetError("this sheet was loaded for another rulebook", path=sheet.path)
        binder = self._other_binders.get(node.name)
        if binder is None:
            binder = self._other_binders[node.name] = _Binder(self, node)
        return binder(sheet, params)

    def check_arguments(self, check: str, sheet: Sheet, params: dict) -> tuple:
        if check not in self.rulebook.checks:
            raise ParameterError(
                f"{self.rulebook.title} has no check {check!r}",
                None,
                did_you_mean(check, list(self.rulebook.checks)),
            )
        return self._arguments(self.rulebook.checks[check], sheet, params)[0]

    def roll_arguments(self, roll_name: str, sheet: Sheet, params: dict) -> tuple:
        return self._arguments(self.rulebook.rolls[roll_name], sheet, params)[0]

    def run_roll(self, roll_name: str, sheet: Sheet, params: dict | None = None, dice=None):
        """Roll one of the rulebook's named rolls (`abierta`, `capicua`); its total."""
        if roll_name not in self.rulebook.rolls:
            raise ParameterError(
                f"{self.rulebook.title} has no roll {roll_name!r}",
                None,
                did_you_mean(roll_name, list(self.rulebook.rolls)),
            )
        args = self.roll_arguments(roll_name, sheet, params or {})
        source = dice if dice is not None else SeededDice()
        ctx = self._context(Roller(source, self.limits), sheet)
        return self.compiler.roll_definition(roll_name).call(ctx, args).total

    def run_check(
        self, check: str, sheet: Sheet, params: dict | None = None, dice: DiceSource | None = None
    ) -> Record:
        """Roll one check (no action around it); its result record."""
        args = self.check_arguments(check, sheet, params or {})
        source = dice if dice is not None else SeededDice()
        compiled = self.compiler.check(check)
        ctx = self._context(Roller(source, self.limits), sheet)
        return compiled(ctx, args, compiled.node.span)

    def _default(self, param: n.Param, ctx, sheet: Sheet):
        value = self.compiler.value_or_ref(param.default, self.compiler.param_type(param))(ctx)
        return self.param_value(param, value, sheet) if isinstance(value, str) else value

    def param_value(self, param: n.Param, value, sheet: Sheet | None):
        """A parameter's value, checked against its type; texts (from a command line)
        are read as the type says."""
        return _convert(param.name, param.type, value, self.rulebook, sheet)

    # ─── the sheet ──────────────────────────────────────────────────────────

    def _commit(self, ctx: Context, sheet: Sheet):
        """End of a run: keep resources within their new maximum; check `ensure`s."""
        state = ctx.state
        if not state.own:  # nothing was written: the sheet is the same
            return sheet, []
        for name, field in self.rulebook.fields.items():
            if not isinstance(field, n.Resource):
                continue
            keys = (
                [None]
                if field.key_group is None
                else list(self.rulebook.groups[field.key_group].members)
            )
            for key in keys:
                place = name if key is None else (name, key)
                high = self.compiler.resource_bound(ctx, place, "max")
                value = state.read(place)
                if value > high:
                    state.write(place, high)
                    if ctx.trace is not None:
                        where = name if key is None else f"{name}[{key}]"
                        ctx.step(
                            "change",
                            f"{where}: {value} → {high} (its maximum is now {high})",
                            field.span,
                        )
        for ensure in self.rulebook.ensures:
            fn = self.compiler.memo(
                ("ensure", id(ensure)), lambda e=ensure: self.compiler.expr(e.condition)
            )
            if fn(ctx) is not True:
                raise EvaluationError(
                    f"the sheet would break a rule: {ensure.message}", ensure.span
                )
        changes = [Change(*c) for c in state.changes()]
        values = state.values if state.own else sheet._values
        new = Sheet(self.rulebook, values, sheet.meta, sheet.path, sheet.text_format)
        return new, changes

    def complete_sheet(self, sheet: Sheet) -> None:
        """Fill in what a sheet file leaves out (a resource starts at its maximum) and
        check what the schema alone cannot (bounds from formulas, `ensure` rules)."""
        values = sheet._values
        ctx = self._context(Roller(ForcedDice(()), self.limits), sheet)
        ctx.state.values = values  # filling in, before anybody else sees this sheet
        for name, field in self.rulebook.fields.items():
            if not isinstance(field, n.Resource):
                continue
            try:
                if field.key_group is None:
                    self._complete_resource(ctx, values, name, None, field)
                else:
                    pools = values.setdefault(name, {})
                    for key in self.rulebook.groups[field.key_group].members:
                        self._complete_resource(ctx, pools, key, (name, key), field)
            except EvaluationError as error:
                raise SheetError(f"{name}: {error.message}", name, path=sheet.path) from None
        for ensure in self.rulebook.ensures:
            fn = self.compiler.expr(ensure.condition)
            try:
                holds = fn(ctx)
            except EvaluationError as error:
                raise SheetError(error.message, path=sheet.path) from None
            if holds is not True:
                raise SheetError(ensure.message, path=sheet.path)

    def _complete_resource(self, ctx, container: dict, key, place, field) -> None:
        place = place if place is not None else key
        where = key if isinstance(place, str) else f"{place[0]}.{place[1]}"
        high = self.compiler.resource_bound(ctx, place, "max")
        low = self.compiler.resource_bound(ctx, place, "min")
        if key not in container:
            container[key] = high
        value = container[key]
        if value > high:
            raise SheetError(f"{where}: {value} is above its maximum {show(high)}", where)
        if value < low:
            raise SheetError(f"{where}: {value} is below its minimum {show(low)}", where)

    def sheet(self, data: dict, path: str | None = None) -> Sheet:
        """A sheet from plain data (as a YAML or JSON file would give)."""
        return Sheet.from_data(data, self.rulebook, path, engine=self)

    def load_sheet(self, path) -> Sheet:
        return Sheet.load(path, self.rulebook, engine=self)

    # ─── other questions an app may ask ─────────────────────────────────────

    def describe(self) -> dict:
        from interpreter.describe import describe

        return describe(self.rulebook)

    def odds(self, action: str, sheet: Sheet, params: dict | None = None, field=None, **options):
        from interpreter.odds import action_odds

        return action_odds(self, action, sheet, params or {}, field, **options)


# ─── parameter values ───────────────────────────────────────────────────────


class _Binder:
    """An action's (or check's) parameters, prepared once: for each, how to check a
    value given for it, and its default when it is left out."""

    def __init__(self, engine: Engine, node):
        self.engine = engine
        self.node = node
        self.names = [p.name for p in node.params]
        self.known = frozenset(self.names)
        self.constant: dict = {}
        for param in node.params:
            if isinstance(param.default, n.Literal):
                value = param.default.value
                if not (isinstance(value, str) and _is_catalog(param.type, engine.rulebook)):
                    self.constant[param.name] = engine.param_value(param, value, None)
        self.catalogs = {p.name for p in node.params if _is_catalog(p.type, engine.rulebook)}
        self.convert = {p.name: self._converter(p) for p in node.params}
        # Bindings depend on the sheet when an entry is taken from it, or a default is
        # computed from it.
        self.needs_sheet = bool(self.catalogs) or any(
            p.default is not None and p.name not in self.constant for p in node.params
        )
        self.seen: dict = {}

    def _converter(self, param):
        """The common cases checked in one step; anything else by `_convert`."""
        engine = self.engine

        def general(value, sheet):
            return engine.param_value(param, value, sheet)

        type_node = param.type
        if isinstance(type_node, n.NamedType):
            if type_node.name == "int":
                return lambda v, sheet: v if type(v) is int else general(v, sheet)
            choices = (
                _choices(type_node.name, engine.rulebook)
                if not _is_catalog(type_node, engine.rulebook)
                else None
            )
            if choices:
                return lambda v, sheet: v if v in choices else general(v, sheet)
        return general

    def __call__(self, sheet: Sheet, params: dict) -> tuple:
        # The same parameters again (an app rolling one check many times): no work.
        try:
            key = (sheet if self.needs_sheet else None, tuple(params.items()))
            found = self.seen.get(key)
        except TypeError:  # a list among the values: not remembered
            key = found = None
        if found is not None:
            return found[0], dict(found[1])
        args, shown = self.bind(sheet, params)
        if key is not None:
            if len(self.seen) >= 256:
                self.seen.pop(next(iter(self.seen)))
            self.seen[key] = (args, dict(shown))
        return args, shown

    def bind(self, sheet: Sheet, params: dict) -> tuple:
        engine, node = self.engine, self.node
        for name in params:
            if name not in self.known:
                hint = did_you_mean(name, self.names) or (
                    "parameters: " + ", ".join(self.names)
                    if self.names
                    else "it takes no parameters"
                )
                raise ParameterError(f"{node.name} has no parameter {name!r}", None, hint)
        args, shown = [], {}
        defaults_ctx = None
        for param in node.params:
            name = param.name
            if name in params:
                value = self.convert[name](params[name], sheet)
            elif name in self.constant:
                value = self.constant[name]
            elif param.default is not None:
                if defaults_ctx is None:
                    defaults_ctx = engine._context(Roller(ForcedDice(()), engine.limits), sheet)
                value = engine._default(param, defaults_ctx, sheet)
            else:
                raise ParameterError(
                    f"{node.name} needs the parameter {name!r} ({param.type.span.text})"
                )
            args.append(value)
            # A catalog entry is shown by its name, as it was given.
            shown[name] = value["name"] if name in self.catalogs and value is not None else value
        return tuple(args), shown


def _is_catalog(type_node, book: Rulebook) -> bool:
    return isinstance(type_node, n.NamedType) and isinstance(
        book.fields.get(type_node.name), n.Catalog
    )


def _convert(name: str, type_node, value, book: Rulebook, sheet: Sheet | None):
    """Check (and, for text from a command line, read) one parameter value."""
    where = f"parameter {name}"
    if value is None:
        return None
    if isinstance(type_node, n.EnumType):
        if value not in type_node.choices:
            raise ParameterError(
                f"{where}: {value!r} is not one of {', '.join(type_node.choices)}",
                None,
                did_you_mean(str(value), type_node.choices),
            )
        return value
    if isinstance(type_node, n.ListType):
        if isinstance(value, str):
            value = [v.strip() for v in value.split(",") if v.strip()]
        if not isinstance(value, list | tuple):
            raise ParameterError(f"{where}: a list")
        return tuple(_convert(name, type_node.item, v, book, sheet) for v in value)
    kind = type_node.name
    if kind in ("int", "number"):
        if isinstance(value, str):
            try:
                number = Fraction(value.strip())
            except (ValueError, ZeroDivisionError):
                raise ParameterError(f"{where}: {value!r} is not a number") from None
            value = number.numerator if number.denominator == 1 else number
        if not is_number(value):
            raise ParameterError(f"{where}: {value!r} is not a number")
        if kind == "int" and not isinstance(value, int):
            raise ParameterError(f"{where}: {value} is not a whole number")
        return value
    if kind == "bool":
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("yes", "true", "sí", "si", "1"):
                return True
            if lowered in ("no", "false", "0"):
                return False
        if not isinstance(value, bool):
            raise ParameterError(f"{where}: {value!r} is not yes or no")
        return value
    if kind == "text":
        return str(value)
    if kind in book.fields and isinstance(book.fields[kind], n.Catalog):
        entries = sheet._values.get(kind, {}) if sheet is not None else {}
        if isinstance(value, Record):
            return value
        if value not in entries:
            hint = did_you_mean(str(value), entries) or (
                "entries: " + ", ".join(entries) if entries else "the sheet has none"
            )
            raise ParameterError(f"{where}: the sheet has no {kind} entry {value!r}", None, hint)
        return entries[value]
    choices = _choices(kind, book)
    if choices is not None:
        if isinstance(value, str) and value not in choices:
            number = _maybe_number(value)
            if number in choices:
                value = number
        if value not in choices:
            if kind == "skill" and book.open_skills is not None and isinstance(value, str):
                return value
            choices = sorted(choices, key=str)
            hint = did_you_mean(str(value), [str(c) for c in choices]) or "choices: " + ", ".join(
                map(str, choices)
            )
            article = "an" if kind[:1].lower() in "aeiou" else "a"
            raise ParameterError(f"{where}: {value!r} is not {article} {kind}", None, hint)
    return value


def _maybe_number(text: str):
    if len(text) > 1 and text[0] in "dD" and text[1:].isdigit():
        text = text[1:]  # a die size on a ladder: d8 is 8
    try:
        number = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return text
    return number.numerator if number.denominator == 1 else number


_CHOICES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _choices(kind: str, book: Rulebook):
    """The values a parameter of a named type may take (cached per rulebook)."""
    from interpreter.sheet import _names_for

    per_book = _CHOICES.get(book)
    if per_book is None:
        per_book = _CHOICES[book] = {}
    if kind not in per_book:
        names = _names_for(kind, book)
        per_book[kind] = None if names is None else frozenset(names)
    return per_book[kind]


# ─── dice expressions on their own (`rulebook roll`) ────────────────────────


@attrs.frozen
class RollResult:
    """A dice expression's total, every face drawn in order, and each term's faces."""

    expression: str
    total: object
    dice: tuple
    origin: str
    terms: tuple  # of (start, end, PoolRoll): where each term sits in the text

    @property
    def detail(self) -> str:
        """`4d6kh3 [6, 5, 3, ~~1~~] = 14`: each term with its faces, then the total."""
        from interpreter.trace import faces_text

        text, pieces, last = self.expression, [], 0
        for start, end, pool in sorted(self.terms, key=lambda term: term[0]):
            if start < last:  # the same term rolled again (cannot happen in one expression)
                continue
            pieces.append(text[last:end])
            pieces.append(" " + faces_text(pool))
            last = end
        pieces.append(text[last:])
        return f"{''.join(pieces)} = {show(self.total)}"


class _ExpressionCache:
    """Compiled dice expressions by text, so that rolling one again costs no parsing."""

    def __init__(self, size: int = 512):
        self.size = size
        self.cache: dict = {}
        self.empty: Rulebook | None = None

    def compile(self, text: str):
        found = self.cache.get(text)
        if found is not None:
            return found
        from dsl.build import parse_expression
        from dsl.check import check_definitions

        node = parse_expression(text)
        if self.empty is None:
            self.empty = check_definitions(None, [], "<expression>")
        checker = Checker([])
        checker.expr(node, Scope())
        if any(d.severity == "error" for d in checker.diagnostics):
            raise RulebookInvalid(checker.diagnostics)
        book = attrs.evolve(self.empty, bindings=checker.bindings, types=checker.types)
        found = (node, Compiler(book).expr(node))
        if len(self.cache) >= self.size:
            self.cache.pop(next(iter(self.cache)))
        self.cache[text] = found
        return found


_EXPRESSIONS = _ExpressionCache()


class _TermRecorder(Roller):
    """A roller that also notes where in the text each term it rolls was written."""

    __slots__ = ("terms",)

    def __init__(self, source: DiceSource, limits: Limits):
        super().__init__(source, limits)
        self.terms: list = []

    def pool(self, die, count, steps, span, label):
        result = super().pool(die, count, steps, span, label)
        self.terms.append((span.start, span.end, result))
        return result

    def face(self, die, span):
        return self.pool(die, 1, (), span, span.text).total


def roll(
    expression: str, dice: DiceSource | None = None, limits: Limits = DEFAULT_LIMITS
) -> RollResult:
    """Roll a dice expression such as `4d6kh3 + 2`; raise a RulebookError if it is bad."""
    node, value = _EXPRESSIONS.compile(expression)
    source = dice if dice is not None else SeededDice()
    roller = _TermRecorder(source, limits)
    total = value(Context(roller, limits))
    if not (is_number(total) or isinstance(total, bool)):
        raise EvaluationError(f"the expression gives {show(total)}, not a number", node.span)
    source.finish()
    return RollResult(expression, total, tuple(roller.drawn), source.origin, tuple(roller.terms))
