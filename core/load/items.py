"""How a prediction names its item, which golds count, and which scorer a dataset gets: the rules
ingest, linking and the `score` command share."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TypeVar

from qa_inspect.core.keys import question_key
from qa_inspect.core.metrics import default_scorer
from qa_inspect.core.model import Dataset, Item, Prediction

__all__ = ["dataset_scorer", "item_rows", "lookups", "lookups_keyed", "resolve", "scorable"]

T = TypeVar("T")


def resolve(p: Prediction, by_key: Mapping[str, T], by_q: Mapping[str, T]) -> T | None:
    """The item a prediction names: by id; an id that names nothing falls back to the record's
    question (`meta["question"]`); else by normalised question text (shown or original)."""
    if p.ref_kind == "id":
        found = by_key.get(p.ref.strip())
        if found is not None:
            return found
        question = p.meta.get("question")
        return by_q.get(question_key(question)) if isinstance(question, str) else None
    return by_q.get(question_key(p.ref))


def lookups(rows: Iterable[tuple[str, str | None, str | None, T]]) -> tuple[dict[str, T], dict[str, T]]:
    """(key → value, question key → value) from `(item key, question, original question, value)`
    rows — the same matching `core.load.matching.DatasetIndex` uses to link runs."""
    by_key: dict[str, T] = {}
    by_q: dict[str, T] = {}
    for key, question, original, value in rows:
        by_key[key] = value
        if key.startswith("q:"):
            by_q.setdefault(key.split("#", 1)[0], value)
        for text in (question, original):
            if text:
                by_q.setdefault(question_key(text), value)
    return by_key, by_q


def lookups_keyed(rows: Iterable[tuple[str, str | None, str | None, T]]) -> tuple[dict[str, T], dict[str, T]]:
    """`lookups` from rows whose question is already keyed: `(item key, question_key(question) or
    None for an empty question, original question, value)` (stored items carry their key)."""
    by_key: dict[str, T] = {}
    by_q: dict[str, T] = {}
    for key, qkey, original, value in rows:
        by_key[key] = value
        if key.startswith("q:"):
            by_q.setdefault(key.split("#", 1)[0], value)
        if qkey is not None:
            by_q.setdefault(qkey, value)
        if original:
            by_q.setdefault(question_key(original), value)
    return by_key, by_q


def item_rows(items: list[Item]) -> Iterator[tuple[str, str, str | None, Item]]:
    """`lookups` rows of items read from a file (the item itself as the value)."""
    for it in items:
        yield it.key, it.question, it.meta.get("original_question"), it


def scorable(item: Item) -> list[str]:
    """The golds a prediction is scored against: superseded originals never count."""
    return [g.text for g in item.golds if not g.superseded]


def dataset_scorer(ds: Dataset) -> str:
    """The user's choice, else the scorer for what the data is (`metrics.default_scorer`)."""
    return ds.scorer or default_scorer(ds.family, unanswerable=ds.has_unanswerable)
