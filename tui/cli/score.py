"""`score`: one prediction file against one dataset file, no database, numbers as the official scorers print them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.formats import Kind, Skip, read_source
from qa_inspect.core.load import ScoredFile, score_run
from qa_inspect.core.metrics import SCORERS
from qa_inspect.core.model import Dataset, Run

from .common import JsonOpt, app, fail, out, print_json

__all__ = ["score_cmd"]


def _read(path: Path, kind: Kind) -> Dataset | Run:
    """The file read as `kind`; a missing file, a parse error or a file of the other kind → one line."""
    if not path.is_file():
        raise fail(f"{path}: no such file")
    try:
        src = read_source(path, as_kind=kind)
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
        _write_items(scored, items)
    if as_json:
        print_json(summary)
        return
    out.print(_summary_table(summary, f"{dataset.name} × {predictions.name} ({summary['scorer']})"))
    if summary["unmatched"]:
        out.print(
            Text(f"{summary['unmatched']} predictions name no item of the dataset, e.g. "
                 + ", ".join(summary["unmatched_sample"][:5]), style="yellow")
        )


def _write_items(scored: ScoredFile, items: Path) -> None:
    """One JSON line per dataset item (`--items`); a file that cannot be written → one line."""
    try:
        with items.open("w", encoding="utf-8") as fh:
            for rec in scored.item_records():
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise fail(f"{items}: cannot write ({exc.strerror})") from None


def _summary_table(summary: dict[str, Any], title: str) -> Table:
    """Overall, then by split, tag and answer type; the scorer's metrics, then the item count."""
    t = Table(title=title, title_justify="left")
    t.add_column("slice")
    metrics = [k for k in summary["overall"] if k not in ("total",)]
    for m in metrics:
        t.add_column(m, justify="right")
    t.add_column("total", justify="right")
    t.add_row("overall", *[_fmt(summary["overall"][m]) for m in metrics], str(summary["overall"]["total"]))
    for group in ("by_split", "by_tag", "by_answer_type"):
        for value, agg in summary[group].items():
            t.add_row(Text(f"{group[3:]}={value}"), *[_fmt(agg[m]) for m in metrics], str(agg["total"]))
    return t


def _fmt(v: object) -> str:
    """Numbers as the official scorers print them: 3 decimals."""
    return f"{v:.3f}" if isinstance(v, float) else str(v)
