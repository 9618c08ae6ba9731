"""Every word in the game's language: the catalogue is complete, messages render in the
language chosen (`--lang`, else the rulebook's), and no text for people is left out of it."""

from __future__ import annotations

import ast
import builtins
import pickle
import re
from collections import Counter
from pathlib import Path

import pytest

import dsl
from dsl.catalogue import ROOT, Found, all_messages, catalogues, placeholders, problems
from dsl.messages import Message, language_for, show_value, tr, tr_n, translate
from interpreter import Engine, ForcedDice
from interpreter.cli import main
from interpreter.cli.options import characters_folder
from interpreter.errors import InsufficientResource


def test_every_message_in_the_code_has_its_spanish_translation():
    found, bad = all_messages()
    assert bad == []
    assert len(found) > 50
    assert [path.name for path in catalogues()] == ["es.po"]
    for path in catalogues():
        assert problems(path, found) == []


def test_the_catalogue_check_itself_finds_what_is_missing(tmp_path):
    # A test of the test: a message the catalogue lacks, and one translated with other
    # parameters, are both reported.
    po = tmp_path / "es.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: es\\n"\n\nmsgid "{a} and {b}"\nmsgstr "{a} y {c}"\n',
        encoding="utf-8",
    )
    found = [Found("{a} and {b}", None, "x.py", 1), Found("new", None, "x.py", 2)]
    report = problems(po, found)
    assert len(report) == 2 and "other parameters" in report[0] and "missing" in report[1]
    assert placeholders("{a:>5} {{not}} {b}") == {"a", "b"}


def test_the_catalogue_check_finds_a_message_written_twice(tmp_path):
    # The .po reader keeps one of two entries silently; the check says so instead.
    po = tmp_path / "es.po"
    entry = 'msgid "yes"\nmsgstr "sí"\n\n'
    po.write_text('msgid ""\nmsgstr ""\n"Language: es\\n"\n\n' + entry * 2, encoding="utf-8")
    report = problems(po, [Found("yes", None, "x.py", 1)])
    assert report == ["es.po: written twice: 'msgid \"yes\"'"]


def test_a_message_is_english_text_and_renders_in_spanish():
    message = tr(
        "You cannot spend {amount} {place}: you have {have}", amount=3, place="Vida", have=2
    )
    assert message == "You cannot spend 3 Vida: you have 2" and isinstance(message, str)
    assert message.render("es") == "No puedes gastar 3 de Vida: te quedan 2"
    assert message.render("en") == message.render(None) == message.render("xx") == message
    nested = tr("{title} needs a character: {reason}", title="T", reason=tr("yes"))
    assert nested.render("es") == "T necesita un personaje: sí"
    assert pickle.loads(pickle.dumps(nested)).render("es") == nested.render("es")
    assert tr_n("{n} error in the rulebook", "{n} errors in the rulebook", 2).render("es") == (
        "2 errores en el reglamento"
    )
    assert tr_n("{n} error in the rulebook", "{n} errors in the rulebook", 1) == (
        "1 error in the rulebook"
    )
    joined = Message.joined([tr("yes"), 3, None], "/")
    assert joined == "yes/3/none" and joined.render("es") == "sí/3/ninguno"
    assert translate("plain words", "es") == "plain words"
    with pytest.raises(TypeError):
        message.format(amount=1)


def test_a_message_written_as_its_parameters_are_is_what_each_shown_would_write():
    # (`_english` and `_format` write texts and whole numbers as they are, no dict made:
    # the same text as every parameter shown in the language first)
    from fractions import Fraction

    from dsl import messages
    from interpreter.values import Record

    def shown(template, params, language):
        return template.format_map({k: show_value(v, language) for k, v in params.items()})

    values = [
        "Vida", 3, -2, 2.5, 1e16, tr("yes"), True, None, Fraction(7, 2), (1, 2),
        Record({"label": "Bueno", "a": 1}), Message.joined(["a", 1]),
    ]  # fmt: skip
    for a in values:
        for b in values:
            params = {"a": a, "b": b}
            english = messages._english("{a} vs {b}", params)
            assert english == shown("{a} vs {b}", params, "en")
            assert tr("{a} vs {b}", a=a, b=b) == english == Message("{a} vs {b}", params)
            spanish = messages._format("{a} contra {b}", params, "es")
            assert spanish == shown("{a} contra {b}", params, "es")
    message = tr("{n:>4}|{t:.2}", n=7, t="abc")  # (a template's own format, as before)
    assert message == "   7|ab" and message.render("es") == "   7|ab"


