"""The architecture holds (docs/architecture.md): no import circles, no private names
across modules, the seams respected, and every module short with a docstring of its job.

The import graph is read from the source with `ast`, every import counted (at the top of
a module or inside a function): `from a.b import c` is an edge to the module a.b.c when
there is one, else to a.b.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "interpreter")
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _target(name: str) -> str | None:
    """The project module an import of `name` reaches (None: outside the project)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _package_of(module: str) -> str:
    path = MODULES[module]
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


class _Imports(ast.NodeVisitor):
    """Every import of one module: the modules it reaches, private names it takes."""

    def __init__(self, module: str):
        self.module = module
        self.edges: set[str] = set()
        self.private: list[str] = []
        self.aliases: dict[str, str] = {}  # a local name bound to a project module
        self.outside: set[str] = set()  # top-level names of the modules imported from outside
        self.bound: list[tuple[str, str]] = []  # (a local name, the project module it names)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            target = _target(alias.name)
            if target is None:
                self.outside.add(alias.name.split(".")[0])
                continue
            self.edges.add(target)
            if alias.asname:
                self.aliases[alias.asname] = target
                self.bound.append((alias.asname, target))
            else:  # `import a.b` binds `a`
                top = alias.name.split(".")[0]
                self.aliases.setdefault(top, _target(top) or target)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            package = _package_of(self.module).split(".")
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, base] if base else package)
        if _target(base) is None:
            if not node.level and base:
                self.outside.add(base.split(".")[0])
            return
        for alias in node.names:
            full = f"{base}.{alias.name}"
            if full in MODULES:
                self.edges.add(full)
                self.aliases[alias.asname or alias.name] = full
                self.bound.append((alias.asname or alias.name, full))
                continue
            target = _target(base)
            self.edges.add(target)
            if alias.name.startswith("_") and not alias.name.startswith("__"):
                self.private.append(f"from {base} import {alias.name}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        value = node.value
        if (
            isinstance(value, ast.Name)
            and value.id in self.aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and self.aliases[value.id] != self.module
        ):
            self.private.append(f"{value.id}.{node.attr} ({self.aliases[value.id]})")
        self.generic_visit(node)


def _read(module: str) -> _Imports:
    visitor = _Imports(module)
    visitor.visit(ast.parse(MODULES[module].read_text(encoding="utf-8")))
    return visitor


IMPORTS = {module: _read(module) for module in MODULES}
GRAPH = {module: imports.edges - {module} for module, imports in IMPORTS.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _importers_of(prefix: str) -> set[str]:
    return {
        module
        for module, edges in GRAPH.items()
        if any(e == prefix or e.startswith(prefix + ".") for e in edges)
    }


def _within(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_graph_is_read():
    # The reader itself: known edges are there (a test of the test).
    assert "interpreter.runtime" in GRAPH["interpreter.compile.compiler"]
    assert "dsl.nodes" in GRAPH["dsl.check.checker"]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circles():
    assert _cycles(GRAPH) == []


def test_no_private_name_is_imported_from_another_module():
    found = {module: imports.private for module, imports in IMPORTS.items() if imports.private}
    assert found == {}


def test_the_front_end_never_imports_the_back_end():
    assert {m for m in _importers_of("interpreter") if m.startswith("dsl")} == set()


def test_the_run_side_never_imports_the_odds_engine():
    # Only the odds engine itself, the public API above both halves (the Engine and the
    # package's exports), the command line and the web shell may import it.
    allowed = ("interpreter.odds", "interpreter.engine", "interpreter.cli", "interpreter.web")
    allowed += ("interpreter.lsp",)  # an editor's hover: a dice term's exact odds
    importers = _importers_of("interpreter.odds") - {"interpreter"}
    assert {m for m in importers if not _within(m, *allowed)} == set()


def test_the_odds_engine_uses_only_the_run_sides_public_seam():
    # It runs compiled rules, but never reaches into the compiler: what it needs of the
    # run side is interpreter.runtime (the context, the roller protocol, unknown values).
    odds = [m for m in MODULES if _within(m, "interpreter.odds")]
    reaching = {m for m in odds if any(_within(e, "interpreter.compile") for e in GRAPH[m])}
    assert reaching == set()
    assert any("interpreter.runtime" in GRAPH[m] for m in odds)


def test_the_core_never_imports_the_command_line():
    importers = _importers_of("interpreter.cli")
    assert {m for m in importers if not _within(m, "interpreter.cli")} == set()


def test_the_web_shell_stands_on_the_core_alone():
    # interpreter.web is a shell like the command line: the core never imports it, it
    # never imports the command line, and only `rulebook serve` starts it.
    importers = _importers_of("interpreter.web")
    assert {m for m in importers if not _within(m, "interpreter.web")} == {"interpreter.cli.serve"}
    web = [m for m in MODULES if _within(m, "interpreter.web")]
    assert web and not any(_within(e, "interpreter.cli") for m in web for e in GRAPH[m])


# ─── names: a module's name tells its job, once ────────────────────────────────────

#: the stages a construct goes through: a construct has a module of its name in each
#: (docs/architecture.md, "To add a construct"), so these names repeat by design
CONSTRUCT_STAGES = ("dsl.build", "dsl.nodes", "dsl.check", "interpreter.compile")

#: every other name two modules (or packages) share: all of them, and why it reads well
SAME_NAMES = {
    "dice": (
        {"dsl.build.dice", "dsl.check.dice", "dsl.nodes.dice", "interpreter.compile.dice"}
        | {"interpreter.dice"},
        "the construct's stages, and what its compiled form rolls: the run's dice",
    ),
    "symbols": (
        {"dsl.check.symbols", "interpreter.compile.symbols", "interpreter.symbols"},
        "the construct's stages, and the symbol dice a run rolls and shows",
    ),
    "pools": (
        {"dsl.check.pools", "interpreter.compile.pools", "interpreter.odds.pools"},
        "the construct's stages, and its exact distribution in the odds engine",
    ),
    "errors": (
        {"dsl.errors", "interpreter.errors", "interpreter.journal.errors"}
        | {"interpreter.web.errors"},
        "each layer's own errors, always imported by their package's name",
    ),
    "describe": (
        {"interpreter.describe", "interpreter.cli.describe"},
        "`rulebook describe`: the command's front of the core's module",
    ),
    "check": ({"dsl.check", "interpreter.cli.check"}, "`rulebook check`: its front"),
    "odds": ({"interpreter.odds", "interpreter.cli.odds"}, "`rulebook odds`: its front"),
    "sweep": (
        {"interpreter.balance.sweep", "interpreter.cli.sweep"},
        "`rulebook sweep`: its front",
    ),
    "lsp": ({"interpreter.lsp", "interpreter.cli.lsp"}, "`rulebook lsp`: its front"),
    "journal": (
        {"interpreter.journal", "interpreter.cli.journal"},
        "`rulebook journal`: its front",
    ),
    "export": ({"interpreter.journal.export", "interpreter.cli.export"}, "a command's front"),
    "replay": ({"interpreter.journal.replay", "interpreter.cli.replay"}, "a command's front"),
    "undo": ({"interpreter.journal.undo", "interpreter.cli.undo"}, "a command's front"),
    "verify": ({"interpreter.journal.verify", "interpreter.cli.verify"}, "a command's front"),
    "saving": (
        {"interpreter.journal.saving", "interpreter.web.saving"},
        "the page's saves, a front of the journal's (journal.run_and_save)",
    ),
    "words": (
        {"interpreter.cli.words", "interpreter.web.words"},
        "each shell's own words in the game's language: argparse's, the page's",
    ),
}

#: modules named like a builtin, a standard library module or a library the project
#: imports, and why the name stays: `from interpreter import compile` would hide the
#: builtin in that module, so no import binds such a name (the test below)
NAMED_LIKE_OUTSIDE = {
    "dsl.types": "the language's static types; always imported as dsl.types",
    "dsl.format": "the `rulebook fmt` stage; imported by its modules' full names",
    "interpreter.compile": "the compiling stage; imported by its modules' full names",
    "interpreter.trace": "a run's trace, the docs' word; the stdlib's tracer is never used",
}

#: names a reader takes for something else: builtins, the standard library, and every
#: library the project imports
OUTSIDE_NAMES = (
    {name for name in dir(builtins) if not name.startswith("_")}
    | set(sys.stdlib_module_names)
    | {name for imports in IMPORTS.values() for name in imports.outside}
)


def _name(module: str) -> str:
    return module.rpartition(".")[2]


def _shared_names(modules) -> dict[str, set[str]]:
    """Names that two or more modules or packages have, outside the construct stages."""
    by_name = defaultdict(set)
    for module in modules:
        if "." in module:  # (the top-level packages are the project's own names)
            by_name[_name(module)].add(module)
    return {
        name: found
        for name, found in by_name.items()
        if len(found) > 1 and not all(m.rpartition(".")[0] in CONSTRUCT_STAGES for m in found)
    }


def _named_like_outside(modules, outside: set[str]) -> set[str]:
    return {module for module in modules if "." in module and _name(module) in outside}


def test_the_name_rules_find_what_they_forbid():
    # A test of the test: a second `choices`, a module named like a builtin, a stage's.
    planted = ["a.choices", "a.b.choices", "a.odds.enumerate", "dsl.check.dice", "dsl.nodes.dice"]
    assert _shared_names(planted) == {"choices": {"a.choices", "a.b.choices"}}
    assert _shared_names([*planted, "a.dice"])["dice"] == {"a.dice", *planted[3:]}
    assert _named_like_outside(planted, OUTSIDE_NAMES) == {"a.odds.enumerate"}
    assert {"enumerate", "json", "yaml", "lark"} <= OUTSIDE_NAMES


def test_no_two_modules_share_a_name_unless_it_is_said_why():
    found = _shared_names(MODULES)
    listed = {name: modules for name, (modules, _) in SAME_NAMES.items()}
    assert found == listed, "a name given twice: rename one, or say why in SAME_NAMES"


def test_no_module_is_named_like_a_builtin_or_a_library_unless_it_is_said_why():
    found = _named_like_outside(MODULES, OUTSIDE_NAMES)
    assert found == set(NAMED_LIKE_OUTSIDE), "rename it, or say why in NAMED_LIKE_OUTSIDE"


def test_no_import_hides_a_builtin_or_a_library_behind_a_project_module():
    # `from interpreter import compile` makes `compile` the package in that module.
    hiding = [
        f"{module}: {name} ({target})"
        for module, imports in IMPORTS.items()
        for name, target in imports.bound
        if name in OUTSIDE_NAMES
    ]
    assert hiding == []


def _families(modules, size: int = 3) -> dict[str, set[str]]:
    """Modules of one package named by one word (`sheet`, `sheet_json`, `sheet_keys`, ...),
    `size` or more of them: a family that wants a package of its own."""
    by_word = defaultdict(set)
    for module in modules:
        package, _, name = module.rpartition(".")
        by_word[f"{package}.{name.split('_')[0]}"].add(module)
    return {word: found for word, found in by_word.items() if len(found) >= size}


def test_a_family_of_modules_is_a_package():
    planted = ["a.sheet", "a.sheet_json", "a.sheet_keys", "a.json_data", "a.b.sheet_x"]
    assert _families(planted) == {"a.sheet": {"a.sheet", "a.sheet_json", "a.sheet_keys"}}
    assert _families(MODULES) == {}


def test_every_command_is_its_own_module_with_its_parser():
    # `rulebook NAME` is interpreter/cli/NAME.py: its parser (`add_parser`) and what it
    # runs (`cmd_NAME`) side by side; cli.main only registers them.
    cli_main = importlib.import_module("interpreter.cli.main")  # (cli.main: the function)
    parser = cli_main.build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name in commands:
        module = MODULES.get(f"interpreter.cli.{name}")
        assert module is not None, f"rulebook {name}: no interpreter/cli/{name}.py"
        defined = {
            node.name
            for node in ast.parse(module.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef)
        }
        assert {"add_parser", f"cmd_{name}"} <= defined, name
    tree = ast.parse(MODULES["interpreter.cli.main"].read_text(encoding="utf-8"))
    named_there = [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "attr", None) == "add_parser"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]
    assert named_there == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_is_short_and_says_its_job(module):
    text = MODULES[module].read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES, f"{module} is over {MAX_LINES} lines"
    docstring = ast.get_docstring(ast.parse(text))
    assert docstring, f"{module} has no docstring"
    first = docstring.splitlines()[0]
    assert first.strip() and first.rstrip().endswith("."), f"{module}: {first!r}"


# ─── modules of methods joined into one class: each typed against its host ──────────


def test_every_part_of_the_checker_compiler_and_builder_is_typed_against_its_host():
    # mypy checks a call from one part to another only when the part derives from the
    # host that declares it (dsl/check/host.py, interpreter/compile/host.py, TreeWalk).
    from dsl.build import Builder
    from dsl.build.walk import TreeWalk
    from dsl.check.checker import Checker
    from dsl.check.host import CheckerHost
    from interpreter.compile.compiler import Compiler
    from interpreter.compile.host import CompilerHost

    for joined, host in ((Checker, CheckerHost), (Compiler, CompilerHost), (Builder, TreeWalk)):
        parts = [base for base in joined.__bases__ if base is not host]
        assert len(parts) >= 4, joined
        assert [p.__name__ for p in parts if not issubclass(p, host)] == [], joined


def test_every_mixin_of_the_odds_engine_is_typed_against_its_host():
    # the same for the classes of methods the odds engine joins to another: the roller's
    # pool questions (interpreter.odds.questions) and a dice term's keeps (odds.keeps)
    from interpreter.odds.keeps import Keeps, KeepsHost
    from interpreter.odds.pools import Term
    from interpreter.odds.questions import PoolQuestions, PoolQuestionsHost
    from interpreter.odds.roller import OddsRoller

    for joined, part, host in (
        (OddsRoller, PoolQuestions, PoolQuestionsHost),
        (Term, Keeps, KeepsHost),
    ):
        assert part in joined.__bases__ and issubclass(part, host), joined
        # what the host declares is what the joined class makes
        declared = set(vars(host).get("__annotations__", {}))
        assert declared, host
        made = _made_in_init(joined)
        assert [name for name in declared if not hasattr(joined, name) and name not in made] == []


def _made_in_init(cls) -> set[str]:
    """The attributes a class's `__init__` assigns to `self` (read from its source)."""
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(cls.__init__)))
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }
