"""One prediction's samples for the item detail: every sample with its scores, grouped by
equivalent answer (the scorer's form, as the stored majority counts them), largest group first."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qa_inspect.core.metrics import answer_groups, scorer_form

__all__ = ["SampleGroup", "SampleRow", "sample_groups"]


@dataclass(frozen=True, slots=True)
class SampleRow:
    """One sample as stored in `completions`."""

    sample: int
    text: str
    em: int | None
    f1: float | None
    refused: int | None
    f1_recall: float | None


@dataclass(frozen=True, slots=True)
class SampleGroup:
    """Samples that give the same answer after the scorer's normalisation."""

    rows: tuple[SampleRow, ...]

    @property
    def answer(self) -> str:
        """The group's answer as its first sample wrote it."""
        return self.rows[0].text

    @property
    def count(self) -> int:
        return len(self.rows)


def sample_groups(conn: Any, prediction_id: int, scorer: str | None) -> list[SampleGroup]:
    """The prediction's samples grouped (empty for a run of one answer per item)."""
    rows = [SampleRow(*r) for r in conn.execute(
        "SELECT sample, text, em, f1, refused, f1_recall FROM completions WHERE prediction_id = ? ORDER BY sample",
        (prediction_id,))]
    groups = answer_groups([r.text for r in rows], lambda t: scorer_form(t, scorer))
    return [SampleGroup(tuple(rows[i] for i in g)) for g in groups]
