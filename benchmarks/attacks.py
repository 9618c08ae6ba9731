"""The attacks of issue 9, each in a fresh process under a time and memory cap: what it cost.

    python benchmarks/attacks.py            # every attack; a table of seconds, MB, outcome
    python benchmarks/attacks.py odds       # only the attacks whose name contains "odds"

Times are CPU seconds of the attack's process (user + system: the machine's other load
does not count), and wall seconds. The parse caches are warmed once first, as a user's
would be. An outcome is `error` (the project's own, exit 2-4, no traceback), `ok` (exit 0),
`TRACEBACK`, `TIMEOUT` or `KILLED` (past the memory cap). The promise of the README's
security model is that every attack ends in `ok` or `error` within 1 s and 200 MB.
"""

from __future__ import annotations

import json
import os
import re
import resource
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import yaml
from test_untrusted_saves import without_root_override

#: the wall-clock and address-space caps of one attack (generous: the goal is 1 s, 200 MB)
TIMEOUT = 40
MEMORY = 3 * 1024**3

SHEET = """
sheet {
  attribute Fuerza in 1..10
  skill Pelea in 0..10
  resource Vida max 10
  list Dones
  catalog Hechizos { grado: int }
}
"""
SHEET_BOOK = (
    SHEET
    + """
action subir(n: number = 1) { set Fuerza to 5  result { v: n } }
action entrada() { add "x" to Hechizos { grado: 1/3 }  result { ok: yes } }
action go(atr: attribute = "Fuerza") { set atr to 3  result { v: atr + 1 } }
check c(a: attribute) { roll d10 + a >= 5  nivel = Pelea }
action lee() { result { v: c(Fuerza).nivel + 1 } }
"""
)
# refused by the checker now (a list of texts), so each in a rulebook of its own
ADD_NUMBER = SHEET + "action darlo() { add 5 to Dones  result { ok: yes } }\n"
ADD_FRACTION = SHEET + "action fraccion() { add 1/3 to Dones  result { ok: yes } }\n"

GOOD_SHEET = "Fuerza: 5\nPelea: 2\n"
CHANGING_SHEET = "Fuerza: 3\nPelea: 2\n"  # `subir` sets Fuerza to 5: a save has work to do
SAVE_INTO_A_FILE = ["--save-as", "{d}/s.rules/n.yaml", "--journal", "{d}/j"]


def formulas(count: int) -> str:
    """The issue's generator: a header, then `count` unused formulas."""
    header = 'rulebook "big" {\n  language "en"\n}\n'
    return header + "".join(f"formula f{i}(x: int) = x + {i}\n" for i in range(count))


def chain(kind: str, count: int) -> str:
    """`count` formulas (or actions), each calling the next."""
    lines = []
    for i in range(count):
        nxt = f"f{i + 1}(x)" if i + 1 < count else "x"
        if kind == "formula":
            lines.append(f"formula f{i}(x: int) = {nxt} + 1")
        else:
            call = f"do a{i + 1}()" if i + 1 < count else 'note "end"'
            lines.append(f"action a{i}() {{ {call} }}")
    if kind == "formula":
        lines.append("action go() { result { v: f0(1) } }")
    return "\n".join(lines) + "\n"


def lets(count: int) -> str:
    body = " ".join(f"let a{i} = a{i - 1} * a{i - 1}" for i in range(1, count + 1))
    return f"action big() {{ let a0 = 10 {body} result {{ v: a{count} }} }}\n"


