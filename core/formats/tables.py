"""Tables: Parquet, Arrow IPC (file and stream) and CSV, opened once per file like JSON is parsed.

`textio.read_document` tells them apart by magic bytes (`PAR1`, `ARROW1`, the stream's
continuation marker `FF FF FF FF`, which Hugging Face `save_to_disk` and its cache write) and, for
CSV, which has none, by the `.csv` suffix. A `Table` knows its columns at once (Parquet and Arrow
files from their schema, without reading the data) and reads its rows on first use, so sniffing a
large table that is not QA data stays cheap. polars is imported only when a table is opened.

A CSV is decoded like JSON (`textio.read_text`: UTF-8, else GB18030). A CSV that cannot be
decoded or parsed is still a `Table`, with no columns and the `problem`: CSV files in a runs
folder are often logs or metrics, so no reader claims it and it is skipped with that reason.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from qa_inspect.core.errors import FormatError

__all__ = [
    "ARROW_FILE_MAGIC",
    "ARROW_STREAM_MAGIC",
    "CSV_SUFFIXES",
    "PARQUET_MAGIC",
    "SUBMISSION_IDS",
    "SUBMISSION_TEXTS",
    "Table",
    "TableKind",
    "cell_value",
    "csv_problem",
    "csv_table",
    "open_binary",
    "submission_columns",
    "table_kind",
]

TableKind = Literal["parquet", "arrow", "arrow-stream", "csv"]
PARQUET_MAGIC = b"PAR1"
ARROW_FILE_MAGIC = b"ARROW1"
ARROW_STREAM_MAGIC = b"\xff\xff\xff\xff"
"""Arrow IPC stream: each message starts with this continuation marker (Arrow ≥ 0.15)."""
CSV_SUFFIXES = frozenset({".csv"})
_LABELS = {"parquet": "Parquet table", "arrow": "Arrow table", "arrow-stream": "Arrow stream", "csv": "CSV table"}
_DELIMITERS = (",", ";", "\t")
Rows = list[tuple[int, dict[str, Any]]]


def table_kind(head: bytes) -> TableKind | None:
    """The binary table format a file's first bytes announce, or None."""
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if head.startswith(ARROW_FILE_MAGIC):
        return "arrow"
    if head.startswith(ARROW_STREAM_MAGIC):
        return "arrow-stream"
    return None


@dataclass(slots=True)
class Table:
    """One table: its column names now, its rows (`(number, {column: value})`) on first use.

    Numbers are 1-based data rows for Parquet/Arrow ("row N") and the file line a record starts on
    for CSV ("line N"), as `unit` says; values are JSON-like (str, int, float, bool, None, lists,
    dicts: Arrow structs), anything else (dates, decimals, bytes) as text.
    """

    path: Path
    kind: TableKind
    columns: list[str]
    problem: str | None = None
    """Why a CSV could not be read as a table (it then has no columns and no rows)."""
    notes: list[str] = field(default_factory=list)
    """What reading changed that a user should know (a BOM stripped from a line), one line each:
    the reader's run or dataset carries them as warnings."""
    _load: Callable[[], Rows] | None = field(default=None, repr=False)
    _rows: Rows | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        return _LABELS[self.kind]

    @property
    def unit(self) -> str:
        return "line" if self.kind == "csv" else "row"

    def rows(self) -> Rows:
        if self._rows is None:
            self._rows = self._load() if self._load is not None else []
        return self._rows


# ------------------------------------------------------------------------------ Parquet and Arrow


def open_binary(path: Path, kind: TableKind) -> Table:
    """A Parquet or Arrow table; a truncated or corrupt file is a FormatError naming it."""
    import polars as pl

    label = _LABELS[kind]
    if kind == "parquet":
        columns = _polars(path, label, lambda: list(pl.read_parquet_schema(path)))
        return Table(path, kind, columns, _load=lambda: _frame_rows(path, label, lambda: pl.read_parquet(path)))
    if kind == "arrow":
        columns = _polars(path, label, lambda: list(pl.read_ipc_schema(path)))
        return Table(path, kind, columns, _load=lambda: _frame_rows(path, label, lambda: pl.read_ipc(path)))
    frame = _polars(path, label, lambda: pl.read_ipc_stream(path))  # a stream has no schema footer
    return Table(path, kind, list(frame.columns), _load=lambda: _frame_rows(path, label, lambda: frame))


def _polars(path: Path, label: str, action: Callable[[], Any]) -> Any:
    import polars as pl

    try:
        return action()
    except (pl.exceptions.PolarsError, OSError, pl.exceptions.PanicException) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise FormatError(str(path), f"not a readable {label} (truncated or still being written?): {first}") from None


def _frame_rows(path: Path, label: str, read: Callable[[], Any]) -> Rows:
    frame = _polars(path, label, read)
    _check_cells(path, frame)
    rows = _polars(path, label, frame.to_dicts)
    if not all(_plain_dtype(dtype) for dtype in frame.schema.values()):
        rows = [{k: cell_value(v) for k, v in row.items()} for row in rows]
    return list(enumerate(rows, start=1))


