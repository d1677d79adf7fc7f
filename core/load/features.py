"""What ingest stores beside the scores: the item features and what an error category needs.

Item features (`core.metrics.question_features`) are columns of `items` (`FEATURE_COLUMNS`),
computed when an item is written; the error category of a prediction (`core.metrics.error_category`)
is `predictions.error_category`, computed when the prediction is scored (`score_pool`), from the
item's `Context`: its passage, the located spans of its scored golds and whether it has an answer.
Only the code is stored: the reason in words is recomputed where it is shown (a pure function).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from qa_inspect.core.metrics import question_features
from qa_inspect.core.model import Gold

__all__ = ["FEATURE_COLUMNS", "Context", "feature_values", "gold_spans", "item_contexts"]

FEATURE_COLUMNS: tuple[str, ...] = (
    "question_type", "gold_length", "passage_length", "answer_position", "gold_count", "gold_agreement",
    "cross_sentence", "question_overlap",
)
"""The `items` columns holding `QuestionFeatures`, in its field order (`question_type` is never NULL
once computed: a NULL there marks an item whose features are still to be computed)."""

Span = tuple[int, int] | None
Context = tuple[str | None, tuple[Span, ...], bool]
"""(passage or None, the located span of each scored gold, the item has no answer)."""


def gold_spans(golds: Sequence[Gold]) -> tuple[Span, ...]:
    """The located spans of the scored (not superseded) golds, in their order."""
    return tuple(
        (g.span_start, g.span_end) if g.span_start is not None and g.span_end is not None else None
        for g in golds if not g.superseded
    )


def feature_values(question: str, scored: Sequence[str], passage: str | None, spans: Sequence[Span]) -> tuple[Any, ...]:
    """The `FEATURE_COLUMNS` values of one item (`scored`: its scored golds, `spans` theirs)."""
    f = question_features(question, scored, passage, gold_spans=spans)
    return (f.question_type, f.gold_length, f.passage_length, f.answer_position, f.gold_count, f.gold_agreement,
            None if f.cross_sentence is None else int(f.cross_sentence), f.question_overlap)


def item_contexts(conn: sqlite3.Connection, dataset_id: int) -> dict[int, Context]:
    """item id → `Context`, for the error categories of a run on this dataset. Passages are read
    once each (shared by the items that quote them) and equal contexts share one tuple."""
    passages = dict(conn.execute("SELECT id, text FROM contexts WHERE dataset_id = ?", (dataset_id,)))
    spans: dict[int, list[tuple[int, Span]]] = {}
    for item_id, idx, start, end in conn.execute(  # table order, as `ingest.scorable_golds` reads them
        "SELECT g.item_id, g.idx, g.span_start, g.span_end FROM golds g NOT INDEXED JOIN items i ON i.id = g.item_id"
        " WHERE +i.dataset_id = ? AND g.superseded = 0",
        (dataset_id,),
    ):
        spans.setdefault(item_id, []).append((idx, None if start is None or end is None else (start, end)))
    shared: dict[Context, Context] = {}
    out: dict[int, Context] = {}
    for item_id, context_id, impossible in conn.execute(
        "SELECT id, context_id, is_impossible FROM items WHERE +dataset_id = ?", (dataset_id,)
    ):
        located = spans.get(item_id, ())
        ctx = (passages.get(context_id), tuple(span for _, span in sorted(located)), bool(impossible))
        out[item_id] = shared.setdefault(ctx, ctx)
    return out
