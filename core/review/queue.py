"""The review queue: golds ranked by their score (see `score`), filtered, with the reviewer's progress.

It covers the datasets that can go stale (`gather.stale_datasets`: change tags, or `dynamic =
true` in the manifest) and says which (`ReviewQueue.datasets`, `left_out`, `header`). Scoped
like the browser it was opened from: one dataset, and the item filter's tags, answer types,
splits and search text (`Scope`).

A gold is *reviewed* when the reviewer has marked it stale (an open proposal of theirs), or anyone
verified it within `fresh_days` (default 90). Reviewed golds are left out unless asked for, and
then come after every unreviewed one. Among open golds, those with a `score.LAST` signal (runs
still giving the replaced answer) come after the rest. Ties keep dataset order, so the queue is
deterministic.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from typing import Any

from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.flags import current_aliases
from qa_inspect.core.store import author_for, sqlite_connection

from .consensus import with_sample_counts
from .gather import gather_signals, item_sample_texts, stale_datasets
from .score import Scored, score_signals

__all__ = ["FRESH_DAYS", "SIGNALS", "Progress", "QueueEntry", "ReviewQueue", "Scope", "review_queue", "with_samples"]

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
                                                 "count": c.count, "total": c.total, "share": round(c.share, 4),
                                                 "samples": c.samples, "sample_total": c.sample_total,
                                                 "kind": c.kind, "replaced": c.replaced},
            "last": self.scored.last,
            "evidence": s.evidence, "evidence_date": None if s.evidence_date is None else {
                "date": s.evidence_date.label, "precision": s.evidence_date.precision,
                "source": s.evidence_date.source, "text": s.evidence_date.raw},
            "last_verified": s.last_verified.isoformat() if s.last_verified else None,
            "proposals": [{"author": a, "proposed": p} for a, p in s.proposals],
            "answers": [{"run": a.run, "text": a.text, "score": a.score, "refused": a.refused,
                         "weight": round(a.weight, 4), "relation": a.relation} for a in s.answers],
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


@dataclass(frozen=True, slots=True)
class Scope:
    """Which golds the queue holds: the browser's item filter, in the fields that apply to golds
    (() = no restriction). Values are OR-ed within a field, fields AND-ed, as in the browser."""

    dataset: str | None = None
    tags: tuple[str, ...] = ()
    answer_types: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    search: str = ""
    """Text in the question or the gold (case-insensitive)."""

    def describe(self) -> list[str]:
        """"tag fast-changing", "answer type person", … (what the header shows)."""
        out = [f"{name} {', '.join(values)}" for name, values in
               (("tag", self.tags), ("answer type", self.answer_types), ("split", self.splits)) if values]
        return out + ([f"search {self.search}"] if self.search else [])


@dataclass(slots=True)
class ReviewQueue:
    """The ranked entries (reviewed ones last, or left out) and the progress over the whole filtered queue."""

    entries: list[QueueEntry] = field(default_factory=list)
    progress: Progress = field(default_factory=lambda: Progress(0, 0, 0))
    author: str = ""
    today: date | None = None
    datasets: tuple[tuple[str, str], ...] = ()
    """The datasets covered, each with why it can go stale ("change tags", "dynamic = true")."""
    left_out: tuple[str, ...] = ()
    """Loaded datasets that cannot go stale (no change tags, not declared dynamic): not covered."""
    scope: Scope = field(default_factory=Scope)

    def header(self) -> str:
        """"Review queue over CDQA_v1 (change tags); left out (cannot go stale): cmrc2018_dev; filter: tag fast-changing"."""
        over = ", ".join(f"{name} ({why})" for name, why in self.datasets) or "no dataset that can go stale"
        parts = [f"Review queue over {over}"]
        if self.left_out:
            parts.append(f"left out (cannot go stale): {', '.join(self.left_out)}")
        if self.scope.describe():
            parts.append(f"filter: {'; '.join(self.scope.describe())}")
        return "; ".join(parts)


def _status(scored: Scored, today: date, fresh_days: int) -> str:
    s = scored.signals
    if s.marked:
        return "marked"
    if s.last_verified is not None and (today - s.last_verified).days <= fresh_days:
        return "verified"
    return "open"


def _keep(scored: Scored, scope: Scope, signal: str | None) -> bool:
    s = scored.signals
    for values, value in ((scope.tags, s.tag), (scope.answer_types, s.answer_type), (scope.splits, s.split)):
        if values and value not in values:
            return False
    if scope.search:
        needle = scope.search.casefold()
        if needle not in s.question.casefold() and needle not in s.gold_text.casefold():
            return False
    if signal == "age":
        return s.evidence_date is not None
    return signal is None or scored.points.get(signal, 0.0) > 0


def _values(value: str | Collection[str] | None) -> tuple[str, ...]:
    """One value or several (the browser's filter holds tuples; () = any)."""
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def _covered(raw: Any, dataset: str | None, dynamic: Collection[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The datasets to rank (one when named) and the loaded ones left out as static."""
    covered, static = stale_datasets(raw, dynamic)
    if dataset is None:
        return covered, static
    if dataset in static:
        raise QAInspectError(f"dataset {dataset} cannot go stale: its items have no change tags and "
                             "qa-inspect.toml does not declare it `dynamic = true`")
    return [c for c in covered if c[0] == dataset] or [(dataset, "named")], []


def review_queue(
    conn: Any,
    *,
    dataset: str | None = None,
    tag: str | Collection[str] | None = None,
    answer_type: str | Collection[str] | None = None,
    split: str | Collection[str] | None = None,
    search: str = "",
    signal: str | None = None,
    author: str | None = None,
    today: date | None = None,
    given_dates: Mapping[str, date] | None = None,
    dynamic: Collection[str] = (),
    aliases: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    include_reviewed: bool = False,
    fresh_days: int = FRESH_DAYS,
    limit: int | None = None,
    samples: bool = True,
) -> ReviewQueue:
    """The ranked queue (see the module docstring); `today` fixes "now" (default: today, UTC).
    `dynamic`: dataset names or paths the manifest declares `dynamic = true`; `aliases`: dataset
    → item key → accepted aliases (default: the journal's, `core.flags.current_aliases`, so an
    answer someone accepted is never a stale-gold candidate). A named dataset that cannot go stale is an
    error (QAInspectError). The golds are ranked without their samples' texts (they never move a
    score); the returned entries then count them (`with_samples`), unless `samples=False` (a
    caller that shows one gold at a time counts them as it shows it)."""
    if signal is not None and signal not in SIGNALS:
        raise QAInspectError(unknown_name("signal", signal, SIGNALS))
    raw = sqlite_connection(conn)
    who = author_for(raw, author)
    today = today or datetime.now(timezone.utc).date()
    scope = Scope(dataset, _values(tag), _values(answer_type), _values(split), search.strip())
    covered, left_out = _covered(raw, dataset, dynamic)
    ranked: list[tuple[bool, bool, float, int, QueueEntry]] = []
    for name, _ in covered:
        accepted = current_aliases(raw, name) if aliases is None else aliases.get(name)
        for signals in gather_signals(raw, name, author=who, given_dates=given_dates, aliases=accepted,
                                      sample_texts=False):
            scored = score_signals(signals, today)
            if _keep(scored, scope, signal):
                entry = QueueEntry(scored, _status(scored, today, fresh_days))
                ranked.append((entry.status != "open", scored.last, -scored.score, len(ranked), entry))
    ranked.sort(key=lambda t: t[:4])
    entries = [t[4] for t in ranked]
    progress = Progress(len(entries), sum(e.status == "marked" for e in entries),
                        sum(e.status == "verified" for e in entries))
    if not include_reviewed:
        entries = [e for e in entries if e.status == "open"]
    entries = entries[:limit] if limit is not None else entries
    return ReviewQueue(with_samples(raw, entries, today) if samples else entries, progress, who, today,
                       tuple(covered), tuple(left_out), scope)


def with_samples(conn: Any, entries: Sequence[QueueEntry], today: date) -> list[QueueEntry]:
    """`entries` with their consensus' sample counts ("8 of 8 samples of one run" in the reasons),
    reading the samples of their items alone (`gather.item_sample_texts`); scores and order unchanged."""
    raw = sqlite_connection(conn)
    wanted: dict[str, set[str]] = {}
    for e in entries:
        wanted.setdefault(e.scored.signals.dataset, set()).add(e.scored.signals.item_key)
    texts = {(ds, key): runs for ds, keys in wanted.items() for key, runs in item_sample_texts(raw, ds, keys).items()}
    scorers = {ds: raw.execute("SELECT scorer FROM datasets WHERE name = ?", (ds,)).fetchone()[0] for ds in wanted}
    out: list[QueueEntry] = []
    for e in entries:
        s = e.scored.signals
        runs = texts.get((s.dataset, s.item_key))
        if not runs:
            out.append(e)
            continue
        agreed = None if s.consensus is None else with_sample_counts(s.consensus, runs, scorers[s.dataset], s.question)
        signals = replace(s, answers=tuple(replace(a, samples=runs.get(a.run, ())) for a in s.answers), consensus=agreed)
        out.append(QueueEntry(score_signals(signals, today), e.status))
    return out
