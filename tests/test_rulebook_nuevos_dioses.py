"""New Gods of Mankind (rulebooks/nuevos_dioses.rules): the tables, floors and caps around
the worked examples of the book (those are a table: tests/examples/nuevos_dioses.yaml)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from cli_helpers import run_seeded

import dsl
import interpreter
from interpreter import Engine, ForcedDice, SeededDice, render_text

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rulebooks" / "nuevos_dioses.rules"
GOD = ROOT / "rulebooks" / "characters" / "dios_ardentia.yaml"


@pytest.fixture(scope="module")
def book():
    return dsl.load(str(RULES))


@pytest.fixture(scope="module")
def engine(book):
    return Engine(book)


@pytest.fixture(scope="module")
def god(engine):
    return engine.load_sheet(GOD)


def rolls(out):
    """The faces of each dice term rolled, in order."""
    return [step.data["faces"] for step in out.trace if step.kind == "roll"]


def test_the_rulebook_checks_clean(book):
    assert not book.warnings, [w.render() for w in book.warnings]


def test_the_shipped_god(god):
    assert god["Creencia"] == 120
    assert god["DominioPrimario"] == "fuego"
    assert set(god["Milagros"]) == {"Llama eterna del santuario", "Muralla de la ciudad"}


# ─── worked examples: tests/examples/nuevos_dioses.yaml; here what is not one run ─


def test_coal_miners_costed_apart_and_combined_agree(engine, god):
    # "Calculate the cost for each one separately, then add them together." (the worked
    # numbers, 10 + 6 = 16, are in tests/examples/nuevos_dioses.yaml)
    aspects = {
        "estilo": "transformación",
        "duración": "una estación",
        "dominios": ["minería"],
        "escala": "hogar",
    }
    alone = [engine.run("coste", god, {"coste_base": b, **aspects}).result["total"] for b in (5, 3)]
    assert alone == [10, 6]
    combined = engine.run("lanzar_combinado", god, {"costes_base": [5, 3], **aspects})
    print(render_text(combined.trace))
    assert combined.result["partes"] == 2
    assert list(combined.result["costes"]) == [10, 6]
    assert combined.result["total"] == 16
    assert combined.sheet["Creencia"] == 104


# ─── tables ─────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("poder", "dado"),
    [("trivial", 4), ("menor", 6), ("significativo", 8), ("mayor", 10), ("legendario", 12)],
)
def test_innovation_die_by_power(engine, god, poder, dado):
    out = engine.run("innovación", god, {"poder": poder})
    assert out.result["Cuerpo"] == dado


@pytest.mark.parametrize(
    ("poder", "pasos", "desde_d4", "desde_d12"),
    [
        ("trivial", 0, 4, 12),
        ("menor", 1, 6, 10),
        ("significativo", 2, 8, 8),
        ("mayor", 3, 10, 6),
        ("legendario", 4, 12, 4),
    ],
)
def test_alteration_steps(engine, god, poder, pasos, desde_d4, desde_d12):
    up = engine.run("alterar_dado", god, {"poder": poder, "dado": 4})
    assert up.result["pasos"] == pasos
    assert up.result["dado"] == desde_d4
    down = engine.run("alterar_dado", god, {"poder": poder, "dado": 12, "sentido": "baja"})
    assert down.result["pasos"] == -pasos
    assert down.result["dado"] == desde_d12


def test_alteration_steps_stop_at_the_ends_of_the_ladder(engine, god):
    assert engine.run("alterar_dado", god, {"poder": "mayor", "dado": 10}).result["dado"] == 12
    assert (
        engine.run("alterar_dado", god, {"poder": "mayor", "dado": 6, "sentido": "baja"}).result[
            "dado"
        ]
        == 4
    )


@pytest.mark.parametrize(
    ("poder", "bonus"),
    [("trivial", 0), ("menor", 1), ("significativo", 2), ("mayor", 3), ("legendario", 4)],
)
def test_alteration_bonus_by_power_on_a_d12(engine, god, poder, bonus):
    out = engine.run("bonificar", god, {"poder": poder, "dado": 12})
    assert out.result["bonus"] == bonus


@pytest.mark.parametrize(("dado", "tope"), [(4, 2), (6, 3), (8, 4), (10, 5), (12, 6)])
def test_cap_is_half_the_die(engine, god, dado, tope):
    out = engine.run("bonificar", god, {"poder": "legendario", "dado": dado, "bonus_previo": 9})
    assert out.result["bonus"] == tope
    low = engine.run(
        "bonificar",
        god,
        {"poder": "legendario", "dado": dado, "sentido": "penalización", "bonus_previo": -9},
    )
    assert low.result["bonus"] == -tope


@pytest.mark.parametrize(
    ("afecta", "indeseado", "conflicto"),
    [(False, False, False), (False, True, False), (True, False, False), (True, True, True)],
)
def test_dice_only_when_creatures_are_affected_against_their_will(
    engine, god, afecta, indeseado, conflicto
):
    # "If your Miracle does not affect people ... you don't need to roll dice." / "If your
    # Miracle does affect people ... and the effects would be harmful or change them in some
    # way they might not like ... you do need to roll dice"
    out = engine.run("necesita_dados", god, {"afecta_criaturas": afecta, "indeseado": indeseado})
    assert out.result["conflicto"] is conflicto


# The cost factor: a baseline of one season (+2) in a land no god controls (+1), Destruction
# (balance, +0), no domain, individual scale: 3. Each row changes one aspect.
BASE = {"coste_base": 10, "estilo": "destrucción", "duración": "una estación", "lugar": "libre"}


@pytest.mark.parametrize(
    ("cambio", "suma"),
    [
        ({}, 3),
        ({"duración": "instantáneo"}, 1),
        ({"duración": "un conflicto o una semana"}, 2),
        ({"duración": "un año o permanente"}, 4),
        ({"dominios": ["fuego"]}, 1),  # primary domain -2
        ({"dominios": ["forja"]}, 2),  # secondary domain -1
        ({"dominios": ["forja", "fuego"]}, 1),  # "only be applied once per Miracle"
        ({"dominios": ["forja", "minería"]}, 2),  # two secondaries: still -1
        ({"estilo": "creación"}, 2),  # harmony -1
        ({"estilo": "control"}, 4),  # opposition +1
        ({"estilo": "transformación"}, 3),  # balance +0
        ({"lugar": "propio"}, 2),
        ({"lugar": "ajeno"}, 4),
        ({"escala": "hogar"}, 4),
        ({"escala": "aldea"}, 5),
        ({"escala": "territorio"}, 6),
        ({"escala": "nación"}, 7),
        ({"escala": "continente"}, 8),
    ],
)
def test_cost_factor_table(engine, god, cambio, suma):
    out = engine.run("coste", god, {**BASE, **cambio})
    assert out.result["suma"] == suma
    assert out.result["factor"] == suma
    assert out.result["total"] == 10 * suma  # base cost × cost factor


def test_domains_are_the_gods_own_words(engine, god):
    # A Miracle outside her domains names none; a domain she does not have, or a misspelt
    # one ("Fuego" for "fuego"), is refused and the message lists hers, rather than losing
    # the primary domain's -2 unseen.
    assert engine.run("coste", god, BASE).result["dominio"] == "ninguno"
    for wrong in ("mar", "Fuego"):
        with pytest.raises(interpreter.RequirementFailed, match="fuego, \\[forja, minería\\]"):
            engine.run("coste", god, {**BASE, "dominios": [wrong]})


def test_scale_is_worked_out_from_the_people_affected(engine, god):
    # "during a conflict, affecting 100 soldiers would be a Miracle with a scale factor of
    # +2": village. The baseline (3, individual) plus 2.
    out = engine.run("coste", god, {**BASE, "afectados": 100})
    assert (out.result["escala"], out.result["suma"]) == ("aldea", 5)
    # The five saboteurs: "It's individual scale" (+0).
    out = engine.run("coste", god, {**BASE, "afectados": 5})
    assert (out.result["escala"], out.result["suma"]) == ("individual", 3)
    # Reading 5: each scale starts at its number: 10 is a household, 99 too, 1,000 a
    # territory, 100,000 and more a continent.
    for afectados, escala in [
        (9, "individual"),
        (10, "hogar"),
        (99, "hogar"),
        (1000, "territorio"),
        (99999, "nación"),
        (5000000, "continente"),
    ]:
        out = engine.run("coste", god, {**BASE, "afectados": afectados})
        assert out.result["escala"] == escala, afectados
    # A larger scale may be bought; a smaller one does not reach them all.
    out = engine.run("coste", god, {**BASE, "afectados": 100, "escala": "territorio"})
    assert out.result["suma"] == 6
    with pytest.raises(interpreter.RequirementFailed, match="hace falta aldea"):
        engine.run("coste", god, {**BASE, "afectados": 100, "escala": "hogar"})
    with pytest.raises(interpreter.RequirementFailed, match="hace falta hogar"):
        engine.run(
            "conflicto",
            god,
            {"poder": "mayor", "dado_mortal": 6, "mortales": 25, "escala": "individual"},
        )


def test_more_than_one_resource_needs_a_scale_more(engine, god):
    # New Gods of Mankind, Table 5-5, Scale: "during a conflict, affecting 100 soldiers would be a
    # Miracle with a scale factor of +2. Affecting more than one such resource would require
    # a factor of +3." Reading 5: two bodies of 100 soldiers are two resources, a scale more
    # than their 200 heads need (village): territory. The baseline is 3 (individual).
    one = engine.run("coste", god, {**BASE, "afectados": 100})
    assert (one.result["escala"], one.result["suma"]) == ("aldea", 3 + 2)
    two = engine.run("coste", god, {**BASE, "afectados": 200, "recursos": 2})
    assert (two.result["escala"], two.result["suma"]) == ("territorio", 3 + 3)
    assert two.result["total"] == 10 * 6
    # One body of 200 is one resource: a village still.
    whole = engine.run("coste", god, {**BASE, "afectados": 200})
    assert (whole.result["escala"], whole.result["suma"]) == ("aldea", 3 + 2)
    with pytest.raises(interpreter.RequirementFailed, match="en 2 recursos: hace falta territorio"):
        engine.run("coste", god, {**BASE, "afectados": 200, "recursos": 2, "escala": "aldea"})
    # The scale needed never goes past continent.
    huge = engine.run("coste", god, {**BASE, "afectados": 200000, "recursos": 2})
    assert huge.result["escala"] == "continente"
    for wrong, message in [
        ({"afectados": 3, "recursos": 4}, "no caben en 3 personas"),
        ({"afectados": 3, "recursos": 0}, "al menos a un recurso"),
        ({"recursos": 2}, "cuántas personas afecta"),
    ]:
        with pytest.raises(interpreter.RequirementFailed, match=message):
            engine.run("coste", god, {**BASE, **wrong})
    # Casting spends the text's factor: 10 × 6.
    cast = engine.run("lanzar", god, {**BASE, "afectados": 200, "recursos": 2})
    assert cast.result["total"] == 60
    assert list(cast.changes) == [interpreter.Change("Creencia", 120, 60)]


def test_more_than_one_resource_in_a_conflict(engine, god):
    # Line 189 again, in a conflict: two bodies of 100 need territory, which is then no
    # scale above theirs: the mortals keep their d8 (paid for one body of 200, territory is
    # one scale more than a village: d8 → d6). Two groups of 100, ten dice a side each.
    params = {"poder": "significativo", "dado_mortal": 8, "mortales": 200}
    two = engine.run("conflicto", god, {**params, "recursos": 2}, dice=ForcedDice([8] * 40))
    assert (two.result["escala"], two.result["dado_mortal"]) == ("territorio", 8)
    assert two.result["grupos"] == 2 and len(two.dice) == 40
    bought = engine.run(
        "conflicto", god, {**params, "escala": "territorio"}, dice=ForcedDice([6] * 40)
    )
    assert (bought.result["escala"], bought.result["dado_mortal"]) == ("territorio", 6)
    with pytest.raises(interpreter.RequirementFailed, match="hace falta territorio"):
        engine.run("conflicto", god, {**params, "recursos": 2, "escala": "aldea"})
    with pytest.raises(interpreter.RequirementFailed, match="cada recurso tiene al menos uno"):
        engine.run("conflicto", god, {**params, "mortales": 1, "recursos": 2})
    # Converting goes through the same conflict.
    converted = engine.run(
        "convertir",
        god,
        {"poder": "significativo", "espíritu": 8, "mortales": 200, "recursos": 2},
        dice=ForcedDice([8] * 40),
    )
    assert converted.result["grupos"] == 2


def test_cost_factor_never_below_1(engine, god):
    # "* The cost factor cannot drop below 1." Instant +0, primary domain -2, harmony -1,
    # own land +0, individual +0: -3, so 1.
    out = engine.run("coste", god, {"coste_base": 7, "estilo": "creación", "dominios": ["fuego"]})
    print(render_text(out.trace))
    assert out.result["dominio"] == "primario"
    assert out.result["inclinación"] == "armonía"
    assert out.result["suma"] == -3
    assert out.result["factor"] == 1
    assert out.result["total"] == 7
    assert not out.changes  # `coste` only computes


def test_casting_spends_belief(engine, god):
    out = engine.run(
        "lanzar",
        god,
        {"coste_base": 6, "estilo": "destrucción", "lugar": "ajeno", "escala": "aldea"},
    )
    print(render_text(out.trace))
    assert out.result["factor"] == 4
    assert out.result["total"] == 24
    assert [(c.path, c.before, c.after) for c in out.changes] == [("Creencia", 120, 96)]


def test_short_belief_fails_cleanly(engine, god):
    # factor: continent +5, another god's land +2, opposition +1 = 8; 20 × 8 = 160 > 120
    aspects = {"estilo": "control", "lugar": "ajeno", "escala": "continente"}
    params = {"coste_base": 20, **aspects}
    assert engine.run("coste", god, params).result["total"] == 160
    with pytest.raises(interpreter.InsufficientResource):
        engine.run("lanzar", god, params)
    with pytest.raises(interpreter.InsufficientResource):
        engine.run("lanzar_combinado", god, {"costes_base": [10, 10], **aspects})
    assert god["Creencia"] == 120
    assert god == engine.load_sheet(GOD)
    # exactly enough is enough
    out = engine.run("lanzar", god, {**params, "coste_base": 15})
    assert out.sheet["Creencia"] == 0


def test_upkeep_of_permanent_miracles(engine, god):
    # "The Belief you spend in this way is the same amount you would spend to cast the
    # Miracle again, except the cost factor is 1 less."
    # Muralla: permanent +3, no domain, Transformation in balance, own land, village +2 = 5
    # to cast; 4 a year; 6 × 4 = 24.
    out = engine.run("mantener", god, {"milagro": "Muralla de la ciudad"})
    print(render_text(out.trace))
    assert out.result["factor"] == 4
    assert out.result["total"] == 24
    assert out.sheet["Creencia"] == 96
    cast = engine.run(
        "coste",
        god,
        {
            "coste_base": 6,
            "estilo": "transformación",
            "duración": "un año o permanente",
            "escala": "aldea",
        },
    )
    assert cast.result["factor"] == 5


def test_upkeep_factor_never_below_1(engine, god):
    # Llama eterna: permanent +3, primary domain -2, harmony -1, own land, individual: 0,
    # cast at factor 1; 1 less would be 0, but "the cost factor cannot drop below 1" (our
    # reading 6): 4 × 1 = 4.
    out = engine.run("mantener", god, {"milagro": "Llama eterna del santuario"})
    print(render_text(out.trace))
    assert out.result["factor"] == 1
    assert out.result["total"] == 4
    year = engine.run("mantener_todos", god, {})
    print(render_text(year.trace))
    assert year.result["total"] == 28
    assert year.sheet["Creencia"] == 92


def test_a_permanent_miracle_cast_is_kept_and_maintained(engine, god):
    # "† Permanent Miracles require a constant expenditure of Belief." Cast as permanent,
    # the Miracle is written in Milagros, and its upkeep is charged every year after.
    params = {
        "coste_base": 5,
        "estilo": "creación",
        "duración": "un año o permanente",
        "dominios": ["forja"],
        "permanente": "Yunque que no se enfría",
    }
    out = engine.run("lanzar", god, params)
    print(render_text(out.trace))
    # permanent +3, secondary domain -1, harmony -1, own land, individual: 1; 5 × 1.
    assert (out.result["factor"], out.result["total"]) == (1, 5)
    kept = out.sheet["Milagros"]["Yunque que no se enfría"]
    assert dict(kept) == {
        "name": "Yunque que no se enfría",
        "coste_base": 5,
        "estilo": "creación",
        "dominio": "secundario",
        "lugar": "propio",
        "escala": "individual",
    }
    year = engine.run("mantener_todos", out.sheet, {})
    assert year.result["total"] == 28 + 5  # the two shipped ones and this one (factor 1)
    # Only a permanent duration is kept, and a name is kept once.
    with pytest.raises(interpreter.RequirementFailed, match="permanente"):
        engine.run("lanzar", god, {**params, "duración": "una estación"})
    with pytest.raises(interpreter.RequirementFailed, match="Ya hay"):
        engine.run("lanzar", god, {**params, "permanente": "Muralla de la ciudad"})


def test_transformation_needs_an_analogous_substance(engine, god):
    # "Miracles of Transformation can only be used when an analogous substance is present:
    # a Miracle of Transformation could turn a rock into ice, but not into a rat"
    params = {"coste_base": 2, "estilo": "transformación"}
    assert engine.run("lanzar", god, params).result["total"] == 2
    with pytest.raises(interpreter.RequirementFailed, match="sustancia análoga"):
        engine.run("lanzar", god, {**params, "análoga": False})
    # other styles do not need one
    assert engine.run("lanzar", god, {**params, "estilo": "creación", "análoga": False})


def test_upkeep_short_of_belief_fails_cleanly(engine):
    poor = engine.sheet({**engine.load_sheet(GOD).to_data(), "Creencia": 27})
    with pytest.raises(interpreter.InsufficientResource):
        engine.run("mantener_todos", poor, {})
    assert poor["Creencia"] == 27


# ─── groups of mortals ──────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("mortales", "tamaño", "grupos"),
    [
        (1, 10, 1),
        (10, 10, 1),
        (11, 10, 2),
        (100, 10, 10),
        (101, 100, 2),
        (1000, 100, 10),
        (1001, 1000, 2),
        (10000, 1000, 10),
        (10001, 10000, 2),
    ],
)
def test_groups_of_10_then_100_and_so_on(engine, god, mortales, tamaño, grupos):
    # "When affecting up to a hundred mortals, roll separately against each group of 10 (or
    # portion thereof). When affecting from a hundred to a thousand mortals, roll separately
    # against each group of 100, and so on."
    # One die a side per group (`dados: 1`): exactly 2 × groups dice are drawn.
    faces = [2, 1] * grupos
    out = engine.run(
        "conflicto",
        god,
        {"poder": "menor", "dado_mortal": 6, "mortales": mortales, "dados": 1},
        dice=ForcedDice(faces),
    )
    assert out.result["tamaño"] == tamaño
    assert out.result["grupos"] == grupos
    assert out.result["grupos_vencidos"] == grupos
    assert out.result["afectados"] == mortales


@pytest.mark.parametrize(
    ("mortales", "grupos", "dados_por_grupo", "dados_por_lado"),
    [
        (5, 1, 5, 5),  # the saboteurs: 5d6 against 5d8
        (100, 10, 10, 100),
        (101, 2, 10, 11),  # a group of 100 rolls 10 dice; the 1 left over, one
        (135, 2, 10, 14),  # 35 of a group of 100: 4 dice ("or portion thereof")
        (1000, 10, 10, 100),
        (50001, 6, 10, 51),
    ],
)
def test_a_group_rolls_once_not_one_die_per_mortal(
    engine, god, mortales, grupos, dados_por_grupo, dados_por_lado
):
    # "When affecting from a hundred to a thousand mortals, roll separately against each
    # group of 100, and so on" (reading 4: a die per tenth of a group).
    out = engine.run(
        "conflicto",
        god,
        {"poder": "menor", "dado_mortal": 6, "mortales": mortales},
        dice=SeededDice(5),
    )
    assert out.result["grupos"] == grupos
    assert out.result["dados_por_grupo"] == dados_por_grupo
    assert len(out.dice) == 2 * dados_por_lado


def test_a_huge_host_resolves_within_the_dice_limit(engine, god):
    # A billion mortals: ten groups of 100,000,000, ten dice a side each.
    out = engine.run(
        "conflicto",
        god,
        {"poder": "legendario", "dado_mortal": 6, "mortales": 1000000000},
        dice=SeededDice(1),
    )
    assert (out.result["grupos"], out.result["escala"]) == (10, "continente")
    assert len(out.dice) == 200


def test_a_group_of_a_hundred_can_resist(engine, god):
    # With one die per mortal a hundred d6 against a hundred d8 (means 350 and 450, about
    # 3.5 standard deviations apart) almost never hold; with ten dice a side, as a group of
    # ten rolls, they hold about one time in seven: "some of the barbarians might make it
    # out alive". Here: ten 6s hold against ten 5s of the god; the next group is crushed.
    out = engine.run(
        "conflicto",
        god,
        {"poder": "significativo", "dado_mortal": 6, "mortales": 200},
        dice=ForcedDice([5] * 10 + [6] * 10 + [8] * 10 + [1] * 10),
    )
    print(render_text(out.trace))
    assert list(out.result["resultados"]) == [False, True]
    assert out.result["afectados"] == 100
    # The exact odds of one group of ten (a group of a hundred rolls the same ten dice).
    odds = engine.odds(
        "conflicto",
        god,
        {"poder": "significativo", "dado_mortal": 6, "mortales": 10},
        field="grupos_vencidos",
    )
    assert odds.probabilities[0] == hold_probability(10, 6, 10, 8)  # ≈ 0.148


def sum_distribution(n: int, faces: int) -> dict[int, Fraction]:
    """The exact distribution of the sum of n dice of `faces` faces (an oracle)."""
    dist = {0: Fraction(1)}
    for _ in range(n):
        step: dict[int, Fraction] = {}
        for total, p in dist.items():
            for face in range(1, faces + 1):
                step[total + face] = step.get(total + face, 0) + p / faces
        dist = step
    return dist


def hold_probability(n_mortal: int, mortal: int, n_god: int, god: int) -> Fraction:
    """The mortals hold when their total meets the god's (reading 2: ties to the mortals)."""
    ours, theirs = sum_distribution(n_mortal, mortal), sum_distribution(n_god, god)
    return sum(p * q for a, p in ours.items() for b, q in theirs.items() if a >= b)


