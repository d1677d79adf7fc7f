"""Judge verdicts: what an LLM judge (or any scorer) said of each answer, imported, never computed.

Official scores and judgements are two things (DESIGN.md): a verdict sits beside the official
score, it never replaces it. Three sources, each read into plain `Verdict`s:

- **Inspect AI logs** (`.eval` or `.json`): every sample's `scores` dict, one verdict per scorer
  (the scorer's name is the judge): `C` → 1, `I` → 0, `P` → 0.5, `N` (no answer) → 0, numbers in
  0–1 as they are, `explanation` as the rationale. Only the first epoch of a sample: it is the
  prediction the run shows. The log is opened with the Inspect reader's own archive helpers.
- **OpenCompass results** (`results/<model>/<dataset>.json` beside the predictions): per-item
  details of an LLM evaluator — a cascade's `llm_evaluation` (or `llm_evaluator`, `judge`) entry
  with `llm_correct`/`correct`, or `GenericLLMEvaluator` details whose `prediction` is the judge's
  reply and whose grade letter (`A` right, `B` wrong) is the verdict. Keyed by row position.
- **Plain JSONL** (`*.verdicts.jsonl`, or any JSONL whose records have `judge` and `verdict`):
  `{"run": …, "id": … | "question": …, "judge": …, "verdict": "correct" | "incorrect" | "partial" |
  a number in 0–1, "rationale": …}`.

A value maps to a word by one rule (`verdict_of`): 1 correct, 0 incorrect, anything between partial.
Errors in a JSONL file name the file and the line; framework outputs that hold no verdict for some
sample are simply not verdicts (a warning says how many).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from qa_inspect.core.errors import FormatError

from .textio import Document, number_text, read_document, type_name

__all__ = [
    "JSONL_FORMAT",
    "VERDICT_WORDS",
    "Verdict",
    "VerdictFile",
    "claims_verdicts",
    "INSPECT_FORMAT",
    "OPENCOMPASS_FORMAT",
    "InspectVerdicts",
    "read_opencompass_verdicts",
    "read_verdict_document",
    "verdict_of",
]

JSONL_FORMAT = "judge-verdicts"
INSPECT_FORMAT = "inspect-log"
OPENCOMPASS_FORMAT = "opencompass-predictions"
VERDICT_WORDS = ("correct", "incorrect", "partial")
"""The three verdicts, in the order facets and tables show them."""
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_WORDS = {"correct": 1.0, "incorrect": 0.0, "partial": 0.5, "partially correct": 0.5}
_SUFFIX = ".verdicts.jsonl"
_GRADE = re.compile(r"(?<![A-Za-z])(A|B)(?![A-Za-z])")
_OC_JUDGE_KEYS = ("llm_evaluation", "llm_evaluator", "judge")


@dataclass(slots=True)
class Verdict:
    """One judge's verdict on one answer. `ref` names the item (`ref_kind` "id" or "question");
    `run` is the run's name (None when the verdict comes from the run's own log, which says which
    run it is); `position` is the framework's row (OpenCompass) for pairing with its predictions."""

    judge: str
    verdict: str
    """One of `VERDICT_WORDS`."""
    value: float
    """0–1: 1 correct, 0 incorrect."""
    ref: str
    ref_kind: Literal["id", "question"] = "id"
    run: str | None = None
    rationale: str | None = None
    raw: str | None = None
    """The verdict as the source wrote it (`C`, `0.7`, `correct`, the judge's grade letter)."""
    line: int | None = None
    position: int | None = None


@dataclass(slots=True)
class VerdictFile:
    """The verdicts one file holds, with what a user should know about reading it."""

    path: Path
    format: str
    verdicts: list[Verdict]
    warnings: list[str] = field(default_factory=list)


