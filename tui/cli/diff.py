"""`diff`: what run B fixed and broke relative to run A, per-slice deltas with confidence intervals
and p-values (Holm-adjusted over the slices), the largest F1 changes."""

from __future__ import annotations

from typing import Annotated

import typer
from qa_inspect.core.errors import unknown_name
from qa_inspect.core.query import load_slice, markdown_table
from qa_inspect.core.report import DeltaTest, RunDiff, SliceDelta, diff_runs
from qa_inspect.tui.present import MISSING, count, dimension_name, interval, number, p_value, plural, signed
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
    line,
    loaded_db,
    out,
    print_json,
    write_text,
)
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

__all__ = ["category_sentence", "diff_cmd", "diff_markdown"]


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
    seed: SeedOpt = DEFAULT_SEED,
    resamples: ResamplesOpt = DEFAULT_RESAMPLES,
    unit: UnitOpt = "auto",
    test: TestOpt = "bootstrap",
    no_stats: Annotated[bool, typer.Option("--no-stats", help="Counts and deltas only: no intervals or p-values.")] = False,
    sort: Annotated[str, typer.Option("--sort", help="Per-slice rows by: slice, delta (largest first) or p.")] = "slice",
    adjudicated: Annotated[bool, typer.Option(
        "--adjudicated", help="Compare adjudicated scores (accepted aliases count as golds); labelled so.")] = False,
) -> None:
    """What run B fixed and broke relative to run A, per-slice metric deltas with confidence intervals
    and p-values, and the largest F1 changes, on the items both runs answer."""
    if not 0.0 <= threshold <= 1.0:
        raise fail(f"--f1-threshold {threshold}: must be between 0 and 1")
    if top < 0:
        raise fail(f"--top {top}: must be 0 or more")
    if sort not in _SORTS:
        raise fail("--sort: " + unknown_name("sort", sort, _SORTS))
    with loaded_db(runs_dir, db) as conn:
        options = None if no_stats else stat_options(seed, resamples, unit, test)
        within = load_slice(conn, slice_name) if slice_name else None
        d = diff_runs(conn, run_a, run_b, threshold=threshold, top=top, within=within, stats=options,
                      adjudicated=adjudicated)
    if as_json:
        print_json(d.to_dict())
    elif markdown:
        write_text((f"**{ADJUDICATED_NOTE}**\n\n" if adjudicated else "") + diff_markdown(d, slice_name, sort, changes=top > 0))
    else:
        if adjudicated:
            line(ADJUDICATED_NOTE)
        _print_diff(d, slice_name, sort, changes=top > 0)


ADJUDICATED_NOTE = "ADJUDICATED scores: accepted aliases count as golds (same scorer); not the official numbers"


_SORTS = ("slice", "delta", "p")



def _headline(d: RunDiff, slice_name: str | None) -> str:
    """Which runs, which dataset, and how many items the numbers rest on."""
    where = f" in slice {slice_name!r}" if slice_name else ""
    return (
        f"{d.run_a} (A) → {d.run_b} (B) on {d.dataset}{where} ({d.scorer or d.family}): {count(d.common)} items answered"
        f" by both of {count(d.items)} (only A: {count(d.only_a)}, only B: {count(d.only_b)})"
    )


def _ordered(d: RunDiff, sort: str) -> list[SliceDelta]:
    """The slice rows in the order asked: as computed, by |Δ| (largest first), or by p (overall
    rows first, then slices by Holm-adjusted p)."""
    rows = list(d.slices)
    if sort == "delta":
        rows.sort(key=lambda s: (s.dimension != "overall", -abs(s.delta or 0.0)))
    elif sort == "p" and d.significance is not None:
        sig = d.significance

        def by_p(s: SliceDelta) -> tuple[bool, float]:
            t = sig.test(s.dimension, s.value, s.metric)
            p = None if t is None else (t.p if t.primary else t.p_holm)
            return (s.dimension != "overall", 2.0 if p is None else p)

        rows.sort(key=by_p)
    return rows


