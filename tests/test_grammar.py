"""The grammar: it builds under Lark's strict LALR mode, and dice terms lex as one token."""

from __future__ import annotations

from pathlib import Path

import pytest

import dsl
from benchmarks.corpus import CORPUS
from dsl import nodes as n
from dsl.build import Builder, parse_expression
from dsl.errors import RulebookError, RulebookSyntaxError, Source
from dsl.parser import dice_terminal, lark_parser, parse_tree

ROOT = Path(__file__).resolve().parent.parent


def test_grammar_has_no_conflicts_in_strict_mode():
    # strict=True turns shift/reduce conflicts and terminal collisions into errors.
    parser = lark_parser(strict=True)
    assert parser.options.parser == "lalr"


def test_the_dice_terminal_read_from_the_grammar_is_larks_own():
    # the checker tells a dice term from a name with it, without building the parser
    grammar = (ROOT / "grammar" / "rulebook.lark").read_text(encoding="utf-8")
    dice = next(t for t in lark_parser().terminals if t.name == "DICE").pattern
    assert dice_terminal(grammar) == dice.to_regexp()
    assert "\n" in dice_terminal(grammar)  # `\\n` in the grammar: a line break, as in Lark


@pytest.mark.parametrize(
    "name", ["dificultad", "dinamis", "daño", "Destreza", "d6xp", "dF2", "d", "dd6", "d6d6"]
)
def test_names_that_start_with_d_are_never_dice(name):
    node = parse_expression(f"{name} + 1")
    assert isinstance(node.left, n.Name) and node.left.name == name


def test_a_word_after_a_dice_term_is_not_a_modifier():
    # `2d6` then `xp` on the next line: two things, not `2d6x` with `p` left over.
    with pytest.raises(RulebookSyntaxError):
        parse_expression("2d6\nxp")
    assert isinstance(parse_expression("2d6 - xp").right, n.Name)


@pytest.mark.parametrize(
    "text, count, sides, modifiers",
    [
        ("d6", None, 6, []),
        ("3d8", 3, 8, []),
        ("d%", None, 100, []),
        ("4dF", 4, "F", []),
        ("4d6kh3", 4, 6, [("Keep", "kh", 3)]),
        ("4d6k", 4, 6, [("Keep", "kh", None)]),
        ("5d10kl2dh1dl1", 5, 10, [("Keep", "kl", 2), ("Keep", "dh", 1), ("Keep", "dl", 1)]),
        ("3d6x", 3, 6, [("Explode", False, None)]),
        ("3d6x>=5", 3, 6, [("Explode", False, ">=5")]),
        ("3d6xo=6", 3, 6, [("Explode", True, "=6")]),
        ("3d6rr<=2", 3, 6, [("Reroll", False, "<=2")]),
        ("3d6ro=1", 3, 6, [("Reroll", True, "=1")]),
        ("10d10cs>=6df=1", 10, 10, [("CountSuccesses", ">=6"), ("CountFailures", "=1")]),
        ("8d6x=6kh3", 8, 6, [("Explode", False, "=6"), ("Keep", "kh", 3)]),
    ],
)
def test_every_notation_form_parses(text, count, sides, modifiers):
    node = parse_expression(text)
    assert isinstance(node, n.Dice)
    assert (node.count.value if node.count else None) == count
    assert node.sides == sides
    shown = []
    for m in node.modifiers:
        kind = type(m).__name__
        if isinstance(m, n.Keep):
            shown.append((kind, m.mode, m.count.value if m.count else None))
        elif isinstance(m, n.Explode | n.Reroll):
            cond = f"{m.condition.op}{m.condition.value.value}" if m.condition else None
            shown.append((kind, m.once, cond))
        else:
            shown.append((kind, f"{m.condition.op}{m.condition.value.value}"))
    assert shown == modifiers


def test_counts_sides_and_values_may_be_expressions():
    node = parse_expression("(Areté)d(2*5)cs>=(max(dif, 3))df=1")
    assert isinstance(node.count, n.Name) and node.count.name == "Areté"
    assert isinstance(node.sides, n.Binary)
    assert isinstance(node.modifiers[0].condition.value, n.Call)
    # spans of the inner parts point into the whole text
    assert node.modifiers[0].condition.value.span.text == "max(dif, 3)"


