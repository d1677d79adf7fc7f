"""Every scored gold of a dataset with its signals, read from the database (the I/O half of the queue).

Which datasets can go stale (`stale_datasets`): those whose items carry a change tag (CDQA's
知识动态性分类: fast-, slow-, never-changing), and those the manifest declares `dynamic = true`
(passed in by name or path). A static extractive dev set (CMRC, SQuAD) cannot: no queue there.

Each run's answer comes with its stored relation to the golds (`predictions.relation`); the
item's superseded golds, and accepted aliases when given, go to the consensus with it.

Run dates (for weighting newer runs): a `date` given for the run (the manifest's `[[run]] date =`,
passed in by name or path), else its file's modification time as loaded (`files.mtime_ns`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime, timezone
from typing import Any

from qa_inspect.core.flags import Target, current_flags
from qa_inspect.core.store import require_dataset, sqlite_connection

from .consensus import ItemGolds, RunAnswer, consensus, run_weights
from .dates import evidence_date
from .score import Signals
from .verified import last_verified, ts_date

__all__ = ["CHANGE_TAGS", "dataset_names", "gather_signals", "item_sample_texts", "run_dates", "stale_datasets"]

CHANGE_TAGS = ("fast-changing", "slow-changing", "never-changing")
"""Item tags that say how fast an answer changes: a dataset with them can go stale."""

_ITEMS_SQL = """
SELECT i.id, i.key, i.question, i.tag, i.answer_type, i.split, i.meta, g.text, g.superseded
FROM items i JOIN golds g ON g.item_id = i.id
WHERE i.dataset_id = ? ORDER BY i.id, g.idx
"""
_PREDICTIONS_SQL = """
SELECT p.item_id, r.name, p.text, COALESCE(p.f1_recall, p.f1), COALESCE(p.refused, 0), p.relation, p.id
FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.dataset_id = ? ORDER BY r.name
"""
_SAMPLES_SQL = """
SELECT c.prediction_id, c.text FROM completions c JOIN predictions p ON p.id = c.prediction_id
JOIN runs r ON r.id = p.run_id WHERE r.dataset_id = ? ORDER BY c.prediction_id, c.sample
"""
_ITEM_SAMPLES_SQL = """
SELECT i.key, r.name, c.text FROM items i JOIN predictions p ON p.item_id = i.id JOIN runs r ON r.id = p.run_id
JOIN completions c ON c.prediction_id = p.id
WHERE i.dataset_id = ? AND i.key IN ({keys}) ORDER BY p.id, c.sample
"""
_KEYS_AT_ONCE = 500
"""Item keys a query names at once (SQLite's parameter limit is far above; the queries stay short)."""
_TAGGED_SQL = f"""
SELECT d.name, d.path, EXISTS (SELECT 1 FROM items i WHERE i.dataset_id = d.id
                               AND i.tag IN ({", ".join("?" * len(CHANGE_TAGS))}))
FROM datasets d WHERE EXISTS (SELECT 1 FROM items i WHERE i.dataset_id = d.id) ORDER BY d.name
"""


def dataset_names(conn: Any) -> list[str]:
    """Datasets that have scored golds, by name."""
    rows = sqlite_connection(conn).execute(
        "SELECT name FROM datasets d WHERE EXISTS (SELECT 1 FROM items i WHERE i.dataset_id = d.id) ORDER BY name")
    return [r[0] for r in rows]


def stale_datasets(conn: Any, dynamic: Collection[str] = ()) -> tuple[list[tuple[str, str]], list[str]]:
    """(datasets that can go stale with why: "change tags" or "dynamic = true", the others), by
    name; `dynamic`: names or paths declared `dynamic = true` in the manifest."""
    covered: list[tuple[str, str]] = []
    static: list[str] = []
    for name, path, tagged in sqlite_connection(conn).execute(_TAGGED_SQL, CHANGE_TAGS):
        if tagged:
            covered.append((name, "change tags"))
        elif name in dynamic or path in dynamic:
            covered.append((name, "dynamic = true"))
        else:
            static.append(name)
    return covered, static


def run_dates(conn: Any, dataset_id: int, given: Mapping[str, date] | None = None) -> dict[str, tuple[date | None, str]]:
    """Run name → (date, where it came from: "manifest" or "file time") for the dataset's runs."""
    given = given or {}
    out: dict[str, tuple[date | None, str]] = {}
    rows = sqlite_connection(conn).execute(
        "SELECT r.name, r.path, f.mtime_ns FROM runs r LEFT JOIN files f ON f.path = r.path WHERE r.dataset_id = ?",
        (dataset_id,))
    for name, path, mtime_ns in rows:
        if name in given or path in given:
            out[name] = (given.get(name) or given[path], "manifest")
        elif mtime_ns is not None:
            out[name] = (datetime.fromtimestamp(mtime_ns / 1e9, timezone.utc).date(), "file time")
        else:
            out[name] = (None, "unknown")
    return out


def _scorer(conn: sqlite3.Connection, dataset_id: int) -> str:
    return str(conn.execute("SELECT scorer FROM datasets WHERE id = ?", (dataset_id,)).fetchone()[0])


def item_sample_texts(conn: Any, dataset: str, keys: Collection[str]) -> dict[str, dict[str, tuple[str, ...]]]:
    """Item key → run → its samples' texts, for the items `keys` of `dataset` that some run sampled:
    what a page of the queue shows, read for those items alone."""
    raw = sqlite_connection(conn)
    dataset_id = require_dataset(raw, dataset)
    found: dict[str, dict[str, list[str]]] = {}
    ordered = sorted(set(keys))
    for start in range(0, len(ordered), _KEYS_AT_ONCE):
        chunk = ordered[start:start + _KEYS_AT_ONCE]
        for key, run, text in raw.execute(_ITEM_SAMPLES_SQL.format(keys=", ".join("?" * len(chunk))),
                                          (dataset_id, *chunk)):
            found.setdefault(key, {}).setdefault(run, []).append(text)
    return {key: {run: tuple(texts) for run, texts in runs.items()} for key, runs in found.items()}


def _answers(conn: sqlite3.Connection, dataset_id: int, weights: dict[str, float],
             texts: bool = True) -> dict[int, list[RunAnswer]]:
    """Every run's answer per item, with its samples' texts when the run sampled the item (and
    `texts`: else none are read)."""
    samples: dict[int, list[str]] = {}
    for prediction_id, text in conn.execute(_SAMPLES_SQL, (dataset_id,)) if texts else ():
        samples.setdefault(prediction_id, []).append(text)
    out: dict[int, list[RunAnswer]] = {}
    for item_id, run, text, score, refused, rel, pid in conn.execute(_PREDICTIONS_SQL, (dataset_id,)):
        out.setdefault(item_id, []).append(RunAnswer(run, text or "", None if refused else score, bool(refused),
                                                     weights.get(run, 1.0), rel, tuple(samples.get(pid, ()))))
    return out


def _items(conn: sqlite3.Connection, dataset_id: int) -> list[tuple[tuple[Any, ...], list[str], list[str]]]:
    """Per item: (id, key, question, tag, answer type, split, meta), its scored and its superseded golds."""
    out: list[tuple[tuple[Any, ...], list[str], list[str]]] = []
    for *item, gold, superseded in conn.execute(_ITEMS_SQL, (dataset_id,)):
        if not out or out[-1][0][0] != item[0]:
            out.append((tuple(item), [], []))
        _, scored, replaced = out[-1]
        (replaced if superseded else scored).append(gold)
    return out


def _meta(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def gather_signals(
    conn: Any, dataset: str, *, author: str, given_dates: Mapping[str, date] | None = None,
    aliases: Mapping[str, Sequence[str]] | None = None, sample_texts: bool = True,
) -> list[Signals]:
    """Signals of every scored gold of `dataset`, in dataset order. `author` is the reviewer:
    open proposals by anyone else are a signal. `aliases`: item key → accepted aliases (none
    by default; `core.flags.current_aliases(conn, dataset)` gives them). `sample_texts=False`
    reads no sample's text: the consensus then counts no samples (they never change a score;
    `item_sample_texts` reads them for the golds shown)."""
    raw = sqlite_connection(conn)
    dataset_id = require_dataset(raw, dataset)
    scorer = _scorer(raw, dataset_id)
    weights = run_weights({run: d for run, (d, _) in run_dates(raw, dataset_id, given_dates).items()})
    answers = _answers(raw, dataset_id, weights, sample_texts)
    flags = {f.target: f for f in current_flags(raw, dataset, include_resolved=False)}
    verified = last_verified(raw, dataset)
    out: list[Signals] = []
    for (item_id, key, question, tag, answer_type, split, meta_raw), scored, replaced in _items(raw, dataset_id):
        meta = _meta(meta_raw)
        evidence = meta.get("evidence_url") if isinstance(meta.get("evidence_url"), str) else None
        runs = tuple(answers.get(item_id, ()))
        golds = ItemGolds(tuple(scored), tuple(replaced), tuple((aliases or {}).get(key, ())))
        agreed = consensus(runs, scorer, question, golds)
        when = evidence_date(evidence, meta, [("the question", question)])
        for gold in scored:
            target = Target(dataset, key, gold)
            seen, flag = verified.get(target), flags.get(target)
            proposals = tuple((p.author, p.proposed) for p in flag.proposals if p.author != author) if flag else ()
            out.append(Signals(
                dataset=dataset, item_key=key, gold_text=gold, question=question, tag=tag, answer_type=answer_type,
                evidence=evidence, evidence_date=when, answers=runs, consensus=agreed, proposals=proposals,
                last_verified=ts_date(seen) if seen else None,
                marked=flag is not None and any(p.author == author for p in flag.proposals), split=split,
            ))
    return out
