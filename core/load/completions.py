"""Many answers per item at ingest: each sample scored, the item's aggregate computed once.

A run's `Prediction.samples` (epochs, repeats) become rows of `completions` (one per sample, with
its scores), and the prediction's row gains their aggregate (`core.metrics.summarise_item`): the
official columns stay the official answer's. A prediction without samples gets NULL aggregates and
no completions, so a run of one answer per item is stored exactly as before.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

from qa_inspect.core.metrics import ItemRow, SampleScore, item_row, sample_correct, score_prediction, scorer_form, uses_f1_recall
from qa_inspect.core.model import Prediction

from .score_pool import ScorePool

__all__ = ["AGGREGATE_COLUMNS", "INSERT_COMPLETION", "NO_AGGREGATE", "SampleMemo", "SampleScores", "insert_completions",
           "SLOTS", "SampleItem", "SampleWork", "rescore_samples", "sample_work", "score_sample_items", "score_samples"]

AGGREGATE_COLUMNS = ("samples", "correct_samples", "mean_em", "mean_f1", "majority", "majority_share",
                     "majority_correct", "distinct_answers", "flaky")
"""The `predictions` columns that hold an item's sample aggregate (schema 13)."""
NO_AGGREGATE: tuple[None, ...] = (None,) * len(AGGREGATE_COLUMNS)
INSERT_COMPLETION = ("INSERT INTO completions (prediction_id, sample, text, em, f1, refused, f1_recall)"
                     " VALUES (?, ?, ?, ?, ?, ?, ?)")

Scored = tuple[int | None, float | None, int | None, float | None]
"""(em, f1, refused, f1_recall) of one sample."""
SampleScores = tuple[ItemRow, tuple[Scored, ...]]
"""(the aggregate columns, each sample's scores) of one prediction."""
_SCORE_COLUMNS = ("em", "f1", "refused", "f1_recall")


def insert_completions(conn: sqlite3.Connection, batch: Iterable[tuple[int, Sequence[str], Sequence[Scored]]]) -> None:
    """Insert `(prediction id, sample texts, their scores)` as `completions` rows. A score column
    that is None is written as a NULL literal of the statement, not bound: `sqlite3` binds None
    through its adaptation lookup, which made a sampled run's insert twice the cost of its rows
    (a scorer leaves two of the four columns None). Rows go in by the None-pattern of their
    scores, each pattern's in key order; a prediction whose samples share one pattern (the usual
    case) has its rows zipped from its columns, without a Python step per row."""
    by_pattern: dict[tuple[bool, ...], list[tuple[Any, ...]]] = {}
    for pid, texts, scored in batch:
        if not scored:
            continue
        columns = tuple(zip(*scored))
        pattern = tuple(None in column for column in columns)
        if any(pattern) and not all(column.count(None) == len(column) for column, none in zip(columns, pattern) if none):
            _add_mixed(by_pattern, pid, texts, scored)  # a column None for some samples only
            continue
        rows = by_pattern.get(pattern)
        if rows is None:
            rows = by_pattern[pattern] = []
        rows.extend(zip(repeat(pid), range(1, len(texts) + 1), texts,
                        *(column for column, none in zip(columns, pattern) if not none)))
    for pattern, rows in by_pattern.items():
        values = ", ".join("NULL" if none else "?" for none in pattern)
        conn.executemany(f"INSERT INTO completions (prediction_id, sample, text, {', '.join(_SCORE_COLUMNS)})"
                         f" VALUES (?, ?, ?, {values})", rows)


def _add_mixed(
    by_pattern: dict[tuple[bool, ...], list[tuple[Any, ...]]], pid: int, texts: Sequence[str], scored: Sequence[Scored]
) -> None:
    """A prediction's rows one at a time, each under its own scores' None-pattern."""
    for n, (text, score) in enumerate(zip(texts, scored), 1):
        pattern = tuple(v is None for v in score)
        by_pattern.setdefault(pattern, []).append((pid, n, text, *(v for v in score if v is not None)))


Found = tuple[SampleScore, str, Scored]
"""What a sample's text gives: (the score its item's aggregate reads, its form, its stored scores)."""
SampleMemo = dict[str, tuple[dict[tuple[str, tuple[str, ...]], Found], dict[str, str]]]
"""Per scorer: what (answer, golds) pairs gave (`Found`) and the forms of answers already computed
(kept by the load across its runs: samples repeat answers, and runs repeat each other's)."""
MEMO_MAX = 1_000_000


class _Scorer:
    """Scores and forms of samples; equal (answer, golds) pairs are scored once."""

    def __init__(self, scorer: str, memo: SampleMemo) -> None:
        self.scorer = scorer
        self.f1_scorer = uses_f1_recall(scorer)
        self.scores, self.forms = memo.setdefault(scorer, ({}, {}))
        if len(self.scores) + len(self.forms) > MEMO_MAX:
            self.scores.clear()
            self.forms.clear()
        self.by_form = scorer.startswith("squad")
        """SQuAD's EM and F1 are functions of `normalize_answer(prediction)` (its `scorer_form`):
        answers of one form share one score ("Paris", "paris."). Not so for CMRC F1 or CDQA."""

    def score(self, text: str, golds: tuple[str, ...]) -> Found:
        """What a sample gives (`Found`). Its form is a function of its text, so it is kept with
        the pair's scores whichever of the two keys them."""
        form = self.forms.get(text)
        if form is None:
            form = self.forms[text] = scorer_form(text, self.scorer)
        key = (form if self.by_form else text, golds)
        found = self.scores.get(key)
        if found is None:
            row = score_prediction(self.scorer, text, golds)
            main = row.f1_recall if self.f1_scorer else row.f1
            found = ((row.em, main, sample_correct(row.em, row.f1_recall, self.f1_scorer)), form,
                     (row.em, row.f1, None if row.refused is None else int(row.refused), row.f1_recall))
            self.scores[key] = found
        return found