def _slice_rows(d: RunDiff, sort: str = "slice") -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-slice table (CDQA adds how many answers each number rests on;
    with statistics: what the test is on, the interval, p, Holm-adjusted p and the MDE)."""
    cdqa = d.score_metric == "f1_recall"
    sig = d.significance
    head = ["slice", "value", "items", "metric", "A", "B", "Δ B−A"] + (["n A", "n B"] if cdqa else [])
    if sig is not None:
        head += (["tested on", "tested Δ"] if cdqa else []) + [f"{sig.options.level:.0%} CI", "p", "p Holm", "MDE ±"]
    rows = []
    for s in _ordered(d, sort):
        row = [dimension_name(s.dimension), s.value, count(s.items), dimension_name(s.metric), number(s.a, 2), number(s.b, 2), signed(s.delta)]
        if cdqa:
            row += [count(s.n_a), count(s.n_b)]
        if sig is not None:
            t = sig.test(s.dimension, s.value, s.metric)
            row += _test_cells(t, cdqa, sig.options.alpha)
        rows.append(row)
    return head, rows


def _test_cells(t: DeltaTest | None, cdqa: bool, alpha: float) -> list[str]:
    """CI, p (marked * when significant overall), Holm p (marked for slices) and MDE of one test."""
    lead = [count(t.n) if t else MISSING, signed(t.delta) if t else MISSING] if cdqa else []
    if t is None:
        return lead + [MISSING] * 4
    primary = t.primary
    return lead + [
        interval(t.low, t.high, sign=True), p_value(t.p, mark=primary and t.significant(alpha)),
        MISSING if primary else p_value(t.p_holm, mark=t.significant(alpha)),
        number(t.mde, 2),
    ]


def _notes(d: RunDiff) -> list[str]:
    """What the statistics rest on, in words, under the tables."""
    sig = d.significance
    if sig is None:
        return []
    notes = [
        settings_line(sig.options, sig.unit, sig.units) + ".",
        f"Marked * = below {sig.options.alpha:g}: the overall row by its own p, a slice by its p Holm-adjusted over the"
        f" slices of its metric ({', '.join(f'{m} {sig.family(m)}' for m in dict.fromkeys(t.metric for t in sig.tests))}"
        " tests). MDE = smallest Δ found with 80% power at this size.",
    ]
    if any(t.method == "randomisation" for t in sig.tests) and sig.options.test == "bootstrap":
        notes.append("Slices with fewer than 20 resampling units take p from approximate randomisation"
                     " (the bootstrap's p is meaningless there); their intervals are rough.")
    if d.score_metric == "f1_recall":
        notes.append("F1-recall is tested on the items both runs answered (tested on, tested Δ);"
                     " answer rate on every common response.")
    notes.append("Exact McNemar p of every EM and answer-rate slice, and BH-adjusted p: --json.")
    return notes


def _change_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the largest-changes table."""
    head = ["key", "question", "A prediction", "B prediction", "A", "B", "Δ"]
    rows = [
        [c.key, c.question, c.prediction_a, c.prediction_b, number(c.score_a, 3), number(c.score_b, 3), signed(c.delta, 3)]
        for c in d.changes
    ]
    return head, rows


_OUTCOME_HEAD = ["right by", "fixed (A✗ B✓)", "broken (A✓ B✗)", "both wrong", "both right"]


def _outcome_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the outcome table; with statistics, the exact McNemar p of each."""
    sig = d.significance
    head = _OUTCOME_HEAD + (["McNemar p"] if sig else [])
    rows = []
    for o in d.outcomes:
        row = [o.label, count(o.fixed), count(o.broken), count(o.both_wrong), count(o.both_right)]
        if sig is not None:
            p = sig.outcomes.get(o.criterion)
            row.append(p_value(p, mark=p is not None and p < sig.options.alpha))
        rows.append(row)
    return head, rows


SAMPLES_TITLE = "Samples (pass@1 = the share of an item's samples that are right; a single answer: right or not)"
_SAMPLE_HEAD = ["pass@1 A", "pass@1 B", "B − A", "became flaky", "became stable", "still flaky"]


def _sample_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    """Header and the one row of the samples table; no rows when neither run sampled an item."""
    s = d.samples
    if s is None:
        return _SAMPLE_HEAD, []
    return _SAMPLE_HEAD, [[number(s.pass1_a), number(s.pass1_b), signed(s.delta), count(s.became_flaky),
                           count(s.became_stable), count(s.still_flaky)]]


def _category_title(d: RunDiff) -> str:
    right = next((o.label for o in d.outcomes), "EM")
    return (f"Per error category (right by {right}): fixed counted by A's category, broken by B's")


def _category_rows(d: RunDiff) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the per-category table."""
    return ["error category", "fixed (A's errors)", "broken (B's errors)"], [
        [c.category, count(c.fixed), count(c.broken)] for c in d.categories
    ]


