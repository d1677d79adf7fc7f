"""What a load did, file by file: the summary `load_runs` returns and `qa-inspect load --json` prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["DatasetReport", "LoadSummary", "RunReport"]


@dataclass(slots=True)
class DatasetReport:
    name: str
    path: str
    format: str
    items: int
    golds: int
    status: str  # loaded | unchanged | error (the rows of the last good version are kept)
    encoding: str | None = None  # how the file was decoded: utf-8, or gb18030 as a fallback
    scorer: str | None = None
    """The scorer its runs get (by what the data is, or named in the manifest)."""


@dataclass(slots=True)
class RunReport:
    name: str
    path: str
    format: str
    dataset: str | None
    predictions: int
    unmatched: int
    status: str  # loaded | unchanged | error (the rows of the last good version are kept)
    link: str = ""
    encoding: str | None = None
    coverage: float | None = None
    """Share of the dataset's items the run answers, in percent."""
    run_coverage: float | None = None
    """Share of the run's predictions that name an item of the dataset, in percent."""
    method: str = ""
    """How its predictions were matched: id, question text, prompt, position, manifest."""
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LoadSummary:
    db: str
    datasets: list[DatasetReport] = field(default_factory=list)
    runs: list[RunReport] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    """{path, message}: loaded, but a choice was made the user should check (links, coverage)."""
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    """{path, format, stored, judges, runs}: judge verdicts stored this load (`core.load.verdicts`)."""
    database_notes: list[str] = field(default_factory=list)
    """Where annotations go when it is not the folder's own database (a read-only folder's overlay);
    also among `warnings`, and said by every command, not only `load`."""

    @property
    def changed(self) -> bool:
        return (
            bool(self.removed)
            or any(d.status != "unchanged" for d in self.datasets)
            or any(r.status != "unchanged" for r in self.runs)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "datasets": [asdict(d) for d in self.datasets],
            "runs": [{k: v for k, v in asdict(r).items() if k != "link"} for r in self.runs],
            "skipped": self.skipped,
            "errors": self.errors,
            "warnings": self.warnings,
            "removed": self.removed,
            "verdicts": self.verdicts,
        }
