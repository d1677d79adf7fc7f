"""The stale-answer review queue: which golds to re-check first, and why, said in words.

Holds, each module importing only those listed before it:

- `dates`: a date read from an item's evidence URL, text or metadata, with where it came from;
- `consensus`: the scorer's normalisation, runs weighted toward newer ones, the one answer most
  runs give that is not the gold (asking `core.metrics.relation`: new, replaced, or a cut); `score`: the signals of one gold and the documented score that
  combines them (with its reasons in words). These three are pure (no I/O).
- `verified`: when each gold was last verified (`verify` journal entries); `gather`: which
  datasets can go stale, and the signals of every gold of one read from the database; `queue`: the
  ranked queue, its filters and the reviewer's progress; `assign`: the queue split among a team
  (rendezvous hashing, SHA-256), each annotator's done/assigned. (The freshness summary is a
  report: `core.report`.)

May import: `core.store`, `core.flags`, `core.metrics`, `core.model`, `core.keys`, `core.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "CHANGE_TAGS",
    "DEFAULT_OVERLAP",
    "DISAGREE_BELOW",
    "FRESH_DAYS",
    "HALF_LIFE_DAYS",
    "LAST",
    "MIN_AGREEING",
    "POINTS",
    "SIGNALS",
    "SIGNAL_TABLE",
    "TAG_POINTS",
    "Consensus",
    "EvidenceDate",
    "ItemGolds",
    "Progress",
    "QueueEntry",
    "ReviewQueue",
    "RunAnswer",
    "Scope",
    "Scored",
    "Signals",
    "Team",
    "TeamProgress",
    "assigned_to",
    "consensus",
    "dataset_names",
    "evidence_date",
    "gather_signals",
    "item_sample_texts",
    "with_samples",
    "with_sample_counts",
    "item_key",
    "judged",
    "last_verified",
    "months_between",
    "mine",
    "normalise",
    "parse_date",
    "points_table",
    "review_queue",
    "run_dates",
    "run_weights",
    "score_signals",
    "stale_datasets",
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
        with_sample_counts,
        DISAGREE_BELOW,
        HALF_LIFE_DAYS,
        ItemGolds,
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
        CHANGE_TAGS,
        dataset_names,
        gather_signals,
        item_sample_texts,
        run_dates,
        stale_datasets,
    )
    from .queue import (
        FRESH_DAYS,
        Progress,
        QueueEntry,
        review_queue,
        ReviewQueue,
        Scope,
        SIGNALS,
        with_samples,
    )
    from .score import (
        LAST,
        POINTS,
        points_table,
        score_signals,
        SIGNAL_TABLE,
        Scored,
        Signals,
        TAG_POINTS,
    )
    from .verified import (
        last_verified,
        ts_date,
    )

lazy_face(__name__)
