"""The item-filter options `export` and `slices save` share, and `build_filter` that turns them into a `Filter`."""

from __future__ import annotations

import sqlite3
from typing import Annotated

import typer
from qa_inspect.core.errors import UnknownNameError
from qa_inspect.core.query import JUDGE_CHOICES, SORTS, Filter, judge_selection, judges
from qa_inspect.core.store import require_dataset, require_run

from .common import fail

__all__ = [
    "CompareOpt",
    "DatasetOpt",
    "DescOpt",
    "EmOpt",
    "F1MaxOpt",
    "F1MinOpt",
    "JudgeVerdictOpt",
    "RefusedOpt",
    "RunOpt",
    "SearchOpt",
    "SortOpt",
    "SplitOpt",
    "StaleOpt",
    "TagOpt",
    "TypeOpt",
    "build_filter",
    "judge_pairs",
]

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
JudgeVerdictOpt = Annotated[list[str] | None, typer.Option(
    "--judge-verdict", help=f"JUDGE=CHOICE: items of --run whose imported judge verdict is CHOICE ({', '.join(JUDGE_CHOICES)};"
    " judge-right = official wrong, judge right). Repeatable.", show_default=False)]


def judge_pairs(conn: sqlite3.Connection, run: str | None, opts: list[str] | None) -> tuple[tuple[str, str], ...]:
    """`--judge-verdict JUDGE=CHOICE` values as `Filter.facets` pairs; a missing --run, an unknown
    judge or choice → one line naming the option."""
    pairs: list[tuple[str, str]] = []
    for opt in opts or ():
        judge, sep, choice = opt.rpartition("=")
        if not sep or not judge.strip():
            raise fail(f"--judge-verdict {opt}: expected JUDGE=CHOICE ({', '.join(JUDGE_CHOICES)})")
        if not run:
            raise fail(f"--judge-verdict {opt}: needs --run (the run whose answers the judge saw)")
        known = judges(conn, run)
        if judge.strip() not in known:
            raise fail(f"--judge-verdict {opt}: no verdicts of judge {judge.strip()!r} on run {run}"
                       f" (judges: {', '.join(known) or 'none imported'})")
        try:
            pairs.append(judge_selection(judge.strip(), choice.strip()))
        except ValueError as exc:
            raise fail(f"--judge-verdict {opt}: {exc}") from None
    return tuple(pairs)


def _values(opts: list[str] | None) -> tuple[str, ...] | None:
    """Repeated and comma-separated values as one tuple; None when the option is not given."""
    if not opts:
        return None
    return tuple(v.strip() for o in opts for v in o.split(",") if v.strip())


def _check_ranges(em: int | None, f1_min: float | None, f1_max: float | None, sort: str | None) -> None:
    """Values no filter can hold → one line naming the option."""
    if em is not None and em not in (0, 1):
        raise fail(f"--em {em}: must be 0 or 1")
    for opt, v in (("--f1-min", f1_min), ("--f1-max", f1_max)):
        if v is not None and not 0.0 <= v <= 1.0:
            raise fail(f"{opt} {v}: must be between 0 and 1")
    if sort is not None and sort not in SORTS:
        raise fail(f"--sort {sort}: choose from {', '.join(SORTS)}")


def _check_names(conn: sqlite3.Connection, dataset: str | None, run: str | None, compare: str | None) -> None:
    """Dataset and run names that are not loaded → one line naming the option and the known names."""
    for opt, name, kind in (("--dataset", dataset, "dataset"), ("--run", run, "run"), ("--compare", compare, "run")):
        if name is None:
            continue
        try:
            if kind == "dataset":
                require_dataset(conn, name)
            else:
                require_run(conn, name)
        except UnknownNameError as exc:
            raise fail(f"{opt} {name}: no such {kind} (known: {', '.join(exc.known) or 'none loaded'})") from None


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
    judge_verdict: list[str] | None = None,
) -> Filter:
    """`base` (a slice, or no restriction) with every option given on the command line replacing
    that field; names are checked against the database so a typo is an error, not an empty list."""
    _check_ranges(em, f1_min, f1_max, sort)
    _check_names(conn, dataset, run, compare)
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
    if judge_verdict:
        pairs = judge_pairs(conn, run or base.run, judge_verdict)
        changes["facets"] = (*base.facets, *(p for p in pairs if p not in base.facets))
    return base.with_(**changes)
