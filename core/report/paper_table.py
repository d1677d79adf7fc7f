"""Paper tables: runs grouped by their settings into rows, sliced into columns, one or more metrics a cell.

The shapes the seed papers print: CMRC 2018 — systems × Dev/Test/Challenge with EM and F1 each, the
estimated human performance as the first row; CDQA — models × fast/slow/never-changing, each cell
"F1-recall (answer rate) [shots]" with the best few-shot count.

- **Rows** are setting keys (`run`, `model`, `prompt` …: `run_settings`); runs with the same row
  values form one row. Runs that differ only in which items they cover (CDQA's fast/slow/never
  files of one configuration, CMRC's dev/test files of one model) are one run over their union.
  Runs that would answer the same item in one cell are ambiguous: an error naming them.
- **Columns** are an item dimension (`split`, `tag`, `answer_type` …: the items are sliced) or a
  setting (the runs are); none gives one column, `all`.
- **Cells** are templates over metric names: `f1`, `em,f1` (two cells a column) or
  `f1_recall (answer_rate)`. The first metric of a template ranks: the best value of each
  column is marked (`best`), and `best_over` keeps, per cell, the run group whose value is best
  over that setting (its value is shown: `[5]`).
- Numbers are the report's (`slice_table`): the official counting, missing answers 0 for EM/F1.
- Intervals (`ci`) are the leaderboard's: every cell on one shared resampling of each dataset's
  passages (or items), drawn once for the whole table (`paper_table_ci`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.stats import DEFAULT_RESAMPLES, DEFAULT_SEED

from .metrics import DIMENSIONS, HUMAN, human_frame, item_frame, slice_table
from .paper_table_sums import RunRow, group_values, run_rows, run_sums
from .run_settings import RunSettings
from .sample_metrics import SAMPLE_CELLS, item_samples, sample_cells

if TYPE_CHECKING:  # imported where used: the app starts without numpy and polars
    import polars as pl

    from .paper_table_ci import TableIntervals

__all__ = ["ALL", "CELL_METRICS", "PaperTable", "TableCell", "TableError", "TableSpec", "frame_table", "paper_table"]

ALL = "all"
"""The one column of a table without `cols`."""

CELL_METRICS = ("em", "f1", "f1_recall", "answer_rate", "items", "predicted", "answered", "errors", *SAMPLE_CELLS)
"""Names a cell template may use."""

PARTITION_KEYS = frozenset({"tag", "task", "split", "dataset"})
"""Settings that say which items a file covers, not how the run was made: runs differing only in
these are one run over the union of their items."""

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:@[0-9]+)?")


class TableError(QAInspectError):
    """A table that cannot be built as asked (unknown key or metric, runs that cannot be told apart)."""


@dataclass(frozen=True, slots=True)
class TableSpec:
    rows: tuple[str, ...] = ("run",)
    cols: str | None = None
    cells: tuple[str, ...] = ("f1",)
    best_over: str | None = None
    where: Mapping[str, str] = field(default_factory=dict)
    human: bool = False
    dataset: str | None = None
    ci: bool = False
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    """The intervals' resampling, as the CLI's and the leaderboard's (`core.stats.seeds`)."""
    adjudicated: bool = False
    """Cells from adjudicated scores (accepted aliases count as golds, `adjudicated`), not official ones."""

    def metrics_of(self, template: str) -> list[str]:
        return [w for w in _WORD.findall(template) if w in CELL_METRICS]


@dataclass(slots=True)
class TableCell:
    """One cell: every metric its template names (None where the scorer does not give it)."""

    values: dict[str, float | None]
    ci: dict[str, tuple[float, float]] = field(default_factory=dict)
    best_over: str | None = None
    best: bool = False

    def rank(self, template_metrics: Sequence[str]) -> float | None:
        return self.values.get(template_metrics[0]) if template_metrics else None