ATTACKS = [
    # 1. values without a size bound
    (
        "1 grow a*a",
        ["run", "{d}/grow.rules", "grow"],
        {
            "grow.rules": "action grow() { let a = 2  repeat 1000 times { set a to a * a } "
            " result { big: a > 0 } }\n"
        },
    ),
    (
        "1 fraction a/2+1/a",
        ["run", "{d}/frac.rules", "grow"],
        {
            "frac.rules": "action grow() { let a = 3  repeat 1000 times { set a to a / 2 + 1 / a } "
            " result { big: a > 0 } }\n"
        },
    ),
    (
        "1 list l+l",
        ["run", "{d}/list.rules", "grow"],
        {
            "list.rules": "action grow() { let l = [1]  repeat 1000 times { set l to l + l } "
            " result { n: size(l) } }\n"
        },
    ),
    ("1 fourteen lets", ["run", "{d}/lets.rules", "big"], {"lets.rules": lets(14)}),
    # 2. odds and dice limits
    ("2 odds d100000000", ["odds", "d100000000"], {}),
    ("2 odds d1000001rr=0", ["odds", "d1000001rr=0"], {}),
    ("2 odds 10000d6", ["odds", "10000d6"], {}),
    ("2 odds 100000dFk", ["odds", "100000dFk"], {}),
    ("2 odds 10000000d6", ["odds", "10000000d6"], {}),
    ("2 roll 1d1000001", ["roll", "1d1000001"], {}),
    ("2 roll d100000000cs>=3", ["roll", "d100000000cs>=3"], {}),
    ("2 roll d1000000000000", ["roll", "d1000000000000"], {}),
    # 3. numbers past 4,300 digits
    ("3 roll literal", ["roll", "1" * 5000], {}),
    (
        "3 sheet yaml",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/big.yaml"],
        {"s.rules": SHEET_BOOK, "big.yaml": "Fuerza: " + "9" * 5000 + "\n"},
    ),
    (
        "3 sheet json",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/big.json"],
        {"s.rules": SHEET_BOOK, "big.json": '{"Fuerza": ' + "9" * 5000 + "}\n"},
    ),
    (
        "3 --set 1e100000000",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/ok.yaml", "--set", "n=1e100000000"],
        {"s.rules": SHEET_BOOK, "ok.yaml": GOOD_SHEET},
    ),
    (
        "3 printed after --save",
        ["run", "{d}/lets.rules", "big", "--char", "{d}/e.yaml", "--save"],
        {"lets.rules": lets(11), "e.yaml": "{}\n"},
    ),
    # 4. field-naming values
    (
        "4 set atr",
        ["run", "{d}/s.rules", "go", "--char", "{d}/ok.yaml"],
        {"s.rules": SHEET_BOOK, "ok.yaml": GOOD_SHEET},
    ),
    (
        "4 check field skill",
        ["run", "{d}/s.rules", "lee", "--char", "{d}/ok.yaml"],
        {"s.rules": SHEET_BOOK, "ok.yaml": GOOD_SHEET},
    ),
    # 5. add not checked against the sheet
    (
        "5 add 5 to Dones",
        ["run", "{d}/s.rules", "darlo", "--char", "{d}/ok.yaml", "--save"],
        {"s.rules": ADD_NUMBER, "ok.yaml": GOOD_SHEET},
    ),
    (
        "5 add fraction to list",
        ["run", "{d}/s.rules", "fraccion", "--char", "{d}/ok.yaml", "--save"],
        {"s.rules": ADD_FRACTION, "ok.yaml": GOOD_SHEET},
    ),
    (
        "5 fraction in catalog",
        ["run", "{d}/s.rules", "entrada", "--char", "{d}/ok.yaml", "--save"],
        {"s.rules": SHEET_BOOK, "ok.yaml": GOOD_SHEET},
    ),
    # 6. extends reads any file
    (
        "6 extends /etc/passwd",
        ["check", "{d}/p.rules"],
        {"p.rules": 'rulebook "x" extends "/etc/passwd" { }\n'},
    ),
    (
        "6 extends ../",
        ["check", "{d}/sub/p.rules"],
        {"sub/p.rules": 'rulebook "x" extends "../s.rules" { }\n', "s.rules": SHEET_BOOK},
    ),
    # 7. recursion
    ("7 150 formulas", ["run", "{d}/f.rules", "go"], {"f.rules": chain("formula", 150)}),
    ("7 150 actions", ["run", "{d}/a.rules", "a0"], {"a.rules": chain("action", 150)}),
    ("7 deep parentheses", ["roll", "(" * 3000 + "1" + ")" * 3000], {}),
    # 8. the sheet's rulebook key
    (
        "8 rulebook: date",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/d.yaml", "--json"],
        {"s.rules": SHEET_BOOK, "d.yaml": "rulebook: 2020-01-01\n" + GOOD_SHEET},
    ),
    # 9. --save into a read-only folder (as root: without root's override), a full disk
    (
        "9 --save read-only",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/ro/ok.yaml", "--save"],
        {"s.rules": SHEET_BOOK, "ro/ok.yaml": CHANGING_SHEET},
    ),
    (
        "9 --save read-only, journal",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/ro/ok.yaml", "--save", "--journal", "{d}/j"],
        {"s.rules": SHEET_BOOK, "ro/ok.yaml": CHANGING_SHEET},
    ),
    (
        "9 --save full disk",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/full/ok.yaml", "--save"],
        {"s.rules": SHEET_BOOK, "full/ok.yaml": CHANGING_SHEET},
    ),
    (
        "9 --save-as into a file",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/ok.yaml", *SAVE_INTO_A_FILE],
        {"s.rules": SHEET_BOOK, "ok.yaml": CHANGING_SHEET},
    ),
    # 11. smaller
    ('11 roll 1 in ""', ["roll", '1 in ""'], {}),
    (
        "11 20000 unused formulas",
        ["check", "{d}/u.rules"],
        {"u.rules": "".join(f"formula f{i}(x: int) = x\n" for i in range(20000))},
    ),
    (  # the issue's own generator: refused by max_words before parsing
        "11 20000 formulas, header",
        ["check", "{d}/u.rules"],
        {"u.rules": formulas(20_000)},
    ),
    (  # as densely written as the generator's, just within max_words: parsed and checked
        "11 1817 formulas (max_words)",
        ["check", "{d}/u.rules"],
        {"u.rules": formulas(1817)},
    ),
    ("11 flat sum of 20000 terms", ["roll", "+".join(["1"] * 20000)], {}),
    (
        "11 yaml sheet 5000 deep",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/n.yaml"],
        {"s.rules": SHEET_BOOK, "n.yaml": GOOD_SHEET + "Dones: " + "[" * 5000 + "]" * 5000 + "\n"},
    ),
    (
        "11 json sheet 5000 deep",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/n.json"],
        {
            "s.rules": SHEET_BOOK,
            "n.json": '{"Fuerza": 5, "Dones": ' + "[" * 5000 + "]" * 5000 + "}",
        },
    ),
    ("11 --trials 0", ["odds", "d1000001rr=0", "--trials", "0"], {}),
    ("11 --budget -5", ["odds", "3d6", "--budget", "-5"], {}),
    (
        "11 resource above max",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/v.yaml"],
        {"s.rules": SHEET_BOOK, "v.yaml": GOOD_SHEET + "Vida: 11\n"},
    ),
    (
        "11 sheet error line",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/w.yaml"],
        {"s.rules": SHEET_BOOK, "w.yaml": GOOD_SHEET + "Dones: [a, 3]\n"},
    ),
]


# ─── issue 23: the attacks nobody had listed, one list per area ────────────────
# (the server's attacks, which need a server running, are in benchmarks/serve_attacks.py)


