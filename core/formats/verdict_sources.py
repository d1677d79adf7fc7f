"""Where judge verdicts come from: a verdicts file of any kind, or a run's own framework output
(an Inspect log, an OpenCompass results file). The readers are in `judge_verdicts`; an Inspect
log's samples come through the Inspect reader's own archive helpers and limits."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qa_inspect.core.errors import FormatError

from .inspect_log import samples as inspect_samples
from .judge_verdicts import (
    INSPECT_FORMAT,
    OPENCOMPASS_FORMAT,
    InspectVerdicts,
    VerdictFile,
    claims_verdicts,
    read_opencompass_verdicts,
    read_verdict_document,
)
from .textio import Document, read_document

__all__ = ["framework_verdicts", "read_inspect_verdicts", "read_verdicts"]


def read_inspect_verdicts(doc: Document) -> VerdictFile:
    """One verdict per scorer of each sample's first epoch; scorers whose value is not a verdict
    (a dict of metrics, a number outside 0–1, text) are counted in a warning, not guessed."""
    gathered = InspectVerdicts(doc.path)
    for _, sample in inspect_samples(doc):
        gathered.add(sample)
    return gathered.file()


def framework_verdicts(run_path: Path, run_format: str, gathered: Any = None) -> VerdictFile | None:
    """The verdicts a run's own framework output holds (an Inspect log itself; an OpenCompass
    run's results file), or None when its format carries none. `gathered`: what the run's reader
    took on its own pass (`Run.framework_verdicts`), used instead of reading the file again."""
    run_path = Path(run_path)
    if isinstance(gathered, VerdictFile):
        return gathered
    if run_format == INSPECT_FORMAT:
        return read_inspect_verdicts(read_document(run_path))
    if run_format == OPENCOMPASS_FORMAT:
        from .opencompass import layout as opencompass_layout  # loads with the results file, not with the face

        where = opencompass_layout(run_path)
        results = where.root / "results" / where.model / f"{where.dataset}.json" if where is not None else None
        if results is None or not results.is_file():
            return None
        try:
            return read_opencompass_verdicts(results)
        except FormatError:
            return None  # the predictions' reader already says why the results file is not used
    return None


def read_verdicts(path: Path) -> VerdictFile:
    """Any verdicts file by what it is: an Inspect log, or a plain JSONL verdicts file."""
    doc = read_document(Path(path))
    if doc.archive is not None or (isinstance(doc.value, dict) and "eval" in doc.value):
        return read_inspect_verdicts(doc)
    if claims_verdicts(doc):
        return read_verdict_document(doc)
    raise FormatError(str(path), "not a verdicts file (expected JSONL records with judge and verdict, or an Inspect log)")
