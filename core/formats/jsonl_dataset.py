"""Generic dataset records: JSONL, a JSON list, or `{"data": [records]}` (HF `datasets` export).

Each record: `id` (or `qid`/`query_id`/`question_id`), `question`, `answers` (a list of strings
or numbers, a list of `{text, answer_start}`, HF's `{"text": [...], "answer_start": [...]}`, or a
single string), optional `context`, `context_id`, `title`, `split`, `tag`, `answer_type`,
`is_impossible`; any other field goes to `meta`. A record without an id is keyed by its question
(`core.keys.question_key`); a record without a question is an error naming its line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from qa_inspect.core.model import Dataset, Gold, Item

from ._common import (
    ID_FIELDS,
    PREDICTION_FIELDS,
    Keys,
    SpanStats,
    build_dataset,
    clean_id,
    fail,
    family_of,
    first_id,
    head_records,
    item_split,
    make_gold,
)
from .textio import Document, plain, type_name

__all__ = ["FORMAT", "KIND", "PRIORITY", "read", "sniff"]

FORMAT = "jsonl-dataset"
KIND: Literal["dataset"] = "dataset"
PRIORITY = 30

_OWN = frozenset(
    {*ID_FIELDS, "question", "answers", "context", "context_id", "title", "split", "tag", "answer_type", "is_impossible"}
)
_SNIFF = 5


def sniff(doc: Document) -> bool:
    """Records with `answers` (and no prediction field: those are runs)."""
    head = head_records(doc, _SNIFF)
    if head is None or any(field in rec for rec in head for field in PREDICTION_FIELDS):
        return False
    return any("answers" in rec for rec in head)


def read(doc: Document, hints: Mapping[str, Any]) -> Dataset:
    """Items in file order; `Item.line` is the JSONL line (or the record number of a JSON list)."""
    records = doc.records() or []
    stats = SpanStats()
    keys = Keys(doc)
    items = [_item(doc, number, record, stats, keys, hints) for number, record in records]
    meta: dict[str, Any] = {"spans": stats.as_dict()}
    family = hints.get("family") or family_of(item.question for item in items)
    return build_dataset(doc, hints, FORMAT, family, items, keys, meta)


def _item(
    doc: Document, number: int, record: Any, stats: SpanStats, keys: Keys, hints: Mapping[str, Any]
) -> Item:
    where = doc.where(number)
    if not isinstance(record, dict):
        raise fail(doc, f"record is {type_name(record)}, expected an object", where)
    item_id = first_id(doc, record, ID_FIELDS, where)
    question = record.get("question")
    if not isinstance(question, str):
        missing = "no question" if question is None else f"question is {type_name(question)}, expected text"
        raise fail(doc, missing + (f" (id {item_id})" if item_id else ""), where)
    if not question.strip() and not item_id:
        raise fail(doc, "empty question and no id", where)
    context = record.get("context")
    if context is not None and not isinstance(context, str):
        raise fail(doc, f"context is {type_name(context)}, expected text", where)
    golds = _golds(doc, record.get("answers", []), context, stats, where)
    key = keys.take(item_id, question, where)
    return Item(
        key=key,
        question=question.strip(),
        golds=golds,
        context=context,
        context_id=clean_id(doc, record.get("context_id"), where),
        title=record.get("title") if isinstance(record.get("title"), str) else None,
        split=item_split(key, record.get("split"), hints, doc),
        tag=_text(record.get("tag")),
        answer_type=_text(record.get("answer_type")),
        is_impossible=bool(record.get("is_impossible", False)),
        meta={k: plain(v) for k, v in record.items() if k not in _OWN},
        line=number,
    )


def _golds(doc: Document, answers: Any, context: str | None, stats: SpanStats, where: str | int) -> list[Gold]:
    if answers is None:
        return []
    if isinstance(answers, dict) and isinstance(answers.get("text"), list):
        starts = answers.get("answer_start")
        starts = starts if isinstance(starts, list) and len(starts) == len(answers["text"]) else None
        answers = [
            {"text": text, "answer_start": starts[i] if starts else None} for i, text in enumerate(answers["text"])
        ]
    elif not isinstance(answers, list):
        answers = [answers]
    return [make_gold(doc, raw, context, stats, where) for raw in answers]


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None
