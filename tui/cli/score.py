"""`score`: one prediction file against one dataset file, no database, numbers as the official scorers print them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.formats import Kind, Skip, read_source
from qa_inspect.core.load import ScoredFile, no_cycle_collection, score_run
from qa_inspect.core.metrics import SCORERS, clear_score_caches
from qa_inspect.core.model import Dataset, Run
from qa_inspect.tui.present import MISSING, number, percent

from .common import JsonOpt, app, fail, out, print_json

if TYPE_CHECKING:
    from rich.table import Table

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
    null_odds: Annotated[
        Path | None,
        typer.Option("--null-odds", help="SQuAD 2.0: no-answer probabilities {id: p} (default: the run's own "
                     "*_null_odds.json); adds best_exact/best_f1 and their thresholds."),
    ] = None,
    na_prob_thresh: Annotated[
        float, typer.Option("--na-prob-thresh", help="SQuAD 2.0: answer nothing where the no-answer probability "
                            "is above this (the official script's default 1.0 never does).")
    ] = 1.0,
) -> None:
    """Score one prediction file against one dataset file, as the official scorers do."""
    if scorer is not None and scorer not in SCORERS:
        raise fail("--scorer: " + unknown_name("scorer", scorer, SCORERS))
    with no_cycle_collection():  # the dataset, run and scores are freed on leaving `_summary`, before it ends
        summary = _summary(dataset, predictions, scorer, items, null_odds, na_prob_thresh)
        clear_score_caches()  # every distinct answer's segments, else walked by the exit's cycle collections
    if as_json:
        print_json(summary)
        return
    from rich.text import Text  # tables only (not for --json)

    out.print(_summary_table(summary, f"{dataset.name} × {predictions.name} ({summary['scorer']})"))
    link = summary.get("link") or {}
    out.print(Text(f"matched by {link.get('method') or MISSING}: {percent(link.get('run_coverage', 0))} of the run, "
                   f"{percent(link.get('coverage', 0))} of the dataset", style="dim"))
    for warning in [*summary.get("warnings", []), *link.get("warnings", [])]:
        out.print(Text("warning: ", style="bold yellow") + Text(warning))
    if summary["unmatched"]:
        out.print(
            Text(f"{summary['unmatched']} predictions name no item of the dataset, e.g. "
                 + ", ".join(summary["unmatched_sample"][:5]), style="yellow")
        )


def _summary(dataset: Path, predictions: Path, scorer: str | None, items: Path | None, null_odds: Path | None,
             na_prob_thresh: float) -> dict[str, Any]:
    """Read both files, score, write `--items`; the summary the command prints."""
    ds = _read(dataset, "dataset")
    run = _read(predictions, "run")
    assert isinstance(ds, Dataset) and isinstance(run, Run)
    probs = _read_probabilities(null_odds) if null_odds is not None else None
    try:
        scored = score_run(ds, run, scorer, na_probs=probs, na_prob_thresh=na_prob_thresh)
        summary = scored.summary()
    except ValueError as exc:  # e.g. answered ids without a no-answer probability
        raise fail(f"{null_odds or predictions}: {exc}") from None
    link = summary.get("link") or {}
    if run.predictions and not link.get("run_coverage"):  # scoring nothing is not a score of 0.000
        sample = ", ".join(summary.get("unmatched_sample", [])[:3])
        raise fail(f"{predictions}: none of its {len(run.predictions):,} predictions names an item of {dataset}"
                   f" (by id or question; e.g. {sample}): nothing to score")
    if items is not None:
        _write_items(scored, items)
    said = [f"{path}: {w}" for path, src in ((dataset, ds), (predictions, run)) for w in src.meta.get("warnings", ())]
    return {**summary, "warnings": said}  # what reading said (repeated keys, BOMs), as `load` says it


def _read_probabilities(path: Path) -> dict[str, float]:
    """`{id: probability}` (the official script's --na-prob-file, HF's *_null_odds.json)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise fail(f"{path}: cannot read no-answer probabilities ({exc})") from None
    if not isinstance(value, dict) or not all(isinstance(v, (int, float)) for v in value.values()):
        raise fail(f"{path}: expected a JSON object of id → number")
    return {str(k): float(v) for k, v in value.items()}


def _write_items(scored: ScoredFile, items: Path) -> None:
    """One JSON line per dataset item (`--items`); a file that cannot be written → one line."""
    try:
        with items.open("w", encoding="utf-8") as fh:
            for rec in scored.item_records():
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise fail(f"{items}: cannot write ({exc.strerror})") from None


def _summary_table(summary: dict[str, Any], title: str) -> Table:
    """Overall, then by split, tag, answer type and answerable: the keys the official script prints
    (SQuAD 2.0: HasAns_/NoAns_ and best_* included), as columns."""
    from rich.table import Table
    from rich.text import Text

    t = Table(title=title, title_justify="left")
    t.add_column("slice")
    metrics = list(summary["overall"])
    for m in metrics:
        t.add_column(m, justify="right")
    t.add_row("overall", *[_fmt(summary["overall"].get(m)) for m in metrics])
    for group in ("by_split", "by_tag", "by_answer_type", "by_answerable"):
        for value, agg in summary.get(group, {}).items():
            t.add_row(Text(f"{group[3:]}={value}"), *[_fmt(agg.get(m)) for m in metrics])
    return t


def _fmt(v: object) -> str:
    """Numbers with 3 decimals (CMRC's official precision); a key a slice lacks is blank."""
    if v is None:
        return ""
    return number(v, 3) if isinstance(v, float) else str(v)
