"""Score a prediction file against a dataset file without a database (the `score` command).

Predictions are matched to items exactly as at ingest (`resolve`), scored with the dataset's default
scorer or the one asked for, and aggregated the way the official scripts do, overall and by slice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .keys import question_key
from .metrics.registry import ScoreRow, aggregate, default_scorer, score_prediction
from .model import Dataset, Item, Prediction, Run

T = TypeVar("T")


def resolve(p: Prediction, by_key: Mapping[str, T], by_q: Mapping[str, T]) -> T | None:
    """The item a prediction names: by id (stripped), else by normalised question text."""
    if p.ref_kind == "id":
        ref = p.ref.strip()
        found = by_key.get(ref)
        return found if found is not None else by_q.get(ref)
    return by_q.get(question_key(p.ref))


def lookups(items: list[Item]) -> tuple[dict[str, Item], dict[str, Item]]:
    by_key: dict[str, Item] = {}
    by_q: dict[str, Item] = {}
    for it in items:
        by_key[it.key] = it
        by_q.setdefault(question_key(it.question), it)
        if it.key.startswith("q:"):
            by_q.setdefault(it.key, it)
    return by_key, by_q


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
    by_key, by_q = lookups(dataset.items)
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
