"""`diff`: what run B fixed and broke relative to run A, per-slice deltas, the largest F1 changes."""

from __future__ import annotations

from typing import Annotated

import typer
from qa_inspect.core.query import load_slice, markdown_table
from qa_inspect.core.report import RunDiff, diff_runs
from rich.table import Table
from rich.text import Text

from .common import (
    DbOpt,
    JsonOpt,
    MarkdownOpt,
    RunsDir,
    SliceOpt,
    app,
    fail,
    loaded_db,
    out,
    print_json,
    write_text,
)

__all__ = ["diff_cmd", "diff_markdown"]


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
        write_text(diff_markdown(d, slice_name))
    else:
        _print_diff(d, slice_name)


def _num(v: float | None, places: int = 2) -> str:
    """A metric to `places` decimals, — when missing."""
    return "—" if v is None else f"{v:.{places}f}"


def _signed(v: float | None, places: int = 2) -> str:
    """A change with its sign (+0.50), — when missing."""
    return "—" if v is None else f"{v:+.{places}f}"


def _headline(d: RunDiff, slice_name: str | None) -> str:
    """Which runs, which dataset, and how many items the numbers rest on."""
    where = f" in slice {slice_name!r}" if slice_name else ""
    return (
        f"{d.run_a} (A) → {d.run_b} (B) on {d.dataset}{where} ({d.scorer or d.family}): {d.common} items answered"
        f" by both of {d.items} (only A: {d.only_a}, only B: {d.only_b})"
    )


def _slice_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-slice table (CDQA adds how many answers each number rests on)."""
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
    """Header and rows of the largest-changes table."""
    head = ["key", "question", "A prediction", "B prediction", "A", "B", "Δ"]
    rows = [
        [c.key, c.question, c.prediction_a, c.prediction_b, _num(c.score_a, 3), _num(c.score_b, 3), _signed(c.delta, 3)]
        for c in d.changes
    ]
    return head, rows


_OUTCOME_HEAD = ["right by", "fixed (A✗ B✓)", "broken (A✓ B✗)", "both wrong", "both right"]


def _print_diff(d: RunDiff, slice_name: str | None) -> None:
    """The headline and the three tables, for a terminal."""
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


def diff_markdown(d: RunDiff, slice_name: str | None = None) -> str:
    """The diff as Markdown: a headline, then the three tables (`core.query.markdown_table`)."""
    label = "F1-recall" if d.score_metric == "f1_recall" else "F1"
    outcomes = [[o.label, o.fixed, o.broken, o.both_wrong, o.both_right] for o in d.outcomes]
    head, rows = _change_rows(d)
    return "".join((
        f"# {_headline(d, slice_name)}\n\n## Outcomes\n\n",
        markdown_table(_OUTCOME_HEAD, outcomes),
        "\n## Per slice\n\n",
        markdown_table(*_slice_rows(d)),
        f"\n## Largest {label} changes\n\n",
        markdown_table(head, rows) if rows else f"No item's {label} changed.\n",
    ))