def test_some_barbarians_make_it_out_alive(engine, god):
    # "Thus, some of the barbarians might make it out alive while the meteor crushes the
    # rest." 25 barbarians: groups of 10, 10 and 5, one die each per barbarian (Body d6)
    # against a major innovation's d10s.
    g1 = [10] * 10 + [1] * 10  # crushed
    g2 = [1] * 10 + [6] * 10  # leap away
    g3 = [5] * 5 + [5] * 5  # a tie: the mortals hold (reading 2)
    out = engine.run(
        "conflicto",
        god,
        {"poder": "mayor", "dado_mortal": 6, "mortales": 25},
        dice=ForcedDice(g1 + g2 + g3),
    )
    print(render_text(out.trace))
    assert [len(f) for f in rolls(out)] == [10, 10, 10, 10, 5, 5]
    assert out.result["grupos"] == 3
    assert out.result["grupos_vencidos"] == 1
    assert out.result["afectados"] == 10
    assert out.result["grupos_resistentes"] == 2
    assert list(out.result["resultados"]) == [True, False, False]


def test_mortal_bonus_applies_to_each_die_and_is_capped(engine, god):
    # five constructs with Body d6+2 against 5d8: 5 × 2 added to their dice
    out = engine.run(
        "conflicto",
        god,
        {"poder": "significativo", "dado_mortal": 6, "mortales": 5, "bonus_mortal": 2},
        dice=ForcedDice([4] * 5 + [2] * 5),
    )
    print(render_text(out.trace))
    assert out.result["bonus_mortal"] == 2
    assert out.result["grupos_vencidos"] == 0  # 20 against 10 + 10: a tie, they hold
    capped = engine.run(
        "conflicto",
        god,
        {"poder": "significativo", "dado_mortal": 6, "mortales": 1, "bonus_mortal": 4},
        dice=ForcedDice([8, 5]),
    )
    assert capped.result["bonus_mortal"] == 3  # +4 on a d6 is +3
    assert capped.result["grupos_vencidos"] == 0  # 8 against 5 + 3


