"""An untraced run's fast path: generated functions called straight, table rows remembered.

`Engine.run` calls an action's generated function itself once it is made, generated
code calls a check's or an action's generated function itself, and a one-key table's
rows of constants are remembered by whole-number key (interpreter.compile.tables:
RememberedRows). Each must give what the closures give: the same results, dice, steps
and errors, a row with dice rolled on every lookup, and the memory bounded.
"""

from __future__ import annotations

import contextlib
import re

import pytest

import dsl
import interpreter.engine as engine_module
from dsl.errors import RulebookError
from interpreter import Engine, ForcedDice, SeededDice, render_text
from interpreter.compile import tables
from interpreter.compile.codegen import SWITCH, closures_only
from interpreter.dice import DiceSource
from interpreter.limits import Limits
from interpreter.values import Record

BOOK = """
rulebook "Fast path" {
  system "a check, a table with dice in a row"
  language "en"
}

sheet {
  attribute Strength in 1..10
}

table Level by total {
  ..5:   "Low"
  6..8:  "Middle"
  9:     d6
  10..:  "High"
}

check plain(bonus: int = 0) "Plain" {
  roll d10 + Strength + bonus >= 8
  level = Level[total]
}

action test(bonus: int = 0) "Test" {
  let c = plain(bonus)
  result { total: c.total, level: c.level, success: c.success }
}
"""


@pytest.fixture(autouse=True)
def generated_at_once():
    before, SWITCH.after = SWITCH.after, 0
    yield
    SWITCH.after = before


@pytest.fixture
def engine():
    return Engine(dsl.load_text(BOOK, "fast_path.rules"))


def plain(out):
    return (dict(out.result), out.dice, out.steps)


def test_the_fast_path_and_the_closures_agree_on_every_face(engine):
    sheet = engine.sheet({"Strength": 3})
    for bonus in range(-4, 5):
        for face in range(1, 11):
            # a total of 9 reads the row with a d6: one more die, forced too
            dice = [face, 4] if face + 3 + bonus == 9 else [face]
            fast = engine.run("test", sheet, {"bonus": bonus}, ForcedDice(dice))
            with closures_only():
                slow = engine.run("test", sheet, {"bonus": bonus}, ForcedDice(dice))
            assert plain(fast) == plain(slow)
    assert engine.runnable("test").fast is not None  # (the generated function, called straight)


def test_a_row_with_dice_is_rolled_on_every_lookup_and_never_remembered(engine):
    sheet = engine.sheet({"Strength": 3})
    levels = [
        engine.run("test", sheet, {"bonus": 0}, ForcedDice([6, face])).result["level"]
        for face in (1, 5, 2)
    ]
    assert levels == [1, 5, 2]
    engine.run("test", sheet, {"bonus": 0}, ForcedDice([1]))  # a total of 4: "Low"
    remembered = engine.compiler.remembered_rows("Level").values
    assert remembered == {4: "Low"}


def test_the_remembered_rows_are_bounded(engine, monkeypatch):
    monkeypatch.setattr(tables, "REMEMBERED_KEYS", 3)
    sheet = engine.sheet({"Strength": 1})
    for face in range(1, 8):  # totals 2..8, each a row of constants
        out = engine.run("test", sheet, {"bonus": 0}, ForcedDice([face]))
        assert out.result["level"] == ("Low" if face + 1 <= 5 else "Middle")
    assert len(engine.compiler.remembered_rows("Level").values) == 3


def test_a_check_called_straight_keeps_the_call_depth_and_the_steps():
    book = dsl.load_text(BOOK, "fast_path.rules")
    for limits in (Limits(call_depth=1), Limits(steps_per_run=5)):
        engine = Engine(book, limits)
        sheet = engine.sheet({"Strength": 3})
        errors = []
        for closures in (False, True, False):  # made by the first run, then called straight
            with pytest.raises(RulebookError) as raised:
                if closures:
                    with closures_only():
                        engine.run("test", sheet, {"bonus": 1}, ForcedDice([5]))
                else:
                    engine.run("test", sheet, {"bonus": 1}, ForcedDice([5]))
            errors.append((str(raised.value), getattr(raised.value, "steps", None)))
        assert errors[0] == errors[1] == errors[2]
        assert "call_depth" in errors[0][0] or "steps_per_run" in errors[0][0]


