"""Plain records that readers yield and the store consumes.

Readers know nothing about SQLite; the store knows nothing about source formats. These dataclasses
are the whole contract between the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Candidate", "Dataset", "Family", "Gold", "Item", "Prediction", "Run"]

Family = Literal["cmrc", "cdqa", "squad"]
"""Scoring family of a dataset: decides the default scorer (CMRC/SQuAD → EM/F1, CDQA → F1-recall)."""


@dataclass(slots=True)
class Gold:
    """One gold answer as the dataset gives it.

    `span_start`/`span_end` are character offsets into the item's context when the answer could be
    located (given `answer_start` checked, else recovered by search), `None` when there is no span.
    `superseded` marks an original answer that a later rewrite replaced (CDQA `p-改写答案`): it is
    kept for display and for stale-answer work but never scored.
    """

    text: str
    answer_start: int | None = None
    span_start: int | None = None
    span_end: int | None = None
    superseded: bool = False


@dataclass(slots=True)
class Item:
    """One question with its golds.

    `key` is the stable identity across reloads and releases: the dataset's own id (stripped) where
    it has one, else a hash of the normalised question (see `core.keys.question_key`).
    """

    key: str
    question: str
    golds: list[Gold]
    context: str | None = None
    context_id: str | None = None
    title: str | None = None
    split: str | None = None
    tag: str | None = None
    answer_type: str | None = None
    is_impossible: bool = False
    meta: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    """1-based line (JSONL) or record number (JSON) in the source file, for error messages."""

    @property
    def unanswerable(self) -> bool:
        """No answer is expected: flagged `is_impossible`, or no gold that counts (SQuAD 2.0 NoAns)."""
        return self.is_impossible or not any(not g.superseded for g in self.golds)


@dataclass(slots=True)
class Dataset:
    name: str
    path: str
    format: str
    family: Family
    items: list[Item]
    encoding: str = "utf-8"
    meta: dict[str, Any] = field(default_factory=dict)
    scorer: str | None = None
    """The scorer the user chose (manifest); None = by what the data is (`has_unanswerable`)."""

    @property
    def has_unanswerable(self) -> bool:
        """Some question has no scored gold (SQuAD 2.0 `is_impossible`, empty answers)."""
        return any(it.unanswerable for it in self.items)


@dataclass(slots=True)
class Candidate:
    """An n-best candidate answer (HF `nbest_predictions.json`)."""

    text: str
    probability: float | None = None
    score: float | None = None


@dataclass(slots=True)
class Prediction:
    """One model answer, naming its item either by id or by question text."""

    ref: str
    ref_kind: Literal["id", "question"]
    text: str
    raw: str | None = None
    candidates: list[Candidate] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    samples: tuple[str, ...] = ()
    """Every sampled answer to the item in sample order (epochs, repeats), `text` among them as the
    official one; empty for a run with one answer per item (the usual case, stored as before)."""


@dataclass(slots=True)
class Run:
    name: str
    path: str
    format: str
    predictions: list[Prediction]
    model: str | None = None
    encoding: str = "utf-8"
    meta: dict[str, Any] = field(default_factory=dict)
    extra_paths: list[str] = field(default_factory=list)
    """Side files read with this run (e.g. `nbest_predictions.json`); their changes reload the run."""
    framework_verdicts: Any = None
    """The judge verdicts the run's own log holds, when its reader gathered them on its one pass
    over the file (`core.formats.VerdictFile`); None: read from the file when wanted."""
