"""The item-filter options `export` and `slices save` share, written once: `filter_options` puts
them on a command in place of its `filters: FilterArgs` parameter, and `build_filter` turns them into
a `Filter`. A new filter option is one `FilterArgs` field and one line in `FILTER_OPTIONS`."""

from __future__ import annotations

import functools
import inspect
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Annotated, Any, TypeVar

import typer
from qa_inspect.core.errors import UnknownNameError, unknown_name
from qa_inspect.core.query import (
    JUDGE_CHOICES, SORTS, ExpressionError, Filter, and_clause, expression_sql, is_column, judge_selection, judges,
)
from qa_inspect.core.store import require_dataset, require_run

from .common import fail

__all__ = [
    "FILTER_OPTIONS",
    "ORDER_OPTIONS",
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
    "WhereOpt",
    "FilterArgs",
    "build_filter",
    "filter_options",
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
WhereOpt = Annotated[str | None, typer.Option(
    "--where", help='Expression over the item columns, e.g. \'f1 < 0.5 and tag = "fast-changing" and label !='
    ' "format"\' (see the guide: Columns, frequencies and expressions).', show_default=False)]
F1MaxOpt = Annotated[float | None, typer.Option("--f1-max", help="F1 (or F1-recall) of --run at most.", show_default=False)]
SearchOpt = Annotated[
    str | None, typer.Option("--search", help="Text in the question, a gold or the prediction.", show_default=False)
]
StaleOpt = Annotated[
    bool | None, typer.Option("--stale/--not-stale", help="Items with / without a gold flagged stale.", show_default=False)
]
SortOpt = Annotated[str | None, typer.Option(
    "--sort", help=f"Order: {', '.join(SORTS)}, or any item column (label, error_category, meta:KEY …).",
    show_default=False)]
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
    if sort is not None and sort not in SORTS and not is_column(sort):
        raise fail("--sort: " + unknown_name("sort", sort, SORTS))


def _check_where(where: str | None) -> None:
    """An expression that does not read → one line naming the option, the place and the column."""
    if where is not None:
        try:
            expression_sql(where, [])
        except ExpressionError as exc:
            raise fail(f"--where: {exc}") from None


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
            raise fail(f"{opt}: {exc}") from None


@dataclass(frozen=True, slots=True)
class FilterArgs:
    """The filter options as given on the command line (None: not given)."""

    dataset: str | None = None
    run: str | None = None
    compare: str | None = None
    split: list[str] | None = None
    tag: list[str] | None = None
    answer_type: list[str] | None = None
    refused: bool | None = None
    em: int | None = None
    f1_min: float | None = None
    f1_max: float | None = None
    search: str | None = None
    stale: bool | None = None
    judge_verdict: list[str] | None = None
    where: str | None = None
    sort: str | None = None
    descending: bool = False


FILTER_OPTIONS: dict[str, Any] = {
    "dataset": DatasetOpt, "run": RunOpt, "compare": CompareOpt, "split": SplitOpt, "tag": TagOpt,
    "answer_type": TypeOpt, "refused": RefusedOpt, "em": EmOpt, "f1_min": F1MinOpt, "f1_max": F1MaxOpt,
    "search": SearchOpt, "stale": StaleOpt, "judge_verdict": JudgeVerdictOpt, "where": WhereOpt,
}
"""The options that choose items (`FilterArgs` field → its Typer option), in `--help` order."""
ORDER_OPTIONS: dict[str, Any] = {"sort": SortOpt, "descending": DescOpt}
"""The options that order them (a command that lists items takes these too)."""

F = TypeVar("F", bound=Callable[..., Any])


def filter_options(*, order: bool = False) -> Callable[[F], F]:
    """A decorator: the command's `filters: FilterArgs` parameter becomes the filter options (and
    `--sort`/`--desc` with `order=True`) in `--help`; the command receives them as one `FilterArgs`."""
    options = {**FILTER_OPTIONS, **(ORDER_OPTIONS if order else {})}

    def wrap(func: F) -> F:
        sig = inspect.signature(func, eval_str=True)
        params: list[inspect.Parameter] = []
        for p in sig.parameters.values():
            if p.name != "filters":
                params.append(p)
                continue
            params += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=opt,
                                         default=False if name == "descending" else None)
                       for name, opt in options.items()]

        @functools.wraps(func)
        def command(*args: Any, **kwargs: Any) -> Any:
            given = {name: kwargs.pop(name) for name in options if name in kwargs}
            filters = kwargs.pop("filters", None) or FilterArgs(**given)  # a Python caller may pass one
            return func(*args, filters=filters, **kwargs)

        command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command  # type: ignore[return-value]

    return wrap


def build_filter(conn: sqlite3.Connection, base: Filter, args: FilterArgs) -> Filter:
    """`base` (a slice, or no restriction) with every option given on the command line replacing
    that field; names are checked against the database so a typo is an error, not an empty list."""
    _check_ranges(args.em, args.f1_min, args.f1_max, args.sort)
    _check_names(conn, args.dataset, args.run, args.compare)
    _check_where(args.where)
    renamed = {"split": "splits", "tag": "tags", "answer_type": "answer_types"}
    changes: dict[str, object] = {}
    for field in fields(FilterArgs):
        value = getattr(args, field.name)
        if field.name in ("judge_verdict", "where"):
            continue  # added to the slice's, below
        if field.name in renamed:
            value = _values(value)
        if value is not None and field.name != "descending":
            changes[renamed.get(field.name, field.name)] = value
    if args.descending:
        changes["descending"] = True
    if args.where is not None:  # AND-ed with a slice's own expression
        changes["expression"] = and_clause(base.expression, args.where)
    if args.judge_verdict:
        pairs = judge_pairs(conn, args.run or base.run, args.judge_verdict)
        changes["facets"] = (*base.facets, *(p for p in pairs if p not in base.facets))
    return base.with_(**changes)
