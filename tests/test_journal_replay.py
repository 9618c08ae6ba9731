"""Replay: a recorded session of 50 Brujería runs against the house rule `brujeria_miedo_duro`,
and recorded dice that no longer fit a changed rule."""

from __future__ import annotations

import pytest
from journal_helpers import brujeria, character, journaled_run, play_session

import dsl
from interpreter.journal import Journal, replay
from interpreter.journal.replay import DICE, DIFFERENT, FAILED, SAME

# The house rule's numbers, from rulebooks/brujeria_miedo_duro.rules (its fear table and
# its fear sources), against the base's (rulebooks/brujeria.rules, "Tabla de Miedo").
HOUSE_ESSENCE = {1: 2, 2: 4, 3: 8, 4: 12, 5: 16, 6: 20, 7: 20}
HOUSE_RESISTANCE = {5: 40}
SOURCE_SHIFT = {
    "Ninguna": 0,
    "Sucesos sanguinolentos": -1,  # -4 → -5
    "Criatura horrible": -2,  # -5 → -7
    "Aura de miedo": -2,  # -8 → -10
}

# every test once on SQLite and once on PostgreSQL (conftest.journal_backend)
pytestmark = pytest.mark.usefixtures("journal_backend")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    folder = tmp_path_factory.mktemp("session")
    path = character(folder)
    journal = Journal.beside(path)
    play_session(journal, path, 50, seed=100)
    yield journal, path
    journal.close()


def test_replaying_50_runs_against_the_house_rule(session):
    journal, _ = session
    report = replay(journal, dsl.load("brujeria_miedo_duro"))
    entries = {e.id: e for e in journal.entries()}
    assert len(report) == 50
    base = brujeria()
    fear = [run for run in report if run.action == "asustarse"]
    assert len(fear) == 20
    for run in report:
        entry = entries[run.entry]
        if run.action != "asustarse":  # everything else is the base rulebook, unchanged
            assert run.status == SAME, run
            assert run.result == entry.result and run.differences == ()
            continue
        fuente = entry.params["fuente"]
        total = entry.result["total"] + SOURCE_SHIFT[fuente]
        assert run.result["total"] == total  # the same dice, a worse modifier
        levels = 0 if total >= 9 else 9 - total
        assert run.result["niveles_de_fallo"] == levels
        before = base.sheet(recorded_data(journal, entry))
        changes = {c["path"]: c["after"] for c in run.changes}
        if levels:
            lost = HOUSE_ESSENCE[min(levels, 7)]
            assert changes["Esencia"] == max(-100, before["Esencia"] - lost)
            if levels in HOUSE_RESISTANCE:
                assert changes["Resistencia"] == max(
                    -100, before["Resistencia"] - HOUSE_RESISTANCE[levels]
                )
        else:
            assert "Esencia" not in changes
        expected = DIFFERENT if (SOURCE_SHIFT[fuente] or levels) else SAME
        assert run.status == expected, run
        assert run.dice is None  # the house rule rolls exactly the recorded dice
    different = [r for r in fear if r.status == DIFFERENT]
    assert different and all(
        "Esencia" in r.differences or "result.total" in r.differences for r in different
    )


def recorded_data(journal, entry):
    """The sheet the run started from, as plain data (read again from the journal's text)."""
    import yaml

    return yaml.safe_load(journal.text(entry.sheet().before))


def test_replaying_against_the_same_rulebook_changes_nothing(session):
    journal, _ = session
    report = replay(journal, dsl.load("brujeria"))
    assert {run.status for run in report} == {SAME}


def test_a_range_of_runs_and_a_chained_session(session):
    journal, _ = session
    house = dsl.load("brujeria_miedo_duro")
    some = replay(journal, house, start=11, end=20)
    assert [run.entry for run in some] == list(range(11, 21))
    chained = replay(journal, house, chain=True)
    # carried from run to run, the harder fear leaves less Essence by the end
    last_recorded = [c for r in chained for c in r.recorded_changes if c["path"] == "Esencia"]
    last_replayed = [c for r in chained for c in r.changes if c["path"] == "Esencia"]
    assert last_replayed[-1]["after"] < last_recorded[-1]["after"]


@pytest.mark.parametrize(
    "roll, status, note",
    [
        ("d10 + d10", DICE, "needs more dice than the 1 recorded: die 2 (d10)"),
        ("5", DICE, "uses 0 of the 1 recorded dice"),
        ("d6", DICE, "recorded die 1 shows 7, which is not a face of d6"),
    ],
)
def test_recorded_dice_that_do_not_fit_a_changed_rule(tmp_path, roll, status, note):
    path = character(tmp_path)
    with Journal.beside(path) as journal:
        from interpreter import ForcedDice

        journaled_run(journal, brujeria(), path, "asustarse", {}, ForcedDice([7]))
        rules = tmp_path / "dados.rules"
        rules.write_text(
            f'rulebook "Otros dados" extends brujeria {{ }}\nreplace roll abierta = {roll}\n',
            encoding="utf-8",
        )
        (run,) = replay(journal, dsl.load(rules))
    assert run.status in (status, DIFFERENT)
    assert note in run.dice
    if "needs more" in note:
        assert run.result is None and "1d10" in run.dice  # what the recorded run rolled


def test_a_run_the_new_rules_refuse_is_reported(tmp_path):
    path = character(tmp_path)
    with Journal.beside(path) as journal:
        from interpreter import ForcedDice

        journaled_run(journal, brujeria(), path, "recibir_daño", {"daño": "3"}, ForcedDice([]))
        rules = tmp_path / "sin_daño.rules"
        rules.write_text(
            'rulebook "Sin daño" extends brujeria { }\n'
            "replace action recibir_daño(daño: int = 10, blindaje: int = 0,\n"
            "    tipo: 'Tipo de daño' = \"Contundente\") {\n"
            '  require daño > 5 else "Ese daño no cuenta"\n'
            "}\n",
            encoding="utf-8",
        )
        (run,) = replay(journal, dsl.load(rules))
    assert run.status == FAILED and "Ese daño no cuenta" in run.error
