"""How far annotators agree: their judgements gathered from the journal, κ and α over the items
two or more of them judged, overall and per tag and answer type, and the items they disagree on.

What is judged (`AGREEMENT_WHATS`), each annotator's latest entry that was not undone deciding:

- `stale`: a gold — `mark` says "stale", `unmark` or `verify` says "fresh";
- `labels`: a (run, item) — the set of error labels the annotator has on it ("a+b", or "none"
  once they took every label off);
- `aliases`: an answer text of an item — `alias` says "accepted", `unalias` "withdrawn".

The coefficients are `core.stats.raters`'s. The disagreements come as a filter for the browser
(`Filter.keys`) and as a queue of their own with each annotator's category and reason side by side.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from qa_inspect.core.errors import QAInspectError, unknown_name
from qa_inspect.core.query import Filter
from qa_inspect.core.stats import (
    DEFAULT_LEVEL,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Agreement,
    agreement,
)
from qa_inspect.core.store import require_dataset, sqlite_connection

__all__ = [
    "AGREEMENT_WHATS",
    "AgreementReport",
    "JudgedUnit",
    "Judgement",
    "agreement_report",
    "disagreement_filter",
    "gather_judgements",
]

AGREEMENT_WHATS = ("stale", "labels", "aliases")

_NOT_UNDONE = "NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)"

_DECISIONS_SQL = {
    "stale": ("SELECT a.dataset, a.item_key, a.gold_text, a.author, a.action, a.reason, a.proposed FROM annotations a"
              f" WHERE a.label IS NULL AND a.action IN ('mark', 'unmark', 'verify') AND {_NOT_UNDONE} ORDER BY a.ts, a.id"),
    "aliases": ("SELECT a.dataset, a.item_key, a.gold_text, a.author, a.action, a.reason, a.run FROM annotations a"
                f" WHERE a.label IS NULL AND a.action IN ('alias', 'unalias') AND {_NOT_UNDONE} ORDER BY a.ts, a.id"),
    "labels": ("SELECT a.dataset, a.item_key, a.run, a.author, a.action, a.reason, a.label FROM annotations a"
               f" WHERE a.label IS NOT NULL AND a.label != '' AND a.action IN ('label', 'unlabel') AND {_NOT_UNDONE}"
               " ORDER BY a.ts, a.id"),
}
_CATEGORY = {"mark": "stale", "unmark": "fresh", "verify": "fresh", "alias": "accepted", "unalias": "withdrawn"}


@dataclass(frozen=True, slots=True)
class Judgement:
    """One annotator's say on a unit: the category, and their reason (with a proposed answer)."""

    annotator: str
    category: str
    reason: str | None = None


@dataclass(slots=True)
class JudgedUnit:
    """What was judged (a gold, a run's item, an answer text) and each annotator's judgement."""

    dataset: str
    item_key: str
    subject: str
    """The gold text (stale), the run (labels) or the answer text (aliases)."""
    tag: str | None = None
    answer_type: str | None = None
    judgements: dict[str, Judgement] = field(default_factory=dict)

    @property
    def agreed(self) -> bool:
        return len({j.category for j in self.judgements.values()}) <= 1

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "item_key": self.item_key, "subject": self.subject, "tag": self.tag,
                "answer_type": self.answer_type,
                "judgements": [{"annotator": j.annotator, "category": j.category, "reason": j.reason}
                               for j in self.judgements.values()]}


def _reason(action: str, reason: str | None, extra: str | None, what: str) -> str | None:
    if what == "stale" and action == "mark" and extra:
        return f"{reason or ''} → {extra}".strip()
    return reason


def gather_judgements(conn: Any, what: str = "stale", *, dataset: str | None = None) -> list[JudgedUnit]:
    """Every unit anyone judged, with each annotator's deciding judgement (annotators in name order)."""
    if what not in AGREEMENT_WHATS:
        raise QAInspectError(unknown_name("kind of judgement", what, AGREEMENT_WHATS))
    raw = sqlite_connection(conn)
    if dataset is not None:
        require_dataset(raw, dataset)  # an unknown name: one line with the loaded ones
    units: dict[tuple[str, str, str], JudgedUnit] = {}
    labels_on: dict[tuple[str, str, str, str], dict[str, bool]] = {}
    for ds, key, subject, author, action, reason, extra in raw.execute(_DECISIONS_SQL[what]):
        if dataset is not None and ds != dataset:
            continue
        unit = units.setdefault((ds, key, subject), JudgedUnit(ds, key, subject))
        if what == "labels":
            on = labels_on.setdefault((ds, key, subject, author), {})
            on[extra] = action == "label"
            category = "+".join(sorted(n for n, v in on.items() if v)) or "none"
            previous = unit.judgements.get(author)
            unit.judgements[author] = Judgement(author, category, reason or (previous.reason if previous else None))
        else:
            unit.judgements[author] = Judgement(author, _CATEGORY[action], _reason(action, reason, extra, what))
    _tags(raw, units.values())
    for unit in units.values():
        unit.judgements = dict(sorted(unit.judgements.items()))
    return sorted(units.values(), key=lambda u: (u.dataset, u.item_key, u.subject))


