"""The architecture holds (docs/architecture.md): no import circles, no private names
across modules, the seams respected, and every module short with a docstring of its job.

The import graph is read from the source with `ast`, every import counted (at the top of
a module or inside a function): `from a.b import c` is an edge to the module a.b.c when
there is one, else to a.b.
"""

from __future__ import annotations

import ast
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

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            target = _target(alias.name)
            if target is None:
                continue
            self.edges.add(target)
            if alias.asname:
                self.aliases[alias.asname] = target
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
            return
        for alias in node.names:
            full = f"{base}.{alias.name}"
            if full in MODULES:
                self.edges.add(full)
                self.aliases[alias.asname or alias.name] = full
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


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_is_short_and_says_its_job(module):
    text = MODULES[module].read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES, f"{module} is over {MAX_LINES} lines"
    docstring = ast.get_docstring(ast.parse(text))
    assert docstring, f"{module} has no docstring"
    first = docstring.splitlines()[0]
    assert first.strip() and first.rstrip().endswith("."), f"{module}: {first!r}"