def test_more_scale_lowers_the_mortals_die(engine, god):
    # "you can increase the Miracle's scale ... (It reduces the mortals' die size.)"
    # Reading 5: village bought for an individual target, two levels more: d8 → d4.
    out = engine.run(
        "conflicto",
        god,
        {"poder": "significativo", "dado_mortal": 8, "mortales": 1, "escala": "aldea"},
        dice=ForcedDice([3, 4]),
    )
    print(render_text(out.trace))
    assert out.result["dado_mortal"] == 4
    assert out.result["grupos_vencidos"] == 0  # 3 against 4
    with pytest.raises(interpreter.DiceError, match="d4"):
        engine.run(
            "conflicto",
            god,
            {"poder": "significativo", "dado_mortal": 8, "mortales": 1, "escala": "aldea"},
            dice=ForcedDice([3, 5]),
        )
    # 100 soldiers need a village: no scale above theirs, no change (ten groups of ten).
    same = engine.run(
        "conflicto",
        god,
        {"poder": "significativo", "dado_mortal": 8, "mortales": 100, "dados": 1},
        dice=ForcedDice([3, 8] * 10),
    )
    assert same.result["escala"] == "aldea"
    assert same.result["dado_mortal"] == 8


def test_the_god_rolls_as_many_dice_as_the_largest_pool(engine, god):
    # "you roll a number of dice equal to the largest dice pool among your opponents"
    out = engine.run(
        "conflicto_bandos",
        god,
        {"poder": "mayor", "bandos": [3, 5], "dado_mortal": 8},
        dice=ForcedDice([6] * 5 + [8, 8, 8] + [8, 8, 8, 8, 8]),
    )
    print(render_text(out.trace))
    assert [len(f) for f in rolls(out)] == [5, 3, 5]
    assert out.result["dados_dios"] == 5
    assert out.result["total_dios"] == 30
    assert out.result["bandos_vencidos"] == 1  # 30 beats 24, not 40
    assert out.result["bandos_resistentes"] == 1
    assert list(out.result["resultados"]) == [True, False]


