"""Score a prediction file against a dataset file without a database (the `score` command).

Predictions are matched to items exactly as at ingest (`resolve`), scored with the dataset's default
scorer or the one asked for, and aggregated the way the official scripts do, overall and by slice.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core.metrics import (
    RunItem,
    ScoreRow,
    aggregate_run,
    score_prediction,
)
from qa_inspect.core.model import Dataset, Item, Prediction, Run

from .items import dataset_scorer, item_rows, lookups, resolve, scorable
from .linking import link_in_memory
from .matching import DatasetIndex, LinkResult

__all__ = ["ScoredFile", "score_run"]

@dataclass(slots=True)
class ScoredFile:
    dataset: str
    predictions: str
    scorer: str
    rows: list[tuple[Item, Prediction | None, ScoreRow | None]]
    unmatched: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)
    na_probs: Mapping[str, float] | None = None
    """No-answer probabilities by item key (`--null-odds FILE`); else each prediction's own
    (`meta["null_odds"]`, from HF `*_null_odds.json`)."""
    na_prob_thresh: float = 1.0
    link: LinkResult | None = None
    """How the predictions were matched to the dataset's items (as `load` would)."""
    golds: list[tuple[str, ...]] = field(default_factory=list)
    """Each row's scorable golds (`items.scorable`), as scored; filled when first needed if empty."""

    def summary(self) -> dict[str, Any]:
        """The official script's numbers overall (`overall`) and per split/tag/answer type."""
        run_items = [self._run_item(*r, g) for r, g in zip(self.rows, self._golds())]  # once: slices share them
        overall = self._aggregate(run_items)
        out: dict[str, Any] = {
            "dataset": self.dataset,
            "predictions": self.predictions,
            "scorer": self.scorer,
            "overall": overall,
        }
        items = [item for item, _, _ in self.rows]
        unanswerable = any(item.unanswerable for item in items)
        for name, label in (("by_split", _split), ("by_tag", _tag), ("by_answer_type", _answer_type),
                            ("by_answerable", _answerable if unanswerable else _none)):
            out[name] = self._slices(list(map(label, items)), run_items, overall)
        if self.link is not None:
            out["link"] = {"method": self.link.method, "coverage": round(100 * self.link.coverage, 2),
                           "run_coverage": round(100 * self.link.run_coverage, 2), "warnings": list(self.link.warnings)}
        out["unmatched"] = len(self.unmatched)
        out["unmatched_sample"] = self.unmatched[:20]
        out["duplicates"] = len(self.duplicates)
        return out

    def _slices(self, labels: list[str | None], run_items: list[RunItem], overall: dict[str, Any]) -> dict[str, Any]:
        """Aggregates by label value, in sorted order; items without the label are in no slice
        (partly tagged data). A slice of every item is the overall aggregate (the same items in
        the same order), not summed again."""
        values = set(labels)
        if len(values) == 1:
            (value,) = values
            return {} if value is None else {value: dict(overall)}
        groups: dict[str, list[RunItem]] = {}
        for value, run_item in zip(labels, run_items):
            if value is not None:
                groups.setdefault(value, []).append(run_item)
        return {k: self._aggregate(groups[k]) for k in sorted(groups)}

    def _golds(self) -> list[tuple[str, ...]]:
        if len(self.golds) != len(self.rows):
            self.golds = [tuple(scorable(item)) for item, _, _ in self.rows]
        return self.golds

    def _aggregate(self, run_items: list[RunItem]) -> dict[str, Any]:
        return aggregate_run(self.scorer, run_items, na_prob_thresh=self.na_prob_thresh)

    def _run_item(self, item: Item, pred: Prediction | None, row: ScoreRow | None, golds: tuple[str, ...]) -> RunItem:
        if pred is None:
            return RunItem(item.key, golds, None)
        na = self.na_probs.get(item.key) if self.na_probs is not None else pred.meta.get("null_odds")
        return RunItem(item.key, golds, pred.text, row, None if na is None else float(na))

    def item_records(self) -> list[dict[str, Any]]:
        """One JSON-ready record per dataset item (`--items FILE`)."""
        out = []
        for (item, pred, row), golds in zip(self.rows, self._golds()):
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


def _split(it: Item) -> str | None:
    return it.split


def _tag(it: Item) -> str | None:
    return it.tag


def _answer_type(it: Item) -> str | None:
    return it.answer_type


def _answerable(it: Item) -> str | None:
    return "unanswerable" if it.unanswerable else "answerable"


def _none(it: Item) -> str | None:
    return None


class _ByQuestion(Mapping[str, Item]):
    """`lookups`' question-key map, built on first use: a run that names every item by its id
    never needs it, and it costs an NFKC pass and a hash per question. Its `keys()` are the
    `DatasetIndex.question_keys` linking asks for."""

    def __init__(self, items: list[Item]) -> None:
        self._items: list[Item] | None = items
        self._by_q: dict[str, Item] = {}

    def _built(self) -> dict[str, Item]:
        if self._items is not None:
            self._by_q = lookups(item_rows(self._items))[1]
            self._items = None
        return self._by_q

    def __getitem__(self, key: str) -> Item:
        return self._built()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())


def score_run(
    dataset: Dataset,
    run: Run,
    scorer: str | None = None,
    *,
    na_probs: Mapping[str, float] | None = None,
    na_prob_thresh: float = 1.0,
) -> ScoredFile:
    """Score a run against a dataset in memory (`qa-inspect score`): the dataset's scorer unless
    one is named; SQuAD v2 no-answer probabilities from `na_probs` or the run's null odds.
    Each distinct (prediction, golds) pair is scored once, as `load` does (`score_pool`)."""
    scorer = scorer or dataset_scorer(dataset)
    by_key = {it.key: it for it in dataset.items}  # as `lookups` keys them; the questions only if needed
    by_q = _ByQuestion(dataset.items)
    link = link_in_memory(run, dataset, DatasetIndex(frozenset(by_key), by_q.keys()))
    chosen: dict[str, Prediction] = {}
    result = ScoredFile(dataset.path, run.path, scorer, [], na_probs=na_probs, na_prob_thresh=na_prob_thresh,
                        link=link)
    for p in run.predictions:
        item = resolve(p, by_key, by_q)
        if item is None:
            result.unmatched.append(p.ref)
        elif item.key in chosen:
            result.duplicates.append(p.ref)
        else:
            chosen[item.key] = p
    memo: dict[tuple[str, tuple[str, ...]], ScoreRow] = {}
    for item in dataset.items:
        pred = chosen.get(item.key)
        golds = tuple(scorable(item))
        row = None
        if pred is not None:
            row = memo.get((pred.text, golds))
            if row is None:
                row = memo[pred.text, golds] = score_prediction(scorer, pred.text, golds)
        result.rows.append((item, pred, row))
        result.golds.append(golds)
    return result
