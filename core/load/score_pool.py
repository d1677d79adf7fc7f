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
from collections.abc import Sequence
from typing import Any

from qa_inspect.core.metrics import CDQA_F1_RECALL, Relation, ScoreRow, category_and_relation, score_prediction

from .features import Context

__all__ = ["MEMO_MAX", "POOL_MIN", "Golds", "ScoreMemo", "Superseded", "judged", "score_one", "score_rows",
           "serve"]

Golds = tuple[tuple[str, ...], tuple[int, ...]]
"""An item's scorable gold texts and their `golds.idx`."""
Scores = tuple[Any, ...]
"""(scorer, em, f1, refused, f1_recall, best_gold, error_category, relation): the stored score columns."""
Superseded = tuple[str, ...]
"""An item's superseded gold texts (for the `superseded` relation)."""
ScoreKey = tuple[str, str, tuple[str, ...], tuple[int, ...], Context | None, Superseded]
ScoreMemo = dict[ScoreKey, Scores]

POOL_MIN = 40_000
"""Distinct pairs below which a second process costs more (start-up, pickling) than it saves."""
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
) -> list[Scores]:
    """Score columns for `(scorer, text, golds, item context, superseded golds)` rows, in order.
    `memo` (shared by the runs of one load) holds those already scored; what is left is scored
    here, or half of it in a worker. Items quoting the same passage with the same golds share
    their results."""
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
        scored = dict(zip(todo, _score_split(list(todo.values()))))
        for n, key in missing:
            out[n] = scored.get(key) or memo[key]
        if len(memo) + len(scored) > MEMO_MAX:
            memo.clear()
        memo.update(scored)
    return out


def _score_split(todo: list[Todo]) -> list[Scores]:
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