def _tags(conn: sqlite3.Connection, units: Iterable[JudgedUnit]) -> None:
    """Each unit's item tag and answer type (None for an item not loaded)."""
    found = {(ds, key): (tag, kind) for ds, key, tag, kind in conn.execute(
        "SELECT d.name, i.key, i.tag, i.answer_type FROM items i JOIN datasets d ON d.id = i.dataset_id")}
    for unit in units:
        unit.tag, unit.answer_type = found.get((unit.dataset, unit.item_key), (None, None))


@dataclass(slots=True)
class AgreementReport:
    """Agreement on the units two or more annotators judged, overall and by tag and answer type."""

    what: str
    annotators: list[str]
    units: list[JudgedUnit]
    """The units two or more annotators judged."""
    overall: Agreement
    by_tag: dict[str, Agreement]
    by_answer_type: dict[str, Agreement]
    seed: int
    resamples: int
    level: float

    @property
    def disagreements(self) -> list[JudgedUnit]:
        return [u for u in self.units if not u.agreed]

    def to_dict(self) -> dict[str, Any]:
        def one(a: Agreement) -> dict[str, Any]:
            return {"fleiss_kappa": a.fleiss.to_dict(), "krippendorff_alpha": a.alpha.to_dict(),
                    "cohen_kappa": [{"annotators": list(p), **v.to_dict()} for p, v in a.pairs.items()]}

        return {"what": self.what, "annotators": self.annotators, "units": len(self.units),
                "seed": self.seed, "resamples": self.resamples, "level": self.level,
                "overall": one(self.overall),
                "by_tag": {k: one(v) for k, v in self.by_tag.items()},
                "by_answer_type": {k: one(v) for k, v in self.by_answer_type.items()},
                "disagreements": [u.to_dict() for u in self.disagreements]}


def _ratings(units: Iterable[JudgedUnit]) -> dict[str, dict[str, str]]:
    return {f"{u.dataset}\x1f{u.item_key}\x1f{u.subject}": {a: j.category for a, j in u.judgements.items()}
            for u in units}


def _grouped(units: list[JudgedUnit], attr: str, what: str, seed: int, resamples: int,
             level: float) -> dict[str, Agreement]:
    groups: dict[str, list[JudgedUnit]] = {}
    for u in units:
        value = getattr(u, attr)
        if value:
            groups.setdefault(str(value), []).append(u)
    return {name: agreement(_ratings(members), what, attr, name, seed=seed, resamples=resamples, level=level)
            for name, members in sorted(groups.items()) if len(members) >= 2}


def agreement_report(
    conn: Any, what: str = "stale", *, dataset: str | None = None, seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL,
) -> AgreementReport:
    """Cohen's κ per pair, Fleiss' κ and Krippendorff's α with bootstrap intervals over the units
    two or more annotators judged, overall and per tag and answer type; the disagreements."""
    units = [u for u in gather_judgements(conn, what, dataset=dataset) if len(u.judgements) >= 2]
    annotators = sorted({a for u in units for a in u.judgements})
    return AgreementReport(
        what, annotators, units, agreement(_ratings(units), what, "overall", seed=seed, resamples=resamples, level=level),
        _grouped(units, "tag", what, seed, resamples, level), _grouped(units, "answer_type", what, seed, resamples, level),
        seed, resamples, level)


def disagreement_filter(report: AgreementReport, base: Filter | None = None) -> Filter:
    """The browser's filter for the items the annotators disagree on (`Filter.keys`)."""
    keys = tuple(dict.fromkeys(u.item_key for u in report.disagreements))
    return Filter(keys=keys) if base is None else replace(base, keys=keys)