@dataclass(slots=True)
class PaperTable:
    spec: TableSpec
    columns: list[str]
    rows: list[tuple[str, ...]]
    """Each row's values of `spec.rows` (the human row: ("human estimate", "", …))."""
    cells: dict[tuple[int, str, str], TableCell]
    """(row index, column, template) → cell; absent where the row has no items in the column."""
    runs: dict[int, list[str]]
    """Row index → the runs it is made of."""
    ci_units: dict[str, str] = field(default_factory=dict)
    """With intervals: dataset → the unit its shared resampling drew (passage or item)."""

    def cell(self, row: int, column: str, template: str) -> TableCell | None:
        return self.cells.get((row, column, template))

    def to_dict(self) -> dict[str, Any]:
        out_rows = []
        for i, labels in enumerate(self.rows):
            cells = {
                f"{c} · {t}": {"values": cell.values, "ci": {k: list(v) for k, v in cell.ci.items()},
                               "best_over": cell.best_over, "best": cell.best}
                for (r, c, t), cell in self.cells.items() if r == i
            }
            out_rows.append({"labels": dict(zip(self.spec.rows, labels)), "runs": self.runs.get(i, []), "cells": cells})
        spec = self.spec
        return {"rows": list(spec.rows), "cols": spec.cols, "cells": list(spec.cells), "best_over": spec.best_over,
                "where": dict(spec.where), "columns": self.columns, "table": out_rows,
                **({"numbers": "adjudicated"} if spec.adjudicated else {}),
                **({"ci": {"resamples": spec.resamples, "seed": spec.seed, "units": dict(self.ci_units)}} if spec.ci else {})}


def _check(spec: TableSpec, runs: Sequence[RunSettings]) -> None:
    known = {"run"} | {k for r in runs for k in r.settings}
    for key in (*spec.rows, *([spec.best_over] if spec.best_over else []), *spec.where):
        if key not in known:
            raise TableError(unknown_name("setting", key, sorted(known)))
    if spec.cols is not None and spec.cols not in known and spec.cols not in DIMENSIONS:
        raise TableError(unknown_name("column", spec.cols, [*DIMENSIONS, *sorted(known)],
                                      hint=" (an item dimension or a setting of the runs)"))
    for template in spec.cells:
        if not spec.metrics_of(template):
            raise TableError(f"cell {template!r} names no metric; use {', '.join(CELL_METRICS)}")


def _chosen(spec: TableSpec, runs: Sequence[RunSettings]) -> list[RunSettings]:
    out = [r for r in runs if all(r.get(k) == v for k, v in spec.where.items())]
    if spec.dataset is not None:
        out = [r for r in out if r.dataset == spec.dataset]
    return out


def _group_key(spec: TableSpec, run: RunSettings) -> tuple[tuple[str, ...], str | None, str | None]:
    """(row values, column value when columns are a setting, best-over value)."""
    col = run.get(spec.cols) if spec.cols is not None and spec.cols not in DIMENSIONS else None
    best = run.get(spec.best_over) if spec.best_over else None
    return tuple(run.get(k) or "—" for k in spec.rows), col, best


def _ambiguity(spec: TableSpec, members: Sequence[RunSettings]) -> str | None:
    """A setting the group's runs differ in that neither the table nor the item partition explains."""
    used = {*spec.rows, spec.cols, spec.best_over, *PARTITION_KEYS}
    keys = {k for r in members for k in r.settings} - used
    for key in sorted(keys):
        if len({r.get(key) for r in members}) > 1:
            return key
    return None


def _groups(spec: TableSpec, runs: Sequence[RunSettings]) -> dict[tuple[Any, ...], list[RunSettings]]:
    groups: dict[tuple[Any, ...], list[RunSettings]] = {}
    for run in runs:
        groups.setdefault(_group_key(spec, run), []).append(run)
    for members in groups.values():
        key = _ambiguity(spec, members)
        if key is not None:
            names = ", ".join(r.run for r in members[:3]) + (f" and {len(members) - 3} more" if len(members) > 3 else "")
            raise TableError(f"runs {names} differ in {key!r}: put it in the rows, or choose one (--rows, --where {key}=…)")
    return groups


def _group_frame(frame: pl.DataFrame, members: Sequence[RunSettings]) -> pl.DataFrame:
    """The group's runs as one run over the union of the items they answer."""
    import polars as pl

    names = [r.run for r in members]
    part = frame.filter(pl.col("run").is_in(names))
    if len(names) > 1:
        answered = part.filter(pl.col("predicted")).group_by(["dataset", "item_key"]).agg(pl.col("run"))
        twice = answered.filter(pl.col("run").list.len() > 1)
        if twice.height:
            both = sorted(set(twice.row(0, named=True)["run"]))
            raise TableError(f"runs {', '.join(both)} answer the same items with the same settings; "
                             "tell them apart with [[run]] settings in qa-inspect.toml or use --rows run")
        part = part.sort("predicted", descending=True).unique(["dataset", "item_key"], keep="first", maintain_order=True)
    return part.with_columns(pl.lit(names[0]).alias("run"))