def test_conversion_is_resisted_by_spirit_and_adds_followers(engine, god):
    # "The mortals roll their Spirit to resist, no matter the method"; "new followers".
    # 15 villagers with Spirit d4 against a minor innovation's d6s: groups of 10 and 5.
    out = engine.run(
        "convertir",
        god,
        {"poder": "menor", "espíritu": 4, "mortales": 15},
        dice=ForcedDice([6] * 10 + [1] * 10 + [1] * 5 + [4] * 5),
    )
    print(render_text(out.trace))
    assert out.result["grupos"] == 2
    assert out.result["grupos_convertidos"] == 1
    assert out.result["conversos"] == 10
    assert [(c.path, c.before, c.after) for c in out.changes] == [("Seguidores", 250, 260)]


# ─── the command line ───────────────────────────────────────────────────────

CLI_PARAMS = {
    "necesita_dados": ["afecta_criaturas=sí", "indeseado=sí"],
    "innovación": ["poder=legendario"],
    "alterar_dado": ["poder=menor", "dado=6", "sentido=baja"],
    "bonificar": ["poder=legendario", "dado=6"],
    "coste": ["coste_base=4", "estilo=creación", "dominios=fuego,forja"],
    "lanzar": ["coste_base=4", "estilo=destrucción", "escala=aldea"],
    "lanzar_combinado": ["costes_base=5,3", "estilo=transformación", "dominios=minería"],
    "crear_seres": [
        "poder=significativo",
        "alteración=significativo",
        "coste_innovación=5",
        "coste_alteración=3",
        "estilo=transformación",
        "dominios=minería",
    ],
    "mantener": ["milagro=Muralla de la ciudad"],
    "mantener_todos": [],
    "conflicto": ["poder=significativo", "dado_mortal=6", "mortales=5"],
    "conflicto_bandos": ["poder=mayor", "bandos=3,5", "dado_mortal=8", "bonus_mortal=1"],
    "convertir": ["poder=menor", "espíritu=6", "mortales=25"],
}


