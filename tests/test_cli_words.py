"""The command line's own words in the language asked for: argparse's usage, sections and
errors, every option's help, `rulebook --lang es --help` at the top."""

from __future__ import annotations

import argparse
import ast
import json
import re
from pathlib import Path

import pytest

from dsl.messages import catalogue_for
from interpreter.cli import main
from interpreter.cli.main import build_parser
from interpreter.cli.words import ARGPARSE_WORDS

#: argparse's texts that only a programmer of the command line sees (a parser built wrong)
PROGRAMMING_ERRORS = {
    "conflicting option string: %s",
    ".__call__() not defined",
    "'required' is an invalid argument for positionals",
    "mutually exclusive arguments must be optional",
    "%r is not callable",
    "cannot merge actions - two groups are named %r",
    "invalid option string %(option)r: must start with a character %(prefix_chars)r",
    "dest= is required for options like %r",
    "invalid conflict_resolution value: %r",
    "cannot have multiple subparser arguments",
    "conflicting subparser: %s",
    "conflicting subparser alias: %s",
    'argument "-" with mode %r',
}


def _argparse_texts() -> set[str]:
    """Every text the running Python's argparse passes through gettext."""
    tree = ast.parse(Path(argparse.__file__).read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        marker = isinstance(node, ast.Call) and getattr(node.func, "id", None)
        if marker in ("_", "ngettext") and node.args and isinstance(node.args[0], ast.Constant):
            found.add(node.args[0].value)
    return found


def test_every_word_argparse_says_to_a_person_is_in_the_catalogue():
    declared = {str(message) if message.plural is None else message.template
                for message in ARGPARSE_WORDS}  # fmt: skip
    missing = _argparse_texts() - declared - PROGRAMMING_ERRORS
    assert missing == set(), "declare them in interpreter/cli/words.py and translate them"
    spanish = catalogue_for("es")
    for message in ARGPARSE_WORDS:
        said = spanish.gettext(message.template)
        assert said != message.template or message.template.startswith("%(prog)s")
        # the translation keeps argparse's own %-placeholders
        marks = re.compile(r"%(?:\(\w+\))?[sr]")
        assert sorted(marks.findall(said)) == sorted(marks.findall(message.template))


def _help_texts(parser: argparse.ArgumentParser, into: list, where: str = "rulebook") -> list:
    """Every help text of a parser and of its subcommands, depth first, in one order."""
    into.append((where, parser.description))
    for action in parser._actions:
        into.append((f"{where} {'/'.join(action.option_strings) or action.dest}", action.help))
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                _help_texts(sub, into, f"{where} {name}")
            into += [(f"{where} {c.dest}", c.help) for c in action._choices_actions]
    return into


def test_every_help_text_of_every_command_is_in_spanish():
    english = _help_texts(build_parser(), [])
    spanish = _help_texts(build_parser(language="es"), [])
    assert [w for w, _ in english] == [w for w, _ in spanish] and len(english) > 120
    same = [w for (w, en), (_, es) in zip(english, spanish, strict=True) if en and en == es]
    assert same == []


def test_rulebook_lang_es_help_at_the_top_is_all_spanish(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--lang", "es", "--help"])
    assert stopped.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("uso: rulebook [-h] [--lang LANG] COMMAND ...")
    for spanish in ("argumentos posicionales:", "opciones:", "muestra esta ayuda y termina"):
        assert spanish in out
    assert "ejemplos:\n  rulebook roll" in out and "tira una expresión de dados" in out
    for english in ("usage:", "options:", "positional arguments", "show this help", "examples"):
        assert english not in out
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: rulebook") and "show this help message and exit" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["rol"], "argumento COMMAND: opción no válida: 'rol' (elige entre 'roll', 'run'"),
        (["sweep", "brujeria"], "rulebook sweep: error: faltan estos argumentos: ACTION"),
        (["roll", "2d6", "--bogus"], "error: argumentos desconocidos: --bogus"),
        (["roll", "2d6", "--seed", "1", "--dice", "3"], "no se permite junto con el argumento"),
        (["roll", "2d6", "--seed", "x"], "argumento --seed: 'x' no es un número entero"),
        (["roll", "2d6", "--seed"], "argumento --seed: se esperaba un argumento"),
        (["odds", "3d6", "--trials", "0"], "argumento --trials: 0: da un número mayor que 0"),
        (["show", "uno"], "argumento N: 'uno' no es un número entero"),
        (["journal"], "rulebook journal: error: faltan estos argumentos: COMMAND"),
    ],
)
def test_usage_errors_are_in_the_language_asked_for(capsys, argv, said):
    for lang in (["--lang", "es"], ["--lang=es"]):
        with pytest.raises(SystemExit) as stopped:
            main([*lang, *argv])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("uso: rulebook") and said in err, err
        assert "usage:" not in err and "error: the following" not in err


def test_a_usage_error_in_json_speaks_the_language_too(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["roll", "2d6", "--seed", "x", "--json", "--lang", "es"])
    assert stopped.value.code == 2
    document = json.loads(capsys.readouterr().out)
    assert document["language"] == "es" and document["error"]["code"] == "usage_error"
    assert document["error"]["message"] == "argumento --seed: 'x' no es un número entero"
    with pytest.raises(SystemExit):
        main(["roll", "2d6", "--seed", "x", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert document["error"]["message"] == "argument --seed: 'x' is not a whole number"


def test_the_language_before_the_command_is_the_commands_and_its_own_wins(capsys):
    argv = ["run", "brujeria", "asustarse", "--char", "brujeria_investigadora", "--dice", "4"]
    assert main(["--lang", "en", *argv]) == 0
    assert "result: " in capsys.readouterr().out
    assert main(["--lang", "en", *argv, "--lang", "es"]) == 0
    assert "resultado: " in capsys.readouterr().out
    assert main(argv) == 0  # the rulebook's own
    assert "resultado: " in capsys.readouterr().out


def test_argparse_speaks_english_again_after_a_spanish_parser():
    with pytest.raises(SystemExit):
        build_parser(language="es").parse_args(["--lang", "es"])
    assert argparse._ is __import__("gettext").gettext
    plain = argparse.ArgumentParser(prog="x")
    assert "usage: x" in plain.format_usage() and "options:" in plain.format_help()


def test_a_sheet_given_without_char_says_how_to_give_it(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(
            [
                "run",
                str(Path(__file__).parents[1] / "examples" / "games" / "cthulhu.rules"),
                "push",
                "hero.yaml",
            ]
        )
    assert stopped.value.code == 2
    assert "a character sheet is given with --char: --char hero.yaml" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--lang", "es", "odds", "brujeria", "asustarse", "Lucia.YML"])
    assert "una hoja de personaje se da con --char: --char Lucia.YML" in capsys.readouterr().err


def test_a_parameter_given_without_set_says_how_to_give_it(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(
            [
                "run",
                str(Path(__file__).parents[1] / "examples" / "games" / "cthulhu.rules"),
                "push",
                "skill=Spot Hidden",
                "--seed",
                "1",
            ]
        )
    assert stopped.value.code == 2
    assert "given with --set: --set 'skill=Spot Hidden'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--lang", "es", "odds", "brujeria", "asustarse", "a=1", "b_2=x"])
    assert "se da con --set: --set a=1 --set b_2=x" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # a malformed option's value is not a parameter
        main(["run", "brujeria", "asustarse", "--seed", "x=3"])
    assert "--set:" not in capsys.readouterr().err


def test_rulebook_alone_shows_its_commands_not_an_error(capsys):
    assert main([]) == 2
    shown = capsys.readouterr().err
    assert "roll a dice expression" in shown and "examples:" in shown
    assert "required" not in shown
    assert main(["--lang", "es"]) == 2
    assert "tira una expresión de dados" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["rol", "d20"], "did you mean roll?"),
        (["oddz", "d20"], "did you mean odds?"),
        (["--lang", "es", "rol", "d20"], "¿querías decir roll?"),
    ],
)
def test_a_misspelled_command_names_the_command_it_is_close_to(capsys, argv, said):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2 and said in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["xyzzy"])  # (nothing close: no hint)
    assert "did you mean" not in capsys.readouterr().err


CTHULHU = str(Path(__file__).parents[1] / "examples" / "games" / "cthulhu.rules")


@pytest.mark.parametrize(
    ("argv", "said"),
    [  # (the command's own usage and name, the option meant when one is close)
        (["odds", "3d6", "--at-least", "15"], "rulebook odds: error: unrecognized arguments"),
        (["run", CTHULHU, "push", "--seeds", "4"], "did you mean '--seed'?"),
        (["run", CTHULHU, "push", "--verbsoe"], "did you mean '--verbose'?"),
        (["run", "brujeria", "asustarse", "--sed=4"], "¿querías decir '--seed' o '--set'?"),
    ],
)
def test_an_option_the_command_has_not_is_said_by_the_command(capsys, argv, said):
    """It was said by `rulebook`'s own parser: its usage (`[COMMAND ...]`), no hint."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and said in err
    assert f"rulebook {argv[0]} [-h]" in err and "COMMAND" not in err
    assert ("did you" in err) == ("did you" in said)