def misspelled(known: int, unknown: int) -> str:
    """`known` formulas, and `unknown` more each naming a formula that is not there."""
    lines = [f"formula known_{i:04d}(x: int) = x" for i in range(known)]
    lines += [f"formula bad_{i:04d}(x: int) = unknown_{i:04d}" for i in range(unknown)]
    return "\n".join(lines) + "\n"


def doubling(kind: str, levels: int) -> str:
    """Each level using the one below twice (2^levels evaluations if it ran)."""
    first, line, use = {
        "table": (
            "table t0 { 1..6: 1, else: 0 }",
            "table t{i} {{ 1..6: t{j}[1] + t{j}[2], else: 0 }}",
            "t{n}[1]",
        ),
        "check": (
            "check c0(x: int) { roll d6 + x >= 4 }",
            "check c{i}(x: int) {{ roll d6 >= 4  a = c{j}(x).success  b = c{j}(x).success }}",
            "c{n}(1).success",
        ),
        "roll": ("roll r0 = d6", "roll r{i} = r{j} + r{j}", "r{n}"),
        "if": (
            "formula g0(x: int) = x",
            "formula g{i}(x: int) = if x > 0 then g{j}(x) else g{j}(x)",
            "g{n}(1)",
        ),
    }[kind]
    lines = [first] + [line.format(i=i, j=i - 1) for i in range(1, levels + 1)]
    lines.append(f"action go() {{ result {{ v: {use.format(n=levels)} }} }}")
    return "\n".join(lines) + "\n"


BIG_LIST = "Dones: [" + ", ".join(f"d{i}" for i in range(120_000)) + "]\n"
LOOKALIKES = (
    "sheet {\n  attribute Fuerza in 1..10\n  attribute Fu\u0435rza in 1..10\n}\n"
    "# a comment \u202e hiding what follows\naction a() { result { v: Fuerza } }\n"
)

#: the front end: the grammar's terminals, the checker, sheets, parameters
FRONT_END_ATTACKS: list = [
    ("23 roll 5d6aaa…_ (30 a)", ["roll", "1 + 5d6" + "a" * 30 + "_"], {}),
    (
        "23 dice term of 1.9 MB",
        ["check", "{d}/dice.rules"],
        {"dice.rules": "action a() { result { v: 1d%" + "a1" * 950_000 + " } }\n"},
    ),
    (
        "23 text literal of 1.9 MB",
        ["check", "{d}/lit.rules"],
        {"lit.rules": 'action a() { result { v: "' + "x" * 1_900_000 + '" } }\n'},
    ),
    ("23 did-you-mean, 63 KB", ["check", "{d}/dym.rules"], {"dym.rules": misspelled(880, 880)}),
    (
        "23 sheet error, 1 MB YAML",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/big.yaml"],
        {"s.rules": SHEET_BOOK, "big.yaml": GOOD_SHEET + BIG_LIST + "Fuerzas: 3\n"},
    ),
    (
        "23 sheet error, 1 MB JSON",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/big.json"],
        {
            "s.rules": SHEET_BOOK,
            "big.json": '{"Fuerza": 5, "Dones": ['
            + ", ".join(f'"d{i}"' for i in range(100_000))
            + '], "Fuerzas": 3}',
        },
    ),
    ('23 roll "d(1.5)"', ["roll", "d(1.5)"], {}),
    ('23 roll "4d6kh(1.5)"', ["roll", "4d6kh(1.5)"], {}),
    (
        "23 sheet key twice, YAML",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/dup.yaml"],
        {"s.rules": SHEET_BOOK, "dup.yaml": GOOD_SHEET + "Fuerza: 3\n"},
    ),
    (
        "23 sheet key twice, JSON",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/dup.json"],
        {"s.rules": SHEET_BOOK, "dup.json": '{"Fuerza": 5, "Pelea": 2, "Fuerza": 3}'},
    ),
    ("23 look-alike name, RLO", ["check", "{d}/l.rules"], {"l.rules": LOOKALIKES}),
    (
        "23 look-alike sheet key",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/l.yaml"],
        {"s.rules": SHEET_BOOK, "l.yaml": "Fu\u0435rza: 5\nPelea: 2\n"},
    ),
    (
        "23 --set n=١٢٣",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/ok.yaml", "--set", "n=١٢٣"],
        {"s.rules": SHEET_BOOK, "ok.yaml": GOOD_SHEET},
    ),
    ("23 --dice ٦", ["roll", "d6", "--dice", "٦"], {}),
    ("23 roll 3d٦", ["roll", "3d٦"], {}),
    (
        "23 sheet value ١٢",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/d.yaml"],
        {"s.rules": SHEET_BOOK, "d.yaml": "Fuerza: ١٢\nPelea: 2\n"},
    ),
    (
        "23 lone surrogate, JSON --json",
        ["run", "{d}/s.rules", "subir", "--char", "{d}/h.json", "--json"],
        {"s.rules": SHEET_BOOK, "h.json": '{"Fuerza": 5, "Pelea": 2, "Dones": ["\\ud800"]}'},
    ),
    *(
        (f"23 {kind}s doubling, 30 deep", ["check", "{d}/x.rules"], {"x.rules": doubling(kind, 30)})
        for kind in ("table", "check", "roll", "if")
    ),
    (
        "23 20 000 blank lines, error",
        ["check", "{d}/b.rules"],
        {"b.rules": "\n" * 20_000 + "action a( {\n"},
    ),
]


