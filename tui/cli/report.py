"""`report`: every run × slice from the database, as a table, JSON, CSV or Markdown."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from qa_inspect.core.errors import unknown_name
from qa_inspect.core.query import Filter, csv_frame, load_slice, markdown_table
from qa_inspect.core.report import SAMPLE_NOTE, SLICES, report, slice_report
from qa_inspect.tui.present import MISSING, count, dimension_name, interval, number, plural, share
from rich.table import Table
from rich.text import Text

from ..text import clean
from .common import DbOpt, JsonOpt, app, fail, loaded_db, out, print_json, short, write_text
from .filter_options import JudgeVerdictOpt, judge_pairs
from .stat_options import DEFAULT_RESAMPLES, DEFAULT_SEED, ResamplesOpt, SeedOpt

__all__ = ["adjudicated_markdown", "adjudicated_table", "freshness_table", "intervals_table", "partial_notes", "report_cmd", "report_markdown", "report_table"]


@app.command("report")
def report_cmd(
    runs_dir: Annotated[Path, typer.Argument(help="Folder holding datasets and model runs.")],
    by: Annotated[str, typer.Option(
        "--by", help="Slices, comma-separated: split, tag, answer_type, answerable; the item features question_type,"
        " gold_length, passage_length, answer_position, gold_count, gold_agreement, cross_sentence,"
        " question_overlap; error_category (each run's distribution).")] = "split,tag,answer_type",
    db: DbOpt = None,
    as_json: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    slice_name: Annotated[
        str | None, typer.Option("--slice", help="Only the items of this saved slice.", show_default=False)
    ] = None,
    ci: Annotated[bool, typer.Option(
        "--ci", help="Each run's 95% interval of every headline metric (by passage where questions share one).")] = False,
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
    adjudicated: Annotated[bool, typer.Option(
        "--adjudicated", help="Also each run's numbers with accepted aliases counted as golds (labelled adjudicated;"
        " the official table is unchanged).")] = False,
    freshness: Annotated[
        bool, typer.Option("--freshness", help="Instead: the share of golds verified within 30/90/365 days and "
                                               "open stale flags, per tag and answer type.")
    ] = False,
    judge_verdict: JudgeVerdictOpt = None,
    run: Annotated[str | None, typer.Option(
        "--run", help="With --judge-verdict: the run whose judge verdicts pick the items.", show_default=False)] = None,
) -> None:
    """Every run × slice: counts, EM/F1 or F1-recall/answer rate, each slice's share of errors.
    With --judge-verdict, every run on the items where --run's judge said so."""
    if freshness:
        return _freshness(runs_dir, db, as_json)
    dims = [d.strip() for d in by.split(",") if d.strip()]
    bad = [d for d in dims if d not in SLICES]
    if bad:
        raise fail("--by: " + unknown_name("slice dimension", bad[0], SLICES))
    if adjudicated and (csv or slice_name):
        raise fail("--adjudicated: numbers of whole runs beside the official table; leave out --csv and --slice")
    with loaded_db(runs_dir, db) as conn:
        chosen = load_slice(conn, slice_name) if slice_name else None
        if judge_verdict:
            chosen = chosen or Filter()
            chosen = chosen.with_(run=run or chosen.run, facets=(*chosen.facets, *judge_pairs(conn, run or chosen.run, judge_verdict)))
        frame = slice_report(conn, chosen, dims) if chosen is not None else report(conn, dims)
        frame = _with_samples(conn, frame, dims)
        if ci:
            frame = _with_intervals(conn, frame, seed, resamples, chosen is not None)
        adj = _adjudicated(conn) if adjudicated else None
    if as_json:
        print_json(frame.to_dicts() if adj is None else {"official": frame.to_dicts(), "adjudicated": [a.to_dict() for a in adj]})
    elif csv:
        write_text(csv_frame(frame).write_csv())  # model text never runs as a spreadsheet formula
    elif markdown:
        write_text(report_markdown(frame) + ("" if adj is None else "\n" + adjudicated_markdown(adj)))
    else:
        out.print(report_table(frame.drop([c for c in frame.columns if c.endswith(("_low", "_high", "ci_unit"))])))
        for note in partial_notes(frame) + ([SAMPLE_NOTE] if "maj" in frame.columns else []):
            out.print(Text(note, style="dim"))
        if ci:
            out.print(intervals_table(frame, seed, resamples))
        if adj is not None:
            out.print(adjudicated_table(adj))


