"""`export`: an item list (a saved slice and/or filter options) with its golds and scores, to a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter, export_format, export_items, load_slice
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
from .filter_options import (
    CompareOpt,
    DatasetOpt,
    DescOpt,
    EmOpt,
    F1MaxOpt,
    F1MinOpt,
    JudgeVerdictOpt,
    RefusedOpt,
    RunOpt,
    SearchOpt,
    SortOpt,
    SplitOpt,
    StaleOpt,
    TagOpt,
    TypeOpt,
    build_filter,
)

__all__ = ["export_cmd"]


@app.command("export")
def export_cmd(
    runs_dir: RunsDir,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="File to write: .csv, .jsonl, .parquet or .md.", show_default=False)
    ],
    slice_name: SliceOpt = None,
    dataset: DatasetOpt = None,
    run: RunOpt = None,
    compare: CompareOpt = None,
    split: SplitOpt = None,
    tag: TagOpt = None,
    answer_type: TypeOpt = None,
    refused: RefusedOpt = None,
    em: EmOpt = None,
    f1_min: F1MinOpt = None,
    f1_max: F1MaxOpt = None,
    search: SearchOpt = None,
    stale: StaleOpt = None,
    sort: SortOpt = None,
    descending: DescOpt = False,
    judge_verdict: JudgeVerdictOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write an item list (a saved slice and/or filter options) with its golds and scores to a file;
    the format follows the extension. Options given with --slice replace the slice's own."""
    try:
        fmt = export_format(output)
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    with loaded_db(runs_dir, db) as conn:
        base = load_slice(conn, slice_name) if slice_name else Filter()
        f = build_filter(
            conn, base, dataset=dataset, run=run, compare=compare, split=split, tag=tag, answer_type=answer_type,
            refused=refused, em=em, f1_min=f1_min, f1_max=f1_max, search=search, stale=stale, sort=sort,
            descending=descending, judge_verdict=judge_verdict,
        )
        rows = export_items(conn, f, output, fmt=fmt)
    if as_json:
        print_json({"path": str(output), "format": fmt, "rows": rows, "filter": f.to_dict()})
    else:
        out.print(Text(f"{rows:,} items written to {output} ({fmt})"))
