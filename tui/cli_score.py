"""`score` (two files, no database) and `report` (every run × slice from the database)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import polars as pl
import typer
from rich.table import Table
from rich.text import Text

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.metrics.registry import SCORERS
from qa_inspect.core.model import Dataset, Run
from qa_inspect.core.report import DIMENSIONS, report
from qa_inspect.core.load import score_run
from qa_inspect.core.query import load_slice
from qa_inspect.core.report import slice_report

from .cli import DbOpt, JsonOpt, app, fail, loaded_db, out, print_json


def _read(path: Path, kind: str) -> Dataset | Run:
    if not path.is_file():
        raise fail(f"{path}: no such file")
    try:
        src = read_source(path, as_kind=kind)  # type: ignore[arg-type]
    except QAInspectError as exc:
        raise fail(str(exc)) from None
    if isinstance(src, Skip):
        raise fail(f"{path}: not a {kind} file ({src.reason})")
    return src


@app.command("score")
def score_cmd(
    dataset: Annotated[Path, typer.Argument(help="Dataset file (SQuAD-style, CMRC, CDQA, JSONL).")],
    predictions: Annotated[Path, typer.Argument(help="Prediction file ({id: text} map or records).")],
    scorer: Annotated[
        str | None, typer.Option("--scorer", help=f"One of {', '.join(SCORERS)} (default: the dataset's family).")
    ] = None,
    as_json: JsonOpt = False,
    items: Annotated[
        Path | None, typer.Option("--items", help="Write one JSON line per item to this file.")
    ] = None,
) -> None:
    """Score one prediction file against one dataset file, as the official scorers do."""
    if scorer is not None and scorer not in SCORERS:
        raise fail(f"unknown scorer {scorer!r}; choose from {', '.join(SCORERS)}")
    ds = _read(dataset, "dataset")
    run = _read(predictions, "run")
    assert isinstance(ds, Dataset) and isinstance(run, Run)
    scored = score_run(ds, run, scorer)
    summary = scored.summary()
    if items is not None:
        try:
            with items.open("w", encoding="utf-8") as fh:
                for rec in scored.item_records():
                    fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        except OSError as exc:
            raise fail(f"{items}: cannot write ({exc.strerror})") from None
    if as_json:
        print_json(summary)
        return
    t = Table(title=f"{dataset.name} × {predictions.name} ({summary['scorer']})", title_justify="left")
    t.add_column("slice")
    metrics = [k for k in summary["overall"] if k not in ("total",)]
    for m in metrics:
        t.add_column(m, justify="right")
    t.add_column("total", justify="right")
    t.add_row("overall", *[_fmt(summary["overall"][m]) for m in metrics], str(summary["overall"]["total"]))
    for group in ("by_split", "by_tag", "by_answer_type"):
        for value, agg in summary[group].items():
            t.add_row(Text(f"{group[3:]}={value}"), *[_fmt(agg[m]) for m in metrics], str(agg["total"]))
    out.print(t)
    if summary["unmatched"]:
        out.print(
            Text(f"{summary['unmatched']} predictions name no item of the dataset, e.g. "
                 + ", ".join(summary["unmatched_sample"][:5]), style="yellow")
        )


def _fmt(v: object) -> str:
    return f"{v:.3f}" if isinstance(v, float) else str(v)


@app.command("report")
def report_cmd(
    runs_dir: Annotated[Path, typer.Argument(help="Folder holding datasets and model runs.")],
    by: Annotated[str, typer.Option("--by", help="Slices, comma-separated: split,tag,answer_type.")] = "split,tag,answer_type",
    db: DbOpt = None,
    as_json: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    slice_name: Annotated[
        str | None, typer.Option("--slice", help="Only the items of this saved slice.", show_default=False)
    ] = None,
) -> None:
    """Every run × slice: counts, EM/F1 or F1-recall/answer rate, each slice's share of errors."""
    dims = [d.strip() for d in by.split(",") if d.strip()]
    bad = [d for d in dims if d not in DIMENSIONS]
    if bad:
        raise fail(f"--by: unknown slice {', '.join(bad)}; choose from {', '.join(DIMENSIONS)}")
    with loaded_db(runs_dir, db) as conn:
        frame = slice_report(conn, load_slice(conn, slice_name), dims) if slice_name else report(conn, dims)
    if as_json:
        print_json(frame.to_dicts())
    elif csv:
        out.file.write(frame.write_csv())
    elif markdown:
        out.file.write(to_markdown(frame))
    else:
        out.print(rich_table(frame))


def _cols(frame: pl.DataFrame) -> list[str]:
    """Drop metric columns that are empty for every row shown (e.g. F1-recall on CMRC-only)."""
    return [c for c in frame.columns if c != "family" and frame[c].null_count() < frame.height]


def to_markdown(frame: pl.DataFrame) -> str:
    cols = _cols(frame)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in frame.select(cols).iter_rows():
        cells = [_fmt(round(v, 3)) if isinstance(v, float) else ("" if v is None else str(v)) for v in row]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def rich_table(frame: pl.DataFrame) -> Table:
    cols = _cols(frame)
    t = Table(show_edge=False)
    for c in cols:
        t.add_column(c, justify="right" if frame[c].dtype.is_numeric() else "left")
    for row in frame.select(cols).iter_rows():
        t.add_row(*[Text(f"{v:.2f}" if isinstance(v, float) else ("—" if v is None else str(v))) for v in row])
    return t
