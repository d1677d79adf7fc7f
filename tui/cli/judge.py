"""`qa-inspect judge …`: imported LLM-judge verdicts, checked against people and the official score.

`judge agree RUNS_DIR` brings the database in line with the folder, then prints, per (run, judge),
Cohen's κ (with a bootstrap interval) and the confusion matrix against the hand verdicts (labels
and accepted aliases) and against the official score at an F1 threshold, with the disagreeing
items; `--save-slice` stores them as slices the browser opens. All of it is
`qa_inspect.core.report.judge_agreement`.
"""

from __future__ import annotations

from typing import Annotated

import typer
from qa_inspect.core.errors import QAInspectError, UnknownNameError
from qa_inspect.core.query import JUDGE_THRESHOLD, save_slice
from qa_inspect.core.report import Agreement, JudgeAgreement, judge_agreement
from qa_inspect.core.store import require_run
from rich.table import Table
from rich.text import Text

from .common import DbOpt, JsonOpt, RunsDir, command_group, fail, loaded_db, out, print_json, short
from .stat_options import DEFAULT_RESAMPLES, DEFAULT_SEED, ResamplesOpt, SeedOpt

__all__ = ["agree_cmd", "judge_app"]

judge_app = command_group(
    "judge", "Imported LLM-judge verdicts: how far they agree with hand judgements and the official score."
)


@judge_app.command("agree")
def agree_cmd(
    runs_dir: RunsDir,
    judge: Annotated[str | None, typer.Option("--judge", help="Only this judge (default: every judge).",
                                              show_default=False)] = None,
    run: Annotated[str | None, typer.Option("--run", help="Only this run (default: every run with verdicts).",
                                            show_default=False)] = None,
    threshold: Annotated[float, typer.Option(
        "--threshold", help="Official right = F1 (F1-recall) at least this, as the browser judges.")] = JUDGE_THRESHOLD,
    save_as: Annotated[str | None, typer.Option(
        "--save-slice", help="Save the disagreeing items as slices NAME (with the hand verdicts) and NAME-official;"
        " needs one run and judge.", show_default=False)] = None,
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Per judge: Cohen's κ with its interval and the confusion matrix against the hand verdicts and
    against the official score, on the items both cover, and the items where they disagree."""
    if not 0.0 <= threshold <= 1.0:
        raise fail(f"--threshold {threshold}: must be between 0 and 1")
    with loaded_db(runs_dir, db) as conn:
        if run is not None:
            try:
                require_run(conn, run)
            except UnknownNameError as exc:
                raise fail(f"--run {run}: no such run (known: {', '.join(exc.known) or 'none loaded'})") from None
        try:
            found = judge_agreement(conn, run=run, judge=judge, threshold=threshold, seed=seed, resamples=resamples)
        except QAInspectError as exc:
            raise fail(str(exc)) from None
        found = [a for a in found if a.verdicts]
        if not found:
            raise fail("no judge verdicts" + (f" of judge {judge!r}" if judge else "") + (f" on run {run}" if run else "")
                       + " (import them: see docs/guide/adjudication.md)")
        saved = _save(conn, found, save_as) if save_as else []
    if as_json:
        print_json({"threshold": threshold, "seed": seed, "resamples": resamples, "saved": saved,
                    "judges": [a.to_dict() for a in found]})
        return
    out.print(_table(found, threshold))
    for a in found:
        for part in (a.hand, a.official):
            if part is not None:
                out.print(_confusion(a, part))
    out.print(Text(f"κ: Cohen's kappa, 95% interval by resampling items (seed {seed}, {resamples:,} resamples);"
                   f" official right = F1 ≥ {threshold:g}; a partial verdict is not right. Verdicts are imported;"
                   " official numbers are unchanged.", style="dim"))
    for name in saved:
        out.print(Text(f"saved slice {name}"))


def _save(conn: object, found: list[JudgeAgreement], name: str) -> list[str]:
    if len(found) != 1:
        raise fail(f"--save-slice {name}: {len(found)} run/judge pairs; name one with --run and --judge")
    saved = []
    for part, slice_name in ((found[0].hand, name), (found[0].official, f"{name}-official")):
        if part is not None:
            try:
                save_slice(conn, slice_name, part.disagreeing, overwrite=True)  # type: ignore[arg-type]
            except QAInspectError as exc:
                raise fail(f"--save-slice {slice_name}: {exc}") from None
            saved.append(slice_name)
    return saved


def _kappa(part: Agreement | None) -> str:
    if part is None:
        return "—"
    if part.kappa is None:
        return f"undefined ({part.items} items)"
    bounds = f" [{part.low:.2f}, {part.high:.2f}]" if part.low is not None and part.high is not None else ""
    return f"{part.kappa:.3f}{bounds} on {part.items}, {part.items - part.agree} differ"


def _table(found: list[JudgeAgreement], threshold: float) -> Table:
    table = Table(title="judge agreement")
    for column in ("run", "judge", "verdicts", "correct / incorrect / partial", "κ vs hand", f"κ vs official (F1 ≥ {threshold:g})"):
        table.add_column(column)
    for a in found:
        counts = " / ".join(str(a.counts.get(w, 0)) for w in ("correct", "incorrect", "partial"))
        table.add_row(Text(short(a.run)), Text(short(a.judge)), str(a.verdicts), counts, _kappa(a.hand), _kappa(a.official))
    return table


def _confusion(a: JudgeAgreement, part: Agreement) -> Table:
    table = Table(title=Text(f"{short(a.judge)} (rows) vs {part.reference} (columns), run {short(a.run)}"))
    table.add_column("")
    for c in part.categories:
        table.add_column(c, justify="right")
    for c, row in zip(part.categories, part.confusion):
        table.add_row(c, *(str(n) for n in row))
    return table
