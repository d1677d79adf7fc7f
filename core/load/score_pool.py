"""Stored score columns for many predictions at once: each distinct (answer, golds) pair scored
once, and a large batch of distinct pairs split with a second process when the machine has one.

Scoring is pure (`core.metrics`), so a second process gives exactly the numbers this process would;
the conformance tests hold both. It is a fresh interpreter (never a fork: the TUI loads from a thread).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

from qa_inspect.core.metrics import score_prediction

__all__ = ["MEMO_MAX", "POOL_MIN", "Golds", "ScoreMemo", "score_one", "score_rows", "serve"]

Golds = tuple[tuple[str, ...], tuple[int, ...]]
"""An item's scorable gold texts and their `golds.idx`."""
Scores = tuple[Any, ...]
"""(scorer, em, f1, refused, f1_recall, best_gold): the stored score columns."""
ScoreMemo = dict[tuple[str, str, tuple[str, ...], tuple[int, ...]], Scores]

POOL_MIN = 40_000
"""Distinct pairs below which a second process costs more (start-up, pickling) than it saves."""
MEMO_MAX = 500_000
"""Pairs the memo keeps at most (about 150 MB); past it, it starts over."""


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
        scored = dict(zip(todo, _score_split(list(todo.values()))))
        for n, key in missing:
            out[n] = scored.get(key) or memo[key]
        if len(memo) + len(scored) > MEMO_MAX:
            memo.clear()
        memo.update(scored)
    return out


def _score_split(todo: list[tuple[str, str, Golds]]) -> list[Scores]:
    """Score `todo`; a large batch is halved between this process and a second one (started as
    `python -c`, so no caller's main module is imported again; pickles through its pipes)."""
    if len(todo) < POOL_MIN or (os.cpu_count() or 1) < 2:
        return _score_many(todo)
    half = len(todo) // 2
    worker = subprocess.Popen([sys.executable, "-c", f"from {__name__} import serve; serve()"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert worker.stdin is not None and worker.stdout is not None
    try:
        with worker.stdin:
            pickle.dump(todo[half:], worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
    except OSError:
        pass  # it died: its half is scored here below
    mine = _score_many(todo[:half])
    try:
        theirs = pickle.load(worker.stdout)
    except (OSError, EOFError, pickle.UnpicklingError):
        theirs = _score_many(todo[half:])  # the second process failed: score its half here
    finally:
        worker.kill()
        worker.wait()
        worker.stdout.close()
    return mine + theirs


def serve() -> None:
    """The second scoring process: a pickled list of pairs on stdin, their scores on stdout."""
    todo = pickle.load(sys.stdin.buffer)
    pickle.dump(_score_many(todo), sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()
