"""The API reference is generated from the docstrings (pdoc), and the whole public API has
docstrings and type hints (the `py.typed` markers say so to type checkers)."""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path

import pdoc

import dsl
import interpreter

#: the modules of the reference: the two packages' public names, and the modules apps
#: use on their own (JSON documents, messages)
MODULES = ("dsl", "interpreter", "interpreter.json_data", "dsl.messages")
ROOT = Path(__file__).resolve().parent.parent


def _public_callables():
    for module in (interpreter, dsl):
        for name in module.__all__:
            obj = getattr(module, name)
            yield f"{module.__name__}.{name}", obj
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") and attr not in ("__init__", "__call__"):
                        continue
                    if isinstance(member, property):
                        member = member.fget
                    if isinstance(member, staticmethod | classmethod):
                        member = member.__func__
                    if inspect.isfunction(member):
                        yield f"{module.__name__}.{name}.{attr}", member


def test_the_reference_is_generated_without_warnings(tmp_path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*MODULES, output_directory=tmp_path)
    assert [str(w.message) for w in caught] == []
    page = (tmp_path / "interpreter.html").read_text(encoding="utf-8")
    for name in ("Engine", "Outcome", "run_check", "to_json", "ForcedDice", "render_text"):
        assert name in page
    assert "run_data" in (tmp_path / "interpreter" / "json_data.html").read_text(encoding="utf-8")
    assert "tr_n" in (tmp_path / "dsl" / "messages.html").read_text(encoding="utf-8")


def test_the_public_api_has_docstrings_and_type_hints():
    missing = []
    for name, obj in _public_callables():
        if not inspect.getdoc(obj):
            missing.append(f"{name}: no docstring")
        if not inspect.isfunction(obj):
            continue
        signature = inspect.signature(obj)
        for param, spec in signature.parameters.items():
            if param in ("self", "cls") or spec.kind in (spec.VAR_KEYWORD, spec.VAR_POSITIONAL):
                continue
            if spec.annotation is inspect.Parameter.empty:
                missing.append(f"{name}({param}): no type hint")
        if signature.return_annotation is inspect.Signature.empty and obj.__name__ != "__init__":
            missing.append(f"{name}: no return type")
    assert missing == []


def test_the_packages_say_they_are_typed():
    assert (ROOT / "dsl" / "py.typed").exists() and (ROOT / "interpreter" / "py.typed").exists()
