"""Helpers shared by the readers (the leading underscore keeps it out of the reader registry)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import FormatError
from qa_inspect.core.keys import question_key, split_from_id, split_from_name
from qa_inspect.core.model import Dataset, Family, Gold, Item, Prediction, Run

from ._repeats import Repeat, repeat_warning
from .textio import Document, number_text, shown, type_name

__all__ = [
    "ID_FIELDS",
    "PREDICTION_FIELDS",
    "Keys",
    "SpanStats",
    "answer_text",
    "build_dataset",
    "build_run",
    "add_repeat_warning",
    "clean_id",
    "dataset_name",
    "describe",
    "fail",
    "family_of",
    "first_id",
    "first_object",
    "flag",
    "given_golds",
    "head_records",
    "item_split",
    "list_golds",
    "locate",
    "make_gold",
]

ID_FIELDS = ("id", "qid", "query_id", "question_id")
"""Fields a generic record names its item by, first found wins (dataset and prediction records)."""
PREDICTION_FIELDS = ("prediction", "answer", "response", "pred", "prediction_text")
"""Fields that hold a prediction, first found wins (`prediction_text`: the `evaluate` squad format).
A record with one is a run's, except `answer` beside a question (see `_records.record_role`)."""

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_VISIBLE = re.compile(r"\S")


def family_of(questions: Iterable[str], sample: int = 50) -> Family:
    """"cmrc" when the questions are mostly Chinese, else "squad".

    Questions, not contexts, decide: English Wikipedia passages quote CJK names now and then,
    English questions almost never do.
    """
    cjk = visible = 0
    for i, question in enumerate(questions):
        if i >= sample:
            break
        cjk += len(_CJK.findall(question))
        visible += len(_VISIBLE.findall(question))
    return "cmrc" if visible and cjk / visible >= 0.3 else "squad"


@dataclass(slots=True)
class SpanStats:
    """How gold spans were located; kept in `Dataset.meta["spans"]` so users can see it."""

    given: int = 0
    recovered: int = 0
    none: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"given": self.given, "recovered": self.recovered, "none": self.none}


def locate(context: str | None, text: str, start: int | None, stats: SpanStats) -> tuple[int | None, int | None]:
    """Character span of `text` in `context`: the given start when it checks out, else the
    occurrence nearest to it (first occurrence when no start is given), else no span."""
    if not context or not text:
        stats.none += 1
        return None, None
    if start is not None and 0 <= start and context.startswith(text, start):
        stats.given += 1
        return start, start + len(text)
    best: int | None = None
    found = context.find(text)
    while found != -1:
        if best is None or abs(found - (start or 0)) < abs(best - (start or 0)):
            best = found
        if start is None or found > start:
            break
        found = context.find(text, found + 1)
    if best is None:
        stats.none += 1
        return None, None
    stats.recovered += 1
    return best, best + len(text)


def answer_text(doc: Document, value: Any, where: str | int | None, what: str = "answer") -> str:
    """Scalar answer → text (numbers as written) or a FormatError naming the record."""
    text = number_text(value)
    if text is None:
        raise FormatError(str(doc.path), f"{what} is {type_name(value)}, expected text or a number", where)
    return text


def make_gold(doc: Document, raw: Any, context: str | None, stats: SpanStats, where: str | int | None) -> Gold:
    """A gold from a string/number or a `{text, answer_start}` object."""
    start: int | None = None
    if isinstance(raw, dict):
        if "text" not in raw:
            raise FormatError(str(doc.path), "answer object has no 'text'", where)
        value = raw.get("answer_start")
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int):
                raise FormatError(str(doc.path), f"answer_start is {type_name(value)}, expected an integer", where)
            if not -(2**63) <= value < 2**63:  # beyond what SQLite stores; no text is that long
                raise FormatError(str(doc.path), f"answer_start is out of range ({value:.3g})", where)
            start = value
        raw = raw["text"]
    text = answer_text(doc, raw, where)
    span_start, span_end = locate(context, text, start, stats)
    return Gold(text=text, answer_start=start, span_start=span_start, span_end=span_end)


def given_golds(answers: list[Any], context: str, stats: SpanStats) -> list[Gold] | None:
    """The golds of the common shape, built without the checks of `make_gold`: every answer a
    plain `{"text": str, "answer_start": int}` whose start checks out in `context`. None when
    one does not (then nothing is counted: the caller reads them with `list_golds`)."""
    golds = []
    for raw in answers:
        if type(raw) is not dict:
            return None
        text = raw.get("text")
        start = raw.get("answer_start")
        if type(text) is not str or type(start) is not int or not text or start < 0:
            return None
        if not context.startswith(text, start):
            return None
        golds.append(Gold(text, start, start, start + len(text)))
    stats.given += len(golds)
    return golds


def list_golds(
    doc: Document, record: Mapping[str, Any], context: str | None, stats: SpanStats, where: str | int | None
) -> list[Gold]:
    """Golds from the record's `answers` list (none when absent); anything but a list is an error."""
    answers = record.get("answers", [])
    if not isinstance(answers, list):
        raise fail(doc, f"answers is {type_name(answers)}, expected a list", where)
    return [make_gold(doc, raw, context, stats, where) for raw in answers]