def test_parameters_remembered_by_value_and_type(engine):
    """True == 1 in Python: the binder's memory of the parameters given before must
    not take one for the other (True is refused after 1 as before it)."""
    sheet = engine.sheet({"Strength": 3})
    with pytest.raises(RulebookError) as refused:
        Engine(engine.rulebook).run("test", sheet, {"bonus": True}, ForcedDice([6]))
    engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]))
    with pytest.raises(RulebookError) as again:
        engine.run("test", sheet, {"bonus": True}, ForcedDice([6]))
    assert str(again.value) == str(refused.value)


def test_the_same_parameters_again_are_not_bound_again(engine, monkeypatch):
    """The binder's last binding is given again for the very same names and values
    (`Binder.prepared`): the binder itself is not called; a value changed in the same
    dict (True for 1: equal in Python) is bound, and refused, as before."""
    sheet = engine.sheet({"Strength": 3})
    params = {"bonus": 1}
    first = engine.run("test", sheet, params, ForcedDice([6]))
    binder = type(engine.runnable("test").binder)
    calls = []
    called = binder.__call__
    monkeypatch.setattr(binder, "__call__", lambda *a: calls.append(1) or called(*a))
    again = engine.run("test", sheet, params, ForcedDice([6]))
    assert calls == [] and plain(again) == plain(first)
    again.params["bonus"] = 2  # (an Outcome's own copy: the next run's is untouched)
    assert engine.run("test", sheet, params, ForcedDice([6])).params == {"bonus": 1}
    params["bonus"] = True
    with pytest.raises(RulebookError):
        engine.run("test", sheet, params, ForcedDice([6]))
    assert calls == [1]


TWO = """
rulebook "Two" {
  system "two parameters"
  language "en"
}

action two(a: int = 0, b: int = 0) "Two" {
  result { a: a, b: b, d: d6 + a - b }
}
"""


def test_the_last_binding_is_read_by_name(monkeypatch):
    """The last binding is given again for the same values under the same names, in
    whatever order the dict holds them (`Binder.prepared` reads them by name); values
    swapped between two names, or a name given that was not given before, bind again."""
    engine = Engine(dsl.load_text(TWO, "two.rules"))
    sheet = engine.sheet({})
    first = engine.run("two", sheet, {"a": 1, "b": 2}, ForcedDice([3]))
    binder = type(engine.runnable("two").binder)
    calls = []
    called = binder.__call__
    monkeypatch.setattr(binder, "__call__", lambda *a: calls.append(1) or called(*a))
    again = engine.run("two", sheet, {"b": 2, "a": 1}, ForcedDice([3]))
    assert calls == [] and plain(again) == plain(first)
    swapped = engine.run("two", sheet, {"a": 2, "b": 1}, ForcedDice([3]))
    assert calls == [1] and dict(swapped.result) == {"a": 2, "b": 1, "d": 4}
    with pytest.raises(RulebookError):
        engine.run("two", sheet, {"a": 2, "c": 1}, ForcedDice([3]))
    assert calls == [1, 1]
    one = engine.run("two", sheet, {"b": 2}, ForcedDice([3]))
    assert engine.run("two", sheet, {"b": 2}, ForcedDice([3])).result == one.result
    assert calls == [1, 1, 1]  # (one name: read twice, the same binding)
    assert engine.run("two", sheet, {"b": 3}, ForcedDice([3])).result["b"] == 3
    assert calls == [1, 1, 1, 1]
    none = engine.run("two", sheet, {}, ForcedDice([3]))
    assert engine.run("two", sheet, {}, ForcedDice([3])).result == none.result
    assert calls == [1, 1, 1, 1, 1]