def verdict_of(raw: Any) -> tuple[str, float] | None:
    """(word, value) for a verdict as written: `correct`/`incorrect`/`partial` (any case), Inspect's
    letters `C`/`I`/`P`/`N`, booleans, numbers (or numeric text) in 0–1. None: not a verdict."""
    if isinstance(raw, bool):
        return _word(float(raw)), float(raw)
    if isinstance(raw, (int, float)):
        value = float(raw)
        return (_word(value), value) if 0.0 <= value <= 1.0 else None
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if text in _LETTERS:
        return _word(_LETTERS[text]), _LETTERS[text]
    if text.lower() in _WORDS:
        return _word(_WORDS[text.lower()]), _WORDS[text.lower()]
    try:
        value = float(text)
    except ValueError:
        return None
    return (_word(value), value) if math.isfinite(value) and 0.0 <= value <= 1.0 else None


def _word(value: float) -> str:
    return "correct" if value >= 1.0 else "incorrect" if value <= 0.0 else "partial"


def _raw_text(raw: Any) -> str:
    return raw if isinstance(raw, str) else (number_text(raw) or str(raw))


# --------------------------------------------------------------------------------- plain JSONL


def claims_verdicts(doc: Document) -> bool:
    """A `*.verdicts.jsonl` file, or JSONL whose first record has `judge` and `verdict`."""
    if doc.path.name.lower().endswith(_SUFFIX) and doc.lines is not None:
        return True
    if not doc.lines:
        return False
    first = doc.lines[0][1]
    return isinstance(first, dict) and "judge" in first and "verdict" in first


def read_verdict_document(doc: Document) -> VerdictFile:
    """The verdicts of a plain JSONL verdicts file; a bad record is a FormatError naming its line."""
    path = str(doc.path)
    out = VerdictFile(doc.path, JSONL_FORMAT, [], list(doc.notes))
    for line, record in doc.lines or []:
        out.verdicts.append(_jsonl_verdict(path, line, record))
    return out


def _jsonl_verdict(path: str, line: int, record: Any) -> Verdict:
    if not isinstance(record, dict):
        raise FormatError(path, f"record is {type_name(record)}, expected an object", f"line {line}")
    run, judge = _text_field(path, line, record, "run"), _text_field(path, line, record, "judge")
    ref_id = record.get("id")
    question = record.get("question")
    if ref_id is not None:
        ref = number_text(ref_id)
        if ref is None or not ref.strip():
            raise FormatError(path, f"id is {type_name(ref_id)}, expected text or a number", f"line {line}")
        ref, kind = ref.strip(), "id"
    elif isinstance(question, str) and question.strip():
        ref, kind = question, "question"
    else:
        raise FormatError(path, "record has neither an id nor a question", f"line {line}")
    raw = record.get("verdict")
    found = verdict_of(raw)
    if found is None:
        raise FormatError(path, f"verdict {_shown(raw)} is not correct, incorrect, partial or a number in 0–1",
                          f"line {line}")
    rationale = record.get("rationale")
    if rationale is not None and not isinstance(rationale, str):
        raise FormatError(path, f"rationale is {type_name(rationale)}, expected text", f"line {line}")
    return Verdict(judge, found[0], found[1], ref, kind, run, rationale, _raw_text(raw), line)  # type: ignore[arg-type]


