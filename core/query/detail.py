"""Headless data for the item detail view: one item, all its golds, every run's prediction.

`item_detail(conn, item_id, run_name)` gathers what a researcher needs to understand a score:
the question and passage, every gold with its span and stale flag, and for each run the
prediction scored against *each* gold (the stored score is the max over golds) with the
character ranges the official metric matched, and its error category with the reason in words
(`core.metrics.error_category`, recomputed here: the store keeps only the code), and the item
features ingest stored. Scores, alignments and categories come from `core.metrics`; nothing here
re-implements a metric.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core.flags import Flag, flags_for_item
from qa_inspect.core.metrics import CDQA_F1_RECALL, error_category
from qa_inspect.core.store import STALE_GOLDS_SQL

from .sample_detail import SampleGroup, sample_groups
from . import align as detail_align
from .sql import FEATURE_DIMENSIONS, feature_columns

__all__ = [
    "GoldInfo", "GoldMatch", "ItemDetail", "PredictionInfo", "Range", "StaleInfo", "copy_choices", "evidence_url",
    "item_detail", "judge_verdicts", "VerdictInfo",
]

Range = tuple[int, int]


@dataclass(slots=True)
class StaleInfo:
    """The flag that currently marks a gold stale (from the annotations journal)."""

    author: str
    ts: str
    reason: str | None = None
    proposed: str | None = None
    evidence: str | None = None


@dataclass(slots=True)
class GoldInfo:
    idx: int
    text: str
    span: Range | None = None
    superseded: bool = False
    stale: StaleInfo | None = None

    @property
    def scored(self) -> bool:
        """Superseded golds are kept for display but never scored."""
        return not self.superseded


@dataclass(frozen=True, slots=True)
class VerdictInfo:
    """One judge's imported verdict on a run's answer (`core.formats.judge_verdicts`): shown beside
    the official score, never instead of it."""

    judge: str
    verdict: str
    """correct | incorrect | partial"""
    value: float
    raw: str | None = None
    rationale: str | None = None
    source: str | None = None


GoldMatch = detail_align.Match
"""A prediction against one gold: its own scores and what the metric matched in each string."""


@dataclass(slots=True)
class PredictionInfo:
    run: str
    model: str | None
    text: str
    scorer: str | None
    em: int | None
    f1: float | None
    refused: int | None
    f1_recall: float | None
    best_gold: int | None
    raw: str | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    run_path: str | None = None
    source_line: int | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    context_span: Range | None = None
    per_gold: list[GoldMatch] = field(default_factory=list)
    category: str | None = None
    """The error category code (`core.metrics.CATEGORY_CODES`); None when it cannot be told."""
    category_reason: str | None = None
    """Why, in words ("contains the gold plus 4 characters after it")."""
    samples: list[SampleGroup] = field(default_factory=list)
    """Every sample of a run that sampled the item several times, grouped by equivalent answer."""
    verdicts: list[VerdictInfo] = field(default_factory=list)
    """Judge verdicts on this answer, by judge name (imported; empty when none)."""

    @property
    def main(self) -> float | None:
        """The headline score: F1, else F1-recall."""
        return self.f1 if self.f1 is not None else self.f1_recall

    @property
    def abstained(self) -> bool:
        """The model gave no answer (an empty string: SQuAD 2.0's way of saying "unanswerable")."""
        return not self.text.strip()

    @property
    def no_answer_probability(self) -> float | None:
        """The model's no-answer score where known (HF `*_null_odds.json`, `no_answer_probability`)."""
        value = self.meta.get("null_odds")
        return float(value) if isinstance(value, (int, float)) else None


@dataclass(slots=True)
class ItemDetail:
    item_id: int
    key: str
    dataset: str
    family: str
    question: str
    golds: list[GoldInfo]
    context: str | None = None
    title: str | None = None
    split: str | None = None
    tag: str | None = None
    answer_type: str | None = None
    is_impossible: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    source_path: str | None = None
    source_line: int | None = None
    run: str | None = None
    prediction: PredictionInfo | None = None
    others: list[PredictionInfo] = field(default_factory=list)
    missing_runs: list[str] = field(default_factory=list)
    """Runs on this dataset that have no prediction for the item (they score 0)."""
    flags: list[Flag] = field(default_factory=list)
    """Every stale flag on the item (`core.flags.flags_for_item`): open ones with all their
    proposals, and resolved ones whose gold text is gone from (or superseded in) this release."""
    scorer: str | None = None
    """The dataset's scorer (each prediction also records the one it was scored with)."""
    answerable: str | None = None
    """`answerable` / `unanswerable` where the dataset has unanswerable questions (the stored
    `items.answerable`, decided at ingest by `model.Item.unanswerable`), else None."""
    features: dict[str, str] = field(default_factory=dict)
    """The item features ingest stored (`FEATURE_DIMENSIONS` → value; those not told left out)."""

    @property
    def unanswerable(self) -> bool:
        """No answer is expected (SQuAD 2.0 NoAns)."""
        return self.answerable == "unanswerable"


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def item_detail(conn: Any, item_id: int, run_name: str | None = None) -> ItemDetail | None:
    """Everything about one item; `run_name` picks the prediction shown first (None: no run)."""
    row = conn.execute(
        "SELECT i.id, i.key, d.name, d.family, i.question, c.text, c.title, i.split, i.tag,"
        " i.answer_type, i.is_impossible, i.meta, d.path, i.source_line, i.dataset_id, d.scorer, i.answerable,"
        f" {feature_columns()}"
        " FROM items i JOIN datasets d ON d.id = i.dataset_id LEFT JOIN contexts c ON c.id = i.context_id"
        " WHERE i.id = ?",
        (item_id,),
    ).fetchone()
    if row is None:
        return None
    detail = ItemDetail(
        item_id=row[0], key=row[1], dataset=row[2], family=row[3], question=row[4], golds=[],
        context=row[5], title=row[6], split=row[7], tag=row[8], answer_type=row[9],
        is_impossible=bool(row[10]), meta=_json(row[11]) or {}, source_path=row[12], source_line=row[13],
        run=run_name, scorer=row[15], answerable=row[16],
        features={k: v for k, v in zip(FEATURE_DIMENSIONS, row[17:]) if v is not None},
    )
    dataset_id = row[14]
    stale = {
        r[0]: StaleInfo(author=r[1], ts=r[2], reason=r[3], proposed=r[4], evidence=r[5])
        for r in conn.execute(
            f"SELECT s.idx, s.author, s.ts, s.reason, s.proposed, s.evidence FROM ({STALE_GOLDS_SQL}) s"
            " WHERE s.item_id = ?",
            (item_id,),
        )
    }
    for idx, text, start, end, superseded in conn.execute(
        "SELECT idx, text, span_start, span_end, superseded FROM golds WHERE item_id = ? ORDER BY idx",
        (item_id,),
    ):
        span = (start, end) if start is not None and end is not None else None
        detail.golds.append(GoldInfo(idx, text, span, bool(superseded), stale.get(idx)))
    if stale or conn.execute(
        "SELECT 1 FROM annotations WHERE dataset = ? AND item_key = ? LIMIT 1", (detail.dataset, detail.key)
    ).fetchone():
        detail.flags = flags_for_item(conn, detail.dataset, detail.key)

    preds = conn.execute(
        "SELECT r.name, r.model, p.text, p.scorer, p.em, p.f1, p.refused, p.f1_recall, p.best_gold,"
        " p.raw, p.candidates, r.path, p.source_line, p.meta, p.id, p.samples FROM predictions p JOIN runs r ON r.id = p.run_id"
        " WHERE p.item_id = ? ORDER BY r.name",
        (item_id,),
    ).fetchall()
    seen: set[str] = set()
    for p in preds:
        info = PredictionInfo(
            run=p[0], model=p[1], text=p[2], scorer=p[3], em=p[4], f1=p[5], refused=p[6],
            f1_recall=p[7], best_gold=p[8], raw=p[9], candidates=_json(p[10]) or [], run_path=p[11],
            source_line=p[12], meta=_json(p[13]) or {},
        )
        if p[15]:
            info.samples = sample_groups(conn, p[14], info.scorer)
        _align(info, detail)
        _categorize(info, detail)
        info.verdicts = judge_verdicts(conn, info.run, detail.key)
        seen.add(info.run)
        if info.run == run_name:
            detail.prediction = info
        else:
            detail.others.append(info)
    detail.missing_runs = [
        name
        for (name,) in conn.execute("SELECT name FROM runs WHERE dataset_id = ? ORDER BY name", (dataset_id,))
        if name not in seen and name != run_name
    ]
    if run_name is not None and detail.prediction is None:
        detail.missing_runs.insert(0, run_name)
    return detail


def judge_verdicts(conn: Any, run: str, item_key: str) -> list[VerdictInfo]:
    """The judges' verdicts on `run`'s answer to the item `item_key`, by judge name."""
    return [VerdictInfo(*row) for row in conn.execute(
        "SELECT judge, verdict, value, raw, rationale, source FROM verdicts WHERE run = ? AND item_key = ?"
        " ORDER BY judge", (run, item_key))]


def _align(info: PredictionInfo, detail: ItemDetail) -> None:
    """Per-gold scores and matched ranges for one prediction (see `detail_align`)."""
    golds = [g.text for g in detail.golds]
    matches = detail_align.per_gold(info.scorer, detail.family, info.text, golds)
    for m in matches:
        m.gold_idx = detail.golds[m.gold_idx].idx  # position in this list → the gold's own index
    best = info.best_gold
    if best is None:
        scored = [m for m, g in zip(matches, detail.golds) if g.scored]
        if scored and not info.refused:
            best = max(scored, key=lambda m: (m.score, -m.gold_idx)).gold_idx
    for m in matches:
        m.best = m.gold_idx == best
    info.per_gold.extend(matches)
    if detail.context and info.text:
        info.context_span = detail_align.in_context(info.text, detail.context, [g.span for g in detail.golds])


def _categorize(info: PredictionInfo, detail: ItemDetail) -> None:
    """The prediction's error category and its reason, as ingest computes the stored code
    (`core.load.score_pool.judged`): scored golds, their spans, the passage, the run's scorer."""
    if info.scorer is None:
        return
    scored = [g for g in detail.golds if g.scored]
    refused = bool(info.refused) if info.scorer == CDQA_F1_RECALL and info.refused is not None else None
    try:
        c = error_category(info.text, [g.text for g in scored], detail.context, info.scorer,
                           unanswerable=detail.is_impossible, refused=refused, gold_spans=[g.span for g in scored])
    except ValueError:  # a scorer this version does not know (a newer database)
        return
    info.category, info.category_reason = c.code, c.reason


def copy_choices(d: ItemDetail) -> dict[str, str]:
    """What the detail's copy key offers: each piece of the item as plain text, and all of it as JSON."""
    p = d.prediction
    best = next((m.gold_idx for m in p.per_gold if m.best), None) if p is not None else None
    gold = next((g.text for g in d.golds if g.idx == best), d.golds[0].text if d.golds else None)
    out = {"id": d.key, "question": d.question}
    if p is not None:
        out["prediction"] = p.text
    if gold is not None:
        out["best gold"] = gold
    out["item (JSON)"] = json.dumps({
        "dataset": d.dataset, "id": d.key, "question": d.question, "golds": [g.text for g in d.golds],
        "run": d.run, "prediction": p.text if p is not None else None,
    }, ensure_ascii=False, indent=2)
    return out


def evidence_url(d: ItemDetail) -> str | None:
    """The item's evidence URL (CDQA's 准确性检查), else the newest stale flag's evidence, if a URL."""
    candidates = [d.meta.get("evidence_url")] + [f.evidence for f in reversed(d.flags)]
    return next((u.strip() for u in candidates if isinstance(u, str) and u.strip().startswith(("http://", "https://"))), None)