def test_a_message_is_rendered_once_per_language_however_often_it_is_shown(monkeypatch):
    # (a trace shows one message in several steps: a check's tail in its text and detail)
    made: list = []
    rendered = Message._rendered
    counted = lambda m, lang: made.append(lang) or rendered(m, lang)  # noqa: E731
    monkeypatch.setattr(Message, "_rendered", counted)
    tail = tr(" vs {target}", target=9)
    line = Message.joined([tr("{name} {value}", name="nivel", value=3), tail])
    detail = Message.joined(["= 7", tail])
    assert [line.render("es"), detail.render("es"), line.render("es")] == [
        "nivel 3 contra 9",
        "= 7 contra 9",
        "nivel 3 contra 9",
    ]
    assert made == ["es", "es", "es", "es"]  # line, its two parts, detail: each once
    assert line.render("en") == line and line.render("xx") == line
    assert line.render("es") == "nivel 3 contra 9"  # (the last language asked kept)


def test_a_record_is_written_once_per_language_however_often_it_is_shown(monkeypatch):
    # (a table's row: in its lookup's step and the check's that read it, run after run)
    from dsl import messages
    from interpreter.values import Record

    written: list = []
    mapping_shown = messages._mapping_shown
    counted = lambda value, lang: written.append(lang) or mapping_shown(value, lang)  # noqa: E731
    monkeypatch.setattr(messages, "_mapping_shown", counted)
    row = Record({"label": "Bueno", "niveles": 2, "ok": True, "inner": Record({"a": None})})
    texts = [show_value(row, lang) for lang in ("es", None, "es", None, "en", "es")]
    spanish, english = (
        "Bueno {niveles: 2, ok: sí, inner: {a: ninguno}}",
        "Bueno {niveles: 2, ok: yes, inner: {a: none}}",
    )
    assert texts == [spanish, english, spanish, english, english, spanish]
    # the row and its inner one; English once, asked as None or "en" (fails with
    # SHOWN.english_once off: then "en" written again)
    assert written == ["es", "es", None, None]
    monkeypatch.setattr(messages.SHOWN, "english_once", False)
    again = Record({"label": "Bueno", "niveles": 2, "ok": True, "inner": Record({"a": None})})
    written.clear()
    assert [show_value(again, lang) for lang in (None, "en")] == [english, english]
    assert written == [None, None, "en", "en"]
    assert show_value({"label": "Malo"}) == "Malo"  # (a plain dict: written each time)
    monkeypatch.setattr(messages.SHOWN, "kept", False)
    written.clear()
    assert show_value(row, "es") == spanish and written == ["es", "es"]
    assert show_value(row, "es") == spanish and written == ["es", "es", "es", "es"]


def test_a_row_of_texts_and_numbers_is_written_once_for_every_language(monkeypatch):
    # (a row computed by the run, a new one each time: shown in English to measure the
    # step's text, then in the answer's language; its words and numbers read alike)
    from dsl import messages
    from interpreter.values import Record

    written: list = []
    mapping_shown = messages._mapping_shown
    counted = lambda value, lang: written.append(lang) or mapping_shown(value, lang)  # noqa: E731
    monkeypatch.setattr(messages, "_mapping_shown", counted)
    row = Record({"label": "Alucinante", "niveles": 7, "tiempo": -50, "descripción": "más"})
    text = "Alucinante {niveles: 7, tiempo: -50, descripción: más}"
    assert [show_value(row, lang) for lang in (None, "es", "en", "es")] == [text] * 4
    assert written == [None]  # (fails with SHOWN.everywhere off: then "es" written again)
    effect = Record({"modifier": -1, "targets": ("Fuerza",), "left": 2, "unit": "turnos"})
    assert show_value(effect, "es") != show_value(effect, "en")  # (an effect: in words)
    yes = Record({"label": "Bueno", "ok": True})
    assert [show_value(yes, "es"), show_value(yes)] == ["Bueno {ok: sí}", "Bueno {ok: yes}"]
    monkeypatch.setattr(messages.SHOWN, "everywhere", False)
    written.clear()
    again = Record({"label": "Alucinante", "niveles": 7, "tiempo": -50, "descripción": "más"})
    assert [show_value(again, lang) for lang in (None, "es")] == [text] * 2
    assert written == [None, "es"]


