"""Writing one parsed run into the database: its predictions matched to items, scored, inserted.

A small run replaces the file's stored run in the caller's one transaction. A large one (`Steps`
with a size) is written beside it under a staging name and committed in bounded steps; the last
step swaps it in for the old run. So a bad or interrupted load never leaves a half run under the
real name, and an interrupted one resumes: the staged run of the same file content (`resume_key`,
its SHA-256) keeps the predictions it committed and only the rest are written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, NamedTuple, overload

from qa_inspect.core.model import Prediction, Run

from .completions import (AGGREGATE_COLUMNS, NO_AGGREGATE, SampleMemo, SampleScores, insert_completions, sample_work,
                          score_samples)
from .features import Context, item_contexts
from .ingest import Steps, json_text, scorable_golds, superseded_golds
from .items import lookups_keyed, resolve
from .matching import DatasetIndex
from .score_ahead import ScoreAhead
from .score_pool import Golds, Looked, ScoreInput, ScoreKey, ScoreMemo, ScorePool, Superseded, item_key, look_up, score_rows
from .search_index import next_id, unindex_predictions

__all__ = ["RunCache", "RunWrite", "dataset_index_db", "insert_given", "item_lookup", "start_ahead", "write_run"]


@dataclass(slots=True)
class RunWrite:
    predictions: int = 0
    run_id: int | None = None
    meta: bool = False
    """Some stored prediction carries `meta` (the load indexes its keys: `warmup.warm_app`)."""
    unmatched: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


def _keyed_rows(conn: sqlite3.Connection, dataset_id: int) -> list[tuple[str, str | None, str | None, int]]:
    """(key, stored question key or None for an empty question, original question, item id): the
    question keys ingest stored, so matching computes none again."""
    return conn.execute(
        "SELECT key, CASE WHEN question = '' THEN NULL ELSE qkey END, json_extract(meta, '$.original_question'), id"
        " FROM items WHERE +dataset_id = ? ORDER BY id",  # a scan in id order, not an index walk and a sort
        (dataset_id,),
    ).fetchall()


def item_lookup(conn: sqlite3.Connection, dataset_id: int) -> tuple[dict[str, int], dict[str, int]]:
    """(item key → id, question key → id) to resolve predictions named by id or by question text."""
    return lookups_keyed(_keyed_rows(conn, dataset_id))


def dataset_index_db(conn: sqlite3.Connection, dataset_id: int) -> DatasetIndex:
    """A stored dataset's link index, from the stored question keys (`DatasetIndex.from_rows` of
    the same items, without hashing every question again)."""
    return _index_of(*item_lookup(conn, dataset_id))


def _index_of(by_key: dict[str, int], by_q: dict[str, int]) -> DatasetIndex:
    """The link index holds the same keys as the lookups (`lookups_keyed` adds `q:` keys and
    question keys alike to `by_q`)."""
    return DatasetIndex(frozenset(by_key), frozenset(by_q))


@dataclass(slots=True)
class RunCache:
    """Per-load lookups shared by the runs of one dataset (built once, not once per run, and from
    the same rows as the link indexes), and the scores of (answer, golds) pairs already computed."""

    keys: dict[int, tuple[dict[str, int], dict[str, int]]] = field(default_factory=dict)
    golds: dict[int, dict[int, Golds]] = field(default_factory=dict)
    contexts: dict[int, dict[int, Context]] = field(default_factory=dict)
    """Per dataset, what the error categories need of each item (read once, on first use)."""
    superseded: dict[int, dict[int, Superseded]] = field(default_factory=dict)
    """Per dataset, each item's superseded golds (for the stored relation; read on first use)."""
    memo: ScoreMemo = field(default_factory=dict)
    sample_memo: SampleMemo = field(default_factory=dict)
    """Scores and forms of sampled answers (`completions.score_samples`)."""
    pool: ScorePool | None = None
    """The second scoring process of a load's runs (the loader opens and closes it)."""
    ahead: ScoreAhead | None = None
    """The next run scored while this one is written, with `pool` (`start_ahead`)."""
    ready: tuple[Run, Any, Looked] | None = None
    """The run after the next, matched, keyed and looked up in the memo while the second process
    scores the next (`start_ahead`'s `after`)."""
    parts: dict[Any, int] = field(default_factory=dict)
    item_parts: dict[int, dict[int, int]] = field(default_factory=dict)
    """Per dataset, each item's id of what it is scored with (`score_pool.item_key`): a memo key is
    that id and the answer."""

    def indexes(self, conn: sqlite3.Connection) -> dict[str, DatasetIndex]:
        """The link index of every stored dataset (`linking.dataset_indexes`), lookups kept."""
        out = {}
        for dataset_id, name in conn.execute("SELECT id, name FROM datasets").fetchall():
            if dataset_id not in self.keys:
                self.keys[dataset_id] = item_lookup(conn, dataset_id)
            out[name] = _index_of(*self.keys[dataset_id])
        return out

    def forget(self) -> None:
        """Drop the lookups and golds (rows they describe went away); scores stay."""
        self.keys.clear()
        self.golds.clear()
        self.contexts.clear()
        self.superseded.clear()
        self.item_parts.clear()

    def superseded_of(self, conn: sqlite3.Connection, dataset_id: int) -> dict[int, Superseded]:
        """The dataset's superseded golds by item id (read once)."""
        if dataset_id not in self.superseded:
            self.superseded[dataset_id] = superseded_golds(conn, dataset_id)
        return self.superseded[dataset_id]

    def for_dataset(
        self, conn: sqlite3.Connection, dataset_id: int
    ) -> tuple[dict[str, int], dict[str, int], dict[int, Golds], dict[int, Context]]:
        if dataset_id not in self.keys:
            self.keys[dataset_id] = item_lookup(conn, dataset_id)
        if dataset_id not in self.golds:
            self.golds[dataset_id] = _golds(conn, dataset_id)
        if dataset_id not in self.contexts:
            self.contexts[dataset_id] = item_contexts(conn, dataset_id)
        return (*self.keys[dataset_id], self.golds[dataset_id], self.contexts[dataset_id])