def _text_field(path: str, line: int, record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        what = "missing" if value is None else f"{type_name(value)}, expected text"
        raise FormatError(path, f"{name} is {what}", f"line {line}")
    return value.strip()


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else type_name(value)
    return text if len(text) <= 40 else text[:39] + "…"


# ---------------------------------------------------------------------------------- Inspect AI


class InspectVerdicts:
    """The verdicts of an Inspect log gathered sample by sample, so the predictions' reader takes
    them on its own pass over the archive (reading a 200k-sample log twice cost a third of its load)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._kept: dict[tuple[str, str], tuple[int, Verdict]] = {}
        self._skipped: dict[str, int] = {}

    def add(self, sample: Any) -> None:
        """Take `sample`'s scorers' verdicts (the lowest epoch's verdict wins for each scorer)."""
        if not isinstance(sample, dict) or not isinstance(sample.get("scores"), dict):
            return
        ref = number_text(sample.get("id"))
        if ref is None or not ref.strip():
            return
        epoch: int = sample["epoch"] if isinstance(sample.get("epoch"), int) else 1
        for judge, score in sample["scores"].items():
            if not isinstance(score, dict):
                continue
            found = verdict_of(score.get("value"))
            if found is None:
                self._skipped[str(judge)] = self._skipped.get(str(judge), 0) + 1
                continue
            key = (ref.strip(), str(judge))
            if key in self._kept and self._kept[key][0] <= epoch:
                continue
            explanation = score.get("explanation")
            verdict = Verdict(str(judge), found[0], found[1], ref.strip(), "id", None,
                              explanation if isinstance(explanation, str) else None, _raw_text(score.get("value")))
            self._kept.pop(key, None)  # a replaced verdict moves to where its replacement was met
            self._kept[key] = (epoch, verdict)

    def file(self) -> VerdictFile:
        warnings = [f"scorer {name}: {n} value(s) that are not a verdict (C/I/P/N or 0–1), not imported"
                    for name, n in sorted(self._skipped.items())]
        return VerdictFile(self.path, INSPECT_FORMAT, [v for _, v in self._kept.values()], warnings)


# ---------------------------------------------------------------------------------- OpenCompass


def read_opencompass_verdicts(path: Path) -> VerdictFile:
    """LLM-judge verdicts in an OpenCompass results file, by row position (see the module doc)."""
    out = VerdictFile(Path(path), OPENCOMPASS_FORMAT, [])
    value = read_document(Path(path)).value
    if not isinstance(value, dict):
        return out
    details = value.get("details")
    if isinstance(details, dict):
        details = [details.get(str(i)) for i in range(len(details))]
    if not isinstance(details, list):
        return out
    generic = any(k in value for k in ("not_attempted_count", "attempted_ratio"))
    unread = 0
    for position, detail in enumerate(details):
        verdict = _oc_detail(detail, generic, position) if isinstance(detail, dict) else None
        if verdict is not None:
            out.verdicts.append(verdict)
        elif isinstance(detail, dict) and (generic or any(k in detail for k in _OC_JUDGE_KEYS)):
            unread += 1
    if unread:
        out.warnings.append(f"{unread} judge repl(ies) with no grade (neither A nor B): not imported")
    return out


def _oc_detail(detail: Mapping[str, Any], generic: bool, position: int) -> Verdict | None:
    for key in _OC_JUDGE_KEYS:
        entry = detail.get(key)
        if isinstance(entry, dict):
            raw = next((entry[k] for k in ("llm_correct", "correct") if isinstance(entry.get(k), bool)), None)
            reply = entry.get("prediction")
            found = verdict_of(raw) if raw is not None else _graded(reply)
            if found is None:
                return None
            rationale = reply if isinstance(reply, str) else None
            return Verdict(key, found[0], found[1], f"#{position}", "id", None, rationale,
                           _raw_text(raw) if raw is not None else _grade_letter(reply), position=position)
    if generic and isinstance(detail.get("prediction"), str):
        reply = detail["prediction"]
        found = _graded(reply)
        if found is None:
            return None
        return Verdict("GenericLLMEvaluator", found[0], found[1], f"#{position}", "id", None, reply,
                       _grade_letter(reply), position=position)
    return None


def _grade_letter(reply: Any) -> str | None:
    match = _GRADE.search(reply) if isinstance(reply, str) else None
    return match.group(1) if match else None


def _graded(reply: Any) -> tuple[str, float] | None:
    """OpenCompass's judge template: `A` (CORRECT) or `B` (INCORRECT), the first standalone letter."""
    letter = _grade_letter(reply)
    return None if letter is None else (("correct", 1.0) if letter == "A" else ("incorrect", 0.0))


def runs_named(verdicts: Iterable[Verdict]) -> list[str]:
    """The runs a set of verdicts names, in first-seen order."""
    return list(dict.fromkeys(v.run for v in verdicts if v.run is not None))
