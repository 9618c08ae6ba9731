"""What the journal tests share: a character in a fresh folder, and a journaled run."""

from __future__ import annotations

from pathlib import Path

import dsl
from interpreter import Engine, SeededDice
from interpreter.journal import Journal, holding, save_run
from interpreter.sheets.character import shipped_characters_folder


def character(folder: Path, name: str = "brujeria_investigadora", as_name: str = "lucia"):
    target = folder / f"{as_name}.yaml"
    source = shipped_characters_folder() / f"{name}.yaml"
    target.write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def journaled_run(journal: Journal, engine: Engine, path: Path, action: str, params, dice):
    """Read, run and save as one step under the locks, as `rulebook run --save` does."""
    with holding(journal, [path]):
        sheet = engine.load_sheet(path)
        outcome = engine.run(action, sheet, params, dice)
        number = save_run(journal, outcome, sheet, engine.rulebook, dice)
    return number, outcome


#: a session at the table: (action, parameters), taken in turn
BRUJERIA_SESSION = [
    ("asustarse", {"fuente": "Criatura horrible"}),
    ("chequeo_sencillo", {"atributo": "Percepción", "habilidad": "Notar"}),
    ("asustarse", {}),
    ("recibir_daño", {"daño": "6"}),
    ("asustarse", {"fuente": "Sucesos sanguinolentos"}),
    ("chequeo_complicado", {"atributo": "Inteligencia"}),
    ("recuperar_esencia", {"horas": "3"}),
    ("asustarse", {"fuente": "Aura de miedo", "modificador": "2"}),
    ("descansar", {"horas_de_descanso": "2"}),
    ("intentar", {}),
]


_ENGINES: dict = {}


def brujeria(name: str = "brujeria") -> Engine:
    """The engine of a shipped rulebook, loaded once for all the tests."""
    if name not in _ENGINES:
        _ENGINES[name] = Engine.of(dsl.load(name))
    return _ENGINES[name]


def play_session(journal: Journal, path: Path, runs: int, seed: int = 0) -> list[int]:
    engine = brujeria()
    numbers = []
    for i in range(runs):
        action, params = BRUJERIA_SESSION[i % len(BRUJERIA_SESSION)]
        number, _ = journaled_run(journal, engine, path, action, params, SeededDice(seed + i))
        numbers.append(number)
    return numbers
