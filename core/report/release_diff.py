"""What a new release of a dataset changes: items, golds, open stale flags, and every run's score.

Two dataset files (any supported formats) are paired item by item (`core.query.pair_items`: by
key, else by question). With a database, each open stale flag of the dataset is checked against
the new golds, and each run of the dataset is re-scored with its own scorer under both releases.

A run's change splits in two parts that add up to it exactly (sums are kept as fractions):
`gold_changed` = the score with the new golds on the items both releases hold, minus the old
score; `rest` = the new score minus that (items added and removed). Figures are over the release's
items as each scorer counts them: EM/F1 over every item (no prediction adds 0; an added item has
none), F1-recall over the answered items, answer rate = answered / the run's responses (CDQA).

Accepted aliases of the dataset (`core.flags.alias_list`) are counted too: each is in the new
release as a gold of its item (`ALIAS_OUTCOMES` "now-gold"), not in it ("not-gold"), or its item is
gone ("item-removed"). The run scores stay official (aliases are not golds of either release).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from qa_inspect.core.flags import Alias, Flag, alias_list, current_flags
from qa_inspect.core.metrics import metrics_of, score_prediction
from qa_inspect.core.model import Dataset
from qa_inspect.core.query import ItemPair, closest_dataset, gold_set, pair_items, read_release
from qa_inspect.core.store import require_dataset, sqlite_connection

__all__ = [
    "ALIAS_OUTCOMES",
    "FLAG_OUTCOMES",
    "alias_outcomes",
    "FlagOutcome",
    "GoldChange",
    "MetricSplit",
    "ReleaseDiff",
    "RunSplit",
    "compare_releases",
    "flag_outcomes",
    "release_diff",
    "score_split",
]

FLAG_OUTCOMES: tuple[str, ...] = ("resolved-to-proposal", "resolved-otherwise", "left", "item-removed")
"""What a release did to an open flag: the gold became the proposal, became something else, is
still there, or the item is gone."""


@dataclass(slots=True)
class GoldChange:
    """One item whose scored golds differ between the releases."""

    key: str
    question: str
    old: list[str]
    new: list[str]
    by: str = "key"
    """How the item was paired: `key`, or `question` when its key changed."""

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "question": self.question, "old": self.old, "new": self.new, "paired_by": self.by}


ALIAS_OUTCOMES: tuple[str, ...] = ("now-gold", "not-gold", "item-removed")
"""What a release did with an accepted alias: it is a gold of its item now, it is not, or the item is gone."""


@dataclass(slots=True)
class FlagOutcome:
    """An open stale flag and what the new release did to it (`FLAG_OUTCOMES`)."""

    item_key: str
    question: str | None
    gold_text: str
    proposed: list[str]
    outcome: str
    new_golds: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {"item_key": self.item_key, "question": self.question, "gold_text": self.gold_text,
                "proposed": self.proposed, "outcome": self.outcome, "new_golds": self.new_golds}


def _num(x: Fraction | None) -> float | None:
    return None if x is None else float(x)


@dataclass(slots=True)
class MetricSplit:
    """One metric of a run (percent) under the old release, the new one, and between them: with
    the new golds on the items both hold (`mid`). `gold_changed + rest == total`, exactly."""

    metric: str
    old: Fraction | None
    mid: Fraction | None
    new: Fraction | None

    @staticmethod
    def _sub(a: Fraction | None, b: Fraction | None) -> Fraction | None:
        return None if a is None or b is None else a - b

    @property
    def total(self) -> Fraction | None:
        return self._sub(self.new, self.old)

    @property
    def gold_changed(self) -> Fraction | None:
        return self._sub(self.mid, self.old)

    @property
    def rest(self) -> Fraction | None:
        return self._sub(self.new, self.mid)

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "old": _num(self.old), "new": _num(self.new), "total_change": _num(self.total),
                "gold_changed": _num(self.gold_changed), "added_removed": _num(self.rest)}


@dataclass(slots=True)
class RunSplit:
    """One run's numbers under both releases."""

    run: str
    scorer: str
    metrics: list[MetricSplit]

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "scorer": self.scorer, "metrics": [m.to_dict() for m in self.metrics]}