def doubling(step: str, first: str, action: str, count: int = 30) -> str:
    """`first`, then `count` definitions each using the one below twice: 2**count
    evaluations of `first` unless every one is counted."""
    lines = [first] + [step.format(i=i, j=i - 1) for i in range(1, count + 1)]
    return "\n".join(lines) + "\n" + action.replace("N", str(count)) + "\n"


FORMULAS = doubling(
    "formula f{i}(x: int) = f{j}(x) + f{j}(x)",
    "formula f0(x: int) = x + 1",
    "action go() { let r = fN(1) + d6  result { r: r } }",
)
CHECKS = doubling(
    "check c{i}(x: int = 1) {{ roll c{j}(x).total + c{j}(x).total >= 1 }}",
    "check c0(x: int = 1) { roll d6 + x >= 1 }",
    "action go() { result { v: cN(1).total } }",
)
ROLLS = doubling("roll r{i} = r{j} + r{j}", "roll r0 = 0d6", "action go() { result { v: rN } }")
DERIVED = doubling(
    "  derived v{i} = v{j} + v{j}", "sheet {\n  attribute A in 1..10\n  derived v0 = A", ""
)
DOUBLED_TEXT = (
    'action go() { let s = "ab"  repeat 15 times { set s to "{s}{s}" }'
    "  repeat 1000 times { repeat 1000 times { note s } }  result { n: 1 } }\n"
)
POOLS_IN_LISTS = (
    "action a() { let t = 0  for each x in [d6, d8] { set t to t + x }  result { t: t } }\n"
    "action b(w: bool = yes) { let r = if w then 2d20kh1 else d20  result { r: r } }\n"
)

#: runs: every evaluation counted, the trace bounded
RUN_ATTACKS: list = [
    ("23 formulas 2**30", ["run", "{d}/f.rules", "go"], {"f.rules": FORMULAS}),
    ("23 formulas 2**30 odds", ["odds", "{d}/f.rules", "go"], {"f.rules": FORMULAS}),
    (
        "23 ifs 2**30",
        ["run", "{d}/i.rules", "go"],
        {
            "i.rules": doubling(
                "formula f{i}(x: int) = if x > 0 then f{j}(x) + f{j}(x) else 0",
                "formula f0(x: int) = x + 1",
                "action go() { result { v: fN(1) } }",
            )
        },
    ),
    (
        "23 and 2**30",
        ["run", "{d}/b.rules", "go"],
        {
            "b.rules": doubling(
                "formula f{i}(x: int) = f{j}(x) and f{j}(x)",
                "formula f0(x: int) = x > 0",
                "action go() { result { v: fN(1) } }",
            )
        },
    ),
    (
        "23 actions 2**30",
        ["run", "{d}/a.rules", "go"],
        {
            "a.rules": doubling(
                "action a{i}() {{ do a{j}()  do a{j}() }}",
                'action a0() { note "x" }',
                "action go() { do aN()  result { v: 1 } }",
            )
        },
    ),
    (
        "23 tables 2**30",
        ["run", "{d}/t.rules", "go"],
        {
            "t.rules": doubling(
                "table T{i} by k {{ else: T{j}[k] + T{j}[k] }}",
                "table T0 by k { else: k + 1 }",
                "action go() { result { v: TN[1] } }",
            )
        },
    ),
    ("23 checks 2**30", ["run", "{d}/c.rules", "go"], {"c.rules": CHECKS}),
    ("23 checks 2**30 odds", ["odds", "{d}/c.rules", "go"], {"c.rules": CHECKS}),
    (
        "23 opposed 2**30",
        ["run", "{d}/o.rules", "go"],
        {
            "o.rules": doubling(
                "opposed o{i}(x: int = 1) {{ roll o{j}(x).margin + o{j}(x).margin  against 1 }}",
                "opposed o0(x: int = 1) { roll d6  against d6 }",
                "action go() { result { v: oN(1).won } }",
            )
        },
    ),
    ("23 named rolls 2**30", ["run", "{d}/r.rules", "go"], {"r.rules": ROLLS}),
    ("23 named rolls 2**30 odds", ["odds", "{d}/r.rules", "go"], {"r.rules": ROLLS}),
    (
        "23 derived 2**30",
        ["run", "{d}/v.rules", "go", "--char", "{d}/a.yaml"],
        {"v.rules": DERIVED + "}\naction go() { result { v: v30 } }\n", "a.yaml": "A: 2\n"},
    ),
    (
        "23 ensure 2**30",
        ["run", "{d}/v.rules", "go", "--char", "{d}/a.yaml"],
        {
            "v.rules": DERIVED + '  ensure v30 > 0 else "x"\n}\naction go() { result { v: 1 } }\n',
            "a.yaml": "A: 2\n",
        },
    ),
    (
        "23 parameter default 2**30",
        ["run", "{d}/p.rules", "go"],
        {"p.rules": FORMULAS.replace("action go()", "action go(p: int = f30(1))")},
    ),
    (
        "23 trace doubled, ends",
        ["run", "{d}/d.rules", "go", "--json"],
        {"d.rules": DOUBLED_TEXT.replace("1000 times", "200 times")},
    ),
    ("23 trace doubled", ["run", "{d}/d.rules", "go"], {"d.rules": DOUBLED_TEXT}),
    ("23 trace doubled --json", ["run", "{d}/d.rules", "go", "--json"], {"d.rules": DOUBLED_TEXT}),
    (
        "23 trace of a list, 1e6 lets",
        ["run", "{d}/l.rules", "go"],
        {
            "l.rules": "action go() { let l = [1,2,3,4,5,6,7,8,9,10]  repeat 9 times"
            " { set l to l + l }  repeat 1000 times { repeat 1000 times { let x = l } }"
            "  result { n: 1 } }\n"
        },
    ),
    (
        "23 list [l, l] nested",
        ["run", "{d}/n.rules", "go"],
        {
            "n.rules": "action go() { let l = [1]  repeat 60 times { set l to [l, l] }"
            "  result { l: l } }\n"
        },
    ),
    (
        "23 a text held 8192 times",
        ["run", "{d}/h.rules", "go", "--json"],
        {
            "h.rules": 'action go() { let s = "ab"  repeat 15 times { set s to "{s}{s}" }'
            "  let l = [s]  repeat 13 times { set l to l + l }  result { l: l } }\n"
        },
    ),
    ("23 die in a list in a loop", ["run", "{d}/p.rules", "a"], {"p.rules": POOLS_IN_LISTS}),
    ("23 if between pools", ["run", "{d}/p.rules", "b"], {"p.rules": POOLS_IN_LISTS}),
    ("23 if between pools odds", ["odds", "{d}/p.rules", "b"], {"p.rules": POOLS_IN_LISTS}),
]


