"""Export the item browser's current list to CSV, JSONL, Parquet or Markdown (polars writes it).

The rows are the filter's items in the filter's order, with the columns the browser shows
(key, split, tag, answer type, question, prediction, best gold, scores, error category, stale flag,
the item features of `core.metrics.question_features`, and the compare run's prediction, scores,
error category and Δ while comparing) plus every gold answer: `golds` holds the golds
that are scored, `superseded_golds` those replaced by a rewritten answer (the column appears
only when some exported item has one). Columns that are empty on every exported row (a CDQA
run's EM, a dataset without tags) are left out. Lists stay lists in JSONL and Parquet and are
joined with `GOLD_SEPARATOR` in CSV and Markdown.

`delta` is compare − run (B − A), as the browser's Δ column and `qa-inspect diff`.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.store import STALE_GOLDS_SQL
from qa_inspect.core.labels import labels_of_sql
from qa_inspect.core.visible import FORMULA_PATTERN, VISIBLE, one_line

from .filters import Filter
from .sql import DELTA_SQL, FEATURE_DIMENSIONS, build, feature_columns, order_clause

if TYPE_CHECKING:
    import polars as pl

__all__ = [
    "CHUNK",
    "FORMATS",
    "GOLD_SEPARATOR",
    "OPTIONAL",
    "ExportError",
    "csv_frame",
    "export_format",
    "export_items",
    "item_table",
    "markdown_cell",
    "markdown_table",
    "write_frame",
]

FORMATS: dict[str, str] = {
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".md": "markdown",
    ".markdown": "markdown",
}
"""File extension → format."""

GOLD_SEPARATOR = " | "
"""How a list of golds is joined in CSV and Markdown."""

OPTIONAL = (
    "split", "tag", "answer_type", "answerable", "scorer", "best_gold", "em", "f1", "refused", "f1_recall",
    "error_category", "labels", *FEATURE_DIMENSIONS,
    "compare_em", "compare_f1", "compare_refused", "compare_f1_recall", "compare_error_category",
    "compare_labels", "delta",
)
"""Columns left out when empty on every exported row."""


class ExportError(QAInspectError):
    """An output path with an unknown extension or that cannot be written."""


def export_format(path: Path) -> str:
    """The format a path's extension asks for; `ExportError` (one line) for any other."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ExportError(f"{path}: " + unknown_name("export format", Path(path).suffix or "(no extension)", FORMATS))
    return fmt


CHUNK = 5_000
"""Rows turned into a polars frame at a time (and golds looked up per chunk)."""


def _with_golds(conn: sqlite3.Connection, frame: pl.DataFrame) -> pl.DataFrame:
    """Add every gold (and superseded gold) of the frame's items as list columns."""
    import polars as pl  # only an export needs polars: the app starts without it

    ids = frame["item_id"].to_list()
    golds: dict[int, list[str]] = {}
    superseded: dict[int, list[str]] = {}
    if ids:
        for item_id, text, old in conn.execute(
            f"SELECT item_id, text, superseded FROM golds WHERE item_id IN ({', '.join('?' * len(ids))})"
            " ORDER BY item_id, idx",
            ids,
        ):
            (superseded if old else golds).setdefault(item_id, []).append(text)
    return frame.with_columns(
        pl.Series("golds", [golds.get(i, []) for i in ids], dtype=pl.List(pl.String)),
        pl.Series("superseded_golds", [superseded.get(i, []) for i in ids], dtype=pl.List(pl.String)),
    )


def _labels_of(alias: str) -> str:
    """The labels a person put on this prediction (`core.labels`), ", "-joined; NULL: none."""
    return labels_of_sql(f"(SELECT r.name FROM runs r WHERE r.id = {alias}.run_id)",
                         "(SELECT d.name FROM datasets d WHERE d.id = i.dataset_id)", "i.key")


def item_table(conn: sqlite3.Connection, f: Filter) -> pl.DataFrame:
    """The rows `export_items` writes, as a polars frame (golds as lists)."""
    import polars as pl  # only an export needs polars: the app starts without it

    sql, params = build(conn, f)
    cmp_cols = (
        "pb.text, pb.em, pb.f1, pb.refused, pb.f1_recall, pb.error_category,"
        f" {_labels_of('pb')}, {DELTA_SQL}"
        if f.compare
        else "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL"
    )
    order_params: list[Any] = []
    cursor = conn.execute(
        "SELECT i.id, (SELECT d.name FROM datasets d WHERE d.id = i.dataset_id), i.key, i.split, i.tag,"
        " i.answer_type, i.answerable, i.question, p.text,"
        " (SELECT g.text FROM golds g WHERE g.item_id = i.id AND g.idx = COALESCE(p.best_gold, 0)),"
        f" p.em, p.f1, p.refused, p.f1_recall, p.scorer, p.error_category, {_labels_of('p')},"
        f" {feature_columns()}, i.id IN (SELECT s.item_id FROM ({STALE_GOLDS_SQL}) s), {cmp_cols}"
        f" {sql} ORDER BY {order_clause(f, order_params)}",
        [*params, *order_params],
    )
    schema = {
        "item_id": pl.Int64, "dataset": pl.String, "key": pl.String, "split": pl.String, "tag": pl.String,
        "answer_type": pl.String, "answerable": pl.String, "question": pl.String, "prediction": pl.String, "best_gold": pl.String,
        "em": pl.Int64, "f1": pl.Float64, "refused": pl.Boolean, "f1_recall": pl.Float64, "scorer": pl.String,
        "error_category": pl.String, "labels": pl.String, **{d: pl.String for d in FEATURE_DIMENSIONS},
        "stale": pl.Boolean,
        "compare_prediction": pl.String, "compare_em": pl.Int64, "compare_f1": pl.Float64,
        "compare_refused": pl.Boolean, "compare_f1_recall": pl.Float64, "compare_error_category": pl.String,
        "compare_labels": pl.String, "delta": pl.Float64,
    }
    # Chunks of Python rows become compact Arrow columns at once: memory stays near the frame's own size.
    chunks = [_with_golds(conn, pl.DataFrame(rows, schema=schema, orient="row"))
              for rows in iter(lambda: cursor.fetchmany(CHUNK), [])]
    frame = pl.concat(chunks) if chunks else _with_golds(conn, pl.DataFrame(schema=schema))
    frame = frame.with_columns(
        pl.lit(f.run, dtype=pl.String).alias("run"),
        pl.lit(f.compare, dtype=pl.String).alias("compare_run"),
    )
    order = [
        "dataset", "run", "key", "split", "tag", "answer_type", "answerable", "question", "prediction", "best_gold",
        "golds", "superseded_golds", "scorer", "em", "f1", "refused", "f1_recall", "error_category", "labels", "stale",
        *FEATURE_DIMENSIONS,
        "compare_run", "compare_prediction", "compare_em", "compare_f1", "compare_refused",
        "compare_f1_recall", "compare_error_category", "compare_labels", "delta",
    ]
    keep = []
    for c in order:
        if c in ("run", "prediction") and not f.run:
            continue
        if c.startswith("compare_") and c not in OPTIONAL and not f.compare:
            continue
        if frame.height and c in OPTIONAL and frame[c].null_count() == frame.height:
            continue
        if c == "superseded_golds" and (not frame.height or frame[c].list.len().max() == 0):
            continue
        keep.append(c)
    return frame.select(keep)


