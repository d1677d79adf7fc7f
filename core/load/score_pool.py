"""Stored score columns for many predictions at once: each distinct (answer, golds) pair scored
once, and a large batch of distinct pairs split with a second process when the machine has one.

Scoring is pure (`core.metrics`), so a worker process gives exactly the numbers this process would;
the conformance tests hold both. Workers are spawned (never forked: the TUI loads from a thread).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from qa_inspect.core.metrics import score_prediction

__all__ = ["POOL_MIN", "Golds", "ScoreMemo", "score_one", "score_rows"]

Golds = tuple[tuple[str, ...], tuple[int, ...]]
"""An item's scorable gold texts and their `golds.idx`."""
Scores = tuple[Any, ...]
"""(scorer, em, f1, refused, f1_recall, best_gold): the stored score columns."""
ScoreMemo = dict[tuple[str, str, tuple[str, ...], tuple[int, ...]], Scores]

POOL_MIN = 40_000
"""Distinct pairs below which a second process costs more (start-up, pickling) than it saves."""


def score_one(scorer: str, text: str, golds: Golds | None) -> Scores:
    texts, idxs = golds or ((), ())
    row = score_prediction(scorer, text, texts)
    best = idxs[row.best_gold] if row.best_gold is not None and row.best_gold < len(idxs) else None
    refused = None if row.refused is None else int(row.refused)
    return (scorer, row.em, row.f1, refused, row.f1_recall, best)


def _score_many(todo: Sequence[tuple[str, str, Golds | None]]) -> list[Scores]:
    return [score_one(scorer, text, golds) for scorer, text, golds in todo]


def score_rows(
    rows: Sequence[tuple[str, str, Golds | tuple[list[str], list[int]] | None]], memo: ScoreMemo | None = None
) -> list[Scores]:
    """Score columns for `(scorer, text, golds)` rows, in order. `memo` (shared by the runs of one
    load) holds pairs already scored; what is left is scored here, or half of it in a worker."""
    memo = {} if memo is None else memo
    out: list[Any] = []
    missing: list[tuple[int, Any]] = []
    todo: dict[tuple[str, str, tuple[str, ...], tuple[int, ...]], tuple[str, str, Golds]] = {}
    for scorer, text, golds in rows:
        texts, idxs = golds or ((), ())
        key = (scorer, text, tuple(texts), tuple(idxs))  # tuple() of a tuple is that tuple
        found = memo.get(key)
        if found is None:
            missing.append((len(out), key))
            if key not in todo:
                todo[key] = (scorer, text, (key[2], key[3]))
        out.append(found)
    if todo:
        memo.update(zip(todo, _score_split(list(todo.values()))))
    for n, key in missing:
        out[n] = memo[key]
    return out


def _score_split(todo: list[tuple[str, str, Golds]]) -> list[Scores]:
    """Score `todo`; a large batch is halved between this process and one spawned worker."""
    if len(todo) < POOL_MIN or (os.cpu_count() or 1) < 2:
        return _score_many(todo)
    half = len(todo) // 2
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        theirs = pool.submit(_score_many, todo[half:])
        mine = _score_many(todo[:half])
        return mine + theirs.result()