def _golds(conn: sqlite3.Connection, dataset_id: int) -> dict[int, Golds]:
    """Scorable golds by item id; equal texts and equal tuples share one object (datasets repeat
    golds: the same answer thrice, templated items), which keeps a million items' golds small."""
    shared: dict[Any, Any] = {}
    out: dict[int, Golds] = {}
    for item_id, (texts, idxs) in scorable_golds(conn, dataset_id).items():
        key = (tuple(shared.setdefault(t, t) for t in texts), tuple(idxs))
        out[item_id] = shared.setdefault(key, key)
    return out


_SCORE_COLUMNS = ("scorer", "em", "f1", "refused", "f1_recall", "best_gold", "error_category", "relation")
"""The score columns of a prediction (`score_pool.Scores`), in order."""
_PREDICTION_COLUMNS = ("id", "run_id", "item_id", "text", "raw", "candidates", "source_line", "meta", *_SCORE_COLUMNS,
                       *AGGREGATE_COLUMNS)
"""A stored prediction row's columns, in the order `_insert_predictions` builds them."""


_TEXT, _RAW, _CANDIDATES, _LINE, _META = map(attrgetter, ("text", "raw", "candidates", "line", "meta"))
"""A prediction's fields as C-speed getters: a column of 20,000 read in a third of the time."""


def _columns(rows: Sequence[tuple[Any, ...]], width: int) -> list[tuple[Any, ...]]:
    """`rows` of `width` values as `width` columns (all None when there is no row)."""
    return list(zip(*rows)) if rows else [()] * width


def _candidates(p: Prediction) -> str | None:
    return json_text([{"text": c.text, "probability": c.probability, "score": c.score} for c in p.candidates])


