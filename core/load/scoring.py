"""Score a prediction file against a dataset file without a database (the `score` command).

Predictions are matched to items exactly as at ingest (`resolve`), scored with the dataset's default
scorer or the one asked for, and aggregated the way the official scripts do, overall and by slice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from qa_inspect.core.keys import question_key
from qa_inspect.core.metrics import (
    ScoreRow,
    aggregate,
    default_scorer,
    score_prediction,
)
from qa_inspect.core.model import Dataset, Item, Prediction, Run

__all__ = ["ScoredFile", "item_rows", "lookups", "resolve", "scorable", "score_run"]

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


def item_rows(items: list[Item]) -> Iterator[tuple[str, str, str | None, Item]]:
    for it in items:
        yield it.key, it.question, it.meta.get("original_question"), it


def scorable(item: Item) -> list[str]:
    return [g.text for g in item.golds if not g.superseded]


@dataclass(slots=True)
class ScoredFile:
    dataset: str
    predictions: str
    scorer: str
    rows: list[tuple[Item, Prediction | None, ScoreRow | None]]
    unmatched: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "dataset": self.dataset,
            "predictions": self.predictions,
            "scorer": self.scorer,
            "overall": self._agg(lambda it: "all").get("all", aggregate(self.scorer, [], 0)),
        }
        for name, attr in (("by_split", "split"), ("by_tag", "tag"), ("by_answer_type", "answer_type")):
            groups = self._agg(lambda it, a=attr: getattr(it, a))
            out[name] = {k: v for k, v in sorted(groups.items()) if k is not None}
        out["unmatched"] = len(self.unmatched)
        out["unmatched_sample"] = self.unmatched[:20]
        out["duplicates"] = len(self.duplicates)
        return out

    def _agg(self, key: Any) -> dict[Any, dict[str, Any]]:
        groups: dict[Any, list[ScoreRow | None]] = {}
        for item, _, row in self.rows:
            groups.setdefault(key(item), []).append(row)
        return {k: aggregate(self.scorer, rows, len(rows)) for k, rows in groups.items()}

    def item_records(self) -> list[dict[str, Any]]:
        """One JSON-ready record per dataset item (`--items FILE`)."""
        out = []
        for item, pred, row in self.rows:
            golds = scorable(item)
            best = row.best_gold if row is not None else None
            out.append({
                "id": item.key,
                "question": item.question,
                "prediction": pred.text if pred else None,
                "em": row.em if row else None,
                "f1": row.f1 if row else None,
                "refused": row.refused if row else None,
                "f1_recall": row.f1_recall if row else None,
                "best_gold": golds[best] if best is not None and best < len(golds) else None,
            })
        return out


def score_run(dataset: Dataset, run: Run, scorer: str | None = None) -> ScoredFile:
    scorer = scorer or default_scorer(dataset.family)
    by_key, by_q = lookups(item_rows(dataset.items))
    chosen: dict[str, Prediction] = {}
    result = ScoredFile(dataset.path, run.path, scorer, [])
    for p in run.predictions:
        item = resolve(p, by_key, by_q)
        if item is None:
            result.unmatched.append(p.ref)
        elif item.key in chosen:
            result.duplicates.append(p.ref)
        else:
            chosen[item.key] = p
    for item in dataset.items:
        pred = chosen.get(item.key)
        row = score_prediction(scorer, pred.text, scorable(item)) if pred is not None else None
        result.rows.append((item, pred, row))
    return result
