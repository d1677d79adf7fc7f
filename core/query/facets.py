"""Facets: VisiData-style frequency tables of the item browser's current filter.

For one facet (split, tag, answer type, refused, stale, prediction length, gold length, error
category, question type and the other item features) `facet_table` counts the filtered items per
value, with each value's errors (same definition as `core.report`: EM 0 for span scorers; a
refusal, no answer or F1-recall < 1 for CDQA; a missing prediction is an error), and the `Filter`
that selecting the value gives. The TUI draws the bars; this module only returns data.

Facet values are SQL expressions from the fixed `FACETS` table of `core.query.sql`; the bucket
bounds and labels and every user value reach SQLite as parameters (the only literals are fixed
ones of that table: `no prediction`, `yes`/`no`). The error category and the item features are
columns ingest stored.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.metrics import question_type

from .data_stamp import data_stamp
from .count_frame import facet_counts
from .filters import Filter
from .sql import (
    ERROR_SQL,
    FACETS,
    JUDGE_VS,
    judge_facet,
    LENGTH_BUCKETS,
    LONGEST,
    NO_PREDICTION,
    FacetDef,
    build,
)

__all__ = [
    "FacetRow",
    "FacetTable",
    "clear",
    "facet_table",
    "facet_defs",
    "facet_tables",
    "pass_counts",
    "JUDGE_CHOICES",
    "judge_facet_names",
    "judge_selection",
    "judges",
    "length_bucket",
    "question_word",
    "select",
    "selected",
]


@dataclass(frozen=True, slots=True)
class FacetRow:
    """One value of a facet under the current filter."""

    value: Any
    """The raw value (None for items without one); what `select` takes."""
    label: str
    items: int
    errors: int | None
    """None when the filter has no run (errors are a run's)."""
    item_share: float
    """items / all items under the filter, in % (the bar of a frequency table)."""
    error_rate: float | None
    """errors / items of this value, in %."""
    error_share: float | None
    """errors / all errors under the filter, in % (where the errors concentrate)."""
    filter: Filter | None
    """The filter with this value selected (replacing the facet's selection); None if not selectable."""


@dataclass(frozen=True, slots=True)
class FacetTable:
    name: str
    label: str
    total: int
    errors: int | None
    rows: list[FacetRow]


def _label(d: FacetDef, value: Any) -> str:
    if value is None and d.name.startswith(("judge:", "judge_vs:")):
        return "no verdict"
    if d.name == "refused":
        return {1: "refused", 0: "answered"}.get(value, NO_PREDICTION)
    if d.name == "stale":
        return "stale" if value else "not stale"
    if d.name == "cross_sentence" and value is not None:
        return {"yes": "across sentences", "no": "same sentence"}.get(value, str(value))
    return "—" if value is None else str(value)


def _has_run(conn: Any, f: Filter) -> bool:
    return bool(f.run) and conn.execute("SELECT 1 FROM runs WHERE name = ?", (f.run,)).fetchone() is not None


def _table(f: Filter, d: FacetDef, rows: list[tuple[Any, int, int]], has_run: bool) -> FacetTable:
    """A `FacetTable` from (value, items, errors) rows, in the facet's value order."""
    if d.order is not None:
        rank = {v: n for n, v in enumerate(d.order)}
        rows = sorted(rows, key=lambda r: (rank.get(r[0], len(rank)), str(r[0])))
    else:
        rows = sorted(rows, key=lambda r: (-r[1], r[0] is None, str(r[0])))
    total = sum(r[1] for r in rows)
    total_errors = sum(int(r[2] or 0) for r in rows) if has_run else None
    out = []
    for value, items, errors in rows:
        errs = int(errors or 0) if has_run else None
        out.append(
            FacetRow(
                value=value,
                label=_label(d, value),
                items=items,
                errors=errs,
                item_share=100.0 * items / total if total else 0.0,
                error_rate=100.0 * errs / items if errs is not None and items else None,
                error_share=(100.0 * errs / total_errors if total_errors else 0.0) if errs is not None else None,
                filter=select(f, d.name, value),
            )
        )
    return FacetTable(name=d.name, label=d.label, total=total, errors=total_errors, rows=out)


def _def(name: str, f: Filter | None = None) -> FacetDef:
    """A fixed facet, or a judge's (`judge:NAME`, `judge_vs:NAME`, at the filter's threshold)."""
    d = FACETS.get(name) or judge_facet(name, f.outcome_threshold if f is not None else None)
    if d is None:
        raise KeyError(name)
    return d


def judges(conn: Any, run: str | None) -> list[str]:
    """The judges with verdicts on run `run` (imported, `core.load`), by name."""
    if not run:
        return []
    return [r[0] for r in conn.execute("SELECT DISTINCT judge FROM verdicts WHERE run = ? ORDER BY judge", (run,))]


def judge_facet_names(conn: Any, run: str | None) -> list[str]:
    """`judge:NAME` and `judge_vs:NAME` of every judge of `run`: the facets a panel adds for them."""
    return [f"{kind}:{judge}" for judge in judges(conn, run) for kind in ("judge", "judge_vs")]


JUDGE_CHOICES: dict[str, tuple[str, str]] = {
    "correct": ("judge", "correct"),
    "incorrect": ("judge", "incorrect"),
    "partial": ("judge", "partial"),
    "judge-right": ("judge_vs", JUDGE_VS[0]),
    "judge-wrong": ("judge_vs", JUDGE_VS[1]),
}
"""What a judge-verdict selection can ask for (`--judge-verdict JUDGE=CHOICE`) → (facet kind, value):
the judge's verdict, or a disagreement with the official score ("judge-right": official wrong,
judge right; "judge-wrong": official right, judge not right)."""


def judge_selection(judge: str, choice: str) -> tuple[str, str]:
    """The `Filter.facets` pair of one judge-verdict choice (`JUDGE_CHOICES`); ValueError if unknown."""
    if choice not in JUDGE_CHOICES:
        raise ValueError(f"{choice!r}: choose from {', '.join(JUDGE_CHOICES)}")
    kind, value = JUDGE_CHOICES[choice]
    return f"{kind}:{judge}", value


def facet_table(conn: Any, f: Filter, name: str) -> FacetTable:
    """Counts and errors per value of one facet for the items of `f` (one GROUP BY query; kept,
    see `facet_tables`: the panel recounts a selected facet without its selection, which is
    usually the filter it just counted)."""
    key = _key(conn, f, (name,))
    if key is not None:
        with _LOCK:
            kept = list(_KEPT.items())
        for (stamp, kept_f, _), tables in reversed(kept):
            if (stamp, kept_f) == key[:2] and (t := next((t for t in tables if t.name == name), None)):
                return t
    table = _facet_table(conn, f, name)
    _keep(key, [table])
    return table


def _facet_table(conn: Any, f: Filter, name: str) -> FacetTable:
    d = _def(name, f)
    counts = facet_counts(conn, f, [d])
    if counts is not None:
        rows = [(v, n, e) for v, (n, e) in counts[0].items()]
    else:  # a database without a file: no frame to keep, one GROUP BY
        sql, params = build(conn, f)
        rows = [tuple(r) for r in conn.execute(
            f"SELECT ({d.expr}) AS v, COUNT(*), SUM({ERROR_SQL}) {sql} GROUP BY v", [*d.params, *params])]
    return _table(f, d, rows, _has_run(conn, f))


def facet_tables(conn: Any, f: Filter, names: Sequence[str] | None = None) -> list[FacetTable]:
    """Every facet (or the named ones) that tells something here, from one pass over the items
    (about 3× faster than one `facet_table` per facet on 100k items). Left out: facets of the run
    when `f` has none, and optional labels when no item has a value (no tags in this dataset, no
    refusals from a span scorer, no unanswerable questions). Every judge of the run adds two
    (`judge_facet_names`) when `names` is not given.

    The tables are kept in this process under a stamp of what they count (the loaded files and
    rows, the annotation journal: stale flags and labels, the saved slices), so showing a filter
    again, or a facet without the value just selected, counts nothing until something changes."""
    defs = facet_defs(conn, f, names)
    if not defs:
        return []
    key = _key(conn, f, tuple(d.name for d in defs))
    with _LOCK:
        hit = _KEPT.get(key) if key is not None else None
        if hit is not None and key is not None:
            _KEPT.move_to_end(key)
    if hit is not None:
        return list(hit)
    tables = _count_tables(conn, f, defs)
    _keep(key, tables)
    return list(tables)


def facet_defs(conn: Any, f: Filter, names: Sequence[str] | None = None) -> list[FacetDef]:
    """The facets `facet_tables` counts for `f`: the named ones, else every fixed facet and the
    run's judges', less those of a run when `f` has none."""
    wanted = list(names) if names else [*FACETS, *judge_facet_names(conn, f.run)]
    return [d for d in (_def(n, f) for n in wanted) if not (d.needs_run and not f.run)]


_KEEP = 32
"""Filters whose facet tables are kept (a few KB each)."""
_KEPT: OrderedDict[tuple[Any, ...], list[FacetTable]] = OrderedDict()
_LOCK = threading.Lock()


def _stamp(conn: Any) -> tuple[Any, ...] | None:
    """What facet counts depend on besides the filter: the loaded data (`data_stamp`) and the
    journal's labels, flags and slices; None for a database without a file."""
    loaded = data_stamp(conn)
    if loaded is None:
        return None
    journal = [conn.execute("SELECT COUNT(*), MAX(rowid) FROM annotations").fetchall(),
               conn.execute("SELECT COUNT(*), MAX(rowid) FROM slices").fetchall()]
    return (loaded, hashlib.sha256(repr(journal).encode()).hexdigest())


def _key(conn: Any, f: Filter, names: tuple[str, ...]) -> tuple[Any, ...] | None:
    stamp = _stamp(conn)
    return None if stamp is None else (stamp, f, names)


def _keep(key: tuple[Any, ...] | None, tables: list[FacetTable]) -> None:
    if key is None:
        return
    with _LOCK:  # the panel's workers run in threads
        _KEPT[key] = list(tables)
        while len(_KEPT) > _KEEP:
            _KEPT.popitem(last=False)


def _count_tables(conn: Any, f: Filter, defs: list[FacetDef]) -> list[FacetTable]:
    """Every facet of `defs` counted over the filter's items: from the run's facet frame
    (`core.query.facet_frame`), or one pass over the items where there is none."""
    counts = facet_counts(conn, f, defs)
    if counts is None:
        counts = pass_counts(conn, f, defs)
    has_run = _has_run(conn, f)
    tables = []
    for d, per_value in zip(defs, counts):
        if d.optional and all(v is None for v in per_value):
            continue
        tables.append(_table(f, d, [(v, n, e) for v, (n, e) in per_value.items()], has_run))
    return tables


def pass_counts(conn: Any, f: Filter, defs: list[FacetDef]) -> list[dict[Any, list[int]]]:
    """Per facet of `defs`, value → [items, errors] from one pass over the filter's items (every
    expression evaluated per item: what the facet frame's counts equal)."""
    sql, params = build(conn, f)
    cols = ", ".join(f"({d.expr})" for d in defs)
    cur = conn.execute(
        f"SELECT {cols}, {ERROR_SQL} {sql}", [*(p for d in defs for p in d.params), *params]
    )
    counts: list[dict[Any, list[int]]] = [{} for _ in defs]
    while batch := cur.fetchmany(5000):
        for row in batch:
            err = row[-1] or 0
            for k in range(len(defs)):
                c = counts[k].get(row[k])
                if c is None:
                    counts[k][row[k]] = [1, err]
                else:
                    c[0] += 1
                    c[1] += err
    return counts


def select(f: Filter, name: str, value: Any, *, add: bool = False) -> Filter | None:
    """The filter with `value` of facet `name` selected; `add=True` adds it to the facet's current
    selection (OR) instead of replacing it. None when the value cannot be selected (an item
    without a split/tag/answer type, or without a prediction in the refused facet)."""
    d = _def(name)
    if value is None and d.optional:
        return None
    if d.field in ("splits", "tags", "answer_types"):
        current: tuple[str, ...] = getattr(f, d.field) if add else ()
        return f.with_(**{d.field: current if value in current else (*current, value)})
    if d.field in ("refused", "stale"):
        current_b = getattr(f, d.field)
        new = value not in ("0", "false") if isinstance(value, str) else bool(value)  # 1/0, or as text
        if add and current_b is not None and current_b != new:
            return f.with_(**{d.field: None})  # both values selected: no restriction
        return f.with_(**{d.field: new})
    kept = f.facets if add else tuple(p for p in f.facets if p[0] != name)
    pair = (name, str(value))
    return f.with_(facets=kept if pair in kept else (*kept, pair))


def clear(f: Filter, name: str) -> Filter:
    """The filter without any selection on facet `name`."""
    d = _def(name)
    if d.field in ("splits", "tags", "answer_types"):
        return f.with_(**{d.field: ()})
    if d.field in ("refused", "stale"):
        return f.with_(**{d.field: None})
    return f.with_(facets=tuple(p for p in f.facets if p[0] != name))


def selected(f: Filter, name: str) -> tuple[Any, ...]:
    """The values of facet `name` that `f` currently selects (to mark rows in the panel)."""
    d = _def(name)
    if d.field in ("splits", "tags", "answer_types"):
        return tuple(getattr(f, d.field))
    if d.field in ("refused", "stale"):
        v = getattr(f, d.field)
        return () if v is None else (int(v),)
    return tuple(v for n, v in f.facets if n == name)


def question_word(question: str) -> str:
    """The question type the `qword` facet shows for a question: `core.metrics.question_type`,
    which ingest stored (one definition; kept under this name for tools that call it)."""
    return question_type(question)


def length_bucket(length: int | None, missing: str = NO_PREDICTION) -> str:
    """The bucket label of a text length (Python twin of the SQL)."""
    if length is None:
        return missing
    return next((label for bound, label in LENGTH_BUCKETS if length <= bound), LONGEST)
