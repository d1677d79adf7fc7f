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
import queue
import select
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from qa_inspect.core.metrics import CDQA_F1_RECALL, Relation, ScoreRow, category_and_relation, score_prediction

from .bulk import no_cycle_collection
from .child_pipe import Answers, answer_writer
from .features import Context

__all__ = ["MEMO_MAX", "POOL_MIN", "QUEUE", "START_BYTES", "SPLIT_MIN", "Golds", "ScoreInput", "ScoreKey", "ScoreMemo", "ScorePool", "Scores",
           "Looked", "Superseded", "Todo", "item_key", "judged", "look_up", "new_pairs", "remember", "score_many", "score_one", "score_rows", "serve", "todo_of"]

T = TypeVar("T")
Golds = tuple[tuple[str, ...], tuple[int, ...]]
"""An item's scorable gold texts and their `golds.idx`."""
Scores = tuple[Any, ...]
"""(scorer, em, f1, refused, f1_recall, best_gold, error_category, relation): the stored score columns."""
Superseded = tuple[str, ...]
"""An item's superseded gold texts (for the `superseded` relation)."""
ScoreKey = tuple[Any, ...]
"""A memo key: the row itself, (scorer, text, gold texts, gold indexes, context, superseded), or a
caller's (`new_pairs`)."""
ScoreMemo = dict[ScoreKey, Scores]

START_BYTES = 8 << 20
"""Changed files a load reads from which its second process is started up front (`ScorePool(start=True)`)."""
POOL_MIN = 40_000
"""Distinct pairs below which a second process started for them costs more (start-up, pickling)
than it saves."""
SPLIT_MIN = 2_000
"""Distinct pairs below which a kept second process (`ScorePool`) is not worth the pickling."""
QUEUE = 2
"""Requests the second process may hold at once when they are queued (`ScorePool.send`)."""
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


def score_many(todo: Sequence[Todo]) -> list[Scores]:
    """The scores of `todo`, in order, in this process."""
    return [score_one(*row) for row in todo]


ScoreInput = tuple[str, str, Golds | tuple[list[str], list[int]] | None, Context | None, Superseded]
"""(scorer, answer text, golds, item context, superseded golds): what a prediction is scored from."""


def score_rows(
    rows: Sequence[ScoreInput], memo: ScoreMemo | None = None, pool: ScorePool | None = None,
    keys: Sequence[ScoreKey] | None = None,
) -> list[Scores]:
    """Score columns for `(scorer, text, golds, item context, superseded golds)` rows, in order.
    `memo` (shared by the runs of one load) holds those already scored; what is left is scored
    here, or half of it in a second process (`pool`'s, else one started for a big batch). Items
    quoting the same passage with the same golds share their results. `keys`: the rows' memo
    keys when the caller has cheaper ones than the rows themselves (`new_pairs`)."""
    memo = {} if memo is None else memo
    if keys is not None:  # all known (a run scored ahead): one lookup a row
        found = [memo.get(key) for key in keys]
        if None not in found:
            return cast(list[Scores], found)
    keys, todo = new_pairs(rows, memo, keys)
    if not todo:
        return [memo[key] for key in keys]
    batch = list(todo.values())
    scored = dict(zip(todo, _score_split(batch) if pool is None else pool.score(batch)))
    out = [scored[key] if key in scored else memo[key] for key in keys]
    remember(memo, scored)
    return out


def new_pairs(
    rows: Sequence[ScoreInput], memo: ScoreMemo, keys: Sequence[ScoreKey] | None = None
) -> tuple[list[ScoreKey], dict[ScoreKey, Todo]]:
    """Each row's memo key, and the distinct pairs among them the memo does not hold yet. The key
    is the row itself, or the caller's (`keys`): a load keys a row by its answer and an id of its
    item's scoring (`item_key`), which hashes in a fraction of the time of golds and passage."""
    if keys is not None:  # a row is asked for only when new (`rows` may build them on demand)
        todo = {key: todo_of(rows[n]) for n, key in enumerate(keys) if key not in memo}
        return list(keys), todo
    out: list[ScoreKey] = []
    todo = {}
    for scorer, text, golds, context, superseded in rows:
        texts, idxs = golds or ((), ())
        key = (scorer, text, tuple(texts), tuple(idxs), context, superseded)  # tuple() of a tuple is that tuple
        out.append(key)
        if key not in memo and key not in todo:
            todo[key] = (scorer, text, (key[2], key[3]), context, superseded)
    return out, todo