def test_a_seeded_die_is_drawn_straight_from_its_generator(engine, monkeypatch):
    """Generated code draws a plain die from seeded dice's generator itself (not through
    `Roller.face` and `SeededDice.draw`): the same faces, dice and steps as the closures,
    and past `dice_per_evaluation` the same error."""
    sheet = engine.sheet({"Strength": 3})
    with closures_only():
        slow = [plain(engine.run("test", sheet, {}, SeededDice(seed))) for seed in range(20)]
    drawn = []
    draw = SeededDice.draw
    monkeypatch.setattr(SeededDice, "draw", lambda *a: drawn.append(1) or draw(*a))
    fast = [plain(engine.run("test", sheet, {}, SeededDice(seed))) for seed in range(20)]
    assert fast == slow
    # (only a row with dice, total 9, draws through `draw`: one more die each)
    assert len(drawn) == sum(len(dice) - 1 for _, dice, _ in fast)
    tight = Engine(engine.rulebook, Limits(dice_per_evaluation=0))
    errors = []
    for closures in (False, True):
        with pytest.raises(RulebookError) as raised:
            if closures:
                with closures_only():
                    tight.run("test", sheet, {}, SeededDice(1))
            else:
                tight.run("test", sheet, {}, SeededDice(1))
        errors.append(str(raised.value))
    assert errors[0] == errors[1] and "dice_per_evaluation" in errors[0]


def test_a_checks_built_in_fields_are_not_looked_into(engine):
    """A generated check's record is gone through (`bounded_value`) only for a field that
    may hold a list or a record: not its total, target, success or margin (numbers and
    yes or no by then), only its own field (a table's row)."""
    sheet = engine.sheet({"Strength": 3})
    for _ in range(3):  # (made past SWITCH.after runs)
        engine.run("test", sheet, {}, ForcedDice([5]))
    source = engine.compiler.check("plain").generated[1]
    assert source.count(" in _k") == 1
    # the total is made a number if it is not one; the target, written as 8, never is
    # (the total's test may be written on two paths: `lean_frames.NESTED_WHOLES`)
    assert len(set(re.findall(r"type\((_v[0-9]+)\) is not int:", source))) == 1


DUEL = """
rulebook "Duel" {
  system "a target, a match, comparisons"
  language "en"
}

sheet {
  attribute Strength in 1..10
  resource Health max 10
}

action hit(target: character, how: text = "cut") "Hit" {
  let roll = d6
  let wound = 0
  match how {
    case "cut" { set wound to roll }
    case "thrust" { set wound to roll + 1 }
  }
  if roll = 6 and how != "none" {
    set wound to wound + Strength
  }
  lose wound from target.Health
  result { wound: wound, left: target.Health }
}
"""


def test_comparing_plain_values_never_asks_the_mapping_abc(monkeypatch):
    """`=`, `!=` and `match` of numbers and texts tell a record by its type first: the
    Mapping ABC's `isinstance` hook (slow for a value that is not one) is never asked,
    generated or through the closures; a record compared is still counted."""
    import abc

    engine = Engine(dsl.load_text(DUEL, "duel.rules"))
    hero, foe = (
        engine.sheet({"Strength": 3, "Health": 10}),
        engine.sheet({"Strength": 1, "Health": 10}),
    )
    expected = [
        plain(engine.run("hit", hero, {"target": foe, "how": how}, ForcedDice([face])))
        for how in ("cut", "thrust")
        for face in (2, 6)
    ]
    hook = abc.ABCMeta.__instancecheck__

    def refused(cls, instance):
        if cls is Record:
            raise AssertionError(f"isinstance({instance!r}, Record) through the ABC")
        return hook(cls, instance)

    monkeypatch.setattr(abc.ABCMeta, "__instancecheck__", refused)
    for closures in (False, True):
        with closures_only() if closures else contextlib.nullcontext():
            again = [
                plain(engine.run("hit", hero, {"target": foe, "how": how}, ForcedDice([face])))
                for how in ("cut", "thrust")
                for face in (2, 6)
            ]
        assert again == expected


def test_a_target_given_again_is_not_bound_again(monkeypatch):
    """A character's sheet cannot change: the same sheet given again as a target is the
    binder's last binding again (`Binder.prepared`), with the same outcome."""
    engine = Engine(dsl.load_text(DUEL, "duel.rules"))
    hero, foe = (
        engine.sheet({"Strength": 3, "Health": 10}),
        engine.sheet({"Strength": 1, "Health": 10}),
    )
    params = {"target": foe}
    first = engine.run("hit", hero, params, ForcedDice([6]))
    binder = type(engine.runnable("hit").binder)
    calls = []
    called = binder.__call__
    monkeypatch.setattr(binder, "__call__", lambda *a: calls.append(1) or called(*a))
    again = engine.run("hit", hero, params, ForcedDice([6]))
    assert calls == [] and plain(again) == plain(first)
    assert again.characters[0].after["Health"] == 1 and again.characters[0].label == "target"


