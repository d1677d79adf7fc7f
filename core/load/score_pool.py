"""Stored score columns for many predictions at once: each distinct (answer, golds, item context)
scored once, and a large batch of distinct ones split with a second process when the machine has one.

The columns end with the error category (`core.metrics.error_category`, from the score just
computed and the item's `features.Context`) and the answer's relation to the golds
(`core.metrics.relation`, with the item's superseded golds): `exact` and `same` for full credit
under EM without further work, else both from `core.metrics.category_and_relation`, which asks the
relation once for the two.

Scoring is pure (`core.metrics`), so a second process gives exactly the numbers this process would;
the conformance tests hold both. It is a fresh interpreter (never a fork: the TUI loads from a thread).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from qa_inspect.core.metrics import CDQA_F1_RECALL, Relation, ScoreRow, category_and_relation, score_prediction

from .bulk import no_cycle_collection
from .features import Context

__all__ = ["MEMO_MAX", "POOL_MIN", "SPLIT_MIN", "Golds", "ScoreMemo", "ScorePool", "Superseded", "judged", "score_one", "score_rows",
           "serve"]

T = TypeVar("T")
Golds = tuple[tuple[str, ...], tuple[int, ...]]
"""An item's scorable gold texts and their `golds.idx`."""
Scores = tuple[Any, ...]
"""(scorer, em, f1, refused, f1_recall, best_gold, error_category, relation): the stored score columns."""
Superseded = tuple[str, ...]
"""An item's superseded gold texts (for the `superseded` relation)."""
ScoreKey = tuple[str, str, tuple[str, ...], tuple[int, ...], Context | None, Superseded]
ScoreMemo = dict[ScoreKey, Scores]

POOL_MIN = 40_000
"""Distinct pairs below which a second process started for them costs more (start-up, pickling)
than it saves."""
SPLIT_MIN = 2_000
"""Distinct pairs below which a kept second process (`ScorePool`) is not worth the pickling."""
MEMO_MAX = 500_000
"""Pairs the memo keeps at most (about 150 MB); past it, it starts over."""


def judged(
    scorer: str, text: str, texts: Sequence[str], row: ScoreRow, context: Context | None, superseded: Superseded
) -> tuple[str, str]:
    """The error category code and the stored relation of a scored prediction (`context` None: no
    passage, LLM rules), the relation asked once for both (`core.metrics.category_and_relation`).
    Accepted aliases are a judgement of the journal, not stored here."""
    if row.em == 1:
        return "exact", Relation.SAME.value  # what both say first, for every scorer with EM
    passage, spans, unanswerable = context or (None, (), False)
    refused = None if scorer != CDQA_F1_RECALL or row.refused is None else bool(row.refused)
    found, rel = category_and_relation(text, texts, passage, scorer, unanswerable=unanswerable, refused=refused,
                                       gold_spans=spans, score=row, superseded=superseded)
    return found.code, rel.value


def score_one(
    scorer: str, text: str, golds: Golds | None, context: Context | None = None, superseded: Superseded = ()
) -> Scores:
    texts, idxs = golds or ((), ())
    row = score_prediction(scorer, text, texts)
    best = idxs[row.best_gold] if row.best_gold is not None and row.best_gold < len(idxs) else None
    refused = None if row.refused is None else int(row.refused)
    return (scorer, row.em, row.f1, refused, row.f1_recall, best, *judged(scorer, text, texts, row, context, superseded))


Todo = tuple[str, str, Golds | None, Context | None, Superseded]


def _score_many(todo: Sequence[Todo]) -> list[Scores]:
    return [score_one(*row) for row in todo]


def score_rows(
    rows: Sequence[tuple[str, str, Golds | tuple[list[str], list[int]] | None, Context | None, Superseded]],
    memo: ScoreMemo | None = None,
    pool: ScorePool | None = None,
) -> list[Scores]:
    """Score columns for `(scorer, text, golds, item context, superseded golds)` rows, in order.
    `memo` (shared by the runs of one load) holds those already scored; what is left is scored
    here, or half of it in a second process (`pool`'s, else one started for a big batch). Items
    quoting the same passage with the same golds share their results."""
    memo = {} if memo is None else memo
    out: list[Any] = []
    missing: list[tuple[int, Any]] = []
    todo: dict[ScoreKey, Todo] = {}
    for scorer, text, golds, context, superseded in rows:
        texts, idxs = golds or ((), ())
        key = (scorer, text, tuple(texts), tuple(idxs), context, superseded)  # tuple() of a tuple is that tuple
        found = memo.get(key)
        if found is None:
            missing.append((len(out), key))
            if key not in todo:
                todo[key] = (scorer, text, (key[2], key[3]), context, superseded)
        out.append(found)
    if todo:
        batch = list(todo.values())
        scored = dict(zip(todo, _score_split(batch) if pool is None else pool.score(batch)))
        for n, key in missing:
            out[n] = scored.get(key) or memo[key]
        if len(memo) + len(scored) > MEMO_MAX:
            memo.clear()
        memo.update(scored)
    return out