Looked = tuple[list[Scores | None], list[int]]
"""Rows looked up in a memo: each row's scores where it held them (else None), and the positions of the None."""


def look_up(keys: Sequence[ScoreKey], memo: ScoreMemo, looked: Looked | None = None) -> Looked:
    """The rows of `keys` looked up in `memo`; with `looked` (an earlier look-up of the same keys),
    only the rows it did not find, which pairs scored since may have brought."""
    if looked is None:
        found = [memo.get(key) for key in keys]
        return found, [n for n, scores in enumerate(found) if scores is None]
    found, missing = looked
    still = []
    for n in missing:
        scores = found[n] = memo.get(keys[n])
        if scores is None:
            still.append(n)
    return found, still


def todo_of(row: ScoreInput) -> Todo:
    """What a row is scored from, its golds as tuples (a memo key's part)."""
    scorer, text, golds, context, superseded = row
    texts, idxs = golds or ((), ())
    return scorer, text, (tuple(texts), tuple(idxs)), context, superseded


def item_key(parts: dict[Any, int], row: ScoreInput) -> int:
    """An id for what `row`'s item is scored with (scorer, golds, context, superseded golds), the
    same for equal ones (`parts`: the load's ids so far); `(id, answer)` is then a memo key."""
    scorer, _, golds, context, superseded = row
    texts, idxs = golds or ((), ())
    return parts.setdefault((scorer, tuple(texts), tuple(idxs), context, superseded), len(parts))


def remember(memo: ScoreMemo, scored: dict[ScoreKey, Scores]) -> None:
    """Add `scored` to `memo`, which starts over first when it would pass `MEMO_MAX`."""
    if len(memo) + len(scored) > MEMO_MAX:
        memo.clear()
    memo.update(scored)


def _score_split(todo: list[Todo]) -> list[Scores]:
    """Score `todo`; a large batch is halved between this process and a second one started for it."""
    if len(todo) < POOL_MIN or (os.cpu_count() or 1) < 2:
        return score_many(todo)
    with ScorePool() as pool:
        return pool.score(todo, POOL_MIN)