@dataclass(slots=True)
class ReleaseDiff:
    """Everything `qa-inspect release diff` shows."""

    old_path: str
    new_path: str
    old_format: str
    new_format: str
    old_items: int
    new_items: int
    added: list[str]
    removed: list[str]
    paired_by_question: int
    gold_changes: list[GoldChange]
    dataset: str | None = None
    """The loaded dataset the flags and runs come from (None without a database)."""
    flags: list[FlagOutcome] = field(default_factory=list)
    runs: list[RunSplit] = field(default_factory=list)
    aliases: list[tuple[Alias, str]] = field(default_factory=list)
    """Each accepted alias of the dataset with its outcome (`ALIAS_OUTCOMES`)."""

    def flag_counts(self) -> dict[str, int]:
        return {o: sum(1 for f in self.flags if f.outcome == o) for o in FLAG_OUTCOMES}

    def alias_counts(self) -> dict[str, int]:
        return {o: sum(1 for _, out in self.aliases if out == o) for o in ALIAS_OUTCOMES}

    def to_dict(self) -> dict[str, Any]:
        return {
            "old": {"path": self.old_path, "format": self.old_format, "items": self.old_items},
            "new": {"path": self.new_path, "format": self.new_format, "items": self.new_items},
            "dataset": self.dataset,
            "counts": {"added": len(self.added), "removed": len(self.removed),
                       "golds_changed": len(self.gold_changes), "paired_by_question": self.paired_by_question,
                       "flags": self.flag_counts(), "aliases": self.alias_counts()},
            "added": self.added, "removed": self.removed,
            "gold_changes": [g.to_dict() for g in self.gold_changes],
            "flags": [f.to_dict() for f in self.flags],
            "runs": [r.to_dict() for r in self.runs],
            "aliases": [{"item_key": a.item_key, "alias": a.text, "run": a.run, "author": a.author, "outcome": o}
                        for a, o in self.aliases],
        }


def _ordered(item: Any) -> list[str]:
    """Scored gold texts in dataset order, each once (what `gold_set` compares)."""
    keep = gold_set(item)
    return list(dict.fromkeys(g.text for g in item.golds if g.text in keep))


def compare_releases(old: Dataset, new: Dataset) -> tuple[ReleaseDiff, list[ItemPair]]:
    """Items added, removed and with changed golds (no database); the pairs, for the other parts."""
    pairs = pair_items(old.items, new.items)
    diff = ReleaseDiff(
        old_path=old.path, new_path=new.path, old_format=old.format, new_format=new.format,
        old_items=len(old.items), new_items=len(new.items),
        added=[p.key for p in pairs if p.old is None], removed=[p.key for p in pairs if p.new is None],
        paired_by_question=sum(1 for p in pairs if p.by == "question"),
        gold_changes=[GoldChange(p.key, p.old.question, _ordered(p.old), _ordered(p.new), p.by)
                      for p in pairs if p.golds_changed and p.old is not None and p.new is not None],
    )
    return diff, pairs


def flag_outcomes(flags: Sequence[Flag], pairs: Sequence[ItemPair]) -> list[FlagOutcome]:
    """What the new release did to each flag (flags on items of the old release, by key)."""
    by_key = {p.old.key: p for p in pairs if p.old is not None}
    out = []
    for f in flags:
        proposed = list(dict.fromkeys(x for x in [*(p.proposed for p in f.proposals), f.proposed] if x))
        pair = by_key.get(f.item_key)
        if pair is None or pair.new is None:
            out.append(FlagOutcome(f.item_key, f.question, f.gold_text, proposed, "item-removed", []))
            continue
        golds = gold_set(pair.new)
        if f.gold_text in golds:
            outcome = "left"
        elif golds & set(proposed):
            outcome = "resolved-to-proposal"
        else:
            outcome = "resolved-otherwise"
        out.append(FlagOutcome(f.item_key, f.question, f.gold_text, proposed, outcome, _ordered(pair.new)))
    return out


def alias_outcomes(aliases: Sequence[Alias], pairs: Sequence[ItemPair]) -> list[tuple[Alias, str]]:
    """What the new release did with each accepted alias (aliases of items of the old release, by key)."""
    by_key = {p.old.key: p for p in pairs if p.old is not None}
    out = []
    for a in aliases:
        pair = by_key.get(a.item_key)
        if pair is None or pair.new is None:
            out.append((a, "item-removed"))
        else:
            out.append((a, "now-gold" if a.text in gold_set(pair.new) else "not-gold"))
    return out


