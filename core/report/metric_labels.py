"""The names people read for the metrics a run can have an interval for, apart from the code that
computes the intervals: tables and headers read them without loading numpy."""

from __future__ import annotations

__all__ = ["METRIC_LABELS"]

METRIC_LABELS = {
    "em": "EM", "f1": "F1", "f1_recall": "F1-recall", "answer_rate": "answer rate",
    "em_hasans": "HasAns EM", "f1_hasans": "HasAns F1", "em_noans": "NoAns EM", "f1_noans": "NoAns F1",
    "pass@1": "pass@1",
}
"""Every metric a run can have an interval for, with the name people read."""