def insert_given(conn: sqlite3.Connection, table: str, names: Sequence[str], columns: Sequence[Sequence[Any]]) -> None:
    """`executemany` of the rows of `columns` (one sequence of values per name), naming only the
    columns some row gives a value (the others are NULL, as none of them has a default): `sqlite3`
    binds a None through its adaptation lookup, and an answer map's rows leave a dozen columns
    empty (raw text, candidates, meta, samples' aggregates, F1-recall): naming them cost more than
    the rest of the insert. Columns are checked and rows zipped at C speed (`tuple.count`, `zip`)."""
    given = [k for k, column in enumerate(columns) if column.count(None) != len(column)]
    if not columns or not columns[0] or not given:
        return
    names = [names[k] for k in given]
    conn.executemany(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                     zip(*(columns[k] for k in given)))


def write_run(
    conn: sqlite3.Connection,
    run: Run,
    rel_path: str,
    dataset_id: int | None,
    link_reason: str,
    cache: RunCache | None = None,
    steps: Steps | None = None,
    *,
    resume_key: str = "",
    then: Callable[[], None] | None = None,
) -> RunWrite:
    """Replace this file's run rows (a later part of a run declared against several dataset files,
    `meta["part"]` > 0, replaces only its own); predictions naming unknown items are counted, the rest stored.
    With `steps` of a size the run is staged and committed in steps (see the module docstring).
    `then` runs once the run is scored and before its rows go in (the loader starts the next
    run's scoring there: `start_ahead`)."""
    cache = cache or RunCache()
    result = RunWrite()
    scorer = None
    matched: list[tuple[int, Prediction]] = []
    scores: list[tuple[Any, ...]] = []
    sampled: list[SampleScores | None] = []
    ahead = None
    if dataset_id is not None:
        # scored ahead, while the run before was written (`start_ahead`), else here
        ahead = cache.ahead.take(run, cache.memo) if cache.ahead is not None else None
        prepared: _Scoring = ahead.prepared if ahead is not None else _scoring(conn, run, dataset_id, cache)
        scorer, matched, inputs, golds, found, keys = prepared
        result.unmatched, result.duplicates = found.unmatched, found.duplicates
        if ahead is None:  # else once the next run is out (`Ahead.prepared`)
            scores = score_rows(inputs, cache.memo, cache.pool, keys)
        sampled = (ahead.samples if ahead is not None and ahead.samples is not None
                   else score_samples(scorer, matched, golds, cache.sample_memo, cache.pool))
    else:
        result.unmatched = [p.ref for p in run.predictions]
    if then is not None:
        then()
    if ahead is not None:  # scored ahead: the new rows filled in, else (the second process failed) scored here
        scores = ahead.scores() or score_rows(inputs, cache.memo, cache.pool, keys)
    meta = dict(run.meta)
    if result.unmatched:
        meta["unmatched_sample"] = result.unmatched[:20]
    if result.duplicates:
        meta["duplicate_refs"] = result.duplicates[:20]
    values = (run.format, dataset_id, run.model, scorer, run.encoding, len(matched), len(result.unmatched),
              link_reason)
    part = (" AND name = ?", (run.name,)) if run.meta.get("part") else ("", ())  # a later part keeps the first
    if steps is None or steps.size is None:
        _delete_runs(conn, "path = ?" + part[0], (rel_path, *part[1]))
        run_id = _insert_run(conn, run.name, rel_path, values, meta)
        _insert_predictions(conn, run_id, matched, scores, sampled, set(), Steps(conn))
    else:
        run_id, done = _staged_run(conn, run.name, rel_path, values, {**meta, "loading": resume_key})
        _insert_predictions(conn, run_id, matched, scores, sampled, done, steps)
        _delete_runs(conn, "path = ? AND id != ?" + part[0], (rel_path, run_id, *part[1]))
        conn.execute("UPDATE runs SET name = ?, meta = ? WHERE id = ?", (run.name, json_text(meta), run_id))
    result.predictions, result.run_id = len(matched), run_id
    result.meta = any(p.meta for _, p in matched)
    return result


class _Scoring(NamedTuple):
    """A run's scorer, its predictions matched to items (the unmatched and repeated counted in
    `found`), what each is scored from, and its dataset's golds."""

    scorer: str
    matched: list[tuple[int, Prediction]]
    inputs: Sequence[ScoreInput]
    golds: dict[int, Golds]
    found: RunWrite
    keys: list[ScoreKey]