def test_comparisons_do_not_chain():
    with pytest.raises(RulebookSyntaxError):
        parse_expression("1 < 2 < 3")


def test_texts_show_values_in_braces():
    node = parse_expression('"+{a + 1} to {b}, {{literal}}"')
    assert isinstance(node, n.Text)
    assert node.parts[0] == "+" and node.parts[2] == " to " and node.parts[4] == ", {literal}"


def test_deep_nesting_is_refused_before_parsing():
    with pytest.raises(RulebookSyntaxError, match="nested more than"):
        parse_expression("(" * 200 + "1" + ")" * 200)
    with pytest.raises(RulebookSyntaxError, match="nested more than"):
        parse_expression("+".join(["1"] * 500))


def test_texts_with_parts_read_their_escapes():
    node = parse_expression(r'"say \"hi\"\t{a}\\"')
    assert isinstance(node, n.Text)
    assert node.parts[0] == 'say "hi"\t' and node.parts[2] == "\\"


# ─── keywords: contextual where the grammar allows ─────────────────────────

CONTEXTUAL = """
sheet { attribute Fuerza in 1..10 default 3 }
table T { check: 1, roll: 2, action: 3, ladder: 4 }
check c(roll: int, action: T = "check", ladder: a | none | check = "none") {
  roll d6 + roll >= 4
  check = total + 1
  table = T[action]
}
action a(check: int = 2, roll: a | none = none, formula: yes | no = "yes") {
  let x = c(check, "roll")
  result { roll: x.check, action: roll = none, none: formula = "yes", table: x.table }
}
"""


def test_check_roll_action_and_none_are_names_where_the_grammar_allows():
    import interpreter

    book = dsl.load_text(CONTEXTUAL, "contextual.rules")
    assert [p.name for p in book.checks["c"].params] == ["roll", "action", "ladder"]
    assert book.checks["c"].params[2].type.choices == ("a", "none", "check")
    engine = interpreter.Engine(book)
    out = engine.run("a", engine.sheet({}), {}, dice=interpreter.ForcedDice([3]))
    assert dict(out.result) == {"roll": 6, "action": True, "none": True, "table": 2}


@pytest.mark.parametrize(
    ("text", "word", "column"),
    [
        ("check c() { roll d6 >= 3\n roll = 5 }", "roll", 2),  # a check's field
        ("action a(result: int) { }", "result", 10),  # a parameter
        ("action a() { result { let: 1 } }", "let", 23),  # a result field
        ("check c(x: int) { roll d6\n let = 2 }", "let", 2),
    ],
)
def test_a_keyword_where_a_name_goes_says_so(text, word, column):
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text(text, "k.rules")
    error = caught.value
    assert error.message == (
        f"`{word}` is a keyword: write '{word}' in quotes, or choose another name"
    )
    assert error.span.column == column and error.span.text == word


def test_a_reserved_word_after_an_operator_is_more_likely_an_unfinished_expression():
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text("action a() { let x = 2d6 +\n result { x: x } }", "k.rules")
    assert caught.value.message == "unexpected 'result'"
    assert "`result` is a keyword: as a name, write 'result'" in caught.value.hint


def test_then_before_an_if_statements_block_says_the_block_follows_the_condition():
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text('action a() {\n  if 1 > 0 then {\n    note "x"\n  }\n}\n', "k.rules")
    error = caught.value
    assert error.message == "an `if` statement's block follows its condition, with no `then`"
    assert (error.span.line, error.span.column, error.span.text) == (2, 12, "then")
    assert "if c.success { ... }" in error.hint
    book = dsl.load_text("action a() {\n  let x = if 1 > 0 then 2 else 1\n}\n", "k.rules")
    assert "a" in book.actions  # (`then` of a value: as it was)


