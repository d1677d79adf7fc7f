"""Flat question records shared by the record and table readers: which kind a record is, and the
`Item` a dataset record becomes (the leading underscore keeps it out of the reader registry).

A record's kind is decided by its field names alone, so a JSONL file, a JSON list and a Parquet
table with the same columns are read as the same kind:

- a prediction field (`prediction`, `prediction_text`, `response`, `pred`) makes a run;
- `answer` is ambiguous: Inspect AI's example datasets (`{id, question, answer}`) use it for the
  gold, prediction dumps for the model's answer. It is a gold when the record has a question and
  nothing else that says "run" (no `raw` or `model`, no `answers`/`target` gold beside it);
  otherwise it is the prediction (so `{question_id, answer}` stays a run, as before);
- `answers` (or `target` with a question) and no prediction field make a dataset.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from qa_inspect.core.model import Gold, Item, Prediction

from ._common import (
    ID_FIELDS,
    PREDICTION_FIELDS,
    Keys,
    SpanStats,
    clean_id,
    describe,
    fail,
    first_id,
    flag,
    item_split,
    make_gold,
)
from .textio import Document, plain, shown, type_name

__all__ = ["GOLD_FIELDS", "RUN_FIELDS", "Role", "RunRecords", "gold_field", "record_item", "record_role"]

Role = Literal["dataset", "run"]
GOLD_FIELDS = ("answers", "answer", "target")
"""Fields a dataset record holds its golds in, first found wins."""
RUN_FIELDS = tuple(f for f in PREDICTION_FIELDS if f != "answer")
"""Prediction fields that always mean "a run's record" (`answer` alone does not: see above)."""
_RUN_MARKS = ("raw", "model")
_OWN = frozenset(
    {*ID_FIELDS, "question", "context", "context_id", "title", "split", "tag", "answer_type", "is_impossible"}
)


def record_role(fields: Collection[str]) -> Role | None:
    """"run", "dataset" or None (neither) for a record (or table) with these field names."""
    if any(f in fields for f in RUN_FIELDS):
        return "run"
    if "answer" in fields:
        other_gold = "answers" in fields or "target" in fields
        if "question" in fields and not other_gold and not any(f in fields for f in _RUN_MARKS):
            return "dataset"
        return "run"
    if "answers" in fields or ("target" in fields and "question" in fields):
        return "dataset"
    return None


def gold_field(fields: Collection[str]) -> str | None:
    """The field holding a dataset record's golds (`answers`, else `answer`, else `target`)."""
    return next((f for f in GOLD_FIELDS if f in fields), None)


def record_item(
    doc: Document,
    number: int,
    record: Any,
    stats: SpanStats,
    keys: Keys,
    hints: Mapping[str, Any],
    *,
    empty_is_impossible: bool = False,
) -> Item:
    """One dataset record → an `Item`; errors name `doc.where(number)`.

    `empty_is_impossible`: a record without gold text is unanswerable (SQuAD v2 as the Hugging
    Face hub stores it, with no `is_impossible` column) unless it says otherwise.
    """
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
    field = gold_field(record)
    golds = _golds(doc, record.get(field) if field else None, context, stats, where)
    key = keys.take(item_id, question, where)
    impossible = flag(doc, record.get("is_impossible"), where)
    if impossible is None:
        impossible = empty_is_impossible and not golds
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
        is_impossible=bool(impossible),
        meta={k: plain(v) for k, v in record.items() if k not in _OWN and k != field},
        line=number,
    )


def _golds(doc: Document, answers: Any, context: str | None, stats: SpanStats, where: str | int) -> list[Gold]:
    """Golds from a list, a single string/number, or HF's `{"text": [...], "answer_start": [...]}`."""
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


@dataclass(slots=True)
class RunRecords:
    """A record-shaped run's predictions (JSONL, a JSON list, a table) as they are read, one
    rule for all: an id given twice is an error naming both records; a question asked twice is
    counted (each is kept: runs without ids do repeat questions); the models named are gathered."""

    doc: Document
    predictions: list[Prediction] = field(default_factory=list)
    models: set[str] = field(default_factory=set)
    repeated_questions: int = 0
    _first: dict[str, int] = field(default_factory=dict)
    _questions: set[str] = field(default_factory=set)

    def add(self, number: int, prediction: Prediction, model: str | None) -> None:
        """Prediction of record `number` (its JSONL line, list position or table row)."""
        if prediction.ref_kind == "id":
            first = self._first.get(prediction.ref)
            if first is not None:
                again = f"duplicate id {shown(prediction.ref)} (first at {describe(self.doc.where(first))})"
                raise fail(self.doc, again, self.doc.where(number))
            self._first[prediction.ref] = number
        elif prediction.ref in self._questions:
            self.repeated_questions += 1
        else:
            self._questions.add(prediction.ref)
        if model is not None:
            self.models.add(model)
        self.predictions.append(prediction)

    def model(self, hints: Mapping[str, Any]) -> str | None:
        """The `model` hint, else the one model every record that names one agrees on."""
        model = hints.get("model")
        return model if model is not None or len(self.models) != 1 else next(iter(self.models))

    def meta(self) -> dict[str, Any]:
        """`models` when the records name several, `repeated_questions` when questions repeat."""
        meta: dict[str, Any] = {}
        if len(self.models) > 1:
            meta["models"] = sorted(self.models)
        if self.repeated_questions:
            meta["repeated_questions"] = self.repeated_questions
        return meta