_Scored = list[tuple[str | None, frozenset[str]]]
"""(prediction or None, golds) of each item a release counts."""


def _aggregate(
    scorer: str, items: _Scored, scored: dict[tuple[str, frozenset[str]], Any]
) -> dict[str, Fraction | None]:
    """The scorer's headline metrics in percent, as exact fractions (see the module docstring).
    `scored` keeps each (prediction, golds) scored once: an item whose golds no release changed is
    counted in all three totals of `score_split` but scored one time."""
    def score(pred: str, golds: frozenset[str]) -> Any:
        if (pred, golds) not in scored:
            scored[(pred, golds)] = score_prediction(scorer, pred, sorted(golds))
        return scored[(pred, golds)]

    rows = [(pred, score(pred, golds) if pred is not None else None) for pred, golds in items]
    if "f1_recall" in metrics_of(scorer):
        responses = [r for _, r in rows if r is not None]
        answered = [r for r in responses if not r.refused]
        total = sum((Fraction(r.f1_recall or 0.0) for r in answered), Fraction(0))
        return {"f1_recall": 100 * total / len(answered) if answered else None,
                "answer_rate": Fraction(100 * len(answered), len(responses)) if responses else None}
    n = len(rows)
    em = sum((Fraction(r.em or 0) for _, r in rows if r is not None), Fraction(0))
    f1 = sum((Fraction(r.f1 or 0.0) for _, r in rows if r is not None), Fraction(0))
    return {"em": 100 * em / n if n else None, "f1": 100 * f1 / n if n else None}


def score_split(scorer: str, pairs: Sequence[ItemPair], predictions: Mapping[str, str]) -> list[MetricSplit]:
    """A run's metrics under both releases and in between (`MetricSplit`); `predictions` are keyed
    by the old release's item keys (an added item has none)."""
    def pred(p: ItemPair) -> str | None:
        return predictions.get(p.old.key) if p.old is not None else None

    old: _Scored = [(pred(p), gold_set(p.old)) for p in pairs if p.old is not None]
    mid: _Scored = [(pred(p), gold_set(p.new if p.new is not None else p.old)) for p in pairs if p.old is not None]
    new: _Scored = [(pred(p), gold_set(p.new)) for p in pairs if p.new is not None]
    scored: dict[tuple[str, frozenset[str]], Any] = {}
    a, b, c = (_aggregate(scorer, part, scored) for part in (old, mid, new))
    return [MetricSplit(m, a[m], b[m], c[m]) for m in metrics_of(scorer)]


def _run_predictions(conn: Any, dataset: str) -> dict[tuple[str, str], dict[str, str]]:
    """(run, scorer) → item key → prediction text, for every run linked to `dataset`."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for run, scorer, key, text in sqlite_connection(conn).execute(
        "SELECT r.name, COALESCE(r.scorer, d.scorer), i.key, p.text FROM predictions p"
        " JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = ? ORDER BY r.name, i.id", (dataset,)
    ):
        out.setdefault((run, scorer), {})[key] = text
    return out


def release_diff(old_path: Path, new_path: Path, conn: Any = None, *, dataset: str | None = None) -> ReleaseDiff:
    """The diff of two dataset files; with `conn`, the flags and runs of `dataset` (default: the
    loaded dataset sharing the most item keys with the old file) are added."""
    old, new = read_release(Path(old_path)), read_release(Path(new_path))
    diff, pairs = compare_releases(old, new)
    diff.old_path, diff.new_path = str(old_path), str(new_path)
    if conn is None:
        return diff
    name = dataset or closest_dataset(conn, old)
    require_dataset(conn, name)
    diff.dataset = name
    diff.flags = flag_outcomes(current_flags(conn, name, include_resolved=False), pairs)
    diff.aliases = alias_outcomes(alias_list(conn, name), pairs)
    diff.runs = [RunSplit(run, scorer, score_split(scorer, pairs, preds))
                 for (run, scorer), preds in _run_predictions(conn, name).items()]
    return diff
