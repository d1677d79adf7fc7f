"""CMRC 2018 original list format (github.com/ymcui/cmrc2018 `data/`).

Shape: `[{"context_id", "context_text", "title", "qas": [{"query_id", "query_text",
"answers": ["…", 39764.0, …]}]}]`. Answers are bare strings or JSON numbers; numbers become the
text the file wrote (`39764.0` stays "39764.0", which is also what the official scorer's `str()`
gives for it). There are no answer starts, so spans come from searching the context (first
occurrence); `Dataset.meta["spans"]` counts them. Ids and texts are stripped as the official
scorer strips them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from qa_inspect.core.model import Dataset, Item

from ._common import (
    Keys,
    SpanStats,
    build_dataset,
    clean_id,
    fail,
    first_object,
    item_split,
    list_golds,
)
from .textio import Document, plain, type_name

__all__ = ["FORMAT", "KIND", "PRIORITY", "read", "sniff"]

FORMAT = "cmrc-original"
KIND: Literal["dataset"] = "dataset"
PRIORITY = 10

_QA_KEYS = frozenset({"query_id", "query_text", "answers"})


def sniff(doc: Document) -> bool:
    """A JSON list whose first element has `context_text` and `qas`."""
    first = first_object(doc.value)
    return first is not None and "qas" in first and ("context_text" in first or "context_id" in first)


def read(doc: Document, hints: Mapping[str, Any]) -> Dataset:
    """Items in file order; errors name `[i].qas[j]` and the query id."""
    stats = SpanStats()
    keys = Keys(doc)
    items: list[Item] = []
    number = 0
    for c, passage in enumerate(doc.value):
        at = f"[{c}]"
        if not isinstance(passage, dict) or not isinstance(passage.get("qas"), list):
            raise fail(doc, "not a passage with a 'qas' list", at)
        context = passage.get("context_text")
        if not isinstance(context, str):
            raise fail(doc, f"context_text is {type_name(context)}, expected text", at)
        context = context.strip()
        context_id = clean_id(doc, passage.get("context_id"), at)
        title = passage.get("title") if isinstance(passage.get("title"), str) else None
        for q, qa in enumerate(passage["qas"]):
            number += 1
            where = f"{at}.qas[{q}]"
            if not isinstance(qa, dict):
                raise fail(doc, f"question record is {type_name(qa)}, expected an object", where)
            query_id = clean_id(doc, qa.get("query_id"), where)
            label = f"{where} (query_id {query_id})" if query_id else where
            question = qa.get("query_text")
            if not isinstance(question, str):
                raise fail(doc, f"query_text is {type_name(question)}, expected text", label)
            if not question.strip() and not query_id:
                raise fail(doc, "empty query_text and no query_id", label)
            golds = list_golds(doc, qa, context, stats, label)
            key = keys.take(query_id, question, label)
            items.append(
                Item(
                    key=key,
                    question=question.strip(),
                    golds=golds,
                    context=context,
                    context_id=context_id,
                    title=title,
                    split=item_split(key, None, hints, doc),
                    meta={k: plain(v) for k, v in qa.items() if k not in _QA_KEYS},
                    line=number,
                )
            )
    meta: dict[str, Any] = {"spans": stats.as_dict()}
    return build_dataset(doc, hints, FORMAT, hints.get("family") or "cmrc", items, keys, meta)
