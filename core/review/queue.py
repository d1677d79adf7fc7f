"""The review queue: golds ranked by their score (see `score`), filtered, with the reviewer's progress.

A gold is *reviewed* when the reviewer has marked it stale (an open proposal of theirs), or anyone
verified it within `fresh_days` (default 90). Reviewed golds are left out unless asked for, and
then come after every unreviewed one. Ties keep dataset order, so the queue is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.store import author_for, sqlite_connection

from .gather import dataset_names, gather_signals
from .score import Scored, score_signals

__all__ = ["FRESH_DAYS", "SIGNALS", "Progress", "QueueEntry", "ReviewQueue", "review_queue"]

FRESH_DAYS = 90
SIGNALS = ("consensus", "age", "refusal", "proposal")
"""What `--signal` can ask for: golds where that signal gives points (age: a date was found)."""


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """One gold in the queue: its scored signals and whether it is reviewed ("marked", "verified") or "open"."""

    scored: Scored
    status: str

    def to_dict(self) -> dict[str, Any]:
        s = self.scored.signals
        c = s.consensus
        return {
            "dataset": s.dataset, "item_key": s.item_key, "question": s.question, "gold": s.gold_text,
            "tag": s.tag, "answer_type": s.answer_type, "score": self.scored.score, "points": self.scored.points,
            "reasons": list(self.scored.reasons), "status": self.status,
            "consensus": None if c is None else {"answer": c.answer, "key": c.key, "runs": list(c.runs),
                                                 "count": c.count, "total": c.total, "share": round(c.share, 4)},
            "evidence": s.evidence, "evidence_date": None if s.evidence_date is None else {
                "date": s.evidence_date.label, "precision": s.evidence_date.precision,
                "source": s.evidence_date.source, "text": s.evidence_date.raw},
            "last_verified": s.last_verified.isoformat() if s.last_verified else None,
            "proposals": [{"author": a, "proposed": p} for a, p in s.proposals],
            "answers": [{"run": a.run, "text": a.text, "score": a.score, "refused": a.refused,
                         "weight": round(a.weight, 4)} for a in s.answers],
        }


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the reviewer is through the (filtered) queue."""

    total: int
    marked: int
    verified: int

    @property
    def reviewed(self) -> int:
        return self.marked + self.verified

    def describe(self) -> str:
        """"37 of 212 reviewed, 9 marked stale, 26 verified"."""
        return f"{self.reviewed} of {self.total} reviewed, {self.marked} marked stale, {self.verified} verified"


@dataclass(slots=True)
class ReviewQueue:
    """The ranked entries (reviewed ones last, or left out) and the progress over the whole filtered queue."""

    entries: list[QueueEntry] = field(default_factory=list)
    progress: Progress = field(default_factory=lambda: Progress(0, 0, 0))
    author: str = ""
    today: date | None = None


def _status(scored: Scored, today: date, fresh_days: int) -> str:
    s = scored.signals
    if s.marked:
        return "marked"
    if s.last_verified is not None and (today - s.last_verified).days <= fresh_days:
        return "verified"
    return "open"


def _keep(scored: Scored, tag: str | None, answer_type: str | None, signal: str | None) -> bool:
    s = scored.signals
    if tag is not None and s.tag != tag:
        return False
    if answer_type is not None and s.answer_type != answer_type:
        return False
    if signal == "age":
        return s.evidence_date is not None
    return signal is None or scored.points.get(signal, 0.0) > 0


def review_queue(
    conn: Any,
    *,
    dataset: str | None = None,
    tag: str | None = None,
    answer_type: str | None = None,
    signal: str | None = None,
    author: str | None = None,
    today: date | None = None,
    given_dates: Mapping[str, date] | None = None,
    include_reviewed: bool = False,
    fresh_days: int = FRESH_DAYS,
    limit: int | None = None,
) -> ReviewQueue:
    """The ranked queue (see the module docstring); `today` fixes "now" (default: today, UTC)."""
    if signal is not None and signal not in SIGNALS:
        raise QAInspectError(unknown_name("signal", signal, SIGNALS))
    raw = sqlite_connection(conn)
    who = author_for(raw, author)
    today = today or datetime.now(timezone.utc).date()
    names = [dataset] if dataset is not None else dataset_names(raw)
    ranked: list[tuple[int, float, int, QueueEntry]] = []
    for name in names:
        for signals in gather_signals(raw, name, author=who, given_dates=given_dates):
            scored = score_signals(signals, today)
            if _keep(scored, tag, answer_type, signal):
                entry = QueueEntry(scored, _status(scored, today, fresh_days))
                ranked.append((entry.status != "open", -scored.score, len(ranked), entry))
    ranked.sort(key=lambda t: t[:3])
    entries = [t[3] for t in ranked]
    progress = Progress(len(entries), sum(e.status == "marked" for e in entries),
                        sum(e.status == "verified" for e in entries))
    if not include_reviewed:
        entries = [e for e in entries if e.status == "open"]
    return ReviewQueue(entries[:limit] if limit is not None else entries, progress, who, today)
