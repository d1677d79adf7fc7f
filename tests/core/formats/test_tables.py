"""Parquet, Arrow and CSV tables: how they are opened, and which are QA data.

Fixtures are written here with polars (no binary files in the repository).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.formats.textio import read_document

from tests.helpers import error_of

# -------------------------------------------------------------------------------- opening tables


def write_table(frame: pl.DataFrame, path: Path) -> Path:
    """`frame` as `path` says: `.parquet`, `.arrow` (IPC file), `.stream.arrow` (IPC stream), `.csv`."""
    if path.name.endswith(".stream.arrow"):
        frame.write_ipc_stream(path)
    elif path.suffix == ".arrow":
        frame.write_ipc(path)
    elif path.suffix == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)
    return path


METRICS = pl.DataFrame({"step": [1, 2], "loss": [0.5, 0.25]})


@pytest.mark.parametrize(
    ("name", "label"),
    [("m.parquet", "Parquet table"), ("m.arrow", "Arrow table"), ("m.stream.arrow", "Arrow stream"),
     ("m.csv", "CSV table")],
)
def test_non_qa_table_is_skipped_with_its_columns(tmp_path: Path, name: str, label: str) -> None:
    path = write_table(METRICS, tmp_path / name)
    assert read_source(path) == Skip(path, f"not QA data: a {label} with columns 'step', 'loss'")


@pytest.mark.parametrize("name", ["t.parquet", "t.arrow", "t.stream.arrow"])
def test_magic_bytes_win_over_the_suffix(tmp_path: Path, name: str) -> None:
    path = write_table(METRICS, tmp_path / name)
    renamed = path.rename(tmp_path / "disguised.json")
    table = read_document(renamed).table
    assert table is not None and table.columns == ["step", "loss"]
    assert table.rows() == [(1, {"step": 1, "loss": 0.5}), (2, {"step": 2, "loss": 0.25})]


@pytest.mark.parametrize(("name", "label"), [("t.parquet", "Parquet table"), ("t.arrow", "Arrow table"),
                                             ("t.stream.arrow", "Arrow stream")])
def test_truncated_table_is_one_error_line(tmp_path: Path, name: str, label: str) -> None:
    path = write_table(METRICS, tmp_path / name)
    path.write_bytes(path.read_bytes()[:40])
    err = error_of(path)
    assert err.message.startswith(f"not a readable {label} (truncated or still being written?)")


def test_csv_that_is_not_text_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_bytes(b"step,loss\n\xff\xfe\x80,1\n")
    result = read_source(path)
    assert result == Skip(path, "not QA data: a CSV file that cannot be read as a table (not UTF-8 or GB18030 text)")


def test_empty_csv_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="utf-8")
    assert isinstance(read_source(path), Skip)


def test_csv_delimiter_blank_header_and_short_rows(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(';id;text\n0;a;"two\nlines"\n\n1;b\n', encoding="utf-8")
    table = read_document(path).table
    assert table is not None and table.columns == ["id", "text"]
    assert table.rows() == [(2, {"id": "a", "text": "two\nlines"}), (5, {"id": "b", "text": None})]


def test_dates_and_decimals_become_text(tmp_path: Path) -> None:
    from datetime import date
    from decimal import Decimal

    frame = pl.DataFrame({"day": [date(2024, 5, 1)], "cost": [Decimal("1.50")], "tags": [["a"]]})
    table = read_document(write_table(frame, tmp_path / "t.parquet")).table
    assert table is not None and table.rows() == [(1, {"day": "2024-05-01", "cost": "1.50", "tags": ["a"]})]