def _one_dataset(frame: pl.DataFrame) -> pl.DataFrame:
    """A group spanning dataset files (CMRC dev and test) counted as one: one scorer required."""
    import polars as pl

    scorers = frame.get_column("scorer").drop_nulls().unique().to_list()
    if len(scorers) > 1:
        runs = ", ".join(sorted(frame.get_column("run").unique().to_list()))
        raise TableError(f"one row mixes scorers {', '.join(sorted(scorers))} ({runs}); choose one with --dataset")
    return frame.with_columns(pl.lit("table").alias("dataset"))


def _values(frame: pl.DataFrame, spec: TableSpec) -> dict[str, dict[str, float | None]]:
    """Column value → metric → value, for one group's frame."""
    by = spec.cols if spec.cols in DIMENSIONS else None
    table = slice_table(_one_dataset(frame), by)
    out: dict[str, dict[str, float | None]] = {}
    sampled = any(m in SAMPLE_CELLS for t in spec.cells for m in spec.metrics_of(t))
    slices = _slices(frame, spec) if sampled and by else {ALL: frame}
    for row in table.iter_rows(named=True):
        column = str(row["value"]) if by else ALL
        out[column] = {m: row[m] for m in CELL_METRICS if m not in SAMPLE_CELLS}
        if sampled and column in slices:
            out[column].update(sample_cells(slices[column]))
    return out


def _slices(frame: pl.DataFrame, spec: TableSpec) -> dict[str, pl.DataFrame]:
    if spec.cols in DIMENSIONS:
        return {str(k[0]) if k[0] is not None else "—": g for k, g in frame.group_by(spec.cols)}
    return {ALL: frame}


def _cells_of(frame: pl.DataFrame, spec: TableSpec, col_value: str | None) -> dict[tuple[str, str], TableCell]:
    return _cells_from(_values(frame, spec), spec, col_value)


def _better(new: TableCell, old: TableCell | None, metrics: Sequence[str]) -> bool:
    a, b = new.rank(metrics), None if old is None else old.rank(metrics)
    return old is None or (a is not None and (b is None or a > b))


def paper_table(conn: sqlite3.Connection, spec: TableSpec, runs: Sequence[RunSettings]) -> PaperTable:
    """The table `spec` asks for over `runs` (their settings: `run_settings`): cells from each
    run's sums in SQL (`paper_table_sums`); item frames only for the rows that need them (rows
    of runs from datasets of several families) and adjudicated tables (re-scored item by item).
    Intervals: every kept cell's at the end, on one shared resampling per dataset (`paper_table_ci`)."""
    if spec.adjudicated:
        return frame_table(conn, spec, runs)
    _check(spec, runs)
    chosen = _chosen(spec, runs)
    if not chosen:
        raise TableError("no run matches" + (f" --where {spec.where}" if spec.where else ""))
    table = PaperTable(spec, [], [], {}, {})
    human = _human(conn, spec) if spec.human else None
    if human is not None:
        table.rows.append((HUMAN, *([""] * (len(spec.rows) - 1))))
        table.runs[0] = [HUMAN]
    intervals = _intervals(conn, spec)
    cells_of = _noting(intervals, _summed_cells(conn, spec, chosen), _run_datasets(conn, chosen), spec)
    _fill(table, spec, cells_of, _groups(spec, chosen))
    if human is not None:
        _add_human(table, spec, human, intervals)
    _mark_best(table)
    _draw(table, intervals)
    return table


def frame_table(conn: sqlite3.Connection, spec: TableSpec, runs: Sequence[RunSettings]) -> PaperTable:
    """`paper_table` from the item frame of every run, averaged in polars: the reference the sums
    are tested against, and the path of adjudicated tables. Its intervals are drawn as
    `paper_table`'s (on the adjudicated scores for an adjudicated table)."""
    import polars as pl

    _check(spec, runs)
    chosen = _chosen(spec, runs)
    if not chosen:
        raise TableError("no run matches" + (f" --where {spec.where}" if spec.where else ""))
    frame = _frame(conn, spec, [r.run for r in chosen], human=spec.human)
    table = PaperTable(spec, [], [], {}, {})
    human = frame.filter(pl.col("run") == HUMAN)
    if spec.human and human.height:
        table.rows.append((HUMAN, *([""] * (len(spec.rows) - 1))))
        table.runs[0] = [HUMAN]
    rest = frame.filter(pl.col("run") != HUMAN)
    intervals = _intervals(conn, spec)
    cells_of = _noting(intervals, lambda members, col: _cells_of(_group_frame(rest, members), spec, col),
                       _run_datasets(conn, chosen), spec)
    _fill(table, spec, cells_of, _groups(spec, chosen))
    if spec.human and human.height:
        _add_human(table, spec, human, intervals)
    _mark_best(table)
    _draw(table, intervals)
    return table


