"""`slices find` (registered by `slices`): the slices where run B differs most from run A, Holm-corrected over every slice tested."""

from __future__ import annotations

from typing import Annotated

import typer
from qa_inspect.tui.present import SLICE_FINDER, count, dimension_name, interval, p_value, plural, signed
from rich.table import Table
from rich.text import Text

from .common import DbOpt, JsonOpt, RunsDir, fail, loaded_db, out, print_json, short
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

__all__ = ["find_cmd"]


def find_cmd(
    runs_dir: RunsDir,
    run_a: Annotated[str, typer.Argument(help="Run A (the baseline).")],
    run_b: Annotated[str, typer.Argument(help="Run B (compared with A).")],
    metric: Annotated[str | None, typer.Option("--metric", help="em, f1, f1_recall or answer_rate (default: F1, or F1-recall for CDQA).",
                                               show_default=False)] = None,
    min_items: Annotated[int, typer.Option("--min-items", help="Smallest slice tested.", min=2)] = 20,
    top: Annotated[int, typer.Option("--top", help="Slices listed.", min=1)] = 20,
    largest: Annotated[bool, typer.Option("--largest", help="Rank by |Δ| instead of by adjusted p.")] = False,
    db: DbOpt = None,
    as_json: JsonOpt = False,
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
    unit: UnitOpt = "auto",
    test: TestOpt = "bootstrap",
) -> None:
    """The slice finder: every item facet value (split, tag, type, question type, gold length …) of the
    items both runs answer, tested for B − A and Holm-adjusted over all of them: where B really differs from A."""
    from qa_inspect.core.errors import QAInspectError, unknown_name
    from qa_inspect.core.report import REPORT_METRICS, find_slices

    if metric is not None and metric not in REPORT_METRICS:
        raise fail("--metric: " + unknown_name("metric", metric, REPORT_METRICS))
    options = stat_options(seed, resamples, unit, test)
    with loaded_db(runs_dir, db) as conn:
        try:
            finding = find_slices(conn, run_a, run_b, metric=metric, min_items=min_items, options=options,
                                  largest=largest)
        except QAInspectError as exc:
            raise fail(str(exc)) from None
    assert finding is not None
    if as_json:
        data = finding.to_dict()
        data["slices"] = data["slices"][:top]
        print_json(data)
        return
    out.print(Text(
        f"{SLICE_FINDER.capitalize()}: {short(run_b, 40)} − {short(run_a, 40)} on {dimension_name(finding.metric)}: {plural(finding.common, 'common item')}, "
        f"{plural(finding.tested, 'slice')} tested (Holm over all), {count(finding.skipped)} under {plural(min_items, 'item')} skipped. "
        f"{settings_line(options, finding.unit, finding.units)}.", style="bold"))
    t = Table(show_edge=False)
    for name, justify in (("facet", "left"), ("value", "left"), ("items", "right"), ("Δ", "right"),
                          ("95% CI", "right"), ("p", "right"), ("p Holm", "right")):
        t.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in finding.slices[:top]:
        sig = s.test.significant(options.alpha)
        t.add_row(Text(s.label), Text(short(s.value, 30)), Text(count(s.test.n)),
                  Text(signed(s.test.delta), style="bold" if sig else ""), Text(interval(s.test.low, s.test.high, sign=True)),
                  Text(p_value(s.test.p)), Text(p_value(s.test.p_holm, mark=sig), style="bold" if sig else ""))
    out.print(t)
    out.print(Text(f"* = Holm-adjusted p below {options.alpha:g} over all {plural(finding.tested, 'slice')}; item facets only"
                   " (slicing by A's own answers would select on its outcome).", style="dim"))