def test_values_inside_messages_speak_the_language():
    from fractions import Fraction

    assert show_value(True, "es") == "sí" and show_value(None, "es") == "ninguno"
    assert show_value(Fraction(7, 2)) == "7/2" and show_value((1, True), "es") == "[1, sí]"
    assert show_value({"label": "Bueno", "a": False}, "es") == "Bueno {a: no}"


def test_the_language_is_the_option_then_the_rulebook_then_english():
    assert language_for("en", "es") == "en"
    assert language_for(None, "es") == "es"
    assert language_for("es_ES.UTF-8") == "es"
    assert language_for("fr", None) == "en" and language_for(None, None) == "en"


def _menecma_with_2_virtus(tmp_path) -> Path:
    sheet = tmp_path / "menecma.yaml"
    text = (characters_folder() / "menecma.yaml").read_text(encoding="utf-8")
    sheet.write_text(text + "dinamis:\n  Virtus: 2\n", encoding="utf-8")
    return sheet


def test_a_refusal_says_what_happened_first_in_the_games_language(tmp_path, capsys):
    sheet = _menecma_with_2_virtus(tmp_path)
    argv = ["run", "arcana_mundi", "usar_numina", "--char", str(sheet)]
    argv += ["--set", "numina=Grito Báquico", "--dice", "3,4"]
    assert main(argv) == 4
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "No puedes gastar 3 de dinamis de Virtus: te quedan 2"
    assert re.fullmatch(r"\(en arcana_mundi\.rules, línea \d+, columna \d+\)", lines[1].strip())
    assert main([*argv, "--verbose"]) == 4
    verbose = capsys.readouterr().err
    assert re.search(r"arcana_mundi\.rules:\d+:\d+: error: No puedes gastar", verbose)
    assert "^^^" in verbose
    assert main([*argv, "--lang", "en"]) == 4
    assert capsys.readouterr().err.startswith("You cannot spend 3 dinamis[Virtus]: you have 2\n")
    # the API: the error knows its rulebook's language
    engine = Engine.of(dsl.load("arcana_mundi"))
    with pytest.raises(InsufficientResource) as raised:
        engine.run(
            "usar_numina", engine.load_sheet(sheet), {"numina": "Grito Báquico"}, ForcedDice([3, 4])
        )
    assert raised.value.language == "es"
    assert raised.value.refusal().startswith("No puedes gastar 3 de dinamis de Virtus")


@pytest.mark.parametrize(
    "header",
    ['rulebook "x" { language "es" }\n', 'rulebook "x" {\n  language "es"\n}\n'],
    ids=["on one line", "on its own lines"],
)
def test_the_errors_of_a_rulebook_that_does_not_load_speak_its_language(tmp_path, capsys, header):
    path = tmp_path / "x.rules"
    path.write_text(header + "action a() { result { v: foo + 1, w: bar(2) } }\n", "utf-8")
    assert main(["check", str(path)]) != 0
    err = capsys.readouterr().err
    assert "nombre desconocido: `foo`" in err and "función desconocida: `bar`" in err