def _frame(conn: sqlite3.Connection, spec: TableSpec, names: list[str], *, human: bool) -> pl.DataFrame:
    """The item frame of runs `names` (and the human estimate) as the table counts it: sample
    counts joined when a cell names a sample metric, adjudicated when asked, one dataset's."""
    import polars as pl

    frame = item_frame(conn, names, human=human) if names else human_frame(conn)
    if any(m in SAMPLE_CELLS for t in spec.cells for m in spec.metrics_of(t)) and names:
        frame = frame.join(item_samples(conn, names), on=["dataset", "run", "item_key"], how="left")
    if spec.adjudicated:
        from .adjudicated import adjudicate_item_frame

        frame = adjudicate_item_frame(conn, frame)
    if spec.dataset is not None:
        frame = frame.filter(pl.col("dataset") == spec.dataset)
    return frame


def _human(conn: sqlite3.Connection, spec: TableSpec) -> pl.DataFrame | None:
    """The human estimate's item frame, None when no item of the table's datasets has one."""
    frame = _frame(conn, spec, [], human=True)
    return frame if frame.height else None


CellsOf = Callable[[Sequence[RunSettings], "str | None"], dict[tuple[str, str], TableCell]]
"""A row's cells from its runs and its setting column (None when columns are item slices)."""


def _summed_cells(conn: sqlite3.Connection, spec: TableSpec, chosen: Sequence[RunSettings]) -> CellsOf:
    """Cells from the runs' sums, all runs summed in one grouped query up front."""
    by = spec.cols if spec.cols in DIMENSIONS else None
    sampled = any(m in SAMPLE_CELLS for t in spec.cells for m in spec.metrics_of(t))
    rows = run_rows(conn, [r.run for r in chosen])
    sums, items = run_sums(conn, rows.values(), by, sampled)

    def cells(members: Sequence[RunSettings], col_value: str | None) -> dict[tuple[str, str], TableCell]:
        present = [rows[m.run] for m in members if m.run in rows]
        _check_group(conn, members, present)
        if len({(r.family, r.scorer) for r in present}) > 1:
            frame = _frame(conn, spec, [r.name for r in present], human=False)
            return _cells_of(_group_frame(frame, members), spec, col_value)
        return _cells_from(group_values(present, by, sums, items, sampled) if present else {}, spec, col_value)

    return cells


def _check_group(conn: sqlite3.Connection, members: Sequence[RunSettings], present: Sequence[RunRow]) -> None:
    """The errors the frame path raises for a row: runs answering one item twice, mixed scorers."""
    if len(present) > 1:
        twice = conn.execute(
            "SELECT GROUP_CONCAT(r.name, char(31)) FROM predictions p JOIN runs r ON r.id = p.run_id"
            f" WHERE p.run_id IN ({', '.join('?' * len(present))}) GROUP BY p.item_id HAVING COUNT(*) > 1 LIMIT 1",
            [r.id for r in present]).fetchone()
        if twice is not None:
            raise TableError(f"runs {', '.join(sorted(set(twice[0].split(chr(31)))))} answer the same items with the same"
                             " settings; tell them apart with [[run]] settings in qa-inspect.toml or use --rows run")
    scorers = {r.scorer for r in present if r.scorer is not None}
    if len(scorers) > 1:
        raise TableError(f"one row mixes scorers {', '.join(sorted(scorers))} ({members[0].run}); choose one with --dataset")


def _cells_from(values: Mapping[str, Mapping[str, float | None]], spec: TableSpec,
                col_value: str | None) -> dict[tuple[str, str], TableCell]:
    """A row's cells (keyed by column and template) from its values per column value."""
    out: dict[tuple[str, str], TableCell] = {}
    for column, metrics in values.items():
        for template in spec.cells:
            out[(col_value or column, template)] = TableCell({m: metrics.get(m) for m in spec.metrics_of(template)})
    return out


def _intervals(conn: sqlite3.Connection, spec: TableSpec) -> TableIntervals | None:
    """Where the table's intervals are noted and drawn (`paper_table_ci`); None without `ci`."""
    if not spec.ci:
        return None
    from .paper_table_ci import TableIntervals

    return TableIntervals(conn, spec.cols if spec.cols in DIMENSIONS else None, seed=spec.seed, resamples=spec.resamples,
                          adjudicated=spec.adjudicated)