def _with_samples(conn: Any, frame: pl.DataFrame, dims: list[str]) -> pl.DataFrame:
    """pass@k, majority vote and consistency on the rows of runs with several samples."""
    from qa_inspect.core.report import with_sample_metrics

    return with_sample_metrics(conn, frame, dims)


def _adjudicated(conn: Any) -> list[Any]:
    from qa_inspect.core.report import adjudicated_summary

    return adjudicated_summary(conn)


ADJUDICATED_TITLE = "adjudicated: accepted aliases count as golds (same scorer; the numbers above are official)"
_ADJ_COLUMNS = ("dataset", "run", "metric", "official", "adjudicated", "Δ", "items with aliases", "items moved")


def _adj_cells(a: Any) -> list[str]:
    from qa_inspect.core.report import METRIC_LABELS

    def num(v: float | None, sign: str = "") -> str:
        return "—" if v is None else f"{v:{sign}.2f}"

    return [a.dataset, a.run, METRIC_LABELS.get(a.metric, a.metric), num(a.official), num(a.adjudicated),
            num(a.delta, "+"), str(a.aliased_items), str(a.moved_items)]


def adjudicated_table(rows: list[Any]) -> Table:
    """`core.report.adjudicated_summary` rows: official beside adjudicated, per run and metric."""
    t = Table(title=ADJUDICATED_TITLE, title_justify="left", show_edge=False)
    for col in _ADJ_COLUMNS:
        t.add_column(col, justify="left" if col in ("dataset", "run", "metric") else "right")
    for a in rows:
        cells = _adj_cells(a)
        t.add_row(Text(short(cells[0], 30)), Text(short(cells[1], 30)), *(Text(c) for c in cells[2:]))
    return t


def adjudicated_markdown(rows: list[Any]) -> str:
    """The adjudicated rows as a Markdown table under a heading that says what they are."""
    return f"**{ADJUDICATED_TITLE}**\n\n" + markdown_table(_ADJ_COLUMNS, [_adj_cells(a) for a in rows])


def _with_intervals(conn: Any, frame: pl.DataFrame, seed: int, resamples: int, sliced: bool) -> pl.DataFrame:
    from qa_inspect.core.report import with_intervals

    from .stat_options import stat_options

    if sliced:
        raise fail("--ci: intervals are of whole runs; leave out --slice")
    return with_intervals(conn, frame, stat_options(seed, resamples, "auto", "bootstrap"))


def intervals_table(frame: pl.DataFrame, seed: int, resamples: int) -> Table:
    """Each run's overall value of every headline metric with its 95% interval."""
    from qa_inspect.core.report import METRIC_LABELS, REPORT_METRICS

    rows = frame.filter(pl.col("slice") == "overall")
    t = Table(title=f"95% intervals, {count(resamples)} bootstrap resamples, seed {seed}", title_justify="left",
              show_edge=False)
    for col in ("dataset", "run", "by"):
        t.add_column(col)
    shown = [m for m in REPORT_METRICS if rows[f"{m}_low"].null_count() < rows.height]
    for m in shown:
        t.add_column(METRIC_LABELS[m], justify="right")
    for r in rows.iter_rows(named=True):
        cells = [Text(short(r["dataset"], 30)), Text(short(r["run"], 30)), Text(r["ci_unit"] or MISSING)]
        for m in shown:
            value, low, high = r[m], r[f"{m}_low"], r[f"{m}_high"]
            cells.append(Text(MISSING if value is None or low is None else f"{number(value, 2)} {interval(low, high)}"))
        t.add_row(*cells)
    return t


