"""The signals of one gold and the one score that ranks the review queue. Pure (no I/O).

The score is a sum of points, each from one signal, so every rank can be explained. `POINTS`
and `TAG_POINTS` hold the weights and `SIGNAL_TABLE` says what each signal is; `points_table()`
prints them as the Markdown table of docs/guide/review-queue.md (a test keeps the two equal).

A gold with nothing but a tag thus stays below any gold that most runs answer differently, and
runs repeating an answer the dataset already replaced never put its gold first (`LAST`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from .consensus import Consensus, RunAnswer
from .dates import EvidenceDate, months_between

__all__ = ["LAST", "POINTS", "SIGNAL_TABLE", "TAG_POINTS", "Scored", "Signals", "points_table", "score_signals"]

POINTS = {"consensus": 5.0, "age": 1.5, "refusal": 1.0, "proposal": 2.0, "verified": 1.0, "cut": 0.0, "replaced": 0.0}
"""The most points each signal can give (`SIGNAL_TABLE` says how)."""
LAST = frozenset({"replaced"})
"""Signals that put their gold after every open gold without them, whatever its points."""
TAG_POINTS = {"fast-changing": 1.5, "slow-changing": 0.75, "never-changing": 0.0, None: 0.5}
AGE_FULL_MONTHS = 24
VERIFIED_FULL_DAYS = 365
SIGNAL_TABLE: tuple[tuple[str, str, str], ...] = (
    ("consensus", "runs agree on one answer that is not the gold (each run's relation `different`)",
     f"{POINTS['consensus']:g} × the runs' weighted share (at least 2 runs)"),
    ("age", "months since the date in the evidence URL, text or metadata",
     f"{POINTS['age']:g} × min(months / 24, 1); no date: 0"),
    ("tag", "change tag", ", ".join(f"{t or 'none'} {v:g}" for t, v in TAG_POINTS.items())),
    ("refusal", "runs that refuse", f"{POINTS['refusal']:g} × their weighted share"),
    ("proposal", "open proposals by other annotators", f"{POINTS['proposal']:g} when there is one"),
    ("verified", "days since last verified", f"never: {POINTS['verified']:g}, else "
     f"{POINTS['verified']:g} × min(days / 365, 1)"),
    ("cut", "runs give the same part of the gold (relation `partial`, 郝 for 郝鹏): a note",
     f"{POINTS['cut']:g}"),
    ("replaced", "runs still give the answer the dataset replaced (relation `superseded`)",
     f"{POINTS['replaced']:g}, and the gold comes after every open gold without it"),
)
"""(signal, what it is, its points): the rows of `points_table`."""
_TAG_WORDS = {"fast-changing": "fast-changing", "slow-changing": "slow-changing", "never-changing": "never-changing"}


@dataclass(frozen=True, slots=True)
class Signals:
    """What is known about one gold that says it may be stale."""

    dataset: str
    item_key: str
    gold_text: str
    question: str
    tag: str | None = None
    answer_type: str | None = None
    evidence: str | None = None
    evidence_date: EvidenceDate | None = None
    answers: tuple[RunAnswer, ...] = ()
    consensus: Consensus | None = None
    proposals: tuple[tuple[str, str | None], ...] = ()
    """Open proposals by other annotators: (author, proposed answer)."""
    last_verified: date | None = None
    marked: bool = False
    """Flagged stale now with an open proposal by the reviewer (reviewed: not a signal)."""
    split: str | None = None


@dataclass(frozen=True, slots=True)
class Scored:
    """A gold's score, the points of each signal, and the reasons in words."""

    signals: Signals
    score: float
    points: dict[str, float] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    last: bool = False
    """A `LAST` signal holds: ranked after every open gold without one."""

    @property
    def because(self) -> str:
        """The reasons on one line: "4 of 5 runs answer 62届; evidence from 2023-10 (25 months); fast-changing"."""
        return "; ".join(self.reasons)


def points_table() -> str:
    """`SIGNAL_TABLE` as Markdown (what docs/guide/review-queue.md prints)."""
    rows = [f"| `{name}` | {what} | {points} |" for name, what, points in SIGNAL_TABLE]
    return "\n".join(["| signal | what | points |", "|---|---|---|", *rows])


def _consensus(s: Signals, kind: str) -> tuple[float, str | None]:
    """The consensus signal of its kind: `different` ("consensus"), `partial` ("cut") or
    `superseded` ("replaced"); nothing for a consensus of another kind."""
    c = s.consensus
    if c is None or c.kind != kind:
        return 0.0, None
    runs = f"{c.count} of {c.total} runs"
    if c.sample_total:
        of = "one run" if c.sampled_runs == 1 else f"{c.sampled_runs} runs"
        runs = f"{c.samples} of {c.sample_total} samples of {of}, {runs}"
    if kind == "superseded":
        return POINTS["replaced"] * c.share, f"runs still give the replaced answer {c.replaced or c.answer} ({runs})"
    if kind == "partial":
        return POINTS["cut"] * c.share, f"runs cut the gold the same way: {runs} answer {c.answer}"
    words = f"{runs} answer {c.answer}"
    if abs(c.share - c.count / max(c.total, 1)) > 0.05:
        words += f" ({c.share:.0%} weighted toward newer runs)"
    return POINTS["consensus"] * c.share, words


def _age(s: Signals, today: date) -> tuple[float, str | None]:
    d = s.evidence_date
    if d is None:
        return 0.0, "no date in the evidence" if s.evidence else None
    months = months_between(d.value, today)
    return POINTS["age"] * min(months / AGE_FULL_MONTHS, 1.0), f"evidence from {d.label} ({months} months)"


def _refusals(s: Signals) -> tuple[float, str | None]:
    refused = [a for a in s.answers if a.refused]
    if not refused:
        return 0.0, None
    share = sum(a.weight for a in refused) / (sum(a.weight for a in s.answers) or 1.0)
    return POINTS["refusal"] * share, f"{len(refused)} of {len(s.answers)} runs refuse"


def _proposals(s: Signals) -> tuple[float, str | None]:
    if not s.proposals:
        return 0.0, None
    author, proposed = s.proposals[-1]
    more = f" (+{len(s.proposals) - 1} more)" if len(s.proposals) > 1 else ""
    what = f" → {proposed}" if proposed else ""
    return POINTS["proposal"], f"open proposal by {author}{what}{more}"


def _verified(s: Signals, today: date) -> tuple[float, str]:
    if s.last_verified is None:
        return POINTS["verified"], "never verified"
    days = max(0, (today - s.last_verified).days)
    return POINTS["verified"] * min(days / VERIFIED_FULL_DAYS, 1.0), f"verified {days} days ago"


def score_signals(s: Signals, today: date) -> Scored:
    """The documented score (module docstring) with its reasons, strongest signals first."""
    tag_words = _TAG_WORDS.get(s.tag or "", f"tag {s.tag}" if s.tag else None)
    parts = {
        "consensus": _consensus(s, "different"),
        "replaced": _consensus(s, "superseded"),
        "cut": _consensus(s, "partial"),
        "age": _age(s, today),
        "tag": (TAG_POINTS.get(s.tag, TAG_POINTS[None]), tag_words),
        "refusal": _refusals(s),
        "proposal": _proposals(s),
        "verified": _verified(s, today),
    }
    points = {name: round(p, 4) for name, (p, _) in parts.items()}
    reasons = tuple(words for _, (_, words) in parts.items() if words)
    last = any(parts[name][1] for name in LAST)
    return Scored(s, round(sum(points.values()), 4), points, reasons, last)