@pytest.mark.parametrize(
    ("statement", "column", "message", "hint"),
    [
        ("set A = 2", 9, "a `set` takes its new value after `to`", "set x to 2"),
        ("let x := 3", 9, "a `let` names its value with `=`", "let x = 3"),
        ('if A > 1 { note "a" } elif A > 2 { }', 25, "`elif` is written `else if` here", "else if"),
        ("return 3", 3, "an action gives its values in its `result`", "result {"),
        ("let x = 3;", 12, "a statement ends with its line, without `;`", None),
        ("result { A }", 14, "a field's name is followed by `:` and its value", "{ hit: hit }"),
        (
            "let x = 1 if A > 2 else 2  # as in Python",
            11,
            "a value chosen by a condition is written `if ... then ... else ...` here",
            "here, write if A > 2 then 1 else 2",
        ),
        ("if A == 3 { }", 8, "`==` is written `=` here", "if r.total = 20"),
        ("let x = A > 1 && A < 4", 17, "`&&` is written `and` here", "a > 1 and b < 3"),
        ("let x = A > 1 || A < 4", 17, "`||` is written `or` here", "a > 1 or b < 3"),
        ("A += 2", 5, "`+=` is not written here: a name changes with `set`", "set A to A + 2"),
        (
            "A -= d6 + 1  # hurt",
            5,
            "`-=` is not written here: a name changes with `set`",
            "set A to A - (d6 + 1)",
        ),
        (
            'choose b "?" { option no option yes cost 1 from A if A > 2 }',
            53,
            "an option's condition comes before its cost",
            "option burn if r < 12 cost 2 from Luck",
        ),
        (
            "lose 1 from A if A > 2  # as Ruby writes it",
            3,
            "a condition is not written after a statement here: it comes first",
            "here, write if A > 2 { lose 1 from A }",
        ),
        (
            "let x = 2 if A > 2",
            3,
            "a condition is not written after a statement here: it comes first",
            "here, write let x = if A > 2 then 2 else ...",
        ),
        (
            "for each i in 1..(A + 1) { }",
            20,
            "a range's end is a number or a name, not an expression",
            "name it first: let top = n + 1, and then 1..top",
        ),
        (
            "let t = (A - 1)..5",
            18,
            "a range's end is a number or a name, not an expression",
            "1..top",
        ),
        (
            "let t = count(3d6, [4, 5][1]..)",  # (Burning Wheel's shade: a lookup's value)
            31,
            "a range's end is a number or a name, not an expression",
            "1..top",
        ),
        (
            "if A > 2",
            3,
            "an `if` statement's block opens on the line of its condition",
            "here, write if A > 2 {",
        ),
    ],
)
def test_another_languages_statement_says_how_it_is_written_here(statement, column, message, hint):
    text = f"sheet {{\n  counter A in 0..5 default 3\n}}\naction a() {{\n  {statement}\n}}\n"
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text(text, "k.rules")
    error = caught.value
    assert (error.span.line, error.span.column) == (5, column) and error.message == message
    assert hint is None or hint in error.hint


def test_a_block_opened_on_the_next_line_and_an_option_condition_are_still_read():
    book = dsl.load_text(
        "sheet { counter A in 0..5 default 3 }\naction a() {\n  if A > 2\n  {\n"
        '    lose 1 from A\n  }\n  choose c "?" {\n    option no\n    option yes if A > 1\n'
        "  }\n  result { v: A }\n}\n",
        "k.rules",
    )
    assert "a" in book.actions


def test_a_misplaced_keyword_elsewhere_is_not_blamed():
    # `to` comes before the `=` here, but no name could stand in its place
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text("action a() { set x to = 5 }", "k.rules")
    assert caught.value.message == "unexpected '='"


def test_a_quoted_keyword_is_a_name_everywhere():
    book = dsl.load_text(
        "check c() { roll d6\n 'roll' = total }\naction a() { let r = c()\n"
        " result { 'let': r.roll } }",
        "q.rules",
    )
    assert [name for name, _ in book.checks["c"].fields] == ["roll"]


# ─── a text that is one dice term: built from its token, as the parser would ──────────


def _through_the_parser(text: str):
    source = Source("<expression>", text)
    return Builder(source).build(parse_tree(text, source, "expression"))