def flag(doc: Document, value: Any, where: str | int | None, name: str = "is_impossible") -> bool | None:
    """A yes/no field: true/false (or 1/0); None when absent. Anything else is an error rather than
    Python's truth ("false" as text would be true)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise FormatError(str(doc.path), f"{name} is {type_name(value)}, expected true or false", where)


def clean_id(doc: Document, value: Any, where: str | int | None) -> str | None:
    """An id as text, stripped; None when absent/blank. Numeric ids are fine (`7` → "7")."""
    if value is None:
        return None
    text = number_text(value)
    if text is None:
        raise FormatError(str(doc.path), f"id is {type_name(value)}, expected text or a number", where)
    return text.strip() or None


def first_id(doc: Document, record: Mapping[str, Any], fields: Iterable[str], where: str | int | None) -> str | None:
    """The id under the first of `fields` the record holds (not null), as `clean_id` gives it."""
    return next((clean_id(doc, record[f], where) for f in fields if record.get(f) is not None), None)


def item_split(key: str, own: Any, hints: Mapping[str, Any], doc: Document) -> str | None:
    """Split of an item: its own field, else its id prefix, else the hint (manifest), else the file name."""
    if isinstance(own, str) and own.strip():
        return own.strip().lower()
    return split_from_id(key) or hints.get("split") or split_from_name(doc.path.name)


def fail(doc: Document, message: str, where: str | int | None) -> FormatError:
    """The error to raise for record `where` of `doc` (a JSON path, "line N" or a record number)."""
    return FormatError(str(doc.path), message, where)


def describe(where: str | int) -> str:
    return f"record {where}" if isinstance(where, int) else where


@dataclass(slots=True)
class Keys:
    """Hands out item keys and refuses duplicates.

    Explicit ids must be unique (a duplicate is an error naming both records); question-derived
    keys of repeated questions get `#2`, `#3`, ... in file order and are counted, because
    datasets without ids do repeat questions and each repeat is still its own item.
    """

    doc: Document
    seen: dict[str, str | int] = field(default_factory=dict)
    repeats: int = 0

    def take_id(self, item_id: str, where: str | int) -> str:
        first = self.seen.get(item_id)
        if first is not None:
            raise FormatError(
                str(self.doc.path), f"duplicate id {shown(item_id)} (first at {describe(first)})", where
            )
        self.seen[item_id] = where
        return item_id

    def take(self, item_id: str | None, question: str, where: str | int) -> str:
        """The item's key: its id when it has one, else its question."""
        return self.take_id(item_id, where) if item_id else self.take_question(question, where)

    def take_question(self, question: str, where: str | int) -> str:
        base = question_key(question)
        key, n = base, 1
        while key in self.seen:
            n += 1
            key = f"{base}#{n}"
        if n > 1:
            self.repeats += 1
        self.seen[key] = where
        return key


def add_repeat_warning(doc: Document, meta: dict[str, Any], *, skip_root: bool = False,
                       also: Sequence[Repeat] = ()) -> None:
    """Every repeated JSON key of the file as one line of `meta["warnings"]` (`_repeats`): the
    last value is kept, as JSON parsers do, but never without a word; and a table's notes (a
    byte-order mark removed from a CSV line)."""
    said = repeat_warning(doc, skip_root=skip_root, also=also)
    notes = ([] if said is None else [said]) + doc.notes + (doc.table.notes if doc.table is not None else [])
    if notes:
        meta.setdefault("warnings", []).extend(notes)


def dataset_name(doc: Document, hints: Mapping[str, Any]) -> str:
    return str(hints.get("name") or doc.path.stem)


def first_object(value: Any) -> dict[str, Any] | None:
    """The first element of a non-empty JSON list when it is an object (what list readers sniff)."""
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return value[0]
    return None


def head_records(doc: Document, count: int) -> list[dict[str, Any]] | None:
    """The objects among the first `count` records, when the first record is an object; else None."""
    records = doc.records()
    if not records or not isinstance(records[0][1], dict):
        return None
    return [rec for _, rec in records[:count] if isinstance(rec, dict)]


def build_dataset(
    doc: Document,
    hints: Mapping[str, Any],
    fmt: str,
    family: Family,
    items: list[Item],
    keys: Keys,
    meta: dict[str, Any],
) -> Dataset:
    """A reader's Dataset, named by the `name` hint or the file stem; `meta["repeated_questions"]`
    counts the questions keyed `#2`, `#3`, ... (when there are any)."""
    if keys.repeats:
        meta["repeated_questions"] = keys.repeats
    add_repeat_warning(doc, meta)
    return Dataset(
        name=dataset_name(doc, hints),
        path=str(doc.path),
        format=fmt,
        family=family,
        items=items,
        encoding=doc.encoding,
        meta=meta,
    )


def build_run(
    doc: Document,
    hints: Mapping[str, Any],
    fmt: str,
    predictions: list[Prediction],
    model: str | None,
    meta: dict[str, Any] | None = None,
    *,
    display: Callable[[Path], str | None] | None = None,
    extra_paths: list[str] | None = None,
    root_repeats_said: bool = False,
    repeats: Sequence[Repeat] = (),
) -> Run:
    """A reader's Run, named by the `name` hint, else by `display(path)` (the framework's own
    layout, when the reader has one), else by the file stem. `root_repeats_said`: the reader
    reports the keys its top-level object repeats itself (a prediction map counts ids); `repeats`:
    those the reader found in values it did not keep."""
    meta = {} if meta is None else meta
    add_repeat_warning(doc, meta, skip_root=root_repeats_said, also=repeats)
    return Run(
        name=str(hints.get("name") or (display(doc.path) if display is not None else None) or doc.path.stem),
        path=str(doc.path),
        format=fmt,
        predictions=predictions,
        model=model,
        encoding=doc.encoding,
        meta=meta,
        extra_paths=[] if extra_paths is None else extra_paths,
    )
