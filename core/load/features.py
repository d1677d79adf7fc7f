"""What ingest stores beside the scores: the item features and what an error category needs.

Item features (`core.metrics.question_features`) are columns of `items` (`FEATURE_COLUMNS`),
computed when an item is written; the error category of a prediction (`core.metrics.error_category`)
is `predictions.error_category`, computed when the prediction is scored (`score_pool`), from the
item's `Context`: its passage, the located spans of its scored golds and whether it has an answer.
Only the code is stored: the reason in words is recomputed where it is shown (a pure function).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from qa_inspect.core.metrics import question_features
from qa_inspect.core.model import Gold
from qa_inspect.core.store import FEATURE_COLUMNS

__all__ = ["FEATURE_COLUMNS", "FEATURE_SPLIT", "Beside", "Context", "FeatureKey", "FeatureMemo", "feature_values", "features_of",
           "gold_spans", "item_contexts"]

T = TypeVar("T")
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


FeatureKey = tuple[str, tuple[str, ...], str | None, tuple[Span, ...]]
"""(question, scored golds, passage, their spans): what an item's features are computed from."""
FEATURE_SPLIT = 1_000
"""Distinct items from which a dataset's features are computed half in the load's second process."""


class Beside(Protocol):
    """A second process that answers a request while this one computes (`score_pool.ScorePool`)."""

    def beside(self, request: tuple[Callable[..., Any], tuple[Any, ...]], here: Callable[[], T]) -> tuple[T, Any]: ...


def features_of(keys: Sequence[FeatureKey]) -> list[tuple[Any, ...]]:
    """`feature_values` of each key (module level: the second process is sent it by name)."""
    return [feature_values(*key) for key in keys]


class FeatureMemo:
    """`feature_values` once per distinct (question, golds, passage, spans): replicated and
    templated datasets repeat items (as `ingest.HumanMemo` for the human estimate). Holds at most
    `limit` entries (each keeps its passage alive), then starts over."""

    __slots__ = ("known", "limit")

    def __init__(self, limit: int = 50_000) -> None:
        self.known: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.limit = limit

    def fill(self, keys: Sequence[FeatureKey], pool: Beside) -> None:
        """The features of the distinct `keys` not known yet, computed half in `pool`'s second
        process while this one computes the others (at 170 µs an item, 20,000 questions took
        3.4 s of a load's storing with the second process idle); nothing below `FEATURE_SPLIT`
        or past the memo's `limit` (`of` computes them then)."""
        todo = list(dict.fromkeys(key for key in keys if key not in self.known))
        if len(todo) < FEATURE_SPLIT or len(self.known) + len(todo) > self.limit:
            return
        half = len(todo) // 2
        mine, theirs = pool.beside((features_of, (todo[half:],)), lambda: features_of(todo[:half]))
        self.known.update(zip(todo, [*mine, *(features_of(todo[half:]) if theirs is None else theirs)]))

    def of(self, question: str, scored: Sequence[str], passage: str | None, spans: Sequence[Span]) -> tuple[Any, ...]:
        key = (question, tuple(scored), passage, tuple(spans))
        found = self.known.get(key)
        if found is None:
            if len(self.known) >= self.limit:
                self.known.clear()
            found = self.known[key] = feature_values(question, scored, passage, spans)
        return found


def item_contexts(conn: sqlite3.Connection, dataset_id: int) -> dict[int, Context]:
    """item id → `Context`, for the error categories of a run on this dataset. Passages are read
    once each (shared by the items that quote them) and equal contexts share one tuple."""
    passages = dict(conn.execute("SELECT id, text FROM contexts WHERE dataset_id = ?", (dataset_id,)))
    spans: dict[int, list[Span]] = {}
    unordered: set[int] = set()
    last: tuple[int | None, int] = (None, -1)
    sql = ("SELECT g.item_id, g.idx, g.span_start, g.span_end FROM golds g NOT INDEXED JOIN items i ON i.id = g.item_id"
           " WHERE +i.dataset_id = ? AND g.superseded = 0")
    for item_id, idx, start, end in conn.execute(sql, (dataset_id,)):  # table order: an item's golds in idx order
        span = None if start is None or end is None else (start, end)
        found = spans.get(item_id)
        if found is None:
            spans[item_id] = [span]
        else:
            found.append(span)
            if last[0] != item_id or idx < last[1]:
                unordered.add(item_id)
        last = (item_id, idx)
    for item_id in unordered:  # golds not stored together and in order (never by ingest): read them in order
        spans[item_id] = [None if a is None or b is None else (a, b) for a, b in conn.execute(
            "SELECT span_start, span_end FROM golds WHERE item_id = ? AND superseded = 0 ORDER BY idx", (item_id,))]
    shared: dict[Context, Context] = {}
    out: dict[int, Context] = {}
    for item_id, context_id, impossible in conn.execute(
        "SELECT id, context_id, is_impossible FROM items WHERE +dataset_id = ?", (dataset_id,)
    ):
        ctx = (passages.get(context_id), tuple(spans.get(item_id, ())), bool(impossible))
        out[item_id] = shared.setdefault(ctx, ctx)
    return out