def _run_datasets(conn: sqlite3.Connection, chosen: Sequence[RunSettings]) -> dict[str, str]:
    """Run → the dataset it answers (runs without one have no items)."""
    return {name: row.dataset for name, row in run_rows(conn, [r.run for r in chosen]).items()}


def _noting(intervals: TableIntervals | None, cells_of: CellsOf, datasets: Mapping[str, str], spec: TableSpec) -> CellsOf:
    """`cells_of`, each cell noted for an interval with the runs it is made of (per dataset) and
    its item slice (None for a column of a setting, or no columns)."""
    if intervals is None:
        return cells_of
    by = spec.cols in DIMENSIONS

    def noted(members: Sequence[RunSettings], col_value: str | None) -> dict[tuple[str, str], TableCell]:
        parts: dict[str, list[str]] = {}
        for m in members:
            if m.run in datasets:
                parts.setdefault(datasets[m.run], []).append(m.run)
        out = cells_of(members, col_value)
        for (column, _), cell in out.items():
            intervals.note(cell, parts, column if by else None)
        return out

    return noted


def _draw(table: PaperTable, intervals: TableIntervals | None) -> None:
    """The kept cells' intervals, all drawn at once, and the unit each dataset resampled."""
    if intervals is not None:
        intervals.draw(table.cells.values())
        table.ci_units = dict(intervals.units)


def _add_human(table: PaperTable, spec: TableSpec, human: pl.DataFrame, intervals: TableIntervals | None) -> None:
    """The human estimate as row 0: per item slice, or the same overall value in every setting column."""
    parts = {ds: [HUMAN] for ds in human.get_column("dataset").unique().to_list()}
    by = spec.cols in DIMENSIONS
    for (column, template), cell in _cells_of(human, spec, None).items():
        if intervals is not None:
            intervals.note(cell, parts, column if by else None)
        targets = table.columns if spec.cols is not None and spec.cols not in DIMENSIONS else [column]
        for target in targets:
            table.cells[(0, target, template)] = cell


def _fill(table: PaperTable, spec: TableSpec, cells_of: CellsOf,
          groups: Mapping[tuple[Any, ...], list[RunSettings]]) -> None:
    index: dict[tuple[str, ...], int] = {}
    columns: dict[str, None] = {}
    for (labels, col_value, best_value), members in sorted(groups.items(), key=lambda kv: _sort_key(kv[0])):
        row = index.setdefault(labels, len(table.rows))
        if row == len(table.rows):
            table.rows.append(labels)
        table.runs.setdefault(row, []).extend(r.run for r in members)
        for (column, template), cell in cells_of(members, col_value).items():
            columns[column] = None
            cell.best_over = best_value
            key = (row, column, template)
            if _better(cell, table.cells.get(key), spec.metrics_of(template)):
                table.cells[key] = cell
    table.columns = sorted(columns, key=_natural) if spec.cols not in DIMENSIONS else _dimension_order(columns)


def _sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    labels, col, best = key
    return tuple(_natural(v) for v in labels), _natural(col or ""), _natural(best or "")


def _natural(text: str) -> tuple[Any, ...]:
    """`2shot` before `10shot`: digits compared as numbers."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text))


_ORDER = {"dev": 0, "test": 1, "challenge": 2, "trial": 3, "fast-changing": 0, "slow-changing": 1, "never-changing": 2}


def _dimension_order(columns: Mapping[str, None]) -> list[str]:
    """The papers' order where known (Dev, Test, Challenge; fast, slow, never), else by name."""
    return sorted(columns, key=lambda c: (_ORDER.get(c, 99), _natural(c)))


def _mark_best(table: PaperTable) -> None:
    """Mark the best value of every (column, template) among the model rows (never the human row)."""
    best: dict[tuple[str, str], tuple[float, list[TableCell]]] = {}
    for (row, column, template), cell in table.cells.items():
        if table.runs.get(row) == [HUMAN]:
            continue
        value = cell.rank(table.spec.metrics_of(template))
        if value is None:
            continue
        seen = best.get((column, template))
        if seen is None or value > seen[0] + 1e-12:
            best[(column, template)] = (value, [cell])
        elif abs(value - seen[0]) <= 1e-12:
            seen[1].append(cell)
    for _, cells in best.values():
        for cell in cells:
            cell.best = True