HALVES = """
rulebook "Halves" {
  system "floor and ceil of a division"
  language "en"
}

formula down(a: int, b: int) = floor(a / b)

action halves(a: int, b: int) "Halves" {
  result { down: down(a, b), up: ceil(a / b), third: floor((a / 3) / b) }
}
"""


def test_floor_and_ceil_of_a_division_agree_with_the_closures():
    """`floor(a / b)` and `ceil(a / b)` of whole numbers are floor divisions in generated
    code (no Fraction made): the same values and errors as the closures' exact division,
    for every sign, a zero divisor, a quotient past `denominator_bound` or `number_bound`."""
    book = dsl.load_text(HALVES, "halves.rules")
    cases = [
        (a, b)
        for a in (-7, -6, -1, 0, 1, 5, 6, 7, 10**6)
        for b in (-4, -2, -1, 0, 1, 2, 3, 7, 10, 11)
    ]
    for limits in (Limits(), Limits(denominator_digits=1), Limits(number_digits=5)):
        engine = Engine(book, limits)
        sheet = engine.sheet({})
        engine.run("halves", sheet, {"a": 1, "b": 1})
        engine.run("halves", sheet, {"a": 1, "b": 1})  # (made past SWITCH.after runs)
        for a, b in cases:
            outcomes = []
            for closures in (False, True):
                with closures_only() if closures else contextlib.nullcontext():
                    try:
                        out = engine.run("halves", sheet, {"a": a, "b": b}, ForcedDice([]))
                        outcomes.append((dict(out.result), out.steps))
                    except RulebookError as error:
                        outcomes.append((str(error), getattr(error, "steps", None)))
            assert outcomes[0] == outcomes[1], (a, b, limits)
    assert "//" in engine.compiler.action("halves").generated[1]
    assert "//" in engine.compiler.generated_formula("down")[1]


def test_a_change_stopped_at_a_bound_words_it_only_for_the_trace(monkeypatch):
    """`lose` past a resource's minimum stops there; the trace's words for it ("stops at
    its minimum") are made only when a trace is recorded, never in an untraced run."""
    from interpreter.compile import statements

    engine = Engine(dsl.load_text(DUEL, "duel.rules"))
    hero, foe = (
        engine.sheet({"Strength": 3, "Health": 10}),
        engine.sheet({"Strength": 1, "Health": 1}),
    )
    engine.runnable("hit")  # (compiled before: compiling words its places)
    worded = []
    tr = statements.tr
    monkeypatch.setattr(statements, "tr", lambda *a, **k: worded.append(a[0]) or tr(*a, **k))
    out = engine.run("hit", hero, {"target": foe}, ForcedDice([5]))
    assert out.characters[0].after["Health"] == 0 and worded == []
    traced = engine.run("hit", hero, {"target": foe}, ForcedDice([5]), trace=True)
    assert "stops at its minimum 0" in render_text(traced.trace)


COMPARED = """
rulebook "Compared" {
  system "equality and max of whole numbers, and of texts"
  language "en"
}

sheet {
  resource Health max 10
}

action compare(a: int, b: int, word: text = "x") "Compare" {
  let same = a = b
  let other = a != b
  let most = max(a, b, 0)
  let least = min(a, b)
  let text_same = word = "x"
  gain 1 to Health
  result { same: same, other: other, most: most, least: least, text_same: text_same }
}
"""


