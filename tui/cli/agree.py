"""`agree`: how far annotators agree on what two or more of them judged (κ, α with intervals),
and the items they disagree on, each annotator's reason side by side (`core.report.agreement`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from qa_inspect.core.errors import QAInspectError
from qa_inspect.tui.present import MISSING, count, interval, number, plural
from qa_inspect.tui.text import clean
from rich.table import Table
from rich.text import Text

from .common import (
    DbOpt,
    JsonOpt,
    RunsDir,
    app,
    fail,
    line,
    loaded_db,
    out,
    print_json,
    short,
)
from .stat_options import DEFAULT_RESAMPLES, DEFAULT_SEED, ResamplesOpt, SeedOpt

if TYPE_CHECKING:
    from qa_inspect.core.report import AgreementReport, JudgedUnit
    from qa_inspect.core.stats import Agreement, AgreementInterval

__all__ = ["agree_cmd"]

WhatOpt = Annotated[str, typer.Option("--what", help="What was judged: stale (golds), labels (run items), aliases.")]


@app.command("agree")
def agree_cmd(
    runs_dir: RunsDir,
    what: WhatOpt = "stale",
    dataset: Annotated[str | None, typer.Option("--dataset", help="Only this dataset.", show_default=False)] = None,
    disagreements: Annotated[bool, typer.Option(
        "--disagreements", help="List the items the annotators disagree on (the disagreements queue).")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
) -> None:
    """Inter-annotator agreement on what two or more annotators judged: Cohen's κ per pair, Fleiss'
    κ and Krippendorff's α with bootstrap intervals, per tag and answer type; the disagreements."""
    from qa_inspect.core.report import agreement_report

    with loaded_db(runs_dir, db) as conn:
        try:
            report = agreement_report(conn, what, dataset=dataset, seed=seed, resamples=resamples)
        except QAInspectError as exc:
            raise fail(str(exc)) from None
    if as_json:
        print_json(report.to_dict())
        return
    if not report.units:
        line(f"no {what} judgement was made by two or more annotators: nothing to compare")
        return
    if disagreements:
        _print_disagreements(report.disagreements, report.annotators)
        return
    _print_report(report)


def _cell(value: AgreementInterval) -> tuple[Text, Text]:
    if value.estimate is None:
        return Text(MISSING), Text("undefined: one category only")
    return Text(number(value.estimate, 3)), Text(interval(value.low, value.high, 3))


def _print_report(report: AgreementReport) -> None:
    t = Table(show_edge=False, title=f"agreement on {report.what}: {plural(len(report.units), 'item')} judged by two or more")
    for col in ("over", "coefficient", "value", "95% CI", "items"):
        t.add_column(col, justify="right" if col in ("value", "items") else "left")
    rows: list[tuple[str, Agreement]] = [("all", report.overall)]
    rows += [(f"tag {k}", v) for k, v in report.by_tag.items()]
    rows += [(f"answer type {k}", v) for k, v in report.by_answer_type.items()]
    for over, a in rows:
        for name, value in (("Fleiss' κ", a.fleiss), ("Krippendorff's α", a.alpha)):
            t.add_row(Text(clean(over)), Text(name), *_cell(value), Text(count(value.items)))
        if over == "all":
            for (first, second), value in a.pairs.items():
                t.add_row(Text("all"), Text(f"Cohen's κ {clean(first)} · {clean(second)}"), *_cell(value),
                          Text(count(value.items)))
    out.print(t)
    line(f"{plural(len(report.disagreements), 'disagreement')} (`--disagreements` lists them);"
         f" intervals: percentile bootstrap over items, {count(report.resamples)} resamples, seed {report.seed}")


def _print_disagreements(units: list[JudgedUnit], annotators: list[str]) -> None:
    if not units:
        line("no disagreements")
        return
    t = Table(show_edge=False, title="disagreements")
    for col in ("#", "dataset", "item", "subject", *annotators):
        t.add_column(clean(col), overflow="fold" if col in annotators else "ellipsis")
    for rank, u in enumerate(units, 1):
        cells = []
        for a in annotators:
            j = u.judgements.get(a)
            cells.append(Text(MISSING if j is None else clean(j.category + (f": {j.reason}" if j.reason else ""))))
        t.add_row(Text(str(rank)), Text(short(u.dataset, 20)), Text(short(u.item_key, 20)), Text(short(u.subject, 20)),
                  *cells)
    out.print(t)