def _freshness(runs_dir: Path, db: Path | None, as_json: bool) -> None:
    """`report --freshness`: JSON, or one table row per dataset × tag / answer type."""
    from qa_inspect.core.report import freshness

    with loaded_db(runs_dir, db) as conn:
        rows = freshness(conn)
    if as_json:
        print_json([r.to_dict() for r in rows])
    else:
        out.print(freshness_table(rows))


def freshness_table(rows: list[Any]) -> Table:
    """`core.report.freshness` rows: one line per dataset × tag / answer type."""
    t = Table(show_edge=False)
    for col in ("dataset", "by", "value", "golds", "≤30 d", "≤90 d", "≤365 d", "never", "stale open"):
        t.add_column(col, justify="right" if col not in ("dataset", "by", "value") else "left")
    for r in rows:
        shares = [share(r.share(d)) for d in (30, 90, 365)]
        t.add_row(Text(short(r.dataset, 30)), Text(dimension_name(r.dimension)), Text(clean(r.value or "")), Text(count(r.golds)),
                  *(Text(s) for s in shares), Text(count(r.never_verified)), Text(count(r.stale_open)))
    return t


_OTHER_DENOMINATOR = ("em_over_run", "f1_over_run", "answer_rate_over_dataset")


def partial_notes(frame: pl.DataFrame) -> list[str]:
    """For the terminal: each run that left items unanswered, with its numbers over the other
    denominator in words (the table keeps the official ones; JSON, CSV and Markdown have both)."""
    notes = []
    for r in frame.filter(pl.col("slice") == "overall").iter_rows(named=True):
        if r["predicted"] >= r["items"]:
            continue
        head = f"{clean(r['run'])} answers {count(r['predicted'])} of {plural(r['items'], 'item')} of {clean(r['dataset'])}: "
        if r["answer_rate_over_dataset"] is not None:
            notes.append(head + f"answer rate over all items {number(r['answer_rate_over_dataset'], 2)}")
        elif r["em_over_run"] is not None:
            notes.append(head + f"over the items it answered EM {number(r['em_over_run'], 2)} F1 {number(r['f1_over_run'], 2)}")
    return notes


def _cols(frame: pl.DataFrame, *, text: bool = False) -> list[str]:
    """Drop metric columns that are empty for every row shown (e.g. F1-recall on CMRC-only); the
    terminal table leaves the other denominator to `partial_notes`."""
    skip = {"family", *(_OTHER_DENOMINATOR if text else ())}
    return [c for c in frame.columns if c not in skip and frame[c].null_count() < frame.height]


def report_markdown(frame: pl.DataFrame) -> str:
    """The report as one Markdown table (`core.query.markdown_table`), metrics to 3 places."""
    cols = _cols(frame)
    rows = [[number(v, 3) if isinstance(v, float) else v for v in row] for row in frame.select(cols).iter_rows()]
    return markdown_table(cols, rows)


def report_table(frame: pl.DataFrame) -> Table:
    """The report as a Rich table for people: metrics to 2 places, — for a missing value, columns and
    slice dimensions by their human names (`tui.present.dimension_name`; CSV, JSON and Markdown keep
    the column names tools read)."""
    cols = _cols(frame, text=True)
    t = Table(show_edge=False)
    for c in cols:
        t.add_column(dimension_name(c), justify="right" if frame[c].dtype.is_numeric() else "left")
    for row in frame.select(cols).iter_rows(named=True):
        t.add_row(*[Text(_cell(c, v)) for c, v in row.items()])
    return t


def _cell(column: str, value: object) -> str:
    """One cell of the terminal report."""
    if isinstance(value, float) or value is None:
        return number(value, 2)
    return dimension_name(str(value)) if column == "slice" else str(value)
