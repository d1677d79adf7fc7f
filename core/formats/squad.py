"""SQuAD-style JSON: CMRC 2018 / DRCD (family "cmrc") and SQuAD v1/v2 (family "squad").

Shape: `{"data": [{"title", "paragraphs": [{"id"?, "context", "qas": [{"id", "question",
"answers": [{"text", "answer_start"}], "is_impossible"?, "plausible_answers"?}]}]}]}`.

Kept as given on purpose: duplicated golds (CMRC dev repeats them; the official scorer takes the
max over the list as given) and `answer_start` (even -1). Spans are checked and, when the start
is off or -1, recovered by searching the context for the occurrence nearest to the given start;
`Dataset.meta["spans"]` counts given / recovered / none.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

from qa_inspect.core.keys import split_from_id, split_from_name
from qa_inspect.core.model import Dataset, Item

from ._common import (
    Keys,
    SpanStats,
    answer_text,
    build_dataset,
    clean_id,
    fail,
    family_of,
    flag,
    given_golds,
    list_golds,
)
from .textio import Document, plain, type_name

__all__ = ["FORMAT", "KIND", "PRIORITY", "dataset_meta", "iter_items", "read", "skip_reason", "sniff"]

FORMAT = "squad"
KIND: Literal["dataset"] = "dataset"
PRIORITY = 10

_QA_KEYS = frozenset({"id", "question", "answers", "is_impossible", "plausible_answers"})


def sniff(doc: Document) -> bool:
    """A JSON object whose `data` is a list of articles with `paragraphs`."""
    value = doc.value
    if not isinstance(value, dict) or not isinstance(value.get("data"), list):
        return False
    data = value["data"]
    return bool(data) and isinstance(data[0], dict) and "paragraphs" in data[0]


def skip_reason(doc: Document) -> str | None:
    """An empty `data` list is a dataset shell with nothing to read, not some other format."""
    value = doc.value
    if isinstance(value, dict) and value.get("data") == []:
        return "no questions (empty 'data' list)"
    return None


def read(doc: Document, hints: Mapping[str, Any]) -> Dataset:
    """Items in file order; errors name the JSON path of the record (`data[3].paragraphs[0].qas[2]`)."""
    root = doc.value
    stats = SpanStats()
    keys = Keys(doc)
    items = list(iter_items(doc, root["data"], hints, stats, keys))
    meta = dataset_meta(root, stats, sum(1 for item in items if not item.question))
    family = hints.get("family") or family_of(item.question for item in items)
    return build_dataset(doc, hints, FORMAT, family, items, keys, meta)


def iter_items(
    doc: Document, articles: Iterable[Any], hints: Mapping[str, Any], stats: SpanStats, keys: Keys
) -> Iterator[Item]:
    """The items of `articles` (the `data` list, or a stream of its elements) in file order."""
    number = 0
    split = hints.get("split") or split_from_name(doc.path.name)  # after an id's own prefix (`item_split`)
    for a, article in enumerate(articles):
        at = f"data[{a}]"
        if not isinstance(article, dict) or not isinstance(article.get("paragraphs"), list):
            raise fail(doc, "not an article with a 'paragraphs' list", at)
        title = article.get("title")
        title = title if isinstance(title, str) else None
        for p, para in enumerate(article["paragraphs"]):
            pat = f"{at}.paragraphs[{p}]"
            if not isinstance(para, dict) or not isinstance(para.get("qas"), list):
                raise fail(doc, "not a paragraph with a 'qas' list", pat)
            context = para.get("context")
            if not isinstance(context, str):
                raise fail(doc, f"context is {type_name(context)}, expected text", pat)
            context_id = clean_id(doc, para.get("id"), pat)
            for q, qa in enumerate(para["qas"]):
                number += 1
                item = _plain_item(qa, pat, q, number, context, context_id, title, stats, keys, split)
                yield item or _item(doc, qa, f"{pat}.qas[{q}]", number, context, context_id, title, stats, keys, split)


def dataset_meta(root: Mapping[str, Any], stats: SpanStats, empty: int) -> dict[str, Any]:
    """`Dataset.meta` of a file read whole or streamed (`empty`: questions that are blank)."""
    meta: dict[str, Any] = {"spans": stats.as_dict()}
    if isinstance(root.get("version"), str):
        meta["version"] = root["version"]
    if empty:
        meta["empty_questions"] = empty  # CMRC trial has two; kept, since their ids still score
    return meta


def _plain_item(
    qa: Any,
    pat: str,
    q: int,
    number: int,
    context: str,
    context_id: str | None,
    title: str | None,
    stats: SpanStats,
    keys: Keys,
    split: str | None,
) -> Item | None:
    """The item of a record of the common shape (a new text id, a text question, golds whose
    spans check out, no other fields), without the checks `_item` makes and the location its
    errors name; None for any other record, which `_item` then reads from scratch."""
    if type(qa) is not dict or not qa.keys() <= _PLAIN_KEYS:
        return None
    item_id, question, answers = qa.get("id"), qa.get("question"), qa.get("answers", [])
    impossible = qa.get("is_impossible")
    if type(item_id) is not str or type(question) is not str or type(answers) is not list:
        return None
    item_id = item_id.strip()
    if not item_id or item_id in keys.seen or not (impossible is None or type(impossible) is bool):
        return None
    golds = given_golds(answers, context, stats)
    if golds is None:
        return None
    keys.seen[item_id] = f"{pat}.qas[{q}] (id {item_id})"  # as `_item` names it (a later duplicate's error)
    return Item(item_id, question.strip(), golds, context, context_id, title, split_from_id(item_id) or split,
                None, None, bool(impossible), {}, number)


_PLAIN_KEYS = _QA_KEYS - {"plausible_answers"}


def _item(
    doc: Document,
    qa: Any,
    where: str,
    number: int,
    context: str,
    context_id: str | None,
    title: str | None,
    stats: SpanStats,
    keys: Keys,
    split: str | None,
) -> Item:
    if not isinstance(qa, dict):
        raise fail(doc, f"question record is {type_name(qa)}, expected an object", where)
    item_id = clean_id(doc, qa.get("id"), where)
    label = f"{where} (id {item_id})" if item_id else where
    question = qa.get("question")
    if not isinstance(question, str):
        what = "no question" if question is None else f"question is {type_name(question)}, expected text"
        raise fail(doc, what, label)
    if not question.strip() and not item_id:
        raise fail(doc, "empty question and no id", label)
    golds = list_golds(doc, qa, context, stats, label)
    key = keys.take(item_id, question, label)
    meta: dict[str, Any] = {}
    plausible = qa.get("plausible_answers")
    if isinstance(plausible, list) and plausible:
        meta["plausible_answers"] = [
            answer_text(doc, p.get("text") if isinstance(p, dict) else p, label, "plausible answer")
            for p in plausible
        ]
    for name, value in qa.items():
        if name not in _QA_KEYS:
            meta[name] = plain(value)
    return Item(
        key=key,
        question=question.strip(),
        golds=golds,
        context=context,
        context_id=context_id,
        title=title,
        split=split_from_id(key) or split,
        is_impossible=bool(flag(doc, qa.get("is_impossible"), label)),
        meta=meta,
        line=number,
    )