def _score_split(todo: list[Todo]) -> list[Scores]:
    """Score `todo`; a large batch is halved between this process and a second one started for it."""
    if len(todo) < POOL_MIN or (os.cpu_count() or 1) < 2:
        return _score_many(todo)
    with ScorePool() as pool:
        return pool.score(todo, POOL_MIN)


class ScorePool:
    """A second scoring process kept for as long as the pool is open (a load's runs), so that
    every batch worth it is halved, not only the first big one: runs of one sweep bring a few
    thousand new answers each, too few to pay for a process each time. The process is started
    as `python -c` (no caller's main module imported again; never a fork: the TUI loads from a
    thread), on first use; pairs and scores go through its pipes pickled. If it fails, its half
    is scored here and the pool scores alone from then on."""

    def __init__(self) -> None:
        self._worker: subprocess.Popen[bytes] | None = None
        self._failed = (os.cpu_count() or 1) < 2

    def __enter__(self) -> ScorePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def score(self, todo: list[Todo], least: int | None = None) -> list[Scores]:
        """Scores of `todo` in order; from `least` pairs on (`SPLIT_MIN`), half of them in the second process."""
        worker = None if len(todo) < (SPLIT_MIN if least is None else least) else self._started()
        if worker is None:
            return _score_many(todo)
        assert worker.stdin is not None and worker.stdout is not None
        half = len(todo) // 2
        try:
            pickle.dump(todo[half:], worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            worker.stdin.flush()
        except OSError:
            pass  # it died: its half is scored here below
        mine = _score_many(todo[:half])
        try:
            theirs = pickle.load(worker.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.close()
            theirs = _score_many(todo[half:])
        return mine + theirs

    def beside(self, request: tuple[Callable[..., Any], tuple[Any, ...]], here: Callable[[], T]) -> tuple[T, Any]:
        """`here()` computed in this process while the second one answers `request`, a module-level
        function (pickled by name: the second process imports its module) and its arguments; the
        answer is None when the second process could not give it (the caller then computes it here)."""
        worker = self._started()
        if worker is None:
            return here(), None
        assert worker.stdin is not None and worker.stdout is not None
        try:
            pickle.dump(request, worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            worker.stdin.flush()
        except OSError:
            self.close()
            return here(), None
        mine = here()
        try:
            return mine, pickle.load(worker.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.close()
            return mine, None

    def _started(self) -> subprocess.Popen[bytes] | None:
        if self._worker is None and not self._failed:
            self._worker = subprocess.Popen([sys.executable, "-c", f"from {__name__} import serve; serve()"],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return self._worker

    def close(self) -> None:
        """End the second process (closing its input ends its loop; a stuck one is killed); the
        pool scores alone from then on."""
        worker, self._worker, self._failed = self._worker, None, True
        if worker is None:
            return
        for pipe in (worker.stdin, worker.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        try:
            worker.wait(timeout=5)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def serve() -> None:
    """The second scoring process: pickled lists of pairs on stdin, their scores on stdout, one
    answer per list, until stdin closes; a `(function, arguments)` request (`ScorePool.beside`) is
    answered by the function's result. Cycle collection is off, as in the load it serves
    (`bulk.no_cycle_collection`): the memos it keeps grow to many thousand tuples, which every
    full collection would walk again."""
    with no_cycle_collection():
        _serve()


def _serve() -> None:
    while True:
        try:
            todo = pickle.load(sys.stdin.buffer)
        except EOFError:
            return
        answer = todo[0](*todo[1]) if isinstance(todo, tuple) else _score_many(todo)
        pickle.dump(answer, sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
        sys.stdout.buffer.flush()
