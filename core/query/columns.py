"""The column registry: every column an item has, as one definition (name → SQL, label, kind).

The item table's extra columns, sorting by them, the expression filter (`core.query.expression`)
and the frequency table (`core.query.frequency`) all read a column from here, so a column means
the same in each. Fixed columns are listed in `COLUMNS`; four families are named with a prefix
and built on request, their names reaching SQLite only as parameters:

- `judge:NAME` — run A's verdict by one imported judge (the `verdicts` table);
- `meta:KEY` — a key of run A's prediction records (`predictions.meta`, JSON; `meta_keys` finds them);
- `answer:RUN` / `score:RUN` — another run's answer and score (F1, else F1-recall) on the item.

The SQL is over the joins every filter query has: items `i`, run A's predictions `p`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.errors import unknown_name

from .item_sql import (
    CATEGORY_SQL,
    CROSS_SQL,
    LABELLED_SQL,
    LABELS_SQL,
    STALE_ITEMS_SQL,
    judge_verdict_sql,
)

__all__ = [
    "COLUMNS",
    "COLUMN_ALIASES",
    "COLUMN_PREFIXES",
    "LABELS",
    "NUMBER",
    "TEXT",
    "ColumnDef",
    "available_columns",
    "column_def",
    "fold_sql",
    "is_column",
    "meta_keys",
    "order_sql",
    "run_has_samples",
]

TEXT = "text"
NUMBER = "number"
LABELS = "labels"
"""Kinds of column: text compares and groups folded (`fold_sql`); a number as stored; labels are
a ", "-joined set (`=` means "has this label")."""


@dataclass(frozen=True, slots=True)
class ColumnDef:
    """One column: its registry name, header, SQL value expression (+ parameters) and kind."""

    name: str
    label: str
    sql: str
    params: tuple[Any, ...] = ()
    kind: str = TEXT
    group: str = "item"
    """What the column belongs to: item, run (run A), feature, judge, meta, other run."""
    sparse: str | None = None
    """For a column few items have a value of (labels, a judge's verdicts): a condition true for
    every item with a value (and few others), over `i` with run A's name as the first parameter
    and `sparse_params` after it; a sort then reads those items first (`core.query.paging`)."""
    sparse_params: tuple[Any, ...] = ()

    @property
    def numeric(self) -> bool:
        """Whether values are numbers (right-aligned, compared as stored)."""
        return self.kind == NUMBER

    def value_sql(self, params: list[Any]) -> str:
        """The expression, its parameters appended to `params` (in text order)."""
        params.extend(self.params)
        return f"({self.sql})"


def fold_sql(expr: str) -> str:
    """Text as the frequency table groups it and text comparisons compare it: line breaks and
    tabs as spaces, runs of up to 8 spaces as one, trimmed, ASCII case folded (SQLite's `lower`)."""
    out = f"replace(replace(replace({expr}, char(13), ' '), char(10), ' '), char(9), ' ')"
    for _ in range(3):
        out = f"replace({out}, '  ', ' ')"
    return f"lower(trim({out}))"


SAMPLES = "samples"
"""The group of the columns of a run's samples (pass rate, distinct answers, flaky): offered only
for a run that sampled items (`run_has_samples`)."""


def _static() -> dict[str, ColumnDef]:
    item = [("key", "id", "i.key"), ("split", "split", "i.split"), ("tag", "tag", "i.tag"),
            ("answer_type", "type", "i.answer_type"), ("answerable", "answerable", "i.answerable"),
            ("question", "question", "i.question")]
    cols = [ColumnDef(n, label, sql) for n, label, sql in item]
    cols += [
        ColumnDef("prediction", "prediction", "p.text", group="run"),
        ColumnDef("em", "EM", "p.em", kind=NUMBER, group="run"),
        ColumnDef("f1", "F1", "p.f1", kind=NUMBER, group="run"),
        ColumnDef("f1_recall", "F1-r", "p.f1_recall", kind=NUMBER, group="run"),
        ColumnDef("refused", "refused", "p.refused", kind=NUMBER, group="run"),
        ColumnDef("pred_length", "pred len", "length(p.text)", kind=NUMBER, group="run"),
        ColumnDef("stale", "stale", f"i.id IN ({STALE_ITEMS_SQL})", kind=NUMBER),
        ColumnDef("label", "labels", LABELS_SQL, kind=LABELS, group="run",
                  sparse=LABELLED_SQL),
        ColumnDef("error_category", "category", CATEGORY_SQL, group="run"),
        ColumnDef("relation", "relation", "p.relation", group="run"),
        ColumnDef("question_type", "q type", "i.question_type", group="feature"),
        ColumnDef("gold_length", "gold len", "i.gold_length", group="feature"),
        ColumnDef("passage_length", "passage len", "i.passage_length", group="feature"),
        ColumnDef("answer_position", "answer pos", "i.answer_position", group="feature"),
        ColumnDef("gold_count", "golds", "i.gold_count", kind=NUMBER, group="feature"),
        ColumnDef("gold_agreement", "gold agreement", "i.gold_agreement", group="feature"),
        ColumnDef("cross_sentence", "cross-sent", CROSS_SQL, group="feature"),
        ColumnDef("question_overlap", "q overlap", "i.question_overlap", group="feature"),
        # Runs that sampled each question several times (NULL for a single answer):
        ColumnDef("pass_rate", "pass rate", "1.0 * p.correct_samples / p.samples", kind=NUMBER, group=SAMPLES),
        ColumnDef("distinct_answers", "answers", "p.distinct_answers", kind=NUMBER, group=SAMPLES),
        ColumnDef("flaky", "flaky", "p.flaky", kind=NUMBER, group=SAMPLES),
    ]
    return {c.name: c for c in cols}


COLUMNS: dict[str, ColumnDef] = _static()
"""Every fixed column, in the order the columns dialog offers them."""
COLUMN_ALIASES: dict[str, str] = {"category": "error_category", "type": "answer_type", "id": "key",
                                  "labels": "label", "pred": "prediction", "qword": "question_type"}
"""Short names an expression may use for a column."""
COLUMN_PREFIXES: tuple[str, ...] = ("judge", "meta", "answer", "score")
"""Families of columns named `prefix:NAME` (see the module docstring)."""

_RUN_ID = "(SELECT r.id FROM runs r WHERE r.name = ?)"  # uncorrelated: looked up once


def _prefixed(kind: str, arg: str) -> ColumnDef | None:
    name = f"{kind}:{arg}"
    if kind == "judge":
        return ColumnDef(name, f"judge {arg}", judge_verdict_sql(), (arg,), group="judge",
                         sparse="i.key IN (SELECT v.item_key FROM verdicts v WHERE v.run = ? AND v.judge = ?)",
                         sparse_params=(arg,))
    if kind == "meta":
        if '"' in arg:  # a JSON path label cannot hold a double quote
            return None
        return ColumnDef(name, arg, "json_extract(p.meta, ?)", (f'$."{arg}"',), group="meta")
    if kind == "answer":
        return ColumnDef(name, f"{arg} answer", "(SELECT x.text FROM predictions x WHERE x.item_id = i.id"
                         f" AND x.run_id = {_RUN_ID})", (arg,), group="other run")
    if kind == "score":
        return ColumnDef(name, f"{arg} score", "(SELECT COALESCE(x.f1, x.f1_recall) FROM predictions x"
                         f" WHERE x.item_id = i.id AND x.run_id = {_RUN_ID})", (arg,), kind=NUMBER,
                         group="other run")
    return None


def column_def(name: str) -> ColumnDef:
    """The column called `name` (a fixed one, an alias, or `prefix:NAME`); ValueError naming the
    known columns otherwise."""
    name = COLUMN_ALIASES.get(name, name)
    if name in COLUMNS:
        return COLUMNS[name]
    kind, sep, arg = name.partition(":")
    found = _prefixed(kind, arg) if sep and arg else None
    if found is None:
        known = [*COLUMNS, *COLUMN_ALIASES, *(f"{p}:NAME" for p in COLUMN_PREFIXES)]
        raise ValueError(unknown_name("column", name, known))
    return found


def is_column(name: str) -> bool:
    """Whether `name` names a column of the registry."""
    try:
        column_def(name)
    except ValueError:
        return False
    return True


def order_sql(name: str, descending: bool, params: list[Any]) -> str:
    """ORDER BY of a registry column: NULLs last, ties by item id (as `order_clause`); appends
    the column's parameters (twice: the expression appears twice)."""
    col = column_def(name)
    direction = "DESC" if descending else "ASC"
    first = col.value_sql(params)
    second = col.value_sql(params)
    return f"{first} IS NULL, {second} {direction}, i.id {direction}"


META_SAMPLE = 2000
"""Predictions of a run read to find its `meta` keys (bounded: a million rows are not all read)."""


def meta_keys(conn: Any, run: str | None, sample: int = META_SAMPLE) -> list[str]:
    """The `meta` keys of run A's first `sample` predictions with a `meta`, sorted; keys holding
    only objects or lists (no one value to show) are left out."""
    if not run:
        return []
    rows = conn.execute(
        "SELECT p.meta FROM predictions p WHERE p.run_id = (SELECT id FROM runs WHERE name = ?)"
        " AND p.meta IS NOT NULL AND p.meta != '{}' LIMIT ?", (run, sample)).fetchall()
    keys: dict[str, bool] = {}
    for (text,) in rows:
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            for k, v in data.items():
                keys[str(k)] = keys.get(str(k), False) or not isinstance(v, (dict, list))
    return sorted(k for k, scalar in keys.items() if scalar and '"' not in k)


def run_has_samples(conn: Any, run: str) -> bool:
    """Whether `run` answered some item with several samples. Instant when no run of the
    database sampled (no completions) or this one did (its first sampled row is found at once)."""
    if conn.execute("SELECT 1 FROM completions LIMIT 1").fetchone() is None:
        return False
    return conn.execute("SELECT 1 FROM predictions p WHERE p.run_id = (SELECT id FROM runs WHERE name = ?)"
                        " AND p.samples IS NOT NULL LIMIT 1", (run,)).fetchone() is not None


def available_columns(conn: Any, run: str | None) -> list[ColumnDef]:
    """Every column an item of `run` (of its dataset without a run) has: the fixed ones, then one per
    judge with verdicts on the run, per `meta` key of its predictions, and per other run of its
    dataset (answer and score)."""
    cols = [c for c in COLUMNS.values() if run or c.group not in ("run", SAMPLES)]
    if not run:
        return cols
    if not run_has_samples(conn, run):
        cols = [c for c in cols if c.group != SAMPLES]
    judges = [r[0] for r in conn.execute("SELECT DISTINCT judge FROM verdicts WHERE run = ? ORDER BY judge", (run,))]
    others = [r[0] for r in conn.execute(
        "SELECT o.name FROM runs o JOIN runs r ON r.dataset_id = o.dataset_id WHERE r.name = ? AND o.name != ?"
        " ORDER BY o.name", (run, run))]
    cols += [column_def(f"judge:{j}") for j in judges]
    cols += [column_def(f"meta:{k}") for k in meta_keys(conn, run)]
    for other in others:
        cols += [column_def(f"answer:{other}"), column_def(f"score:{other}")]
    return cols
