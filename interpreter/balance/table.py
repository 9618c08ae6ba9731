"""A sweep's rows written as a table: CSV (fractions as text) and Parquet (pyarrow)."""

from __future__ import annotations

import csv
import importlib
import io
from fractions import Fraction
from pathlib import Path

from dsl.messages import tr
from interpreter.errors import ParameterError


def columns_of(rows: list[dict]) -> list[str]:
    """Every column, in the order the rows first name them."""
    seen: dict = {}
    for row in rows:
        for name in row:
            seen.setdefault(name, None)
    return list(seen)


def cell(value) -> str:
    """A value as CSV text: yes/no, a fraction as `n/d`, nothing as an empty cell."""
    if value is None:
        return ""
    if value is True or value is False:
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def csv_text(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = columns_of(rows)
    writer.writerow(names)
    for row in rows:
        writer.writerow([cell(row.get(name)) for name in names])
    return out.getvalue()


def arrow_table(rows: list[dict]):
    """The rows as a pyarrow Table: each column of one type (fractions as text, so they
    stay exact; a column of mixed kinds as text)."""
    pyarrow = needed("pyarrow")  # only the Parquet output needs it

    columns = {}
    for name in columns_of(rows):
        values = [row.get(name) for row in rows]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, bool) for v in present):
            kind = pyarrow.bool_()
        elif present and all(type(v) is int for v in present):
            kind = pyarrow.int64()
        elif present and all(isinstance(v, float) for v in present):
            kind = pyarrow.float64()
        else:
            kind = pyarrow.string()
            values = [None if v is None else cell(v) for v in values]
        columns[name] = pyarrow.array(values, type=kind)
    return pyarrow.table(columns)


def write_parquet(rows: list[dict], path: str | Path) -> None:
    needed("pyarrow.parquet").write_table(arrow_table(rows), str(path))


def needed(module: str):
    """An optional package's module (the `balance` extra), or the project's error saying so."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ParameterError(
            tr("{module} is not installed: pip install 'rulebook[balance]'", module=module)
        ) from None
