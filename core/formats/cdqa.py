"""CDQA v1 raw (github.com/Alibaba-NLP/CDQA): `[{"qa": "\\ufeff问题: …\\n答案: …", "annotation": {…}}]`.

- `qa` is split at 问题/答案 (ASCII or full-width colon; the BOM inside the string and stray
  whitespace are dropped).
- The rewrite wins: question = `p-改写问题`, gold = `p-改写答案` when present. The original answer
  stays as a `Gold(superseded=True)` (shown, never scored) whenever there is a rewrite, even when
  it is blank (34 in v1) or equal to the rewrite (3 in v1); the original question goes to
  `meta["original_question"]` whenever there is a rewritten one.
- Key = `question_key(original question)`: the dataset's own text before any rewrite, so keys
  stay put when a later release rewrites more questions. Repeated questions get `#2`, `#3`, ...
  and `Dataset.meta["repeated_questions"]` counts them.
- Labels are mapped to English (`tag`, `answer_type`); the Chinese labels, the acceptance label
  (分类1) and the evidence URL (准确性检查) are kept in `meta`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from qa_inspect.core.model import Dataset, Gold, Item

from ._common import Keys, answer_text, build_dataset, fail, first_object, item_split
from .textio import Document, plain, type_name

__all__ = ["ANSWER_TYPES", "FORMAT", "KIND", "PRIORITY", "TAGS", "read", "sniff", "split_qa"]

FORMAT = "cdqa-v1"
KIND: Literal["dataset"] = "dataset"
PRIORITY = 10

TAGS: dict[str, str] = {"快速变化": "fast-changing", "中速变化": "slow-changing", "静态知识": "never-changing"}
ANSWER_TYPES: dict[str, str] = {
    "人名": "person",
    "地名": "location",
    "时间": "time",
    "事件": "event",
    "作品": "work",
    "作品（事物）": "work",
    "作品(事物)": "work",
    "组织机构": "group",
    "自然": "nature",
    "量词": "quantity",
    "其他": "other",
}

_TAG, _TYPE, _ACCEPT, _URL = "知识动态性分类", "回答类型", "分类1", "准确性检查"
_NEW_Q, _NEW_A = "p-改写问题", "p-改写答案"
_KNOWN = frozenset({_TAG, _TYPE, _ACCEPT, _URL, _NEW_Q, _NEW_A})
_QA = re.compile(r"^\s*问题\s*[:：]\s*(?P<q>.*?)\s*\n\s*答案\s*[:：][ \t\u3000]*(?P<a>.*?)\s*$", re.S)
_QA_LOOSE = re.compile(r"^\s*问题\s*[:：]\s*(?P<q>.*?)\s*答案\s*[:：]\s*(?P<a>.*?)\s*$", re.S)


def sniff(doc: Document) -> bool:
    """A JSON list whose first element has a string `qa` and an `annotation` object."""
    first = first_object(doc.value)
    return first is not None and isinstance(first.get("qa"), str) and isinstance(first.get("annotation"), dict)


def split_qa(qa: str) -> tuple[str, str] | None:
    """("question", "answer") from "问题: …\\n答案: …"; None when the text has no such parts."""
    text = qa.replace("\ufeff", "")
    match = _QA.match(text) or _QA_LOOSE.match(text)
    if match is None or not match.group("q"):
        return None
    return match.group("q"), match.group("a")


def read(doc: Document, hints: Mapping[str, Any]) -> Dataset:
    """Items in file order; errors name the record number (1-based)."""
    keys = Keys(doc)
    items: list[Item] = []
    superseded = 0
    for number, record in enumerate(doc.value, start=1):
        if not isinstance(record, dict):
            raise fail(doc, f"record is {type_name(record)}, expected an object", number)
        qa = record.get("qa")
        if not isinstance(qa, str):
            raise fail(doc, f"'qa' is {type_name(qa)}, expected \"问题: …\\n答案: …\"", number)
        parts = split_qa(qa)
        if parts is None:
            raise fail(doc, f"'qa' is not \"问题: …\\n答案: …\": {qa[:40]!r}", number)
        question, answer = parts
        annotation = record.get("annotation", {})
        if not isinstance(annotation, dict):
            raise fail(doc, f"'annotation' is {type_name(annotation)}, expected an object", number)
        item = _item(doc, number, question, answer, annotation, record, keys, hints)
        superseded += any(g.superseded for g in item.golds)
        items.append(item)
    meta: dict[str, Any] = {"superseded_answers": superseded}
    return build_dataset(doc, hints, FORMAT, hints.get("family") or "cdqa", items, keys, meta)


def _item(
    doc: Document,
    number: int,
    question: str,
    answer: str,
    annotation: dict[str, Any],
    record: dict[str, Any],
    keys: Keys,
    hints: Mapping[str, Any],
) -> Item:
    meta: dict[str, Any] = {}
    shown = question
    new_q = annotation.get(_NEW_Q)
    if new_q is not None:
        new_q = answer_text(doc, new_q, number, _NEW_Q).strip()
        if new_q:
            shown = new_q
            meta["original_question"] = question
    golds: list[Gold] = []
    new_a = annotation.get(_NEW_A)
    if new_a is not None:
        new_a = answer_text(doc, new_a, number, _NEW_A).strip()
    if new_a:
        # Kept even when blank or equal to the rewrite: "the release said X (or nothing)" is
        # exactly what stale-answer work needs to see; superseded golds are never scored.
        golds += [Gold(text=new_a), Gold(text=answer, superseded=True)]
    elif answer:
        golds.append(Gold(text=answer))
    tag_label, type_label = annotation.get(_TAG), annotation.get(_TYPE)
    if isinstance(tag_label, str):
        meta["tag_label"] = tag_label
    if isinstance(type_label, str):
        meta["answer_type_label"] = type_label
    if _ACCEPT in annotation:
        meta["acceptance"] = plain(annotation[_ACCEPT])
    if _URL in annotation:
        meta["evidence_url"] = plain(annotation[_URL])
    for name, value in annotation.items():
        if name not in _KNOWN:
            meta[name] = plain(value)
    for name, value in record.items():
        if name not in ("qa", "annotation"):
            meta[name] = plain(value)
    key = keys.take_question(question, number)
    return Item(
        key=key,
        question=shown,
        golds=golds,
        split=item_split(key, None, hints, doc),
        tag=_label(tag_label, TAGS),
        answer_type=_label(type_label, ANSWER_TYPES),
        meta=meta,
        line=number,
    )


def _label(label: Any, table: Mapping[str, str]) -> str | None:
    """English label; an unknown label is kept as written rather than dropped."""
    if not isinstance(label, str) or not label.strip():
        return None
    return table.get(label.strip(), label.strip())