def test_a_spanish_rulebook_answers_in_spanish_and_lang_overrides(capsys):
    argv = ["run", "brujeria", "asustarse", "--char", "brujeria_investigadora", "--dice", "4"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "resultado: " in out and "cambios:" in out and "dados: 4  (dados forzados)" in out
    assert "→ fallo" in out and "pierde 2 de Esencia: 19 → 17" in out
    assert main([*argv, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "result: " in out and "changes:" in out and "dice: 4  (forced dice)" in out
    assert "lose 2 Esencia: 19 → 17" in out
    with pytest.raises(SystemExit):
        main([*argv, "--lang", "klingon"])
    assert "the languages are en, es" in capsys.readouterr().err


# ─── no text for people outside the catalogue ───────────────────────────────

#: where a text for people is made: errors raised, trace steps, what the command prints
_ERRORS = (
    "Error",
    "Exceeded",
    "Failed",
    "Resource",
    "Invalid",
    "Busy",
    "Changed",
    "Sheet",
    "Refused",
    "Mismatch",
    "Journal",
    "Complex",  # the odds engine's TooComplex: why an answer is sampled, said to the user
)


_BUILT_IN = {name for name in dir(builtins) if name[:1].isupper()}


def _is_raw_text(node) -> bool:
    """An English text written in place: a literal with a letter, an f-string, or text
    glued together with + (a name or a call is someone else's text, or a Message)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and any(c.isalpha() for c in node.value)
    if isinstance(node, ast.JoinedStr):
        return any(
            isinstance(v, ast.Constant) and any(c.isalpha() for c in v.value) for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_raw_text(node.left) or _is_raw_text(node.right)
    return False


#: the calls given what a value is (`the number of dice`), by the position of that text
WHAT_IT_IS = {"want": 3, "as_number": 2, "as_whole": 3}


def _raw_texts(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        texts = []
        if name in _BUILT_IN:  # a program's mistake, not a text for people
            continue
        if name.endswith(_ERRORS) and name[:1].isupper():
            texts = node.args[:1] + node.args[2:3]
            texts += [k.value for k in node.keywords if k.arg in ("message", "hint")]
        elif name in ("error", "warning", "_error") and isinstance(func, ast.Attribute):
            # the checker's diagnostics, the builder's syntax errors
            texts = node.args[:1] + node.args[2:3]
        elif name in WHAT_IT_IS:  # a value's description, said when it is refused
            texts = node.args[WHAT_IT_IS[name] : WHAT_IT_IS[name] + 1]
        elif name in ("step", "at") or name == "Step":
            texts = node.args[1:2]
        elif name == "print" or (name == "write" and "cli" in path.parts):
            texts = node.args[:1]
        found += [f"{path.relative_to(ROOT)}:{t.lineno}" for t in texts if _is_raw_text(t)]
    return found


#: texts not in the catalogue yet, by file: this may only shrink (issue 13's sweep)
NOT_YET: dict[str, int] = {}


#: modules that are developers' tools (`python -m ...`), whose few words are English
DEVELOPER_TOOLS = {"catalogue.py", "parser_tables.py"}


def test_no_new_text_for_people_outside_the_catalogue():
    found = Counter()
    for package in ("dsl", "interpreter"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name in DEVELOPER_TOOLS:  # tools for developers, in English
                continue
            for where in _raw_texts(path):
                found[where.rsplit(":", 1)[0]] += 1
    grown = {f: n for f, n in found.items() if n > NOT_YET.get(f, 0)}
    assert grown == {}, "write texts for people with dsl.messages.tr (docs/messages.md)"


def test_the_raw_text_finder_finds_raw_texts(tmp_path):
    # A test of the test.
    sample = ROOT / "dsl" / "_sample_for_test.py"
    try:
        sample.write_text(
            "def f(ctx, x):\n"
            "    raise SheetError(f'{x} is bad', None, 'use ' + x)\n"
            "    raise SheetError(tr('{x} is bad', x=x))\n"
            "    ctx.step('note', f'set {x}', None)\n"
            "    raise self._error(f'the field `{x}` is given twice', x)\n"
            "    n = as_whole(ctx, x, None, 'the number of dice')\n"
            "    print('result:')\n"
            "    raise ParameterError(message)\n",
            encoding="utf-8",
        )
        assert [w.rsplit(":", 1)[1] for w in _raw_texts(sample)] == ["2", "2", "4", "5", "6", "7"]
    finally:
        sample.unlink()


def test_the_help_of_a_command_speaks_the_language_asked_for(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help", "--lang", "es"])
    spanish = capsys.readouterr().out
    assert "una acción, un chequeo o una tirada con nombre" in spanish
    assert "dados aleatorios reproducibles" in spanish
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "an action, a check or a named roll" in capsys.readouterr().out


def _words_in_place(path: Path) -> list[str]:
    """Every text with words in a module of the command line that is not in the
    catalogue: literals and f-strings outside tr()/tr_n(), docstrings and metavars."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            skip.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            marked = node.args[: 2 if name == "tr_n" else 1] if name in ("tr", "tr_n") else []
            marked += [k.value for k in node.keywords if k.arg in ("metavar", "dest")]
            skip |= {id(n) for text in marked for n in ast.walk(text)}
    found = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.JoinedStr):  # a word glued to values is a text
            text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            skip |= {id(n) for n in ast.walk(node)}
            words = r"[A-Za-z]{2,}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value  # one word alone may be a key; two are a text
            words = r"[A-Za-z]{2,}[,;:.!?]?\s+[A-Za-z]"
        else:
            continue
        lines = [line for line in text.splitlines() if not _COMMAND.match(line)]
        if any(re.search(words, line) for line in lines):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:40]!r}")
    return found