class ScorePool:
    """A second scoring process kept for as long as the pool is open (a load's runs), so that
    every batch worth it is halved, not only the first big one: runs of one sweep bring a few
    thousand new answers each, too few to pay for a process each time. The process is started
    as `python -c` (no caller's main module imported again; never a fork: the TUI loads from a
    thread), on first use; pairs and scores go through its pipes pickled. If it fails, its half
    is scored here and the pool scores alone from then on."""

    def __init__(self, *, start: bool = False) -> None:
        """`start`: the process is started now, not on first use (it imports while the caller
        reads files, rather than when the first request waits for it)."""
        self._worker: subprocess.Popen[bytes] | None = None
        self._failed = (os.cpu_count() or 1) < 2
        self._out = 0
        """Requests sent whose answers are not received yet (more than one only with `queue`)."""
        self._reaper: threading.Thread | None = None
        if start:
            self._started()

    def __enter__(self) -> ScorePool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
        if self._reaper is not None:  # ended by then, if it was closed before the caller's last work
            self._reaper.join()

    def score(self, todo: list[Todo], least: int | None = None) -> list[Scores]:
        """Scores of `todo` in order; from `least` pairs on (`SPLIT_MIN`), half of them in the second
        process (all here while it answers a request `send` made)."""
        big = len(todo) >= (SPLIT_MIN if least is None else least)
        half = len(todo) // 2
        if not big or self.busy or not self.send(todo[half:]):
            return score_many(todo)
        mine = score_many(todo[:half])
        theirs = self.receive()
        return mine + (score_many(todo[half:]) if theirs is None else theirs)

    def beside(self, request: tuple[Callable[..., Any], tuple[Any, ...]], here: Callable[[], T]) -> tuple[T, Any]:
        """`here()` computed in this process while the second one answers `request` (as `send`);
        the answer is None when the second process could not give it (the caller then computes it here)."""
        if self.busy or not self.send(request):
            return here(), None
        mine = here()
        return mine, self.receive()

    @property
    def busy(self) -> bool:
        """A request was sent and its answer not yet received."""
        return self._out > 0

    def ready(self) -> bool:
        """The answer to the request out can be received without waiting (False when unknown:
        the caller then receives when it has nothing else to do)."""
        worker = self._worker
        if not self._out or worker is None or worker.stdout is None:
            return False
        try:
            return bool(select.select([worker.stdout], [], [], 0)[0])
        except (OSError, ValueError):
            return False

    def send(self, request: list[Todo] | tuple[Callable[..., Any], tuple[Any, ...]], *, queue: bool = False) -> bool:
        """Hand the second process `request` without waiting for its answer (`receive` takes it):
        a list of pairs to score, or a module-level function and its arguments (pickled by name:
        the second process imports its module). One request at a time, or with `queue` up to
        `QUEUE` (the second process starts on the next as soon as it has written an answer, not
        when this process takes it): for small requests only, since one is written while the
        second process may be writing an answer. False when none could be sent (no second
        process, it failed, or it has as many as it may)."""
        worker = None if self._out >= (QUEUE if queue else 1) else self._started()
        if worker is None:
            return False
        assert worker.stdin is not None
        try:
            pickle.dump(request, worker.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            worker.stdin.flush()
        except OSError:
            self.close()
            return False
        self._out += 1
        return True

    def receive(self) -> Any:
        """The answer to the request `send` made, waiting for it; None when there is none or the
        second process failed (the pool scores alone from then on)."""
        worker = self._worker
        if not self._out or worker is None or worker.stdout is None:
            return None
        self._out -= 1
        try:
            return pickle.load(worker.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            self.close()
            return None

    def _started(self) -> subprocess.Popen[bytes] | None:
        if self._worker is None and not self._failed:
            self._worker = subprocess.Popen([sys.executable, "-c", f"from {__name__} import serve; serve()"],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return self._worker

    def close(self) -> None:
        """End the second process (closing its input ends its loop; a stuck one is killed); the
        pool scores alone from then on. It is waited for on a thread of its own, which leaving
        the pool joins: the system takes a while to take back a process of several hundred MB
        (0.5 s after a sampled load), so a caller with other work left closes the pool first."""
        worker, self._worker, self._failed, self._out = self._worker, None, True, 0
        if worker is None:
            return
        for pipe in (worker.stdin, worker.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        self._reaper = threading.Thread(target=_reap, args=(worker,), name="reap-scorer", daemon=True)
        self._reaper.start()


def _reap(worker: subprocess.Popen[bytes]) -> None:
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
    full collection would walk again. It ends without the interpreter's clean-up: freeing those
    memos one tuple at a time took about a second that the load waited for (nothing else of it
    needs closing; every answer was flushed)."""
    with no_cycle_collection():
        _serve()
    os._exit(0)


def _serve() -> None:
    """Requests answered in order; a thread writes the answers, so that the next request is
    worked on while this process reads an answer (a file read here is tens of MB pickled)."""
    answers: Answers = queue.Queue(QUEUE)
    writer = answer_writer(answers)
    while True:
        try:
            todo = pickle.load(sys.stdin.buffer)
        except EOFError:
            break
        answer = todo[0](*todo[1]) if isinstance(todo, tuple) else score_many(todo)
        answers.put(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
    answers.put(None)
    writer.join()
