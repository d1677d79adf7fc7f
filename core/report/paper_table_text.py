"""How a paper table reads: cell templates as headers (`template_label`), cells as text
(`cell_text`), and which columns and cells a dataset's table can have (`table_axes`)."""

from __future__ import annotations

import re
import sqlite3

from qa_inspect.core.errors import unknown_name

from .metrics import DIMENSIONS
from .paper_table import _WORD, TableCell, TableError

__all__ = ["cell_text", "table_axes", "template_label"]


def template_label(template: str) -> str:
    """A cell template as a column header reads it: `f1_recall (answer_rate)` → `F1-recall (answer rate)`."""
    from .metric_labels import METRIC_LABELS

    return _WORD.sub(lambda m: METRIC_LABELS.get(m.group(0), m.group(0)), template)


def cell_text(cell: TableCell | None, template: str, places: int = 1) -> str:
    """A cell as the template writes it: `62.3 (88.1) [5]`, with `[low, high]` after values that have one."""
    if cell is None:
        return "—"

    def one(match: re.Match[str]) -> str:
        name = match.group(0)
        if name not in cell.values:
            return name
        value = cell.values[name]
        if value is None:
            return "—"
        text = f"{value:,.0f}" if name in ("items", "predicted", "answered", "errors") else f"{value:.{places}f}"
        if name in cell.ci:
            low, high = cell.ci[name]
            text += f" [{low:.{places}f}, {high:.{places}f}]"
        return text

    text = _WORD.sub(one, template)
    return f"{text} [{cell.best_over}]" if cell.best_over else text


def table_axes(conn: sqlite3.Connection, dataset: str) -> tuple[list[str], tuple[str, ...]]:
    """For a table of one dataset: the item dimensions it varies in (its possible columns) and the
    cells its scorer reports (`f1_recall (answer_rate)` for CDQA scorers, else `em`, `f1`)."""
    from qa_inspect.core.metrics import uses_f1_recall

    row = conn.execute("SELECT id, scorer, family FROM datasets WHERE name = ?", (dataset,)).fetchone()
    if row is None:
        raise TableError(unknown_name("dataset", dataset, [r[0] for r in conn.execute("SELECT name FROM datasets ORDER BY name")],
                                      none="none loaded"))
    dims = [d for d in DIMENSIONS
            if conn.execute(f"SELECT COUNT(DISTINCT {d}) FROM items WHERE dataset_id = ?", (row[0],)).fetchone()[0] > 1]
    cells = ("f1_recall (answer_rate)",) if uses_f1_recall(row[1], row[2]) else ("em", "f1")
    return dims, cells