def _flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Lists joined for the flat formats."""
    import polars as pl  # only an export needs polars: the app starts without it

    return frame.with_columns(
        pl.col(c).list.join(GOLD_SEPARATOR) for c, t in frame.schema.items() if isinstance(t, pl.List)
    )


FLOAT_PLACES = 4
"""Decimal places of a score in a written table (CSV, Markdown): the one rule for both."""


def markdown_cell(value: object) -> str:
    """One Markdown table cell: None → empty, floats to 4 places, booleans as true/false, `|` escaped,
    line breaks → <br>, every other control or bidi character visible (`core.visible`). The one rule
    for a Markdown cell (exports, `report --markdown`, `diff --markdown`, release notes)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = f"{round(value, FLOAT_PLACES)}" if isinstance(value, float) else str(value)
    text = text.replace("|", "\\|").replace("\r\n", "<br>").replace("\r", "<br>").replace("\n", "<br>")
    return one_line(text)


def markdown_table(header: Sequence[object], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub Markdown table (cells as `markdown_cell` writes them), ending in a newline."""
    lines = ["| " + " | ".join(markdown_cell(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _markdown(frame: pl.DataFrame) -> str:
    """`frame` (lists flattened) as a Markdown table."""
    flat = _flat(frame)
    return markdown_table(flat.columns, flat.iter_rows())


def csv_frame(frame: pl.DataFrame, *, raw_cells: bool = False) -> pl.DataFrame:
    """`frame` as it goes into a CSV file: lists joined, every text cell through `core.visible.csv_cell`
    (control and bidi characters visible; a cell a spreadsheet would run as a formula, such as a
    model's `=HYPERLINK(…)`, kept as text with a leading `'` unless `raw_cells`)."""
    import polars as pl

    flat = _flat(frame)
    texts = [c for c, t in flat.schema.items() if t == pl.Utf8]
    shown = {c: pl.col(c).str.replace_many(list(VISIBLE), list(VISIBLE.values())) for c in texts}  # `csv_cell`
    if not raw_cells:
        shown = {c: pl.when(e.str.contains(FORMULA_PATTERN)).then(pl.lit("'") + e).otherwise(e) for c, e in shown.items()}
    return flat.with_columns(e.alias(c) for c, e in shown.items())


def write_frame(frame: pl.DataFrame, path: Path, fmt: str | None = None, *, raw_cells: bool = False) -> None:
    """Write `frame` to `path` in `fmt` (default: from the extension), replacing the file
    atomically so a failed export never leaves half a file. CSV and Markdown cells show control
    characters as the terminal does; CSV cells never start a formula unless `raw_cells`."""

    path = Path(path)
    fmt = fmt or export_format(path)
    if not path.parent.is_dir():
        raise ExportError(f"{path}: folder {path.parent} does not exist")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        if fmt == "csv":
            csv_frame(frame, raw_cells=raw_cells).write_csv(tmp, float_precision=FLOAT_PLACES)  # as Markdown: 4 places
        elif fmt == "jsonl":
            frame.write_ndjson(tmp)
        elif fmt == "parquet":
            frame.write_parquet(tmp)
        elif fmt == "markdown":
            tmp.write_text(_markdown(frame), encoding="utf-8")
        else:
            raise ExportError(f"{path}: " + unknown_name("export format", fmt, sorted(set(FORMATS.values()))))
        os.replace(tmp, path)
    except OSError as exc:
        raise ExportError(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        if tmp.exists():
            tmp.unlink()


def export_items(
    conn: sqlite3.Connection, f: Filter, path: Path | str, *, fmt: str | None = None, raw_cells: bool = False
) -> int:
    """Write the items of `f` to `path` (format from its extension unless `fmt` is given: csv,
    jsonl, parquet, markdown); returns the number of rows. Raises `ExportError` (one line).
    `raw_cells`: CSV cells that start like a formula are written as they are (see `csv_frame`)."""
    path = Path(path)
    fmt = fmt or export_format(path)
    frame = item_table(conn, f)
    write_frame(frame, path, fmt, raw_cells=raw_cells)
    return frame.height