def _scoring(conn: sqlite3.Connection, run: Run, dataset_id: int, cache: RunCache) -> _Scoring:
    scorer = conn.execute("SELECT scorer FROM datasets WHERE id = ?", (dataset_id,)).fetchone()[0]
    by_key, by_q, golds, contexts = cache.for_dataset(conn, dataset_id)
    found = RunWrite()
    matched = _match(run, by_key, by_q, found)
    inputs = _Inputs(scorer, matched, golds, contexts, cache.superseded_of(conn, dataset_id))
    parts = cache.item_parts.setdefault(dataset_id, {})
    keys: list[ScoreKey] = []
    for n, (item_id, p) in enumerate(matched):
        part = parts.get(item_id)
        if part is None:
            part = parts[item_id] = item_key(cache.parts, inputs[n])
        keys.append((part, p.text))
    return _Scoring(scorer, matched, inputs, golds, found, keys)


class _Inputs(Sequence[ScoreInput]):
    """What each matched prediction is scored from, a row built when asked for: scoring asks
    only for the rows the memo does not hold (a fifth of a sweep's), and building all 20,000 of a
    run took a third of its preparation."""

    __slots__ = ("_scorer", "_matched", "_golds", "_contexts", "_replaced")

    def __init__(self, scorer: str, matched: list[tuple[int, Prediction]], golds: dict[int, Golds],
                 contexts: dict[int, Context], replaced: dict[int, Superseded]) -> None:
        self._scorer, self._matched, self._golds, self._contexts, self._replaced = scorer, matched, golds, contexts, replaced

    def __len__(self) -> int:
        return len(self._matched)

    @overload
    def __getitem__(self, n: int) -> ScoreInput: ...
    @overload
    def __getitem__(self, n: slice) -> list[ScoreInput]: ...

    def __getitem__(self, n: int | slice) -> ScoreInput | list[ScoreInput]:
        if isinstance(n, slice):
            return [self[k] for k in range(*n.indices(len(self)))]
        item_id, p = self._matched[n]
        return self._scorer, p.text, self._golds.get(item_id), self._contexts.get(item_id), self._replaced.get(item_id, ())


def start_ahead(
    conn: sqlite3.Connection, run: Run, dataset_id: int, cache: RunCache, after: tuple[Run, int] | None = None
) -> None:
    """Start scoring `run`, the next to be written, beside the write of this one (`score_ahead`);
    nothing without `cache.ahead`. Then `after` (the run after it, and its dataset) is matched
    and keyed, while the second process is busy, not when it waits for its share. A failure
    here leaves the run to be scored when it is written, where its error is reported as its own."""
    if cache.ahead is None:
        return
    ready, cache.ready = cache.ready, None
    try:
        prepared, looked = ready[1:] if ready is not None and ready[0] is run else (_scoring(conn, run, dataset_id, cache), None)
        cache.ahead.start(run, prepared, prepared.scorer, prepared.inputs,
                          sample_work(prepared.matched, prepared.golds), cache.memo, cache.sample_memo, prepared.keys, looked)
        if after is not None:
            following = _scoring(conn, after[0], after[1], cache)
            cache.ready = (after[0], following, look_up(following.keys, cache.memo))
    except Exception:  # noqa: BLE001 - reported by the run's own write, not the one before it
        return


def _match(run: Run, by_key: dict[str, int], by_q: dict[str, int], result: RunWrite) -> list[tuple[int, Prediction]]:
    """(item id, prediction) pairs; unknown refs and second answers to one item are counted."""
    seen: set[int] = set()
    matched: list[tuple[int, Prediction]] = []
    for p in run.predictions:
        item_id = resolve(p, by_key, by_q)
        if item_id is None:
            result.unmatched.append(p.ref)
        elif item_id in seen:
            result.duplicates.append(p.ref)
        else:
            seen.add(item_id)
            matched.append((item_id, p))
    return matched