#: a line that is a command to type (the examples), or an address
_COMMAND = re.compile(r"\s*(rulebook |https?://)")


def test_the_command_line_says_nothing_in_english_outside_the_catalogue():
    found = []
    for path in sorted((ROOT / "interpreter" / "cli").glob("*.py")):
        found += _words_in_place(path)
    assert found == [], "write texts for people with dsl.messages.tr (docs/messages.md)"


def test_the_words_in_place_finder_finds_them(tmp_path):
    # A test of the test: an f-string, a literal and a text joined later are found; a
    # message, a docstring, a metavar and an example command are not.
    sample = ROOT / "interpreter" / "cli" / "_sample_for_test.py"
    try:
        sample.write_text(
            '"""A docstring."""\n'
            "def f(p, x):\n"
            "    head = f'{x}  fails: {x}'\n"
            "    MARKS = {'problem': 'no changes'}\n"
            "    p.add_argument('--x', metavar='NAME=VALUE | RULEBOOK', help=tr('the x'))\n"
            "    return tr('one {x}', x=x), '  rulebook roll 2d6', 'x'\n",
            encoding="utf-8",
        )
        assert [w.split(":")[1] for w in _words_in_place(sample)] == ["3", "4"]
    finally:
        sample.unlink()


def test_the_journals_own_findings_are_in_the_rulebooks_language():
    from interpreter.journal.recovery import Repair

    repair = Repair(3, "bruja.yaml", "completed").describe()
    assert (
        repair
        == "bruja.yaml: run 3, the save was interrupted: the sheet written as the journal has it"
    )
    assert repair.render("es") == (
        "bruja.yaml: tirada 3, el guardado se interrumpió: la hoja escrita como la tiene el diario"
    )
    assert (
        Repair(0, "x.yaml", "removed temporary")
        .describe()
        .render("es")
        .startswith("x.yaml: se borró")
    )


def test_a_mapping_with_an_effects_keys_but_not_its_shape_is_shown_as_a_record():
    # a journal record (or a sheet from an app) may hold any values under those keys: found
    # by tests/test_fuzz_records.py (`targets: -1` raised TypeError)
    odd = {"modifier": 1, "targets": -1, "left": 2, "unit": "x"}
    assert show_value(odd) == "{modifier: 1, targets: -1, left: 2, unit: x}"
    assert show_value({**odd, "targets": ["a"], "left": "z"}).startswith("{modifier: 1")
    effect = {"name": "T", "modifier": -2, "targets": ("acciones",), "left": 2, "unit": "turnos"}
    assert show_value(effect, "es") == "T: -2 a acciones, tiempo restante: 2 turnos"
