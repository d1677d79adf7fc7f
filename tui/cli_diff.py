"""`diff` (two runs of one dataset), `export` (an item list to a file) and `slices` (saved filters)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from qa_inspect.core.report import RunDiff, diff_runs
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import export_format, export_items
from qa_inspect.core.query import SORTS, Filter
from qa_inspect.core.query import delete_slice, describe, list_slices, load_slice, save_slice

from .cli import DbOpt, JsonOpt, RunsDir, app, fail, loaded_db, out, print_json


MarkdownOpt = Annotated[bool, typer.Option("--markdown", help="Print Markdown tables.")]
SliceOpt = Annotated[
    str | None, typer.Option("--slice", help="A saved slice (see `qa-inspect slices list`).", show_default=False)
]




# -------------------------------------------------------------------------------------- diff


@app.command("diff")
def diff_cmd(
    runs_dir: RunsDir,
    run_a: Annotated[str, typer.Argument(help="The baseline run (A).", show_default=False)],
    run_b: Annotated[str, typer.Argument(help="The run compared with it (B).", show_default=False)],
    threshold: Annotated[
        float, typer.Option("--f1-threshold", help="F1 (F1-recall for CDQA) at or above which an answer counts as right.")
    ] = 0.5,
    top: Annotated[int, typer.Option("--top", help="How many of the largest F1 changes to list.")] = 20,
    slice_name: SliceOpt = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    markdown: MarkdownOpt = False,
) -> None:
    """What run B fixed and broke relative to run A, per-slice metric deltas and the largest F1 changes,
    on the items both runs answer."""
    if not 0.0 <= threshold <= 1.0:
        raise fail(f"--f1-threshold {threshold}: must be between 0 and 1")
    if top < 0:
        raise fail(f"--top {top}: must be 0 or more")
    with loaded_db(runs_dir, db) as conn:
        within = load_slice(conn, slice_name) if slice_name else None
        d = diff_runs(conn, run_a, run_b, threshold=threshold, top=top, within=within)
    if as_json:
        print_json(d.to_dict())
    elif markdown:
        out.file.write(diff_markdown(d, slice_name))
    else:
        _print_diff(d, slice_name)


def _num(v: float | None, places: int = 2) -> str:
    return "—" if v is None else f"{v:.{places}f}"


def _signed(v: float | None, places: int = 2) -> str:
    return "—" if v is None else f"{v:+.{places}f}"


def _headline(d: RunDiff, slice_name: str | None) -> str:
    where = f" in slice {slice_name!r}" if slice_name else ""
    return (
        f"{d.run_a} (A) → {d.run_b} (B) on {d.dataset}{where}: {d.common} items answered by both"
        f" of {d.items} (only A: {d.only_a}, only B: {d.only_b})"
    )


def _slice_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    cdqa = d.score_metric == "f1_recall"
    head = ["slice", "value", "items", "metric", "A", "B", "Δ B−A"] + (["n A", "n B"] if cdqa else [])
    rows = []
    for s in d.slices:
        row = [s.dimension, s.value, str(s.items), s.metric, _num(s.a), _num(s.b), _signed(s.delta)]
        if cdqa:
            row += [str(s.n_a), str(s.n_b)]
        rows.append(row)
    return head, rows


def _change_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    head = ["key", "question", "A prediction", "B prediction", "A", "B", "Δ"]
    rows = [
        [c.key, c.question, c.prediction_a, c.prediction_b, _num(c.score_a, 3), _num(c.score_b, 3), _signed(c.delta, 3)]
        for c in d.changes
    ]
    return head, rows


_OUTCOME_HEAD = ["right by", "fixed (A✗ B✓)", "broken (A✓ B✗)", "both wrong", "both right"]


def _print_diff(d: RunDiff, slice_name: str | None) -> None:
    out.print(Text(_headline(d, slice_name), style="bold"))
    t = Table(title="Outcomes", title_justify="left", show_edge=False)
    for i, h in enumerate(_OUTCOME_HEAD):
        t.add_column(h, justify="left" if i == 0 else "right")
    for o in d.outcomes:
        t.add_row(Text(o.label), str(o.fixed), str(o.broken), str(o.both_wrong), str(o.both_right))
    out.print(t)
    head, rows = _slice_rows(d)
    t = Table(title="Per slice (metrics on the items both runs answer)", title_justify="left", show_edge=False)
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i in (0, 1, 3) else "right", overflow="fold")
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    out.print(t)
    head, rows = _change_rows(d)
    label = "F1-recall" if d.score_metric == "f1_recall" else "F1"
    t = Table(title=f"Largest {label} changes", title_justify="left", show_edge=False)
    for i, h in enumerate(head):
        t.add_column(h, justify="right" if i >= 4 else "left", overflow="fold")
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    out.print(t if rows else Text(f"No item's {label} changed.", style="dim"))


def _md_table(head: list[str], rows: list[list[str]]) -> list[str]:
    def cell(c: str) -> str:
        return c.replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")

    lines = ["| " + " | ".join(cell(h) for h in head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines


def diff_markdown(d: RunDiff, slice_name: str | None = None) -> str:
    lines = [f"# {_headline(d, slice_name)}", "", "## Outcomes", ""]
    lines += _md_table(
        _OUTCOME_HEAD,
        [[o.label, str(o.fixed), str(o.broken), str(o.both_wrong), str(o.both_right)] for o in d.outcomes],
    )
    lines += ["", "## Per slice", ""]
    lines += _md_table(*_slice_rows(d))
    label = "F1-recall" if d.score_metric == "f1_recall" else "F1"
    lines += ["", f"## Largest {label} changes", ""]
    head, rows = _change_rows(d)
    lines += _md_table(head, rows) if rows else [f"No item's {label} changed."]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- filter options

DatasetOpt = Annotated[str | None, typer.Option("--dataset", help="Dataset name.", show_default=False)]
RunOpt = Annotated[str | None, typer.Option("--run", help="Run whose predictions and scores are shown.", show_default=False)]
CompareOpt = Annotated[
    str | None, typer.Option("--compare", help="A second run shown beside --run (B columns, delta).", show_default=False)
]
SplitOpt = Annotated[list[str] | None, typer.Option("--split", help="Split (repeat or comma-separate).", show_default=False)]
TagOpt = Annotated[list[str] | None, typer.Option("--tag", help="Tag (repeat or comma-separate).", show_default=False)]
TypeOpt = Annotated[
    list[str] | None, typer.Option("--answer-type", help="Answer type (repeat or comma-separate).", show_default=False)
]
RefusedOpt = Annotated[
    bool | None, typer.Option("--refused/--answered", help="Only refusals / only answers of --run.", show_default=False)
]
EmOpt = Annotated[int | None, typer.Option("--em", help="EM of --run: 0 or 1.", show_default=False)]
F1MinOpt = Annotated[float | None, typer.Option("--f1-min", help="F1 (or F1-recall) of --run at least.", show_default=False)]
F1MaxOpt = Annotated[float | None, typer.Option("--f1-max", help="F1 (or F1-recall) of --run at most.", show_default=False)]
SearchOpt = Annotated[
    str | None, typer.Option("--search", help="Text in the question, a gold or the prediction.", show_default=False)
]
StaleOpt = Annotated[
    bool | None, typer.Option("--stale/--not-stale", help="Items with / without a gold flagged stale.", show_default=False)
]
SortOpt = Annotated[str | None, typer.Option("--sort", help=f"Order: {', '.join(SORTS)}.", show_default=False)]
DescOpt = Annotated[bool, typer.Option("--desc", help="Sort descending.")]


def _values(opts: list[str] | None) -> tuple[str, ...] | None:
    if not opts:
        return None
    return tuple(v.strip() for o in opts for v in o.split(",") if v.strip())


def build_filter(
    conn: sqlite3.Connection,
    base: Filter,
    *,
    dataset: str | None = None,
    run: str | None = None,
    compare: str | None = None,
    split: list[str] | None = None,
    tag: list[str] | None = None,
    answer_type: list[str] | None = None,
    refused: bool | None = None,
    em: int | None = None,
    f1_min: float | None = None,
    f1_max: float | None = None,
    search: str | None = None,
    stale: bool | None = None,
    sort: str | None = None,
    descending: bool = False,
) -> Filter:
    """`base` (a slice, or no restriction) with every option given on the command line replacing
    that field; names are checked against the database so a typo is an error, not an empty list."""
    if em is not None and em not in (0, 1):
        raise fail(f"--em {em}: must be 0 or 1")
    for opt, v in (("--f1-min", f1_min), ("--f1-max", f1_max)):
        if v is not None and not 0.0 <= v <= 1.0:
            raise fail(f"{opt} {v}: must be between 0 and 1")
    if sort is not None and sort not in SORTS:
        raise fail(f"--sort {sort}: choose from {', '.join(SORTS)}")
    for opt, name, table in (("--dataset", dataset, "datasets"), ("--run", run, "runs"), ("--compare", compare, "runs")):
        if name is not None and conn.execute(f"SELECT 1 FROM {table} WHERE name = ?", (name,)).fetchone() is None:
            known = ", ".join(r[0] for r in conn.execute(f"SELECT name FROM {table} ORDER BY name")) or "none loaded"
            raise fail(f"{opt} {name}: no such {table[:-1]} (known: {known})")
    changes: dict[str, object] = {}
    for field, value in (
        ("dataset", dataset), ("run", run), ("compare", compare), ("splits", _values(split)),
        ("tags", _values(tag)), ("answer_types", _values(answer_type)), ("refused", refused), ("em", em),
        ("f1_min", f1_min), ("f1_max", f1_max), ("search", search), ("stale", stale), ("sort", sort),
    ):
        if value is not None:
            changes[field] = value
    if descending:
        changes["descending"] = True
    return base.with_(**changes)


# ------------------------------------------------------------------------------------ export


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
            descending=descending,
        )
        rows = export_items(conn, f, output, fmt=fmt)
    if as_json:
        print_json({"path": str(output), "format": fmt, "rows": rows, "filter": f.to_dict()})
    else:
        out.print(Text(f"{rows:,} items written to {output} ({fmt})"))


# ------------------------------------------------------------------------------------ slices

slices_app = typer.Typer(
    help="Saved slices: named item filters stored in the database.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(slices_app, name="slices")


@slices_app.command("list")
def slices_list_cmd(runs_dir: RunsDir, db: DbOpt = None, as_json: JsonOpt = False) -> None:
    """Every saved slice with its filter, author and time."""
    with loaded_db(runs_dir, db) as conn:
        saved = list_slices(conn)
    if as_json:
        print_json(
            [{"name": s.name, "filter": s.filter.to_dict(), "created_at": s.created_at, "author": s.author} for s in saved]
        )
        return
    if not saved:
        out.print(Text("No saved slices.", style="dim"))
        return
    t = Table(show_edge=False)
    for c in ("name", "filter", "author", "created"):
        t.add_column(c, overflow="fold")
    for s in saved:
        t.add_row(Text(s.name), Text(describe(s.filter)), Text(s.author or "—"), Text(s.created_at))
    out.print(t)


@slices_app.command("save")
def slices_save_cmd(
    runs_dir: RunsDir,
    name: Annotated[str, typer.Argument(help="Name of the slice.", show_default=False)],
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
    force: Annotated[bool, typer.Option("--force", help="Replace a slice of the same name.")] = False,
    author: Annotated[str | None, typer.Option("--author", help="Who saves it (default: login name).")] = None,
    db: DbOpt = None,
) -> None:
    """Save the filter given by the options under NAME."""
    with loaded_db(runs_dir, db) as conn:
        f = build_filter(
            conn, Filter(), dataset=dataset, run=run, compare=compare, split=split, tag=tag,
            answer_type=answer_type, refused=refused, em=em, f1_min=f1_min, f1_max=f1_max, search=search,
            stale=stale,
        )
        s = save_slice(conn, name, f, author, overwrite=force)
    out.print(Text(f"saved slice {s.name!r}: {describe(s.filter)}"))


@slices_app.command("delete")
def slices_delete_cmd(
    runs_dir: RunsDir,
    name: Annotated[str, typer.Argument(help="Name of the slice.", show_default=False)],
    db: DbOpt = None,
) -> None:
    """Delete a saved slice."""
    with loaded_db(runs_dir, db) as conn:
        if not delete_slice(conn, name):
            names = [s.name for s in list_slices(conn)]
            raise fail(f"no slice named {name!r} (slices: {', '.join(names) or 'none saved'})")
    out.print(Text(f"deleted slice {name!r}"))