def test_the_cli_covers_every_action(book):
    assert set(CLI_PARAMS) == set(book.actions)


@pytest.mark.parametrize("action", sorted(CLI_PARAMS))
def test_every_action_runs_from_the_command_line(action, capsys):
    printed = run_seeded(capsys, RULES, action, GOD, CLI_PARAMS[action], 7)
    assert f"New Gods of Mankind · {action}" in printed
    assert "resultado: " in printed


def test_seeded_runs_replay(engine, god):
    params = {"poder": "menor", "espíritu": 6, "mortales": 25}
    first = engine.run("convertir", god, params, dice=SeededDice(11))
    again = engine.run("convertir", god, params, dice=SeededDice(11))
    assert first.result == again.result
    assert first.dice == again.dice
    assert len(first.dice) == 50  # three groups: 10 + 10 + 5 dice a side


def test_a_god_cannot_be_in_harmony_and_opposition_with_one_style(engine, god):
    data = god.to_data()
    with pytest.raises(interpreter.SheetError, match="la Creación"):
        engine.sheet({**data, "EnOposición": ["control", "creación"]})


def test_a_permanent_miracle_names_a_real_style(engine, god):
    data = god.to_data()
    bad = {
        "coste_base": 1,
        "estilo": "magia",
        "dominio": "ninguno",
        "lugar": "propio",
        "escala": "aldea",
    }
    with pytest.raises(interpreter.SheetError, match="magia"):
        engine.sheet({**data, "Milagros": {"Niebla": bad}})