#: odds: the time limit kept, answers bounded, no traceback (each with --timeout 0.5: the
#: promise is that time plus 10%, and start-up)
QUICK = ["--timeout", "0.5"]
GROUP_LOOP = """sheet {
  attribute Fuerza, Agilidad in 1..10 default 3
  group Stats = Fuerza, Agilidad
  flag c
}
action loop() {
  for each s in Stats {
    let r = d6
    set s to r
  }
  result { t: Fuerza + Agilidad }
}
action named(p: attribute = "Fuerza") {
  let x = d6
  set p to x
  result { v: Fuerza }
}
action pool_or_die() {
  let r = if c then 2d20kh1 else d20
  result { t: r }
}
action fails() {
  let n = d6
  result { k1: 6 / (n - 1), k2: 1 }
}
action wide() {
  let n = d6
  result { k1: 6 / (n - 1), k2: 10d10x, k3: 8d12x, k4: 200d6 }
}
"""
UNREAD = (
    doubling("formula f{i}(x: int) = f{j}(x) + f{j}(x)", "formula f0(x: int) = x", "")
    + doubling("action a{i}() {{ do a{j}()  do a{j}() }}", 'action a0() { note "x" }', "")
    + "action unread() { let u = f30(1)  result { v: 1 } }\n"
    + "action called() { do a30()  result { v: 1 } }\n"
    + "action behind() { let n = d3  if n = 3 { let u = f30(n) }  result { n: n, one: 1 } }\n"
)
MARGINS = """opposed o1() { roll d6  against d6 }
opposed o2() { roll d6  against d6 }
opposed both() { roll o1().margin + o2().margin  against d6 }
opposed big(x: int = 0) { roll d6 + x  against d6  tie ours }
action sides() { let r = both()  result { won: r.won } }
action arg() { let m = o1().margin + o2().margin  let r = big(m)  result { won: r.won } }
"""
NONE_PLACE = """sheet {
  attribute A, B in 0..10 default 1
}
action none(p: attribute = none) { set p to 3  result { a: A } }
"""
ODDS_ATTACKS: list = [
    ("23 odds 10000d6x=6kh3", ["odds", "10000d6x=6kh3", *QUICK], {}),
    ("23 odds {999d6+3d8}k4", ["odds", "{999d6+3d8}k4", *QUICK], {}),
    ("23 odds -(10000d4kh5)", ["odds", "-(10000d4kh5)", *QUICK], {}),
    ("23 odds 9999d10x0d10x", ["odds", "9999d10x0d10x", *QUICK], {}),
    # found by benchmarks/odds_timeout.py: comb rows, gcds, splits, faces one by one
    ("23 odds 9999d100kh1", ["odds", "9999d100kh1", *QUICK], {}),
    (
        "23 odds {300d2+9999d100}kh2*..",
        ["odds", "{300d2+9999d100}kh2 * 2500d100kh5x>=5", *QUICK],
        {},
    ),
    ("23 odds 12dF/10000d10cf=1..", ["odds", "12dFmin3k4 / 10000d10cf=1x>=5rr<=2", *QUICK], {}),
    ("23 odds {10000d20+60d6}kh2..", ["odds", "{10000d20+60d6+1d100}kh2 + 12d6", *QUICK], {}),
    ("23 odds 2500d100000kh3kh1xo", ["odds", "2500d100000kh3kh1xo", *QUICK], {}),
    ("23 odds 3d10x+300d6k4/..", ["odds", "3d10x + 300d6k4 / 12d2x0kh3x=6", *QUICK], {}),
    # answers bounded: 200 outcomes listed (7.5 MB before)
    ("23 odds d100000", ["odds", "d100000", *QUICK], {}),
    ("23 odds d100000 --json", ["odds", "d100000", "--json", *QUICK], {}),
    ("23 odds 1000d6 --fractions", ["odds", "1000d6", "--fractions", *QUICK], {}),
    # tracebacks and a wrong answer
    (
        "23 odds for each over a group",
        ["odds", "{d}/g.rules", "loop", *QUICK],
        {"g.rules": GROUP_LOOP},
    ),
    ("23 odds set p to a roll", ["odds", "{d}/g.rules", "named", *QUICK], {"g.rules": GROUP_LOOP}),
    (
        "23 odds pool or die",
        ["odds", "{d}/g.rules", "pool_or_die", *QUICK],
        {"g.rules": GROUP_LOOP},
    ),
    (
        "23 odds --field k2 of a failure",
        ["odds", "{d}/g.rules", "fails", "--field", "k2", *QUICK],
        {"g.rules": GROUP_LOOP},
    ),
    (
        "23 odds field by field, failing",
        ["odds", "{d}/g.rules", "wide", "--json", *QUICK],
        {"g.rules": GROUP_LOOP},
    ),
    ("23 odds 6 / (d6 - 1)", ["odds", "6 / (d6 - 1)", *QUICK], {}),
    # a statement nothing reads, past the step limit: the run's failure, not "none 100%"
    ("23 odds unread let f30", ["odds", "{d}/u.rules", "unread", *QUICK], {"u.rules": UNREAD}),
    ("23 odds do a30", ["odds", "{d}/u.rules", "called", *QUICK], {"u.rules": UNREAD}),
    (
        "23 odds unread behind a roll --field",
        ["odds", "{d}/u.rules", "behind", "--field", "one", *QUICK],
        {"u.rules": UNREAD},
    ),
    # two opposed checks' margins summed: refused ("not Contest"), or exact and wrong
    (
        "23 odds a side of two margins",
        ["odds", "{d}/o.rules", "sides", *QUICK],
        {"o.rules": MARGINS},
    ),
    (
        "23 odds two margins as argument",
        ["odds", "{d}/o.rules", "arg", *QUICK],
        {"o.rules": MARGINS},
    ),
    # a place left none written: a TypeError in `bounds`
    ("23 run set of a none place", ["run", "{d}/n.rules", "none"], {"n.rules": NONE_PLACE}),
    (
        "23 odds set of a none place",
        ["odds", "{d}/n.rules", "none", *QUICK],
        {"n.rules": NONE_PLACE},
    ),
    # best play, a result field failing on one roll: a TypeError
    (
        "23 odds --best of a failing field",
        ["odds", "{d}/g.rules", "fails", "--field", "k2", "--best", "k2", *QUICK],
        {"g.rules": GROUP_LOOP},
    ),
]


