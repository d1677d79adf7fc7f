"""`export`: an item list (a saved slice and/or filter options) with its golds and scores, to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter, export_format, export_items, load_slice
from qa_inspect.tui.present import plural
from rich.text import Text

from .common import (
    DbOpt,
    JsonOpt,
    RunsDir,
    SliceOpt,
    app,
    fail,
    loaded_db,
    out,
    print_json,
)
from .filter_options import FilterArgs, build_filter, filter_options

__all__ = ["export_cmd"]


@app.command("export")
@filter_options(order=True)
def export_cmd(
    runs_dir: RunsDir,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="File to write: .csv, .jsonl, .parquet or .md.", show_default=False)
    ],
    slice_name: SliceOpt = None,
    filters: FilterArgs = FilterArgs(),
    db: DbOpt = None,
    as_json: JsonOpt = False,
    raw_cells: Annotated[bool, typer.Option(
        "--raw-cells", help="CSV: write cells that start like a formula (= + - @) as they are, without the leading '.")] = False,
) -> None:
    """Write an item list (a saved slice and/or filter options) with its golds and scores to a file;
    the format follows the extension. Options given with --slice replace the slice's own."""
    try:
        fmt = export_format(output)
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    with loaded_db(runs_dir, db) as conn:
        base = load_slice(conn, slice_name) if slice_name else Filter()
        f = build_filter(conn, base, filters)
        rows = export_items(conn, f, output, fmt=fmt, raw_cells=raw_cells)
    if as_json:
        print_json({"path": str(output), "format": fmt, "rows": rows, "filter": f.to_dict()})
    else:
        out.print(Text(f"{plural(rows, 'item')} written to {output} ({fmt})"))