def category_sentence(d: RunDiff, most: int = 3) -> str | None:
    """The categories B changed most, in words: "B fixes 41 boundary-long errors, breaks 3; …"."""
    top = sorted(d.categories, key=lambda c: -(c.fixed + c.broken))[:most]
    if not top:
        return None
    return "B " + "; ".join(
        f"fixes {plural(c.fixed, c.category + ' error')}, breaks {count(c.broken)}" for c in top) + "."


def _print_diff(d: RunDiff, slice_name: str | None, sort: str = "slice", *, changes: bool = True) -> None:
    """The headline and the three tables (the last only when `changes` were asked for), for a terminal."""
    out.print(Text(_headline(d, slice_name), style="bold"))
    head, rows = _outcome_rows(d)
    t = Table(title="Outcomes", title_justify="left", show_edge=False)
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i == 0 else "right")
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    out.print(t)
    head, rows = _sample_rows(d)
    if rows:
        t = Table(title=SAMPLES_TITLE, title_justify="left", show_edge=False)
        for h in head:
            t.add_column(h, justify="right")
        t.add_row(*[Text(c) for c in rows[0]])
        out.print(t)
    head, rows = _category_rows(d)
    if rows:
        t = Table(title=_category_title(d), title_justify="left", show_edge=False)
        for i, h in enumerate(head):
            t.add_column(h, justify="left" if i == 0 else "right")
        for row in rows:
            t.add_row(*[Text(c) for c in row])
        out.print(t)
        out.print(Text(category_sentence(d) or "", style="dim"))
    head, rows = _slice_rows(d, sort)
    t = Table(title="Per slice (metrics on the items both runs answer)", title_justify="left", show_edge=False)
    for i, h in enumerate(head):
        t.add_column(h, justify="left" if i in (0, 1, 3) else "right", overflow="fold")
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    out.print(t)
    for note in _notes(d):
        out.print(Text(note, style="dim"))
    if not changes:
        return
    head, rows = _change_rows(d)
    label = "F1-recall" if d.score_metric == "f1_recall" else "F1"
    t = Table(title=f"Largest {label} changes", title_justify="left", show_edge=False)
    for i, h in enumerate(head):
        t.add_column(h, justify="right" if i >= 4 else "left", overflow="fold")
    for row in rows:
        t.add_row(*[Text(c) for c in row])
    out.print(t if rows else Text(f"No item's {label} changed.", style="dim"))


def diff_markdown(d: RunDiff, slice_name: str | None = None, sort: str = "slice", *, changes: bool = True) -> str:
    """The diff as Markdown: a headline, then the tables (outcomes, per error category, per slice,
    changes) (`core.query.markdown_table`; the
    last only when `changes` were asked for)."""
    label = "F1-recall" if d.score_metric == "f1_recall" else "F1"
    head, rows = _change_rows(d)
    notes = "".join(f"\n{n}\n" for n in _notes(d))
    cat_head, cat_rows = _category_rows(d)
    categories = (f"\n## {_category_title(d)}\n\n" + markdown_table(cat_head, cat_rows)
                  + f"\n{category_sentence(d)}\n") if cat_rows else ""
    sample_head, sample_rows = _sample_rows(d)
    samples = f"\n## {SAMPLES_TITLE}\n\n" + markdown_table(sample_head, sample_rows) if sample_rows else ""
    return "".join((
        f"# {_headline(d, slice_name)}\n\n## Outcomes\n\n",
        markdown_table(*_outcome_rows(d)),
        samples,
        categories,
        "\n## Per slice\n\n",
        markdown_table(*_slice_rows(d, sort)),
        notes,
        f"\n## Largest {label} changes\n\n" if changes else "",
        "" if not changes else markdown_table(head, rows) if rows else f"No item's {label} changed.\n",
    ))