def test_whole_numbers_compared_and_their_max_inline_agree_with_the_closures(monkeypatch):
    """Generated code compares two whole numbers (`=`, `!=`) and takes their `max`/`min`
    inline, everything else through the closures' helpers: the same results and steps
    (a long text compared counts its length); `equal` of two values of one plain type
    never asks whether they are rolls; a rulebook's resources are listed once, not at
    every run that writes."""
    from interpreter.compile import arithmetic
    from interpreter.compile.codegen import emit_values
    from interpreter.sheets import rules

    engine = Engine(dsl.load_text(COMPARED, "compared.rules"))
    sheet = engine.sheet({"Health": 3})
    cases = [(1, 1, "x"), (1, 2, "y" * 200), (-5, 7, "x"), (0, 0, "z")]
    expected = []
    with closures_only():
        for a, b, word in cases:
            out = engine.run("compare", sheet, {"a": a, "b": b, "word": word})
            expected.append((dict(out.result), out.steps))
    listed = []
    places = rules.resource_places
    monkeypatch.setattr(rules, "resource_places", lambda book: listed.append(1) or places(book))
    monkeypatch.setattr(arithmetic, "Rolled", None)  # (isinstance(x, None) would raise)
    monkeypatch.setattr(emit_values, "minmax", None)  # (whole numbers: never called)
    compared = emit_values.compared

    def off_whole_numbers(ctx, compare, a, b, span):
        assert not (type(a) is int and type(b) is int), "two whole numbers compared off inline"
        return compared(ctx, compare, a, b, span)

    monkeypatch.setattr(emit_values, "compared", off_whole_numbers)
    for _ in range(3):
        got = []
        for a, b, word in cases:
            out = engine.run("compare", sheet, {"a": a, "b": b, "word": word})
            got.append((dict(out.result), out.steps))
        assert got == expected
    assert listed == []
    source = engine.compiler.action("compare").generated[1]
    assert " == " in source and "not _v" in source


NAMES = """
rulebook "Inline" {
  system "a check written into the action, local names read from locals"
  language "en"
}

sheet {
  attribute Strength in 1..10
}

check inner(bonus: int = 0) "Inner" {
  roll d10 + Strength + bonus >= 8
  twice = total + total
}

check outer(bonus: int = 0) "Outer" {
  roll d6 + bonus >= 4
  deeper = inner(bonus).twice
}

action test(bonus: int = 0) "Test" {
  let c = inner(bonus)
  let n = c.total
  if c.success {
    set n to n + 1
  }
  let m = n + n
  for each x in [1, 2] {
    set m to m + x
  }
  let o = outer(n)
  result { total: c.total, twice: c.twice, n: n, m: m, deeper: o.deeper, o: o.total }
}
"""


def test_a_check_is_written_into_its_caller_and_local_names_kept_in_locals(monkeypatch):
    """Generated code writes a called check's body inline (its own function never called)
    and reads a local name from the generated local it was written from, forgotten past
    a block that may not have run or ran again: the same results, dice and steps as the
    closures, and the same errors at call_depth and steps_per_run."""
    book = dsl.load_text(NAMES, "inline.rules")
    engine = Engine(book)
    sheet = engine.sheet({"Strength": 3})
    called = []
    for name in ("inner", "outer"):
        check = engine.compiler.check(name)
        made = check.make_fast(now=True)
        check.fast = lambda ctx, args, span, made=made: called.append(1) or made(ctx, args, span)
    for bonus in range(-3, 4):
        for face in range(1, 11):
            fast = engine.run("test", sheet, {"bonus": bonus}, ForcedDice([face, 3, face]))
            with closures_only():
                slow = engine.run("test", sheet, {"bonus": bonus}, ForcedDice([face, 3, face]))
            assert plain(fast) == plain(slow)
    assert called == []
    # a check's fields read from the locals they were written in (`c.total` after the
    # `if` and the `for each`, which write neither `c` nor it; the author's `c.twice`,
    # `o.deeper`, and `.twice` in `outer`, too): none looked up in a record
    source = engine.compiler.action("test").generated[1]
    assert source.count("._fields.get(") == 0
    for limits in (Limits(call_depth=2), Limits(steps_per_run=12)):
        errors = []
        for closures in (False, True):
            way = closures_only() if closures else contextlib.nullcontext()
            with pytest.raises(RulebookError) as raised, way:
                Engine(book, limits).run("test", sheet, {}, ForcedDice([5, 3, 5]))
            errors.append((str(raised.value), getattr(raised.value, "steps", None)))
        assert errors[0] == errors[1]