@pytest.mark.parametrize(
    "text",
    sorted(
        {text for text, *_ in CORPUS}
        | {
            "4dF",
            "d%",
            "(2+1)d(3*2)",
            "3d6[fire]",
            "4d6!!",
            "2d20kh1",
            "10d10cs>=6df=1",
            "(n)d10",
            "d{1,1,2,3}",
            "4d6ro<3kh3",
            "5d10kh3cs>=6",
        }
    ),
)
def test_a_single_dice_term_is_built_as_the_parser_builds_it(text):
    assert parse_expression(text) == _through_the_parser(text)


@pytest.mark.parametrize("text", ["d0", "2d6cs>", "((((1))))d6", "3d6 + 2", "d6x kh1", "0d6"])
def test_a_term_the_parser_refuses_is_refused_alike(text):
    try:
        expected = _through_the_parser(text)
    except RulebookSyntaxError as error:
        with pytest.raises(type(error)) as raised:
            parse_expression(text)
        assert str(raised.value) == str(error)
    else:
        assert parse_expression(text) == expected


@pytest.mark.parametrize(
    ("inner", "unexpected"),
    [('{number("4")}', "unexpected number 4"), ('{join(Gear, ", ")}', "unexpected ','")],
)
def test_a_text_written_inside_a_texts_braces_says_to_name_it_first(inner, unexpected):
    text = f'sheet {{\n  list Gear\n}}\naction a() {{\n  note "{inner}"\n}}\n'
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text(text, "k.rules")
    error = caught.value
    assert error.message == unexpected and "name it first" in error.hint
    with pytest.raises(RulebookSyntaxError) as caught:  # (a text closed before: no such hint)
        dsl.load_text('action a() {\n  note "a" "b"\n}\n', "k.rules")
    assert "name it first" not in (caught.value.hint or "")
    named = (
        text.replace('", "', "sep")
        .replace('"4"', "sep")
        .replace("  note", '  let sep = "4"\n  note')
    )
    assert "a" in dsl.load_text(named, "k.rules").actions  # (named first, as the hint says)


def test_a_require_without_its_reason_says_how_it_is_written():
    text = 'sheet { counter X in 0..5 }\naction a(n: int) {\n  require n <= 2\n  note "ok"\n}\n'
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text(text, "k.rules")
    error = caught.value
    assert error.message == "unexpected 'note'" and 'else "why"' in error.hint
    assert (error.span.line, error.span.column) == (4, 3)
    dsl.load_text(text.replace("<= 2\n", '<= 2 else "too many"\n'), "k.rules")


@pytest.mark.parametrize(
    ("statement", "hint"),
    [
        ("gain 1 X", "`gain` is written `gain 1 to X`"),  # (the author's own words)
        ("lose 1 X", "`lose` is written `lose 1 from X`"),
        ("spend 1 X", "`spend` is written `spend 1 from X`"),
        ("let y = 1\n  set y 2", "`set` is written `set y to 2`"),
        ("gain 1 + 2d6", "`gain` is written `gain 1 to Stress`"),  # (not a name: the example)
        (f"gain {'1 + ' * 30}1 X", "`gain` is written `gain 1 to Stress`"),  # (too long)
    ],
)
def test_a_statement_without_its_to_or_from_says_how_it_is_written(statement, hint):
    for layout in ("action a() {{\n  {}\n}}\n", "action a() {{ {} }}\n"):
        text = "sheet { counter X in 0..5 }\n" + layout.format(statement)
        with pytest.raises(RulebookSyntaxError) as caught:
            dsl.load_text(text, "k.rules")
        assert caught.value.hint == hint


@pytest.mark.parametrize(
    ("head", "example"),
    [
        ('action a "Attack" {', 'action a() "Attack" {'),
        ("action a {", "action a() {"),
        ('check c "C" {', 'check c() "C" {'),
        ("opposed o {", "opposed o() {"),
        ('action attack_action "A" {', 'action attack_action() "A" {'),
    ],
)
def test_a_definition_without_its_parentheses_says_where_they_go(head, example):
    body = "roll d20 >= 10 }" if head.startswith(("check", "opposed")) else 'note "x" }'
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text(f"{head} {body}\n", "k.rules")
    assert caught.value.hint.endswith(f"before any title: {example}")
    assert "a value" not in str(caught.value)  # (a `(` alone starts parameters, not a value)