SLOTS = 16
"""Sampled items are shared between the two processes by `item id % SLOTS`: an item goes to the
same process in every run, where its answers were scored before (`score_ahead` moves the line)."""
SPLIT_ITEMS = 1_000
"""Sampled items from which a run's are halved with the load's second process (`ScorePool`)."""
_WORKER_MEMO: SampleMemo = {}
"""The second process's memo (`score_sample_items` there): kept across the runs of its load."""


SampleItem = tuple[tuple[str, ...], tuple[str, ...]]
"""(an item's sample texts, its gold texts): what its samples are scored from."""
SampleWork = tuple[list[int], list[SampleItem], list[int]]
"""A run's sampled predictions: their positions among its matched ones, what each is scored from,
and their item ids."""


def sample_work(matched: Sequence[tuple[int, Prediction]], golds: dict[int, Any]) -> SampleWork | None:
    """What the sampled predictions of `matched` are scored from; None when none has samples."""
    if not any(p.samples for _, p in matched):
        return None
    sampled = [(n, item_id, p.samples) for n, (item_id, p) in enumerate(matched) if p.samples]
    return ([n for n, _, _ in sampled],
            [(samples, tuple(golds[item_id][0]) if item_id in golds else ()) for _, item_id, samples in sampled],
            [item_id for _, item_id, _ in sampled])


def score_samples(
    scorer: str | None, matched: Sequence[tuple[int, Prediction]], golds: dict[int, Any],
    memo: SampleMemo | None = None, pool: ScorePool | None = None,
) -> list[SampleScores | None]:
    """Per matched prediction, its aggregate and sample scores; None where it has no samples.
    `memo` (the load's) keeps scores across runs. With `pool`, half the items (by `SLOTS`, from
    `SPLIT_ITEMS` on) are scored by its second process meanwhile, with its own memo."""
    work = sample_work(matched, golds) if scorer is not None else None
    if scorer is None or work is None:
        return [None] * len(matched)
    memo = {} if memo is None else memo
    positions, items, ids = work
    out: list[SampleScores | None] = [None] * len(matched)
    if pool is None or len(items) < SPLIT_ITEMS:
        scored = score_sample_items(scorer, items, memo)
    else:
        odd = [item_id % SLOTS < SLOTS // 2 for item_id in ids]
        here = [w for w, o in zip(items, odd) if not o]
        there = [w for w, o in zip(items, odd) if o]
        mine, theirs = pool.beside((score_sample_items, (scorer, there)), lambda: score_sample_items(scorer, here, memo))
        if theirs is None:
            theirs = score_sample_items(scorer, there, memo)
        mine_it, theirs_it = iter(mine), iter(theirs)
        scored = [next(theirs_it) if o else next(mine_it) for o in odd]
    for n, found in zip(positions, scored):
        out[n] = found
    return out


def score_sample_items(scorer: str, items: Sequence[SampleItem], memo: SampleMemo | None = None) -> list[SampleScores]:
    """Each item's aggregate and sample scores, for `(its samples, its gold texts)`; `memo` None
    in the second process: its own, kept for the load."""
    score = _Scorer(scorer, _WORKER_MEMO if memo is None else memo).score
    stored = itemgetter(2)
    out: list[SampleScores] = []
    for samples, texts in items:
        distinct = {text: score(text, texts) for text in dict.fromkeys(samples)}  # samples repeat answers
        out.append((item_row(samples, distinct), tuple(map(stored, map(distinct.__getitem__, samples)))))
    return out


def rescore_samples(
    conn: sqlite3.Connection, dataset_id: int, golds: dict[int, Any], where: str = "", params: tuple[Any, ...] = ()
) -> int:
    """Golds changed: the stored samples of the dataset's runs (of the predictions `where`, an
    `AND …` on `p`) scored again with their aggregates, as ingest would. Returns how many."""
    rows = conn.execute(
        "SELECT p.id, p.item_id, COALESCE(r.scorer, d.scorer) FROM predictions p JOIN runs r ON r.id = p.run_id"
        " JOIN datasets d ON d.id = r.dataset_id WHERE r.dataset_id = ? AND p.samples IS NOT NULL" + where,
        (dataset_id, *params),
    ).fetchall()
    memo: SampleMemo = {}
    for pid, item_id, scorer in rows:
        texts = tuple(t for (t,) in conn.execute(
            "SELECT text FROM completions WHERE prediction_id = ? ORDER BY sample", (pid,)))
        if not texts:
            continue
        (scored,) = score_samples(scorer, [(item_id, Prediction("", "id", texts[0], samples=texts))], golds, memo)
        assert scored is not None
        aggregate, per_sample = scored
        conn.execute(f"UPDATE predictions SET {', '.join(c + ' = ?' for c in AGGREGATE_COLUMNS)} WHERE id = ?",
                     (*aggregate, pid))
        conn.executemany("UPDATE completions SET em = ?, f1 = ?, refused = ?, f1_recall = ?"
                         " WHERE prediction_id = ? AND sample = ?",
                         [(*s, pid, n) for n, s in enumerate(per_sample, 1)])
    return len(rows)