def _check_cells(path: Path, frame: Any) -> None:
    """No text cell over `max_record_bytes`, measured by polars before any cell becomes a Python
    string (a 100 MB answer cost 3 GB as rows, then more to score)."""
    import polars as pl

    from .limits import active, too_big

    limits = active()
    for name, dtype in frame.schema.items():
        if dtype != pl.String:
            continue
        sizes = frame.get_column(name).str.len_bytes()
        biggest = sizes.max()
        if biggest is not None and biggest > limits.max_record_bytes:
            row = int(sizes.arg_max()) + 1
            raise FormatError(str(path), too_big(limits, "max_record_bytes", int(biggest), f"{name} cell"), f"row {row}")


def _plain_dtype(dtype: Any) -> bool:
    """True when polars hands values of this type out as JSON-like Python values."""
    import polars as pl

    if isinstance(dtype, (pl.List, pl.Array)):
        return _plain_dtype(dtype.inner)
    if isinstance(dtype, pl.Struct):
        return all(_plain_dtype(f.dtype) for f in dtype.fields)
    return not (dtype.is_temporal() or dtype.is_decimal() or dtype in (pl.Binary, pl.Object))


def cell_value(value: Any) -> Any:
    """A table value as a JSON-like value (`Item.meta`/`Prediction.meta` are stored as JSON)."""
    if isinstance(value, dict):
        return {str(k): cell_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [cell_value(v) for v in value]
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (Decimal, timedelta)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    return value


# ------------------------------------------------------------------------------------------- CSV


def csv_table(path: Path, text: str) -> Table:
    """A decoded CSV as a table: the first row names the columns (blank names, such as a pandas
    index, are dropped), later rows missing a cell have None there. The delimiter is the one of
    `,` `;` tab the header holds most of. No cell is too long (the `csv` module's limit, 128 KiB
    by default, is raised to the file's length: it is process-wide, and only ever raised)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = max(_DELIMITERS, key=first.count)
    if len(text) > csv.field_size_limit():
        csv.field_size_limit(len(text))  # a cell may be as long as the file (an LLM's long answer)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    boms: list[int] = []
    headers: list[int] = []
    try:
        header = [name.strip() for name in next(reader, [])]
        columns = submission_columns(header)
        rows: Rows = []
        start = reader.line_num + 1
        for cells in reader:
            if cells and cells[0].startswith("\ufeff"):  # files joined with `cat`: the BOM would join the id
                cells[0] = cells[0].lstrip("\ufeff")
                boms.append(start)
            if [cell.strip() for cell in cells] == header:  # files joined with `cat`: each brings its header
                headers.append(start)
            elif any(cell.strip() for cell in cells):
                rows.append((start, {c: cells[i] if i < len(cells) else None for i, c in enumerate(columns) if c}))
            start = reader.line_num + 1
    except csv.Error as exc:
        return Table(path, "csv", [], problem=f"not readable as CSV at line {reader.line_num}: {exc}")
    table = Table(path, "csv", [c for c in columns if c], _rows=rows)
    if boms:
        table.notes.append(f"{_lines(boms)}: a byte-order mark (U+FEFF) at the start of the line was removed")
    if headers:
        table.notes.append(f"{_lines(headers)}: the header row repeated (files joined?) was skipped, not read as a record")
    return table


def _lines(numbers: list[int]) -> str:
    """`line 3`, or `line 3 (and 2 more lines)`: where a note applies, its first line named."""
    more = len(numbers) - 1
    return f"line {numbers[0]}" + (f" (and {more:,} more line{'s' if more > 1 else ''})" if more else "")


SUBMISSION_IDS = frozenset({"id", "qid", "question_id", "questionid", "query_id", "uuid", "example_id"})
SUBMISSION_TEXTS = frozenset({"predicted", "prediction", "predictions", "answer", "answers", "text", "pred",
                              "prediction_text", "predicted_answer", "answer_text"})
"""The two-column submission CSVs people hand in (Kaggle / CS224n `Id,Predicted` and its
variants `id,prediction`, `qid,answer`, `question_id,text`, ...), names compared case-blind."""


def submission_columns(columns: list[str]) -> list[str]:
    """A two-column submission header as the prediction-table columns it means (`id`,
    `prediction`); any other header as it is. Renaming is all it takes: such a file scores
    exactly as the same file with the header written `id,prediction`."""
    if len(columns) != 2:
        return columns
    first, second = (c.lower() for c in columns)
    if first in SUBMISSION_IDS and second in SUBMISSION_TEXTS:
        return ["id", "prediction"]
    return columns


def csv_problem(path: Path, problem: str) -> Table:
    """A CSV that could not be decoded: a table without columns that says why."""
    return Table(path, "csv", [], problem=problem)