#: files: records, journals, links; writes confined to their folder. An attack's files
#: may lie outside its folder ("../outside/victim.yaml"), be symbolic links (Link) or be
#: made when it runs (Made: a record exported, a journal with an entry edited); after it,
#: nothing outside the folder may have changed (else the outcome is ESCAPED).
class Link(str):
    """A symbolic link the attack's folder holds, to this target."""


class Fifo:
    """A named pipe the attack's folder holds (reading one waits for a writer forever)."""


class Made:
    """A file made as the attack starts, by `make(folder)` (text or bytes)."""

    def __init__(self, make):
        self.make = make


LUCIA = (
    (Path(__file__).resolve().parent.parent / "rulebooks" / "characters")
    .joinpath("brujeria_investigadora.yaml")
    .read_text(encoding="utf-8")
)


def _campaign():
    from hostile_cases import Campaign

    return Campaign.made()


def record(mutation: tuple) -> Made:
    """A record of a played run, with one mutation (tests/hostile_cases.record_text); an
    `{outside}` in it names the attack's outside folder (the hash made to match)."""

    def make(folder: Path) -> str:
        from hostile_cases import record_text, rehashed

        text = record_text(_campaign().record, mutation)
        if "{outside}" in text:
            text = text.replace("{outside}", str(folder.parent / "outside"))
            text = json.dumps(rehashed(json.loads(text)), ensure_ascii=False)
        return text

    return Made(make)


def journal(*edits: tuple) -> Made:
    """The journal of a played campaign (its sheets are the folder's: `lucia.yaml`,
    `hero.yaml`, `orc.yaml`), each edit (table, column, row, value) made to it; an
    `{outside}` in a value names the attack's outside folder."""

    def make(folder: Path) -> bytes:
        import shutil

        from hostile_cases import edit_journal

        made = _campaign()
        for name in ("lucia.yaml", "hero.yaml", "orc.yaml"):
            if not os.path.lexists(folder / name):  # (the attack's own file, or link, stays)
                shutil.copyfile(made.folder / name, folder / name)
        path = folder / ".journal-being-made"
        shutil.copyfile(made.journal, path)
        for table, column, row, value in edits:
            if isinstance(value, str):
                value = value.replace("{outside}", str(folder.parent / "outside"))
            edit_journal(path, table, column, row, value)
        data = path.read_bytes()
        path.unlink()
        return data

    return Made(make)


#: a rulebook whose texts hold a terminal's controls: clear the screen, a right-to-left
#: override, a C1 control sequence introducer, a bell
ESCAPES = (
    'action a(t: text = "p\x1b[2Jq") {\n'
    '  result { v: "x\x1b]52;c;cHduZWQ=\x07\u202e\x9b2J", t: t }\n}\n'
)
#: what no output may hold raw (a tab and a new line are layout)
RAW_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
OUTSIDE = {"../outside/victim.yaml": LUCIA + "# the victim's own line, which no save writes\n"}
J = ["--journal", "{d}/journal.sqlite"]
ENTRY_OUT = ("run_sheets", "sheet", 0, "../outside/victim.yaml")
PENDING = ("runs", "state", 0, "pending")

