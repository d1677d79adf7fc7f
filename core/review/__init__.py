"""The stale-answer review queue: which golds to re-check first, and why, said in words.

Holds, each module importing only those listed before it:

- `dates`: a date read from an item's evidence URL, text or metadata, with where it came from;
- `consensus`: the scorer's normalisation, runs weighted toward newer ones, the one answer most
  runs give that is not the gold; `score`: the signals of one gold and the documented score that
  combines them (with its reasons in words). These three are pure (no I/O).
- `verified`: when each gold was last verified (`verify` journal entries); `gather`: the signals
  of every gold of a dataset read from the database; `queue`: the ranked queue, its filters and
  the reviewer's progress. (The freshness summary is a report: `core.report`.)

May import: `core.store`, `core.flags`, `core.metrics`, `core.model`, `core.keys`, `core.errors`.
"""

from __future__ import annotations

from qa_inspect.core.lazy import lazy_face

__all__ = [
    "DISAGREE_BELOW",
    "FRESH_DAYS",
    "HALF_LIFE_DAYS",
    "MIN_AGREEING",
    "POINTS",
    "SIGNALS",
    "TAG_POINTS",
    "Consensus",
    "EvidenceDate",
    "Progress",
    "QueueEntry",
    "ReviewQueue",
    "RunAnswer",
    "Scored",
    "Signals",
    "consensus",
    "dataset_names",
    "evidence_date",
    "gather_signals",
    "last_verified",
    "months_between",
    "normalise",
    "parse_date",
    "review_queue",
    "run_dates",
    "run_weights",
    "score_signals",
    "ts_date",
]

# Each name is imported from its module on first use (start-up time: see `core/lazy.py`).
lazy_face(__name__, {
    ".consensus": ("DISAGREE_BELOW", "HALF_LIFE_DAYS", "MIN_AGREEING", "Consensus", "RunAnswer", "consensus",
                   "normalise", "run_weights"),
    ".dates": ("EvidenceDate", "evidence_date", "months_between", "parse_date"),
    ".gather": ("dataset_names", "gather_signals", "run_dates"),
    ".queue": ("FRESH_DAYS", "SIGNALS", "Progress", "QueueEntry", "ReviewQueue", "review_queue"),
    ".score": ("POINTS", "TAG_POINTS", "Scored", "Signals", "score_signals"),
    ".verified": ("last_verified", "ts_date"),
})
