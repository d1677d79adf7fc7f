"""Prediction records: JSONL or a JSON list, one record per answered question.

A record names its item by `id` (or `qid`/`query_id`/`question_id`) or else by its `question`
text, and carries the answer in `prediction` (or `answer`/`response`/`pred`/`prediction_text`);
a record whose only such field is `answer`, beside a question, is a dataset's record instead
(Inspect AI's `{id, question, answer}`: see `_records.record_role`); `raw` (the full
model output before extraction) and `model` are optional; every other field goes to
`Prediction.meta`, including `question` when the record also has an id (so a run whose ids do not
match a dataset can still be matched by question). `Run.model` is set when all records agree.
A null prediction is an empty answer (the model said nothing), not an error.

Many answers per question (repeated sampling): records carrying a `sample` (or `epoch`) number
beside the id or question are one item's samples, in sample order; the official answer is the
record marked `"official": true`, else the lowest sample number (`Prediction.samples` holds them
all). A sample number given twice for one item is an error naming both records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from operator import itemgetter
from typing import Any, Literal

from qa_inspect.core.model import Prediction, Run

from ._common import (
    ID_FIELDS,
    describe,
    PREDICTION_FIELDS,
    build_run,
    fail,
    first_id,
    head_records,
)
from ._records import RunRecords, record_role
from .textio import Document, number_text, plain, shown, type_name

__all__ = ["FORMAT", "KIND", "PRIORITY", "TEXT_FIELDS", "read", "sniff"]

FORMAT = "prediction-records"
KIND: Literal["run"] = "run"
PRIORITY = 20

TEXT_FIELDS = PREDICTION_FIELDS
SAMPLE_FIELDS = ("sample", "epoch")
"""A record's sample number: records with one are one item's samples."""
_OWN = frozenset({*ID_FIELDS, *TEXT_FIELDS, *SAMPLE_FIELDS, "official", "raw", "model"})
_SNIFF = 5


def sniff(doc: Document) -> bool:
    """Records (the first an object) where one of the first few is a run's (`record_role`)."""
    head = head_records(doc, _SNIFF)
    return head is not None and any(record_role(rec) == "run" for rec in head)


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    """Predictions in file order; `Prediction.line` is the JSONL line (or JSON record number)."""
    found = RunRecords(doc)
    groups: dict[tuple[str, str], list[Sample]] = {}
    seen: dict[Any, tuple[str, str]] = {}  # a record's raw id → its group, once one record of it was read whole
    shapes: dict[tuple[str, ...], tuple[Callable[[Any], Any], dict[Any, list[Sample]]] | None] = {}
    by_field: dict[str, dict[Any, list[Sample]]] = {}  # the groups again, by id field, then raw id
    for number, record in doc.records() or []:
        if type(record) is dict:  # a later sample of a known item, decided from its keys alone (the common case)
            shape = tuple(record)
            fields = shapes.get(shape, _UNSEEN)
            if fields is _UNSEEN:
                fields = shapes[shape] = _shape_fields(shape, by_field)
            if fields is not None:
                sample, raw, text = fields[0](record)
                group = fields[1].get(raw) if type(raw) is str else None
                if group is not None and type(sample) is int and type(text) is str:
                    group.append((sample, number, text))
                    continue
        sample = _sample_number(doc, number, record)
        again = _further_sample(doc, number, record, seen) if sample is not None else None
        if sample is not None and again is not None:  # a later sample in a shape the keys did not decide
            groups[again[0]].append((sample, number, again[1]))
            continue
        prediction, model = _prediction(doc, number, record)
        if sample is None:
            found.add(number, prediction, model)
        else:
            official = isinstance(record, dict) and record.get("official") is True
            key = (prediction.ref_kind, prediction.ref)
            group = groups.setdefault(key, [])
            group.append((sample, number, prediction.text, prediction, model, official))
            raw_id = _raw_id(record)
            if raw_id is not None:
                seen[raw_id] = key
                by_field.setdefault(raw_id[0], {})[raw_id[1]] = group
    for group in groups.values():
        found.add(*_sampled(doc, group))
    return build_run(doc, hints, FORMAT, found.predictions, found.model(hints), found.meta())


_UNSEEN: Any = object()