FILE_ATTACKS: list = [
    # `rulebook verify` writes the record's first text at the name the record gives
    (
        "23 verify: a name with ..",
        ["verify", "{d}/r.json"],
        {"r.json": record(("rename", "../../outside/pwned.txt")), **OUTSIDE},
    ),
    (
        "23 verify: an absolute name",
        ["verify", "{d}/r.json"],
        {"r.json": record(("rename", "{outside}/pwned.txt")), **OUTSIDE},
    ),
    (
        "23 verify: a sheet named ..",
        ["verify", "{d}/r.json"],
        {"r.json": record(("value", ("sheets", 0, "path"), '"../outside/victim.yaml"'))},
    ),
    # records past the bounds: a 5,000-digit number, nested 100,000 deep, a surrogate
    (
        "23 verify: 5000 digits",
        ["verify", "{d}/r.json"],
        {"r.json": record(("value", ("result",), "5000 digits"))},
    ),
    (
        "23 verify: nested 100000",
        ["verify", "{d}/r.json"],
        {"r.json": record(("value", ("params",), "nested 100000"))},
    ),
    (
        "23 verify: lone surrogate",
        ["verify", "{d}/r.json"],
        {"r.json": record(("value", ("origin",), "lone high surrogate"))},
    ),
    (
        "23 verify: a key twice",
        ["verify", "{d}/r.json"],
        {"r.json": record(("value", ("params",), "a key twice"))},
    ),
    (
        "23 verify: dice of a text",
        ["verify", "{d}/r.json"],
        {"r.json": record(("value", ("dice",), '"../outside/victim.yaml"'))},
    ),
    # a journal entry naming a file out of the folder: undo, journal verify, the server's
    (
        "23 undo: an entry names ..",
        ["undo", "1", "--force", *J],
        {"journal.sqlite": journal(ENTRY_OUT), **OUTSIDE},
    ),
    (
        "23 undo: an absolute entry",
        ["undo", "1", "--force", *J],
        {
            "journal.sqlite": journal(("run_sheets", "sheet", 0, "{outside}/victim.yaml")),
            **OUTSIDE,
        },
    ),
    (
        "23 undo: through a linked folder",
        ["undo", "1", "--force", *J],
        {
            "journal.sqlite": journal(("run_sheets", "sheet", 0, "link/victim.yaml")),
            "link": Link("../outside"),
            **OUTSIDE,
        },
    ),
    (
        "23 undo: the sheet a link",
        ["undo", "1", "--force", *J],
        {"lucia.yaml": Link("../outside/victim.yaml"), "journal.sqlite": journal(), **OUTSIDE},
    ),
    (
        "23 journal verify: pending ..",
        ["journal", "verify", "--force", *J],
        {"journal.sqlite": journal(ENTRY_OUT, PENDING), **OUTSIDE},
    ),
    (
        "23 journal verify --rerun",
        ["journal", "verify", "--rerun", "--force", *J],
        {
            "journal.sqlite": journal(ENTRY_OUT, PENDING, ("runs", "params", 1, "9" * 5000)),
            **OUTSIDE,
        },
    ),
    (
        "23 a save completes pending ..",
        ["run", "brujeria", "asustarse", "--char", "{d}/lucia.yaml", "--seed", "1", "--save"],
        {"journal.sqlite": journal(ENTRY_OUT, PENDING), **OUTSIDE},
    ),
    (
        "23 replay: a hostile journal",
        ["replay", "--against", "brujeria", *J],
        {"journal.sqlite": journal(("rulebooks", "sources", 0, "[" * 100_000)), **OUTSIDE},
    ),
    (
        "23 log: a blob for a name",
        ["log", *J],
        {"journal.sqlite": journal(("run_sheets", "sheet", 0, b"\xff")), **OUTSIDE},
    ),
    # saves through a symbolic link
    (
        "23 --save through a link",
        ["run", "brujeria", "asustarse", "--char", "{d}/lucia.yaml", "--seed", "1", "--save"],
        {"lucia.yaml": Link("../outside/victim.yaml"), **OUTSIDE},
    ),
    (
        "23 --save-as onto a link",
        ["run", "brujeria", "asustarse", "--char", "{d}/ana.yaml", "--save-as", "{d}/b.yaml"],
        {"ana.yaml": LUCIA, "b.yaml": Link("../outside/new.yaml"), **OUTSIDE},
    ),
    (
        "23 journal.sqlite a link",
        ["run", "brujeria", "asustarse", "--char", "{d}/ana.yaml", "--seed", "1", "--save"],
        {"ana.yaml": LUCIA, "journal.sqlite": Link("../outside/j.sqlite"), **OUTSIDE},
    ),
    (
        "23 --journal elsewhere",
        ["run", "brujeria", "asustarse", "--char", "{d}/../outside/victim.yaml", "--save", *J],
        {**OUTSIDE},
    ),
    # named pipes named like a rulebook, a sheet or a record: refused, never waited on
    ("23 check a named pipe", ["check", "{d}/p.rules"], {"p.rules": Fifo()}),
    ("23 odds a named pipe", ["odds", "{d}/p.rules", "a"], {"p.rules": Fifo()}),
    (
        "23 --char a named pipe",
        ["run", "brujeria", "asustarse", "--char", "{d}/p.yaml", "--seed", "1"],
        {"p.yaml": Fifo()},
    ),
    ("23 verify a named pipe", ["verify", "{d}/r.json"], {"r.json": Fifo()}),
    ("23 fmt a named pipe", ["fmt", "{d}/p.rules"], {"p.rules": Fifo()}),
    ("23 new from a named pipe", ["new", "{d}/p.yaml", "{d}/n.yaml"], {"p.yaml": Fifo()}),
    (
        "23 extends a named pipe",
        ["check", "{d}/h.rules"],
        {"p.rules": Fifo(), "h.rules": 'rulebook "H" extends "p.rules" {\n}\n'},
    ),
    # terminal controls in texts, names, a sheet and errors: shown escaped (else RAW)
    ("23 ESC in texts, run", ["run", "{d}/e.rules", "a", "--verbose"], {"e.rules": ESCAPES}),
    ("23 ESC in an error", ["check", "{d}/b.rules"], {"b.rules": ESCAPES + "\x1b[2J\n"}),
    (
        "23 ESC in a sheet",
        ["run", "{d}/e.rules", "a", "--char", "{d}/e.yaml"],
        {"e.rules": ESCAPES, "e.yaml": 'rulebook: e\n"Fuerza\\e[2J": 5\n'},
    ),
    # a lone surrogate in a JSON sheet, printed as JSON
    (
        "23 json sheet surrogate",
        ["run", "brujeria", "asustarse", "--char", "{d}/s.json", "--seed", "1", "--json"],
        {"s.json": json.dumps({**yaml.safe_load(LUCIA), "rulebook": "brujeria\ud800"})},
    ),
]