def test_seeded_dice_are_not_finished_and_forced_dice_still_are(engine, monkeypatch):
    """Seeded dice's `finish` has nothing to do, and `Engine.run` does not call it (nor
    through `run_check`); forced dice's is still called: values left over are refused."""
    finished = []
    monkeypatch.setattr(DiceSource, "finish", lambda self: finished.append(type(self)))
    sheet = engine.sheet({"Strength": 3})
    for seed in range(3):
        engine.run("test", sheet, {"bonus": seed}, SeededDice(seed))
        engine.run_check("plain", sheet, {"bonus": seed}, SeededDice(seed))
    assert finished == []
    with pytest.raises(RulebookError, match="left over"):  # 1 + 3: "Low", no die for a row
        engine.run("test", sheet, {}, ForcedDice([1, 2]))


def test_a_function_whose_locals_nothing_reads_by_name_keeps_no_env():
    """Where no closure the generated function calls reads the caller's local names
    (a check written inline, a table's lookup, one die), its parameters and locals are
    Python locals only: no `env` made, kept or restored. A text built from locals is a
    closure reading them by name: that function keeps `env`. Both agree with the closures
    (results, dice, steps, errors: the steps limit, the call depth)."""
    text = (
        BOOK
        + """
action worded(bonus: int = 0) "Worded" {
  let c = plain(bonus)
  let word = "{bonus} gives {c.total}"
  result { total: c.total, word: word }
}
"""
    )
    book = dsl.load_text(text, "fast_path.rules")
    for limits in (Limits(), Limits(steps_per_run=5), Limits(call_depth=1)):
        engine = Engine(book, limits)
        sheet = engine.sheet({"Strength": 3})
        for name in ("test", "worded"):
            for bonus in (-3, 0, 2):
                for face in range(1, 11):
                    dice = [face, 4] if face + 3 + bonus == 9 else [face]
                    outcomes = []
                    for closures in (False, True):
                        with closures_only() if closures else contextlib.nullcontext():
                            try:
                                out = engine.run(name, sheet, {"bonus": bonus}, ForcedDice(dice))
                                outcomes.append(plain(out))
                            except RulebookError as error:
                                outcomes.append((str(error), getattr(error, "steps", None)))
                    assert outcomes[0] == outcomes[1], (name, bonus, face, limits)
    words = {
        name: set(re.findall(r"\w+", engine.compiler.action(name).generated[1]))
        for name in ("test", "worded")
    }
    assert "env" not in words["test"]
    assert "env" not in set(re.findall(r"\w+", engine.compiler.check("plain").generated[1]))
    assert "env" in words["worded"]


def test_a_run_is_its_own_roller_and_generated_code_draws_straight_from_it(engine, monkeypatch):
    """`Engine.run` makes one object, the run's context, which is its roller too
    (runtime.Run); generated code draws a plain die from seeded dice straight from it,
    never through `face` (the closures do), with the same faces as a seeded roller."""
    from interpreter.runtime import Rolling, Run

    sheet = engine.sheet({"Strength": 3})
    seen = []
    face = Rolling.face

    def noted(self, die, span):
        seen.append(type(self))
        return face(self, die, span)

    monkeypatch.setattr(Rolling, "face", noted)
    ten = {"bonus": 10}  # (a total past 9: no row with a die of its own)
    fast = [engine.run("test", sheet, ten, SeededDice(seed)).dice for seed in range(20)]
    assert seen == []  # (every die drawn by the generated code itself)
    with closures_only():
        slow = [engine.run("test", sheet, ten, SeededDice(seed)).dice for seed in range(20)]
    assert fast == slow
    assert set(seen) == {Run}


def test_a_check_written_inline_is_not_made_a_record_nothing_reads_whole():
    """A check written inline whose record is read only field by field (`c.total`,
    `c.level`) has its fields read from their locals and no record built (but for
    `bounded_value`, where a field may hold a list or a record); one whose record is read
    whole has it built. Both agree with the closures on every face."""
    text = (
        BOOK
        + """
action whole(bonus: int = 0) "Whole" {
  let c = plain(bonus)
  result { check: c, level: c.level }
}
"""
    )
    engine = Engine(dsl.load_text(text, "fast_path.rules"))
    sheet = engine.sheet({"Strength": 3})
    for name in ("test", "whole"):
        for face in range(1, 11):
            dice = [face, 4] if face + 3 == 9 else [face]
            fast = engine.run(name, sheet, {"bonus": 0}, ForcedDice(dice))
            with closures_only():
                slow = engine.run(name, sheet, {"bonus": 0}, ForcedDice(dice))
            assert plain(fast) == plain(slow)
    built = {}
    for name in ("test", "whole"):
        function, source = engine.compiler.action(name).generated
        record = next(key for key, value in function.__globals__.items() if value is Record)
        made = rf"^ *_v[0-9]+ = (?:{record}\(|_k[0-9]+\({record}\))"  # (or made bare)
        built[name] = len(re.findall(made, source, flags=re.M))
    assert built == {"test": 1, "whole": 2}  # (the result's; and the check's, read whole)


