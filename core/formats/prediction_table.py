"""Prediction tables: Parquet, Arrow or CSV with one row per answered question.

The row names its item by an id column (`id`, `qid`, `query_id`, `question_id`), else by its
`question`, and carries the answer in `prediction_text` (the `evaluate` squad / squad_v2 format),
else `prediction`, `pred`, `response` or `answer`; `raw` and `model` are optional, as in
`prediction_records`, and every other column goes to `Prediction.meta`. `evaluate`'s
`no_answer_probability` goes to `meta["null_odds"]`, the key HF `*_null_odds.json` fills
(`prediction_map`): there it is a score difference, here a probability, both "higher = more
likely no answer". A null or empty cell is an empty answer.

Tables that are not runs are skipped with a reason: a CSV with `question` and `answer` but no
prediction column is a dataset (read from JSONL or Parquet, not CSV), and qa-inspect's own
exports of the item list (`dataset`, `run`, `key`, `prediction` columns) are not a run either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from qa_inspect.core.model import Prediction, Run

from ._common import ID_FIELDS, build_run, fail, first_id
from ._records import RunRecords, record_role
from .tables import Table, cell_value
from .textio import Document, number_text, shown, type_name

__all__ = ["FORMAT", "KIND", "NULL_ODDS_COLUMN", "PRIORITY", "TEXT_COLUMNS", "read", "skip_reason", "sniff"]

FORMAT = "prediction-table"
KIND: Literal["run"] = "run"
PRIORITY = 20

TEXT_COLUMNS = ("prediction_text", "prediction", "pred", "response", "answer")
"""Columns that hold the prediction, first found wins."""
NULL_ODDS_COLUMN = "no_answer_probability"
_EXPORT_COLUMNS = frozenset({"dataset", "run", "key", "prediction"})
_OWN = frozenset({*ID_FIELDS, NULL_ODDS_COLUMN, "raw", "model"})


def _text_column(table: Table) -> str | None:
    return next((c for c in TEXT_COLUMNS if c in table.columns), None)


def sniff(doc: Document) -> bool:
    """A table with a prediction column and an id (or question) column, whose columns make a run."""
    table = doc.table
    if table is None or _text_column(table) is None or record_role(table.columns) != "run":
        return False
    return any(c in table.columns for c in (*ID_FIELDS, "question"))


def skip_reason(doc: Document) -> str | None:
    """qa-inspect's exports, CSV datasets (question + answer, no prediction column), and
    prediction tables without rows (as an empty JSON list is skipped)."""
    table = doc.table
    if table is None:
        return None
    if _EXPORT_COLUMNS <= set(table.columns):
        return "a qa-inspect export of an item list, not a run (load the run it was exported from)"
    if table.kind == "csv" and record_role(table.columns) == "dataset":
        return (
            "a dataset table (question and gold columns, no prediction column):"
            " CSV datasets are not read, save it as JSONL or Parquet"
        )
    if sniff(doc) and not table.rows():
        return f"no predictions (a {table.label} without rows)"
    return None


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    """Predictions in row order; `Prediction.line` is the row (CSV: the line the row starts on)."""
    table = doc.table
    if table is None:
        raise fail(doc, "not a table", None)
    text_column = _text_column(table)
    if text_column is None:
        raise fail(doc, f"no prediction column (one of {', '.join(TEXT_COLUMNS)})", None)
    found = RunRecords(doc)
    for number, row in table.rows():
        found.add(number, *_prediction(doc, number, row, text_column))
    meta: dict[str, Any] = {"table": table.label, **found.meta()}
    if NULL_ODDS_COLUMN in table.columns:
        missing = sum(1 for p in found.predictions if "null_odds" not in p.meta)
        meta["null_odds"] = {"column": NULL_ODDS_COLUMN, "without_null_odds": missing}
    return build_run(doc, hints, FORMAT, found.predictions, found.model(hints), meta)


def _prediction(doc: Document, number: int, row: dict[str, Any], text_column: str) -> tuple[Prediction, str | None]:
    where = doc.where(number)
    ref = first_id(doc, row, ID_FIELDS, where)
    meta = {k: cell_value(v) for k, v in row.items() if k not in _OWN and k != text_column}
    question = row.get("question")
    if ref is not None:
        kind: Literal["id", "question"] = "id"
    elif isinstance(question, str) and question.strip():
        ref, kind = question.strip(), "question"
        del meta["question"]
    else:
        raise fail(doc, f"row names no item: no {' / '.join(c for c in ID_FIELDS if c in row) or 'id'} and no question", where)
    value = row.get(text_column)
    text = "" if value is None else number_text(value)
    if text is None:
        raise fail(doc, f"{text_column} is {type_name(value)}, expected text", where)
    odds = _null_odds(doc, row.get(NULL_ODDS_COLUMN), where)
    if odds is not None:
        meta["null_odds"] = odds
    raw = row.get("raw")
    model = row.get("model")
    return (
        Prediction(ref=ref, ref_kind=kind, text=text, raw=raw if isinstance(raw, str) and raw else None,
                   meta=meta, line=number),
        model if isinstance(model, str) and model else None,
    )


def _null_odds(doc: Document, value: Any, where: str | int) -> float | None:
    """`no_answer_probability` as a float; empty (CSV) or null: None; anything else an error."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        odds = float(value)
    except (TypeError, ValueError):
        raise fail(doc, f"{NULL_ODDS_COLUMN} is {shown(str(value))}, expected a number", where) from None
    return None if math.isnan(odds) else odds