def _prediction(doc: Document, number: int, record: Any) -> tuple[Prediction, str | None]:
    where = doc.where(number)
    if not isinstance(record, dict):
        raise fail(doc, f"record is {type_name(record)}, expected an object", where)
    ref = first_id(doc, record, ID_FIELDS, where)
    question = record.get("question")
    meta = {k: plain(v) for k, v in record.items() if k not in _OWN}
    if ref is not None:
        kind: Literal["id", "question"] = "id"
    elif isinstance(question, str) and question.strip():
        ref, kind = question.strip(), "question"
        del meta["question"]
    else:
        raise fail(doc, "record names no item: no id (id/qid/query_id/question_id) and no question", where)
    field = next((f for f in TEXT_FIELDS if f in record), None)
    if field is None:
        raise fail(doc, f"no prediction (one of {', '.join(TEXT_FIELDS)}) for {shown(ref)}", where)
    value = record[field]
    text = "" if value is None else number_text(value)
    if text is None:
        raise fail(doc, f"{field} is {type_name(value)}, expected text", where)
    raw = record.get("raw")
    if raw is not None and not isinstance(raw, str):
        raw = json.dumps(plain(raw), ensure_ascii=False)
    model = record.get("model")
    model = model if isinstance(model, str) and model else None
    return Prediction(ref=ref, ref_kind=kind, text=text, raw=raw, meta=meta, line=number), model


def _sample_number(doc: Document, number: int, record: Any) -> int | None:
    """The record's sample (or epoch) number; None when it has none."""
    field = next((f for f in SAMPLE_FIELDS if isinstance(record, dict) and f in record), None)
    if field is None:
        return None
    value = record[field]
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(doc, f"{field} is {type_name(value)}, expected a whole number", doc.where(number))
    return value


def _raw_id(record: dict[str, Any]) -> tuple[str, Any] | None:
    """The record's id as the file wrote it (field and value), when it is a plain string or number."""
    field = next((f for f in ID_FIELDS if record.get(f) is not None), None)
    if field is None:
        return None
    value = record[field]
    return (field, value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _shape_fields(
    shape: tuple[str, ...], by_field: dict[str, dict[Any, list[Sample]]]
) -> tuple[Callable[[Any], Any], dict[Any, list[Sample]]] | None:
    """A getter of the (sample, id, text) fields `_sample_number`, `_raw_id` and `_further_sample`
    read in records of these keys, with the groups known by that id field; None when one is
    missing or the record may be marked `official`. A later sample whose three fields are plain
    (a whole number, a string id, a string text) is then read from them alone."""
    keys = set(shape)
    sample, ident, text = (next((f for f in fields if f in keys), None) for fields in (SAMPLE_FIELDS, ID_FIELDS, TEXT_FIELDS))
    if "official" in keys or sample is None or ident is None or text is None:
        return None
    return itemgetter(sample, ident, text), by_field.setdefault(ident, {})


def _further_sample(
    doc: Document, number: int, record: Any, seen: dict[Any, tuple[str, str]]
) -> tuple[tuple[str, str], str] | None:
    """(group, text) of a later, unmarked sample of an item already read whole; None otherwise (the
    record is then read whole: the first of its item, a marked one, or one of another shape)."""
    if not isinstance(record, dict) or record.get("official") is not None:
        return None
    raw = _raw_id(record)
    key = seen.get(raw) if raw is not None else None
    field = next((f for f in TEXT_FIELDS if f in record), None)
    if key is None or field is None:
        return None
    value = record[field]
    text = "" if value is None else number_text(value)
    if text is None:
        raise fail(doc, f"{field} is {type_name(value)}, expected text", doc.where(number))
    return key, text


Sample = tuple[int, int, str] | tuple[int, int, str, Prediction, "str | None", bool]
"""(sample number, record number, its text), and for a record read whole: the record's
prediction, its model, marked official. A later sample is only the first three (millions of
them in a sampled run: no room spent on what they cannot have)."""


def _sampled(doc: Document, group: list[Sample]) -> tuple[int, Prediction, str | None]:
    """One item's sample records as one prediction: the official one's, with every sample's text."""
    group.sort()  # by sample, then record number (unique: the rest is never compared)
    if len({g[0] for g in group}) < len(group):
        _twice(doc, group)
    whole = next(g[3] for g in group if len(g) > 3)
    official = next((g for g in group if len(g) > 3 and g[5]), group[0])
    samples = tuple(map(itemgetter(2), group)) if len(group) > 1 else ()
    if len(official) == 3:
        return official[1], replace(whole, text=official[2], line=official[1], samples=samples), None
    chosen = official[3]
    chosen.samples = samples  # read whole for this group alone
    return official[1], chosen, official[4]


def _twice(doc: Document, group: list[Sample]) -> None:
    """Raise for the first sample number given twice in a sorted group, naming both records."""
    whole = next(g[3] for g in group if len(g) > 3)
    for (a, first, *_), (b, again, *_) in zip(group, group[1:]):
        if a == b:
            message = f"sample {a} of {shown(whole.ref)} given twice (first at {describe(doc.where(first))})"
            raise fail(doc, message, doc.where(again))
