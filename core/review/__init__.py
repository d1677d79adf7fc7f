"""The stale-answer review queue: which golds to re-check first, and why, said in words.

Holds, each module importing only those listed before it:

- `dates`: a date read from an item's evidence URL, text or metadata, with where it came from;
- `consensus`: the scorer's normalisation, runs weighted toward newer ones, the one answer most
  runs give that is not the gold; `score`: the signals of one gold and the documented score that
  combines them (with its reasons in words). These three are pure (no I/O).
- `verified`: when each gold was last verified (`verify` journal entries); `gather`: the signals
  of every gold of a dataset read from the database; `queue`: the ranked queue, its filters and
  the reviewer's progress; `assign`: the queue split among a team (rendezvous hashing, SHA-256),
  each annotator's done/assigned. (The freshness summary is a report: `core.report`.)

May import: `core.store`, `core.flags`, `core.metrics`, `core.model`, `core.keys`, `core.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "DEFAULT_OVERLAP",
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
    "Team",
    "TeamProgress",
    "assigned_to",
    "consensus",
    "dataset_names",
    "evidence_date",
    "gather_signals",
    "item_key",
    "judged",
    "last_verified",
    "months_between",
    "mine",
    "normalise",
    "parse_date",
    "review_queue",
    "run_dates",
    "run_weights",
    "score_signals",
    "team_progress",
    "team_settings",
    "team_share",
    "ts_date",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .assign import (
        assigned_to,
        DEFAULT_OVERLAP,
        item_key,
        judged,
        mine,
        Team,
        team_progress,
        team_settings,
        team_share,
        TeamProgress,
    )
    from .consensus import (
        Consensus,
        consensus,
        DISAGREE_BELOW,
        HALF_LIFE_DAYS,
        MIN_AGREEING,
        normalise,
        run_weights,
        RunAnswer,
    )
    from .dates import (
        evidence_date,
        EvidenceDate,
        months_between,
        parse_date,
    )
    from .gather import (
        dataset_names,
        gather_signals,
        run_dates,
    )
    from .queue import (
        FRESH_DAYS,
        Progress,
        QueueEntry,
        review_queue,
        ReviewQueue,
        SIGNALS,
    )
    from .score import (
        POINTS,
        score_signals,
        Scored,
        Signals,
        TAG_POINTS,
    )
    from .verified import (
        last_verified,
        ts_date,
    )

lazy_face(__name__)
