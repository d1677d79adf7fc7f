"""`leaderboard`: runs ranked with confidence intervals and a pairwise significance matrix, as a
terminal table, JSON, Markdown or LaTeX (booktabs) a paper can paste."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from qa_inspect.tui.present import MISSING, count, dimension_name, interval, number, plural, signed
from rich.table import Table
from rich.text import Text

from .common import DbOpt, JsonOpt, MarkdownOpt, RunsDir, app, fail, loaded_db, out, print_json, short, write_text
from .stat_options import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    ResamplesOpt,
    SeedOpt,
    TestOpt,
    UnitOpt,
    settings_line,
    stat_options,
)

if TYPE_CHECKING:
    from qa_inspect.core.report import Leaderboard, MetricCI

__all__ = ["leaderboard_cmd", "leaderboard_latex", "leaderboard_markdown"]


@app.command("leaderboard")
def leaderboard_cmd(
    runs_dir: RunsDir,
    dataset: Annotated[
        str | None, typer.Option("--dataset", help="Only this dataset (default: every dataset with runs).", show_default=False)
    ] = None,
    metric: Annotated[
        str | None,
        typer.Option("--metric", help="Rank by: em, f1, f1_recall, answer_rate … (default: F1, or F1-recall for CDQA).",
                     show_default=False),
    ] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    markdown: MarkdownOpt = False,
    latex: Annotated[bool, typer.Option("--latex", help="Print LaTeX tables (booktabs).")] = False,
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
    unit: UnitOpt = "auto",
    test: TestOpt = "bootstrap",
    adjudicated: Annotated[bool, typer.Option(
        "--adjudicated", help="Rank and test on adjudicated scores (accepted aliases count as golds); labelled so.")] = False,
) -> None:
    """Runs of each dataset ranked, every headline metric with its confidence interval, and which
    runs cannot be told apart (paired tests of every pair, Holm-corrected)."""
    from qa_inspect.core.report import leaderboard

    if sum((as_json, markdown, latex)) > 1:
        raise fail("choose one of --json, --markdown, --latex")
    with loaded_db(runs_dir, db) as conn:
        boards = leaderboard(conn, dataset, metric=metric, options=stat_options(seed, resamples, unit, test),
                             adjudicated=adjudicated)
    if as_json:
        print_json([b.to_dict() for b in boards])
    elif markdown:
        write_text("\n".join(leaderboard_markdown(b) for b in boards))
    elif latex:
        write_text("\n".join(leaderboard_latex(b) for b in boards))
    else:
        for b in boards:
            _print_board(b)


def _label(metric: str) -> str:
    return dimension_name(metric)


def _value(m: MetricCI | None, places: int = 2) -> str:
    return number(None if m is None else m.value, places)


def _interval(m: MetricCI | None, places: int = 2) -> str:
    return MISSING if m is None else interval(m.low, m.high, places)


def _headline(b: Leaderboard) -> str:
    pairs = sum(c.p is not None for c in b.pairs)
    base = "the items both answered" if b.metric == "f1_recall" else (
        "the items both responded to" if b.metric == "answer_rate" else "every item (missing = 0)")
    return (
        ("ADJUDICATED (accepted aliases count as golds; not the official numbers) — " if b.adjudicated else "")
        + f"{b.dataset} ({b.scorer or b.family}): {plural(b.items, 'item')}, ranked by {_label(b.metric)}. "
        f"{settings_line(b.options, b.unit, b.units)}. Pairs compared on {base},"
        f" Holm-corrected over {plural(pairs, 'pair')}."
    )


def _standing(b: Leaderboard, run: str, human: bool) -> str:
    if human:
        return ""
    if b.rank(run) == 1:
        return "best"
    return "tied" if b.tied_with_best(run) else ""


def _rows(b: Leaderboard, places: int = 2, *, combined: bool = False) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the ranking: rank, run, predictions, each metric and its interval (in
    one cell each when `combined`, as the terminal shows them)."""
    level = f"{b.options.level:.0%} CI"
    head = ["rank", "run", "predictions"]
    for m in b.metrics:
        head += [f"{_label(m)} [{level}]"] if combined else [_label(m), level]
    head.append("vs best")
    rows = []
    for r in b.rows:
        rank = b.rank(r.run)
        row = [MISSING if rank is None else str(rank), short(r.run, 40), count(r.predicted)]
        for m in b.metrics:
            value, ci = _value(r.metrics.get(m), places), _interval(r.metrics.get(m), places)
            row += [value if ci == MISSING else f"{value} {ci}"] if combined else [value, ci]
        row.append(_standing(b, r.run, r.human))
        rows.append(row)
    return head, rows