def _insert_run(conn: sqlite3.Connection, name: str, rel_path: str, values: tuple[Any, ...], meta: dict[str, Any]) -> int:
    cur = conn.execute(
        "INSERT INTO runs (name, path, format, dataset_id, model, scorer, encoding, prediction_count,"
        " unmatched_count, link_reason, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (name, rel_path, *values, json_text(meta)),
    )
    return int(cur.lastrowid or 0)


def _delete_runs(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    for (run_id,) in conn.execute(f"SELECT id FROM runs WHERE {where}", params).fetchall():  # noqa: S608
        unindex_predictions(conn, "run_id = ?", (run_id,))
        conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))


def _staged_run(
    conn: sqlite3.Connection, name: str, rel_path: str, values: tuple[Any, ...], meta: dict[str, Any]
) -> tuple[int, set[int]]:
    """The staging run of this file content with the items it already holds (an interrupted
    load's), else a new empty one; staging runs of other content are dropped."""
    key = meta["loading"]
    found = None
    for run_id, loading, dataset_id in conn.execute(
        "SELECT id, json_extract(meta, '$.loading'), dataset_id FROM runs WHERE path = ?"
        " AND json_extract(meta, '$.loading') IS NOT NULL", (rel_path,)
    ).fetchall():
        if found is None and loading == key and dataset_id == values[1]:
            found = run_id
        else:
            _delete_runs(conn, "id = ?", (run_id,))
    if found is not None:
        conn.execute(
            "UPDATE runs SET format=?, dataset_id=?, model=?, scorer=?, encoding=?, prediction_count=?,"
            " unmatched_count=?, link_reason=?, meta=? WHERE id=?", (*values, json_text(meta), found))
        return found, {r[0] for r in conn.execute("SELECT item_id FROM predictions WHERE run_id = ?", (found,))}
    return _insert_run(conn, f"{name} (loading {key[:12]})", rel_path, values, meta), set()


def _insert_predictions(
    conn: sqlite3.Connection, run_id: int, matched: Sequence[tuple[int, Prediction]], scores: Sequence[tuple[Any, ...]],
    sampled: Sequence[SampleScores | None], done: set[int], steps: Steps,
) -> None:
    """Insert the predictions not in `done` (item ids), ids assigned up front, a step at a time;
    with them their samples' completions (a step holds a prediction and all its samples). The
    columns are sliced from whole-run ones: rebuilding every row as a tuple took 8 ms a run."""
    sampled = sampled or [None] * len(matched)
    if done:  # a resumed run: the rows an interrupted load stored are left out
        kept = [n for n, (item_id, _) in enumerate(matched) if item_id not in done]
        matched, scores, sampled = [matched[n] for n in kept], [scores[n] for n in kept], [sampled[n] for n in kept]
    all_ids, all_preds = zip(*matched) if matched else ((), ())
    pid = next_id(conn, "predictions")
    for step in steps.chunks(range(len(matched))):
        lo, hi = (step[0], step[-1] + 1) if step else (0, 0)  # a step's positions run on
        item_ids, preds, scored, samples = all_ids[lo:hi], all_preds[lo:hi], scores[lo:hi], sampled[lo:hi]
        aggregates = [NO_AGGREGATE if x is None else x[0] for x in samples] if any(samples) else []  # [] : all NULL
        ids = range(pid, pid + len(preds))
        none = [None] * len(preds)  # a column no prediction has (most runs: raw, candidates, meta)
        insert_given(conn, "predictions", _PREDICTION_COLUMNS, [
            ids, [run_id] * len(preds), item_ids, list(map(_TEXT, preds)), list(map(_RAW, preds)),
            [_candidates(p) if p.candidates else None for p in preds] if any(map(_CANDIDATES, preds)) else none,
            list(map(_LINE, preds)), [json_text(p.meta) if p.meta else None for p in preds] if any(map(_META, preds)) else none,
            *_columns(scored, len(_SCORE_COLUMNS)),
            *_columns(aggregates, len(AGGREGATE_COLUMNS)),
        ])
        completions = [(k, p.samples, x[1]) for k, p, x in zip(ids, preds, samples) if x is not None] if aggregates else []
        pid += len(preds)
        if completions:
            insert_completions(conn, completions)