@pytest.mark.parametrize("seconds", [None, 5.0])
def test_a_run_sets_every_slot_a_context_and_a_tray_set(seconds):
    # `Run.__init__` writes out Context's and Tray's own: a slot one of them gains and it
    # leaves unset would be an AttributeError in the middle of a run
    from interpreter.dice import DiceTray
    from interpreter.runtime import Context, Run

    limits = Limits() if seconds is None else Limits(run_seconds=seconds)
    run = Run(SeededDice(1), limits, None, None)  # type: ignore[arg-type]
    assert run.roller is run
    for name in (*Context.__slots__, *DiceTray.__slots__):
        getattr(run, name)  # (an unset slot raises)


def test_a_plain_run_calls_the_generated_function_itself(engine, monkeypatch):
    """`Engine.run` calls the generated function itself for a run with nothing around it
    (no targets nor choices; a traced one, its compiled form: `TRACED_RUNS`); any other
    run, and every run before the function is made, goes through `Engine._run`: the same
    results, dice and steps either way, and the Outcome's dice a tuple (the run's own
    list of faces kept, given as a tuple)."""
    sheet = engine.sheet({"Strength": 3})
    first = engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]))  # (makes it)
    general = []
    run = Engine._run
    monkeypatch.setattr(Engine, "_run", lambda *a: general.append(1) or run(*a))
    again = engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]))
    assert general == [] and plain(again) == plain(first)
    assert type(again.dice) is tuple and again.dice == (6,)
    traced = engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]), trace=True)
    assert general == [] and plain(traced) == plain(first)  # (fails with TRACED_RUNS off)
    assert engine._spares and all(ctx.trace is None for ctx in engine._spares)  # (kept)
    assert render_text(again.trace) == render_text(traced.trace)
    chose = engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]), choices={})
    assert general == [1] and plain(chose) == plain(first)
    monkeypatch.setattr(engine_module, "TRACED_RUNS", False)
    apart = engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]), trace=True)
    assert general == [1, 1] and render_text(apart.trace) == render_text(traced.trace)
    again = engine.run("test", sheet, {"bonus": 1}, ForcedDice([6]))  # (a reused context)
    assert again.trace is not traced.trace
    assert render_text(again.trace) == render_text(traced.trace)


def failed(run):
    """`run()` fails with the project's own error (dropped here)."""
    with pytest.raises(RulebookError):
        run()


def test_a_run_leaves_no_cycle_for_the_garbage_collector(engine):
    """A run's context is its own roller, and the characters' states know one another:
    `Engine.run` breaks both cycles once the run is over, so that what the run made is
    freed at once, not by the garbage collector (plain, traced, with a target, failed)."""
    import gc

    duel = Engine(dsl.load_text(DUEL, "duel.rules"))
    hero = duel.sheet({"Strength": 3, "Health": 10})
    foe = duel.sheet({"Strength": 1, "Health": 10})
    sheet = engine.sheet({"Strength": 3})
    runs = [
        lambda: engine.run("test", sheet, {"bonus": 1}, SeededDice(1)),
        lambda: engine.run("test", sheet, {"bonus": 1}, SeededDice(1), trace=True),
        lambda: duel.run("hit", hero, {"target": foe}, ForcedDice([6])),
        lambda: duel.run("hit", hero, {}, ForcedDice([6]), targets={"target": foe}),
        lambda: failed(lambda: engine.run("test", sheet, {"bonus": 1}, ForcedDice([]))),
        lambda: failed(lambda: duel.run("hit", hero, {"target": foe}, ForcedDice([]))),
    ]
    for run in runs:
        run(), run(), run()  # (generated by now, and every cache made)
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for run in runs:
            run()
            assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