def _matrix(b: Leaderboard, places: int = 2, mark: str = "*", same: str = "·") -> tuple[list[str], list[list[str]]]:
    """Pairwise Δ of the ranking metric, row − column, `mark` where significant after Holm."""
    names = [r.run for r in b.ranked]
    head = ["Δ row − column"] + [str(i) for i in range(1, len(names) + 1)]
    rows = []
    for i, row_run in enumerate(names, start=1):
        cells = [f"{i} {short(row_run, 30)}"]
        for col_run in names:
            cell = b.pair(col_run, row_run)
            if cell is None:
                cells.append(same)
            else:
                sig = mark if cell.significant(b.options.alpha) else ""
                cells.append(signed(cell.delta, places) + sig)
        rows.append(cells)
    return head, rows


def _matrix_note(b: Leaderboard) -> str:
    return (f"Δ {_label(b.metric)} of the row's run minus the column's; * = Holm-adjusted p below"
            f" {b.options.alpha:g}; tied = not distinguishable from the best run.")


def _print_board(b: Leaderboard) -> None:
    out.print(Text(_headline(b), style="bold"))
    head, rows = _rows(b, combined=True)
    t = Table(show_edge=False)
    for i, h in enumerate(head):
        metric = 3 <= i < len(head) - 1
        t.add_column(h, justify="left" if i in (1, len(head) - 1) else "right", overflow="fold", no_wrap=metric)
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    out.print(t)
    if len(b.ranked) > 1:
        head, rows = _matrix(b)
        t = Table(title=f"Pairwise Δ {_label(b.metric)}", title_justify="left", show_edge=False)
        for i, h in enumerate(head):
            t.add_column(h, justify="left" if i == 0 else "right", overflow="fold")
        for row in rows:
            t.add_row(*[Text(c) for c in row])
        out.print(t)
        out.print(Text(_matrix_note(b), style="dim"))
    out.print()


def leaderboard_markdown(b: Leaderboard) -> str:
    """One dataset's leaderboard as Markdown: headline, ranking, pairwise matrix."""
    from qa_inspect.core.query import markdown_table

    parts = [f"## {_headline(b)}\n\n", markdown_table(*_rows(b))]
    if len(b.ranked) > 1:
        parts += [f"\n### Pairwise Δ {_label(b.metric)}\n\n", markdown_table(*_matrix(b, mark="\\*")),
                  f"\n{_matrix_note(b)}\n"]
    return "".join(parts)


def leaderboard_latex(b: Leaderboard) -> str:
    """One dataset's leaderboard as LaTeX: the ranking (human estimate first, best value per column
    in bold, tied runs marked †) and the pairwise matrix, each a booktabs `tabular`."""
    from qa_inspect.core.report import latex_escape, latex_table

    best = {m: max((v for r in b.ranked if m in r.metrics and (v := r.metrics[m].value) is not None),
                   default=None) for m in b.metrics}
    head = ["Run"] + [latex_escape(_label(m)) for m in b.metrics]
    rows = []
    for r in b.rows:
        name = "Human estimate" if r.human else latex_escape(r.run)
        if not r.human and b.rank(r.run) != 1 and b.tied_with_best(r.run):
            name += r"$^\dagger$"
        cells = [name]
        for m in b.metrics:
            ci_m = r.metrics.get(m)
            value = _value(ci_m, 1)
            if not r.human and ci_m is not None and ci_m.value is not None and ci_m.value == best[m]:
                value = rf"\textbf{{{value}}}"
            cells.append(f"{value} {{\\scriptsize {_interval(ci_m, 1)}}}")
        rows.append(cells)
    human_rows = [i for i, r in enumerate(b.rows) if r.human]
    comment = latex_escape(_headline(b)).replace("\n", " ")
    parts = [f"% {comment}\n", latex_table(head, rows, rule_after=human_rows)]
    if any(b.tied_with_best(r.run) for r in b.ranked[1:]):
        parts.append(f"{{\\footnotesize $^\\dagger$ not distinguishable from the best run"
                     f" (Holm-adjusted $p \\geq {b.options.alpha:g}$).}}\n")
    if len(b.ranked) > 1:
        mhead, mrows = _matrix(b, 1, mark="$^*$", same="--")
        mrows = [[latex_escape(row[0])] + row[1:] for row in mrows]
        parts += ["\n", latex_table([r"$\Delta$ row $-$ column"] + mhead[1:], mrows)]
    return "".join(parts)