ATTACKS += FRONT_END_ATTACKS + RUN_ATTACKS + ODDS_ATTACKS + FILE_ATTACKS


def limiting(files: dict):
    """What the attack's process starts with: the memory cap; for a read-only folder, no
    root override of permissions; for a full disk, no room to write a file."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
        if any(name.startswith("ro/") for name in files) and os.geteuid() == 0:
            without_root_override()
        if any(name.startswith("full/") for name in files):
            resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))

    return limit


def run_attack(argv: list[str], files: dict, folder: Path, cache: Path) -> tuple:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, Link):
            path.symlink_to(text)
            continue
        if isinstance(text, Fifo):
            os.mkfifo(path)
            continue
        if isinstance(text, Made):
            text = text.make(folder)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    outside = _around(folder)
    readonly = folder / "ro"
    if readonly.exists():
        readonly.chmod(stat.S_IRUSR | stat.S_IXUSR)
    sheets = {
        name: text
        for name, text in files.items()
        if name.endswith(".yaml")
        and isinstance(text, str)
        and not isinstance(text, Link)
        and not isinstance(text, Fifo)
    }
    args = [a.replace("{d}", str(folder)) for a in argv]
    code = "import sys; from interpreter.cli import main; sys.exit(main())"
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), COLUMNS="100")
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limiting(files),
        env=env,
        text=True,
        errors="replace",
    )
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        return "TIMEOUT", time.monotonic() - started, TIMEOUT, 0, err
    finally:
        if readonly.exists():
            readonly.chmod(stat.S_IRWXU)
    seconds = time.monotonic() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    changed = [n for n, text in sheets.items() if (folder / n).read_text("utf-8") != text]
    if "Traceback" in err:
        outcome = "TRACEBACK"
    elif RAW_CONTROLS.search(out + err):
        outcome = "RAW"  # a control character printed as it is: the terminal obeys it
    elif _around(folder) != outside:
        outcome = "ESCAPED"  # a file outside the attack's folder written, or removed
    elif process.returncode != 0 and changed:
        outcome = "CHANGED"  # an error, yet a sheet on disk is not as it was
    elif process.returncode < 0:
        outcome = "KILLED"
    elif process.returncode == 0:
        outcome = "ok"
    elif process.returncode in (2, 3, 4):
        outcome = "error"
    else:
        outcome = f"exit {process.returncode}"
    return outcome, seconds, cpu, usage.ru_maxrss, (err or out)


def _around(folder: Path) -> dict:
    """Everything beside the attack's folder, in the folder made for it alone: each
    file's bytes, each link's target."""
    seen = {}
    for path in sorted(folder.parent.rglob("*")):
        if path == folder or folder in path.parents:
            continue
        if path.is_symlink():
            seen[str(path)] = os.readlink(path)
        elif path.is_file():
            seen[str(path)] = path.read_bytes()
        else:
            seen[str(path)] = "folder"
    return seen


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    bad = 0
    with tempfile.TemporaryDirectory() as cache:
        for _ in range(2):  # warm the caches, as a user's are; then what starting costs
            with tempfile.TemporaryDirectory() as around:
                (Path(around) / "d").mkdir()
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                run_attack(["roll", "d6"], {}, Path(around) / "d", Path(cache))
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        print(f"starting the command (`rulebook roll d6`) costs {start:.2f} s of CPU: an attack")
        print("may take 1 s of CPU more than that\n")
        print(f"{'attack':28} {'outcome':10} {'cpu s':>6} {'wall s':>6} {'MB':>5}  first line")
        for name, args, files in ATTACKS:
            if wanted not in name:
                continue
            with tempfile.TemporaryDirectory() as around:
                folder = str(Path(around) / "d")  # (beside it, nothing may change)
                os.mkdir(folder)
                # a fork per attack, so that RUSAGE_CHILDREN covers that attack alone
                pid = os.fork()
                if pid == 0:
                    outcome, wall, cpu, rss, text = run_attack(
                        args, files, Path(folder), Path(cache)
                    )
                    first = next((line for line in text.splitlines() if line.strip()), "")
                    first = first.replace(folder, "…").replace(around, "…")
                    print(
                        f"{name:28} {outcome:10} {cpu:6.2f} {wall:6.2f} {rss / 1024:5.0f}  "
                        f"{first[:80]}",
                        flush=True,
                    )
                    good = outcome in ("ok", "error") and cpu < start + 1 and rss < 200 * 1024
                    os._exit(0 if good else 1)
                _, status = os.waitpid(pid, 0)
                bad += os.waitstatus_to_exitcode(status) != 0
    print(
        f"{bad} attack(s) over 1 s of CPU past starting, over 200 MB, or not ended by the"
        " project's own error with the sheets as they were and nothing outside its folder"
        " written"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
