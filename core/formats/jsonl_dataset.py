"""Generic dataset records: JSONL, a JSON list, or `{"data": [records]}` (HF `datasets` export).

Each record: `id` (or `qid`/`query_id`/`question_id`), `question`, the golds in `answers` (a
list of strings or numbers, a list of `{text, answer_start}`, HF's `{"text": [...],
"answer_start": [...]}`, or a single string), or else in `answer` or `target` (a string or a
list: Inspect AI's example datasets are `{id, question, answer}`), optional `context`,
`context_id`, `title`, `split`, `tag`, `answer_type`, `is_impossible`; any other field goes to
`meta`. A record without an id is keyed by its question (`core.keys.question_key`); a record
without a question is an error naming its line. Which records are a dataset's rather than a run's
is `_records.record_role`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from qa_inspect.core.model import Dataset

from ._common import Keys, SpanStats, build_dataset, family_of, head_records
from ._records import record_item, record_role
from .textio import Document

__all__ = ["FORMAT", "KIND", "PRIORITY", "read", "sniff"]

FORMAT = "jsonl-dataset"
KIND: Literal["dataset"] = "dataset"
PRIORITY = 30

_SNIFF = 5


def sniff(doc: Document) -> bool:
    """Records with golds (`answers`, or `answer`/`target` beside a question) and no prediction
    field among the first few (those are runs: `prediction_records`)."""
    head = head_records(doc, _SNIFF)
    if head is None:
        return False
    roles = {record_role(rec) for rec in head}
    return "dataset" in roles and "run" not in roles


def read(doc: Document, hints: Mapping[str, Any]) -> Dataset:
    """Items in file order; `Item.line` is the JSONL line (or the record number of a JSON list)."""
    records = doc.records() or []
    stats = SpanStats()
    keys = Keys(doc)
    items = [record_item(doc, number, record, stats, keys, hints) for number, record in records]
    meta: dict[str, Any] = {"spans": stats.as_dict()}
    family = hints.get("family") or family_of(item.question for item in items)
    return build_dataset(doc, hints, FORMAT, family, items, keys, meta)
