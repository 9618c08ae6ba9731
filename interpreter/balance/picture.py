"""A sweep's picture: one field against one or two varied inputs, as SVG or PNG.

A panel per rulebook (lines, or a heatmap for two inputs), drawn by matplotlib (Agg)."""

from __future__ import annotations

import io
import itertools
from pathlib import Path

from dsl.messages import decimal_comma, number_text, tr
from interpreter.balance.table import cell, needed
from interpreter.errors import ParameterError
from interpreter.surface import option

#: most lines one panel draws (the other varied inputs' combinations)
MAX_LINES = 12
#: the formats a picture is written in, by the file's suffix
FORMATS = (".svg", ".png")
#: the columns that are results, not inputs
RESULTS = ("mean", "exact", "trials", "error")


def inputs_of(rows: list[dict]) -> list[str]:
    """The input columns: those before the first result column."""
    names = []
    for name in rows[0]:
        if name.startswith("P(") or name in RESULTS:
            break
        names.append(name)
    return names


def varied(rows: list[dict], names: list[str]) -> list[str]:
    return [n for n in names if len({cell(row[n]) for row in rows}) > 1]


def plotted(rows: list[dict], column: str | None) -> str:
    """The float column drawn: the one asked (with or without ` float`), else the mean
    of a number field (a damage's chance of 0 tells a designer little), else the first
    outcome's probability."""
    floats = [name for name in rows[0] if name.endswith(" float")]
    if column is None:
        numeric = any(row.get("mean float") is not None for row in rows)
        return "mean float" if numeric and "mean float" in floats else floats[0]
    for name in (column, f"{column} float"):
        if name in floats:
            return name
    raise ParameterError(
        tr(
            "--plot {column}: not a column drawn; valid: {valid}",
            column=column,
            valid=", ".join(name.removesuffix(" float") for name in floats),
        )
    )


def draw(rows: list[dict], path: str | Path, column=None, x=None, y=None, language=None) -> None:
    """Draw `column` against the input `x` (and `y`: a heatmap), one panel per rulebook,
    into the file `path` (.svg or .png), its numbers written as `language` writes them."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise ParameterError(
            tr("--picture {path}: name a .svg or .png file", path=str(path)), None, None
        )
    figure(rows, column, x, y, language).savefig(path, format=path.suffix[1:].lower())


def svg_text(rows: list[dict], column=None, x=None, y=None, language=None) -> str:
    """The picture as SVG text (for a page)."""
    out = io.StringIO()
    figure(rows, column, x, y, language).savefig(out, format="svg")
    return out.getvalue()


def figure(rows: list[dict], column=None, x=None, y=None, language=None):
    """The matplotlib Figure of `draw` (no display: the Agg backend's canvas); the numbers
    of its axes as `language` writes them (`0,5` in Spanish)."""
    column = plotted(rows, column)
    names = inputs_of(rows)
    moving = [n for n in varied(rows, names) if n != "rulebook"]
    for name in (x, y):
        if name is not None and name not in names:
            raise ParameterError(
                tr("{name}: not an input; valid: {valid}", name=name, valid=", ".join(names))
            )
    if x is None:
        if not moving:
            raise ParameterError(
                tr(
                    "nothing varies to draw: give {param} or {vary} a range",
                    param=option("param"),
                    vary=option("vary"),
                )
            )
        x = moving[0]
        if y is None and len(moving) == 2:
            y = moving[1]
    others = [n for n in moving if n not in (x, y)]
    if y is not None and others:
        raise ParameterError(
            tr(
                "a heatmap shows two inputs ({x}, {y}); {others} vary too: fix them",
                x=x,
                y=y,
                others=", ".join(others),
            )
        )
    # a Figure made directly (not by pyplot) draws on Agg: no display
    Figure = needed("matplotlib.figure").Figure

    books = list(dict.fromkeys(row["rulebook"] for row in rows))
    drawn = Figure(figsize=(5 * len(books), 4), layout="constrained")
    axes = drawn.subplots(1, len(books), squeeze=False, sharey=True)[0]
    label = column.removesuffix(" float")
    for panel, book in zip(axes, books):
        mine = [row for row in rows if row["rulebook"] == book]
        if y is None:
            _lines(panel, mine, column, x, others)
            _numbers(language, panel.xaxis, panel.yaxis)
        else:
            image = _heatmap(panel, mine, column, x, y)
            _numbers(language, drawn.colorbar(image, ax=panel, label=label).ax.yaxis)
        panel.set_title(str(book))
        panel.set_xlabel(x)
        panel.set_ylabel(y if y is not None else label)
    return drawn


def _numbers(language, *axes) -> None:
    """Axes whose ticks are numbers matplotlib writes: written as `language` writes them
    (a decimal comma where it has one; ticks given as labels, inputs' values, stay)."""
    if not decimal_comma(language):
        return
    ticker = needed("matplotlib.ticker")
    for axis in axes:
        if isinstance(axis.get_major_formatter(), ticker.ScalarFormatter):
            axis.set_major_formatter(
                ticker.FuncFormatter(lambda value, _at: number_text(value, language, "g"))
            )


def _values(rows, name) -> list:
    return list(dict.fromkeys(row[name] for row in rows))


def _lines(panel, rows, column, x, others) -> None:
    groups = list(itertools.product(*(_values(rows, n) for n in others)))
    if len(groups) > MAX_LINES:
        raise ParameterError(
            tr(
                "{count} lines to draw (one per {others}): at most {most}; fix some inputs",
                count=len(groups),
                others=", ".join(others),
                most=MAX_LINES,
            )
        )
    xs = _values(rows, x)
    numeric = all(type(v) is int for v in xs)
    for group in groups:
        chosen = [r for r in rows if all(r[n] == v for n, v in zip(others, group))]
        by_x = {r[x]: r[column] for r in chosen}
        points = [(v, by_x.get(v)) for v in xs]
        where = [v if numeric else i for i, (v, _) in enumerate(points)]
        name = ", ".join(f"{n}={cell(v)}" for n, v in zip(others, group)) or None
        panel.plot(where, [p for _, p in points], marker="o", label=name)
    if not numeric:
        panel.set_xticks(range(len(xs)), [cell(v) for v in xs], rotation=30)
    if others:
        panel.legend(fontsize="small")
    panel.grid(alpha=0.3)


def _heatmap(panel, rows, column, x, y):
    xs, ys = _values(rows, x), _values(rows, y)
    cells = {(r[x], r[y]): r[column] for r in rows}
    grid = [[cells.get((vx, vy)) for vx in xs] for vy in ys]
    grid = [[float("nan") if v is None else v for v in line] for line in grid]
    limits = (0, 1) if column.startswith("P(") else (None, None)  # probabilities: 0 to 1
    image = panel.imshow(grid, origin="lower", aspect="auto", vmin=limits[0], vmax=limits[1])
    panel.set_xticks(range(len(xs)), [cell(v) for v in xs], rotation=30)
    panel.set_yticks(range(len(ys)), [cell(v) for v in ys])
    return image