def test_a_parameters_type_written_as_a_range_lists_the_types():
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text('check c(v: int, e: 1..3 = 0) "C" { roll d20 >= v }', "k.rules")
    assert caught.value.message == "unexpected '1..3'"
    assert "a parameter's type: int, number" in caught.value.hint


@pytest.mark.parametrize(
    ("condition", "hint"),
    [
        (
            "x >= 10 and <= 12",
            "write the value compared again: x >= 10 and x <= 12, or x in 10..12",
        ),
        ("x.total <= 12 and >= 10", "x.total <= 12 and x.total >= 10, or x.total in 10..12"),
        ("x < 3 or > 10", "write the value compared again: x < 3 or x > 10"),
        ("(x >= 10) and <= 12", "write the value compared again: x >= 10 and x <= 12"),
    ],
)
def test_a_comparison_without_its_first_value_says_to_write_it_again(condition, hint):
    text = (
        f'action a() {{\n  let x = 2d6\n  if {condition} {{ note "in" }}\n  result {{ x: x }}\n}}\n'
    )
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text(text, "k.rules")
    assert "compares two values: the one before it is missing" in caught.value.message
    assert hint in caught.value.hint


#: an action whose body is a `let x = d6` and one statement, and a check taking `b`
ACTION = "action a() {{\n  let x = d6\n  {}\n  result {{ x: x }}\n}}\n"
CHECK = 'check c(b: {} = 1) "C" {{\n  roll d20 >= 10\n}}\n'
TABLE = "table T by roll {{ {} }}\naction a() {{\n  let r = d6\n  result {{ t: T[r] }}\n}}\n"


@pytest.mark.parametrize(
    ("text", "hint"),
    [  # a text added to a value; a type in another language's words; a printed table
        (ACTION.format('note "x is " + x'), 'a text shows values in braces: "x is {x}"'),
        (ACTION.format('note x + " points"'), 'a text shows values in braces: "{x} points"'),
        (CHECK.format("flag"), "here, write bool"),
        (CHECK.format("String"), "here, write text"),
        (CHECK.format("float"), "here, write number"),
        (CHECK.format("yes/no"), "as in boon: bool = no"),
        (ACTION.format("let y = x (2)"), "to multiply, write x * (...)"),  # (not `did you mean x`)
        # a printed table's keys and labels
        (TABLE.format('1-3: "low"  4..6: "high"'), 'a range of keys: 1..3: "..."'),
        (TABLE.format('1..3: "low"  4\u20136: "high"'), 'a range of keys: 4..6: "..."'),
        (TABLE.format('1..3: low  4..6: "high"'), 'a text is written in double quotes: "low"'),
        # a list built as Python builds it
        (
            ACTION.format("let y = sum([v for v in [1, 2] if v > 1])"),
            "go through it in an action: for each x in xs { ... }",
        ),
        # a list's first item at 0, as Python and C count
        (ACTION.format("let y = [4, 6, 8][0]"), "write [4, 6, 8][1] for its first item"),
        # a skill parameter that may be none, written as a number
        (
            'sheet { skills in 0..20 default 0 }\ncheck c(s: skill = 0) "C" { roll d20 >= s }',
            "write `= none` for none: a skill that is none counts 0",
        ),
    ],
)
def test_a_first_rulebooks_spelling_says_ours(text, hint):
    with pytest.raises(RulebookError) as caught:
        dsl.load_text(text, "k.rules")
    assert hint in str(caught.value.render())


def test_a_result_without_its_braces_says_it_is_a_record():
    with pytest.raises(RulebookSyntaxError) as caught:
        dsl.load_text("action a() {\n  let hits = d6\n  result hits\n}\n", "k.rules")
    assert caught.value.hint == "a result is a record of named values: result { hits: hits }"
