"""How far to trust an LLM judge: its verdicts against the hand judgements and the official score.

Per (run, judge), on the items both cover:

- **against people**: the hand verdict of a (run, item) is a current hand label that says how the
  answer stands (`HAND_VERDICTS`: the judge's own words `correct`/`incorrect`/`partial`, and the
  default labels `paraphrase` → correct, `hallucination` → incorrect; several that disagree: no
  hand verdict), else, when the run's answer is an accepted alias of the item, `correct`.
  Three categories; Cohen's κ (`core.stats.kappa_interval`, interval by resampling items).
- **against the official score**: official right = not a refusal and F1 (F1-recall) ≥ the
  threshold (`core.query.right_sql`, the browser's definition); judge right = its verdict is
  `correct` (partial is not). Two categories, κ as above.

Each comparison has its confusion matrix and the disagreeing items as a `Filter` (`keys`) the
browser opens, or `qa-inspect judge agree --save-slice` saves. Verdicts are imported, never
computed here; nothing here changes an official number.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qa_inspect.core.flags import current_aliases
from qa_inspect.core.formats import VERDICT_WORDS
from qa_inspect.core.query import JUDGE_THRESHOLD, Filter, judges, right_sql
from qa_inspect.core.stats import DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED, kappa_interval, rng_for

__all__ = ["HAND_VERDICTS", "OFFICIAL_CATEGORIES", "Agreement", "JudgeAgreement", "hand_verdicts", "judge_agreement"]

HAND_VERDICTS: dict[str, str] = {
    "correct": "correct", "incorrect": "incorrect", "partial": "partial",
    "paraphrase": "correct", "hallucination": "incorrect",
}
"""Hand labels that say how an answer stands → the verdict they are (other labels say why, not whether)."""
OFFICIAL_CATEGORIES = ("right", "wrong")


@dataclass(slots=True)
class Agreement:
    """One judge against one reference on the items both cover."""

    reference: str
    """"hand" (labels and accepted aliases) or "official" (the score at the threshold)."""
    categories: tuple[str, ...]
    items: int
    agree: int
    kappa: float | None
    """None when undefined (no items, or both used one category only)."""
    low: float | None
    high: float | None
    confusion: list[list[int]]
    """Rows the judge's category, columns the reference's, in `categories` order."""
    disagreeing: Filter
    """The run's items where they differ (`Filter.keys`), for the browser or a saved slice."""

    def to_dict(self) -> dict[str, Any]:
        return {"reference": self.reference, "categories": list(self.categories), "items": self.items,
                "agree": self.agree, "kappa": self.kappa, "low": self.low, "high": self.high,
                "confusion": self.confusion, "disagreeing": list(self.disagreeing.keys or ())}


@dataclass(slots=True)
class JudgeAgreement:
    run: str
    dataset: str
    judge: str
    verdicts: int
    hand: Agreement | None
    official: Agreement | None
    counts: dict[str, int] = field(default_factory=dict)
    """Verdicts by word."""

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "dataset": self.dataset, "judge": self.judge, "verdicts": self.verdicts,
                "counts": self.counts, "hand": self.hand.to_dict() if self.hand else None,
                "official": self.official.to_dict() if self.official else None}


def judge_agreement(
    conn: sqlite3.Connection,
    *,
    run: str | None = None,
    judge: str | None = None,
    threshold: float = JUDGE_THRESHOLD,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = DEFAULT_LEVEL,
) -> list[JudgeAgreement]:
    """Every (run, judge) with verdicts (or the named ones), by run then judge."""
    names = [run] if run else [r[0] for r in conn.execute("SELECT DISTINCT v.run FROM verdicts v JOIN runs r"
                                                         " ON r.name = v.run ORDER BY v.run")]
    out: list[JudgeAgreement] = []
    for name in names:
        row = conn.execute("SELECT d.name FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE r.name = ?",
                           (name,)).fetchone()
        if row is None:
            continue
        for who in [judge] if judge else judges(conn, name):
            out.append(_one(conn, name, row[0], who, threshold, (seed, resamples, level)))
    return out


def _one(conn: sqlite3.Connection, run: str, dataset: str, judge: str, threshold: float,
         stats: tuple[int, int, float]) -> JudgeAgreement:
    params: list[Any] = []
    right = right_sql("p", threshold, params)
    rows = conn.execute(
        f"SELECT v.item_key, v.verdict, {right}, p.text FROM verdicts v JOIN runs r ON r.name = v.run"
        " JOIN items i ON i.dataset_id = r.dataset_id AND i.key = v.item_key"
        " LEFT JOIN predictions p ON p.run_id = r.id AND p.item_id = i.id"
        " WHERE v.run = ? AND v.judge = ? ORDER BY i.id", [*params, run, judge]).fetchall()
    counts = {w: sum(1 for r in rows if r[1] == w) for w in VERDICT_WORDS}
    hand = hand_verdicts(conn, run, dataset)
    base = Filter(dataset=dataset, run=run)
    hand_pairs = [(key, verdict, hand[key]) for key, verdict, _, _ in rows if key in hand]
    official_pairs = [(key, "right" if verdict == "correct" else "wrong", "right" if ok else "wrong")
                      for key, verdict, ok, _ in rows]
    label = f"{run}/{judge}"
    return JudgeAgreement(run, dataset, judge, len(rows),
                          _agreement("hand", VERDICT_WORDS, hand_pairs, base, stats, label) if hand_pairs else None,
                          _agreement("official", OFFICIAL_CATEGORIES, official_pairs, base, stats, label) if rows else None,
                          counts)


def _agreement(reference: str, categories: tuple[str, ...], pairs: list[tuple[str, str, str]], base: Filter,
               stats: tuple[int, int, float], label: str) -> Agreement:
    seed, resamples, level = stats
    code = {c: n for n, c in enumerate(categories)}
    a = np.array([code[p[1]] for p in pairs])
    b = np.array([code[p[2]] for p in pairs])
    interval = kappa_interval(a, b, len(categories), resamples=resamples, level=level,
                              rng=rng_for(seed, "judge-agree", label, reference))
    confusion = np.zeros((len(categories), len(categories)), dtype=int)
    np.add.at(confusion, (a, b), 1)
    keys = tuple(p[0] for p in pairs if p[1] != p[2])
    return Agreement(reference, categories, len(pairs), len(pairs) - len(keys), _finite(interval.estimate),
                     _finite(interval.low), _finite(interval.high), confusion.tolist(), base.with_(keys=keys))


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def hand_verdicts(conn: sqlite3.Connection, run: str, dataset: str) -> dict[str, str]:
    """item key → the hand verdict of `run`'s answer (see the module doc); items without one left out."""
    labelled: dict[str, set[str]] = {}
    for key, label in conn.execute("SELECT item_key, label FROM current_labels WHERE run = ? AND dataset = ?",
                                   (run, dataset)):  # the labels on now, kept from the journal by triggers
        if label in HAND_VERDICTS:
            labelled.setdefault(key, set()).add(HAND_VERDICTS[label])
    out = {key: next(iter(words)) for key, words in labelled.items() if len(words) == 1}
    aliases = {key: {" ".join(t.split()) for t in texts} for key, texts in current_aliases(conn, dataset).items()}
    if aliases:
        for key, text in conn.execute(
            "SELECT i.key, p.text FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
            " WHERE r.name = ?", (run,)):
            if key not in labelled and " ".join(text.split()) in aliases.get(key, ()):
                out[key] = "correct"
    return out
