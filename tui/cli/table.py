"""`table`: the papers' tables from many runs — rows of run settings, columns of slices or
settings, one or more metrics a cell, best per column in bold; text, Markdown, LaTeX, CSV, JSON."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from qa_inspect.tui.present import count
from rich.table import Table
from rich.text import Text

from .common import DbOpt, JsonOpt, MarkdownOpt, RunsDir, app, fail, loaded_db, out, print_json, say, write_text
from .stat_options import DEFAULT_RESAMPLES, DEFAULT_SEED, ResamplesOpt, SeedOpt

if TYPE_CHECKING:
    from qa_inspect.core.report import PaperTable, TableSpec

__all__ = ["table_cmd", "table_rows"]



def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _where(pairs: list[str]) -> dict[str, str]:
    out_: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise fail(f"--where {pair!r}: expected key=value, e.g. --where prompt=cot")
        out_[key.strip()] = value.strip()
    return out_


def _spec(rows: str, cols: str | None, cell: str, best_over: str | None, where: list[str], human: bool,
          dataset: str | None, ci: bool, seed: int, resamples: int) -> TableSpec:
    from qa_inspect.core.report import TableSpec

    cells = tuple(_split(cell)) if "(" not in cell else (cell.strip(),)
    return TableSpec(rows=tuple(_split(rows)) or ("run",), cols=cols, cells=cells, best_over=best_over,
                     where=_where(where), human=human, dataset=dataset, ci=ci, seed=seed, resamples=resamples)


def table_rows(t: PaperTable, places: int = 1) -> tuple[list[str], list[list[tuple[str, bool]]]]:
    """Header and rows; each cell (text, best)."""
    from qa_inspect.core.report import cell_text, template_label

    head = list(t.spec.rows) + [
        template_label(tp) if t.spec.cols is None else f"{col} {template_label(tp)}"
        for col in t.columns for tp in t.spec.cells
    ]
    rows = []
    for i, labels in enumerate(t.rows):
        row = [(label, False) for label in labels]
        for col in t.columns:
            for tp in t.spec.cells:
                cell = t.cell(i, col, tp)
                row.append((cell_text(cell, tp, places), bool(cell and cell.best)))
        rows.append(row)
    return head, rows


def _terminal(t: PaperTable, places: int) -> None:
    head, rows = table_rows(t, places)
    grid = Table(show_edge=False)
    keys = len(t.spec.rows)
    for i, h in enumerate(head):
        grid.add_column(h, justify="left" if i < keys else "right", overflow="fold")
    for row in rows:
        grid.add_row(*[Text(text, style="bold" if best else "") for text, best in row])
    out.print(grid)
    out.print(Text(_note(t), style="dim"))


ADJUDICATED_NOTE = "ADJUDICATED: accepted aliases count as golds (same scorer); not the official numbers"


def _note(t: PaperTable) -> str:
    parts = [ADJUDICATED_NOTE] if t.spec.adjudicated else []
    parts.append("bold = best of the column")
    if t.spec.best_over:
        parts.append(f"[x] = the {t.spec.best_over} of the best run")
    if t.spec.ci:
        units = ", ".join(sorted({f"{u}s" for u in t.ci_units.values()})) or "items"
        parts.append(f"[low, high] = 95% bootstrap interval, the {units} of each dataset resampled once for every cell"
                     f" ({count(t.spec.resamples)} resamples, seed {t.spec.seed})")
    return "; ".join(parts) + "."


def _markdown(t: PaperTable, places: int) -> str:
    from qa_inspect.core.query import markdown_table

    head, rows = table_rows(t, places)
    cells = [[f"**{text}**" if best else text for text, best in row] for row in rows]
    return markdown_table(head, cells) + f"\n{_note(t)}\n"


def _latex(t: PaperTable, places: int) -> str:
    from qa_inspect.core.report import HUMAN, latex_escape, latex_table

    head, rows = table_rows(t, places)
    body = [[rf"\textbf{{{latex_escape(text)}}}" if best else latex_escape(text) for text, best in row] for row in rows]
    human = [i for i, labels in enumerate(t.rows) if labels[0] == HUMAN]
    return latex_table([latex_escape(h) for h in head], body, rule_after=human)


def _csv(t: PaperTable, places: int) -> str:
    head, rows = table_rows(t, places)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(head)
    writer.writerows([text for text, _ in row] for row in rows)
    return buf.getvalue()


@app.command("table")
def table_cmd(
    runs_dir: RunsDir,
    rows: Annotated[str, typer.Option("--rows", help="Settings that make a row, comma-separated: run, model, prompt …")] = "run",
    cols: Annotated[str | None, typer.Option("--cols", help="Columns: an item dimension (split, tag, answer_type …) or a setting.",
                                             show_default=False)] = None,
    cell: Annotated[str, typer.Option("--cell", help='Metrics a cell shows: "em,f1" (one cell each) or "f1_recall (answer_rate)".')] = "f1",
    best_over: Annotated[str | None, typer.Option("--best-over", help="Keep the best run over this setting (e.g. shots) and show its value.",
                                                  show_default=False)] = None,
    where: Annotated[list[str], typer.Option("--where", help="Only runs with this setting, key=value (repeatable).")] = [],  # noqa: B006
    human: Annotated[bool, typer.Option("--human", help="The human estimate as the first row (datasets with several golds).")] = False,
    dataset: Annotated[str | None, typer.Option("--dataset", help="Only runs of this dataset.", show_default=False)] = None,
    ci: Annotated[bool, typer.Option("--ci", help=(
        "A 95% bootstrap interval after each value: each dataset's passages (or items) resampled once for the"
        " whole table, as the leaderboard does (the same seed gives its intervals)."))] = False,
    places: Annotated[int, typer.Option("--places", help="Decimal places.", min=0, max=6)] = 1,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    markdown: MarkdownOpt = False,
    latex: Annotated[bool, typer.Option("--latex", help="Print a LaTeX table (booktabs).")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print CSV.")] = False,
    chart: Annotated[Path | None, typer.Option("--chart", help="Also write the grid as an SVG bar chart to this file.",
                                               show_default=False)] = None,
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
    adjudicated: Annotated[bool, typer.Option(
        "--adjudicated", help="Cells from adjudicated scores (accepted aliases count as golds); labelled so.")] = False,
) -> None:
    """A paper's table from many runs: rows of run settings (model, prompt, shots …), columns of slices
    or settings, best per column in bold; text, Markdown, LaTeX, CSV, JSON.

    Settings come from the framework's record, a file-name pattern and qa-inspect.toml."""
    from qa_inspect.core.report import TableError, folder_run_settings, paper_table

    if sum((as_json, markdown, latex, as_csv)) > 1:
        raise fail("choose one of --json, --markdown, --latex, --csv")
    spec = _spec(rows, cols, cell, best_over, where, human, dataset, ci, seed, resamples)
    if adjudicated:
        from dataclasses import replace

        spec = replace(spec, adjudicated=True)
    with loaded_db(runs_dir, db) as conn:
        runs = folder_run_settings(conn, Path(runs_dir))
        try:
            t = paper_table(conn, spec, runs)
        except TableError as exc:
            raise fail(str(exc)) from None
    if chart is not None:
        _write_chart(t, chart)
    if as_json:
        print_json(t.to_dict())
    elif markdown:
        write_text(_markdown(t, places))
    elif latex:
        write_text((f"% {ADJUDICATED_NOTE}\n" if adjudicated else "") + _latex(t, places))
    elif as_csv:
        if adjudicated:
            say(ADJUDICATED_NOTE)
        write_text(_csv(t, places))
    else:
        _terminal(t, places)



def _write_chart(t: PaperTable, path: Path) -> None:
    from qa_inspect.core.report import chart_svg

    if path.suffix.lower() != ".svg":
        raise fail(f"{path}: --chart writes SVG; name the file *.svg")
    try:
        path.write_text(chart_svg(t), encoding="utf-8")
    except OSError as exc:
        raise fail(f"{path}: cannot write the chart ({exc.strerror or exc})") from None
