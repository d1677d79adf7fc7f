"""A big dataset file stored while it is read, on both cores.

A second Python process (started as `python -c`, so no caller's main module is imported again)
reads the file article by article (`formats.stream_dataset`) and turns items into rows (question
key, human estimate memoised per gold tuple, JSON meta), sending them in pickled batches through a
pipe; this process assigns ids and inserts, committing in steps. So memory holds a few batches instead of
the file's parse tree, and parsing overlaps the inserts.

The values are those of the ordinary path (`ingest.write_dataset`), the dataset-level ones (meta,
family, scorer, the `answerable` label) written when the file has been read to its end. Only a
dataset stored for the first time (or resumed) is streamed; a bad record ends as the reader's
`FormatError`, and a file the streaming parser does not expect as `NotStreamable`: then the
caller removes the steps committed and reads the file the ordinary way.
"""

from __future__ import annotations

import json
import pickle
import queue
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import STREAM_MIN_BYTES, DatasetStream, NotStreamable, stream_dataset
from qa_inspect.core.keys import question_key
from qa_inspect.core.metrics import default_scorer

from .child_pipe import Answers, answer_writer
from .features import FEATURE_COLUMNS, Context, FeatureMemo, gold_spans
from .ingest import HumanMemo, Steps, json_text
from .ingest_runs import RunCache
from .manifest import Manifest
from .search_index import next_id
from .staging import StagedWriter

__all__ = ["AHEAD", "BATCH", "MIN_BYTES", "serve", "start_reading", "stop_reading", "stream_in_folder", "write_stream"]

MIN_BYTES = STREAM_MIN_BYTES
"""Datasets files from this size on are streamed."""
BATCH = 10_000
"""Items per message from the reading process."""
AHEAD = 8
"""Messages the reading process may hold ready (about 6 MB each: up to 80k items read ahead; the
loader reads other files while it starts, the big ones only after the dataset is stored)."""


def stream_in_folder(path: Path, manifest: Manifest | None) -> DatasetStream | None:
    """A stream of `path` when it is a big SQuAD-style dataset (with the manifest's hints and
    scorer, as `discover.read_in_folder` applies them), else None."""
    entry = manifest.entry_for(path) if manifest is not None else None
    if entry is not None and entry.kind != "dataset":
        return None
    stream = stream_dataset(path, entry.hints() if entry is not None else {}, min_bytes=MIN_BYTES)
    if stream is not None and entry is not None and entry.scorer:
        stream.hints = {**stream.hints, "scorer": entry.scorer}
    return stream


def serve() -> None:
    """The reading process (`python -c ...serve()`, arguments as JSON in argv[1]): pickled messages
    on stdout. It reads ahead of the writer by up to `AHEAD` batches, so it can start while the
    loader still reads the small files (big ones wait until the dataset is stored: memory)."""
    args = json.loads(sys.argv[1])
    ahead: Answers = queue.Queue(AHEAD)
    writer = answer_writer(ahead)
    for message in _produce(args["path"], args["hints"], args["batch"]):
        ahead.put(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    ahead.put(None)
    writer.join()


def _produce(path: str, hints: dict[str, Any], size: int) -> Iterator[tuple[Any, ...]]:
    """The file's rows, batch by batch, then its dataset-level values (or why it stopped)."""
    try:
        stream = stream_dataset(Path(path), {k: v for k, v in hints.items() if k != "scorer"}, min_bytes=0)
        if stream is None:
            raise NotStreamable("no longer a big SQuAD-style file")
        seen: set[str] = set()
        human = HumanMemo("cdqa" if hints.get("family") == "cdqa" else "span")
        features = FeatureMemo()
        first: list[Any] = []
        batch: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        unanswerable = False
        golds = 0
        for item in stream.items():
            if len(first) < 50:
                first.append(item)
            unanswerable |= _rows(item, seen, human, features, batch)
            golds += len(item.golds)
            if len(batch[0]) >= size:
                yield ("rows", stream.family(first), *batch)
                batch = ([], [], [])
        yield ("rows", stream.family(first), *batch)
        yield ("end", stream.family(first), stream.meta(), unanswerable, golds)
    except FormatError as exc:
        yield ("error", exc.path, exc.message, exc.record)
    except (NotStreamable, RecursionError, MemoryError, OSError, ValueError, TypeError) as exc:
        yield ("fallback", f"{type(exc).__name__}: {exc}")


def _rows(
    item: Any, seen: set[str], human: HumanMemo, features: FeatureMemo, batch: tuple[list[Any], list[Any], list[Any]]
) -> bool:
    """Add one item's rows, all but the ids (this process has time to spare: the inserts are the
    slower half), its features included; True when it is unanswerable."""
    items, golds, contexts = batch
    scored = tuple(g.text for g in item.golds if not g.superseded)
    ckey = None
    if item.context is not None:
        ckey = item.context_id or f"item:{item.key}"
        if ckey not in seen:
            seen.add(ckey)
            contexts.append((ckey, item.title, item.context))
    n = len(items)
    original = item.meta.get("original_question")
    items.append((item.key, question_key(item.question), item.question, ckey, item.split, item.tag,
                  item.answer_type, int(item.is_impossible), item.line, *human.of(scored), json_text(item.meta),
                  *features.of(item.question, scored, item.context, gold_spans(item.golds)),
                  scored, tuple(i for i, g in enumerate(item.golds) if not g.superseded), gold_spans(item.golds),
                  original if isinstance(original, str) else None))
    golds.extend((n, idx, g.text, g.answer_start, g.span_start, g.span_end, int(g.superseded))
                 for idx, g in enumerate(item.golds))
    return item.is_impossible or not scored


def start_reading(stream: DatasetStream) -> subprocess.Popen[bytes]:
    """Start the reading process of `stream` (it reads ahead until `write_stream` takes its rows)."""
    args = json.dumps({"path": str(stream.path), "hints": dict(stream.hints), "batch": BATCH})
    return subprocess.Popen(
        [sys.executable, "-c", f"from {__name__} import serve; serve()", args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )


def stop_reading(worker: subprocess.Popen[bytes]) -> None:
    worker.kill()
    worker.wait()
    if worker.stdout is not None:
        worker.stdout.close()


def write_stream(
    conn: sqlite3.Connection, stream: DatasetStream, rel_path: str, steps: Steps, *, resume: bool = False,
    keep: RunCache | None = None, worker: subprocess.Popen[bytes] | None = None, stage: str | None = None,
) -> tuple[int, int, int]:
    """Store the streamed dataset (caller holds the transaction; `steps` commits every so many
    rows); returns (items, golds, 0) like `write_dataset`. Raises the reader's `FormatError`, or
    `NotStreamable` (read the file whole instead), also when the reading process dies. `keep`
    receives the dataset's lookups and golds as the runs will want them (read back from the
    database they cost a million-item load several seconds); `worker`: its reading process, if
    started already (`start_reading`), else one is started. `stage`: the file's SHA-256 when the
    dataset is stored already and changed: the rows are staged, then applied (`staging`)."""
    worker = worker or start_reading(stream)
    assert worker.stdout is not None
    try:
        return _consume(conn, stream, rel_path, steps, worker.stdout, resume, keep, stage)
    finally:
        stop_reading(worker)


def _consume(
    conn: sqlite3.Connection, stream: DatasetStream, rel_path: str, steps: Steps, pipe: IO[bytes], resume: bool,
    keep: RunCache | None, stage: str | None = None,
) -> tuple[int, int, int]:
    writer: _Writer | StagedWriter | None = None
    while True:
        try:
            message = pickle.load(pipe)
        except (EOFError, pickle.UnpicklingError) as exc:
            raise NotStreamable(f"the reading process stopped ({type(exc).__name__})") from None
        kind = message[0]
        if kind == "error":
            raise FormatError(*message[1:])
        if kind == "fallback":
            raise NotStreamable(message[1])
        if writer is None and stage is not None:
            writer = StagedWriter(conn, stream, rel_path, stage, steps)
        elif writer is None:
            writer = _Writer(conn, stream, rel_path, message[1], resume, None if resume else keep)
        if kind == "rows":
            writer.add(*message[2:])
            if writer.pending >= (steps.size or 0) > 0:
                steps.commit()
                writer.pending = 0
        else:
            return writer.finish(*message[1:])


_INSERT_ITEM = (
    "INSERT INTO items (id, dataset_id, key, qkey, question, context_id, split, tag, answer_type, is_impossible,"
    f" source_line, human_em, human_f1, meta, {', '.join(FEATURE_COLUMNS)})"
    f" VALUES ({', '.join('?' * (14 + len(FEATURE_COLUMNS)))})"
)


class _Writer:
    """Ids and inserts for the batches of one streamed dataset."""

    def __init__(
        self, conn: sqlite3.Connection, stream: DatasetStream, rel_path: str, family: str, resume: bool,
        keep: RunCache | None,
    ) -> None:
        self.conn = conn
        self.keep = keep
        self.by_key: dict[str, int] = {}
        self.by_q: dict[str, int] = {}
        self.golds: dict[int, Any] = {}
        self.shared: dict[Any, Any] = {}
        self.passages: dict[int, str] = {}
        self.item_contexts: dict[int, Context] = {}
        self.stream = stream
        self.scorer = str(stream.hints.get("scorer") or default_scorer(family))
        values = (rel_path, stream.format, family, self.scorer, stream.encoding)
        row = conn.execute("SELECT id FROM datasets WHERE name = ?", (stream.name,)).fetchone()
        if row is None:
            cur = conn.execute("INSERT INTO datasets (name, path, format, family, scorer, encoding) VALUES (?, ?, ?, ?, ?, ?)",
                               (stream.name, *values))
            self.dataset_id = int(cur.lastrowid or 0)
        else:
            self.dataset_id = int(row[0])
            conn.execute("UPDATE datasets SET path=?, format=?, family=?, scorer=?, encoding=? WHERE id=?", (*values, row[0]))
        stored = "SELECT {}, id FROM {} WHERE dataset_id = ?"
        self.done = dict(conn.execute(stored.format("key", "items"), (self.dataset_id,))) if resume else {}
        self.contexts = dict(conn.execute(stored.format("context_key", "contexts"), (self.dataset_id,))) if resume else {}
        self.next_item = next_id(conn, "items")
        self.next_context = conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM contexts").fetchone()[0]
        self.items = 0
        self.pending = 0

    def add(self, items: list[tuple[Any, ...]], golds: list[tuple[Any, ...]], contexts: list[tuple[Any, ...]]) -> None:
        conn = self.conn
        new_contexts = []
        for ckey, title, text in contexts:
            if ckey not in self.contexts:
                self.contexts[ckey] = self.next_context
                new_contexts.append((self.next_context, self.dataset_id, ckey, title, text))
                if self.keep is not None:  # equal passages share one string (a replicated or templated set)
                    self.passages[self.next_context] = self.shared.setdefault(text, text)
                self.next_context += 1
        conn.executemany("INSERT INTO contexts (id, dataset_id, context_key, title, text) VALUES (?, ?, ?, ?, ?)",
                         new_contexts)
        ids: list[int | None] = []
        rows = []
        for key, qkey, question, ckey, *columns, scored, idxs, spans, original in items:
            if key in self.done:
                ids.append(None)
                continue
            item_id = self.next_item
            ids.append(item_id)
            context_id = None if ckey is None else self.contexts[ckey]
            rows.append((item_id, self.dataset_id, key, qkey, question, context_id, *columns))
            self.next_item += 1
            if self.keep is not None:
                self._remember(item_id, key, qkey if question else None, original, scored, idxs)
                ctx = (None if context_id is None else self.passages.get(context_id), spans, bool(columns[3]))  # columns[3]: is_impossible
                self.item_contexts[item_id] = self.shared.setdefault(ctx, ctx)
        conn.executemany(_INSERT_ITEM, rows)
        conn.executemany(
            "INSERT INTO golds (item_id, idx, text, answer_start, span_start, span_end, superseded)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)", [(ids[n], *rest) for n, *rest in golds if ids[n] is not None])
        self.items += len(items)
        self.pending += len(rows)

    def _remember(self, item_id: int, key: str, qkey: str | None, original: str | None, scored: tuple[str, ...],
                  idxs: tuple[int, ...]) -> None:
        """The lookups and golds `RunCache` would read back (`lookups_keyed`, `ingest_runs._golds`)."""
        self.by_key[key] = item_id
        if key.startswith("q:"):
            self.by_q.setdefault(key.split("#", 1)[0], item_id)
        if qkey is not None:
            self.by_q.setdefault(qkey, item_id)
        if original:
            self.by_q.setdefault(question_key(original), item_id)
        if scored:
            pair = (tuple(self.shared.setdefault(t, t) for t in scored), idxs)
            self.golds[item_id] = self.shared.setdefault(pair, pair)

    def finish(self, family: str, meta: dict[str, Any], unanswerable: bool, golds: int) -> tuple[int, int, int]:
        """The dataset-level values, known once the whole file has been read."""
        scorer = str(self.stream.hints.get("scorer") or default_scorer(family, unanswerable=unanswerable))
        self.conn.execute(
            "UPDATE datasets SET family=?, scorer=?, item_count=?, gold_count=?, meta=? WHERE id=?",
            (family, scorer, self.items, golds, json_text(meta), self.dataset_id))
        if self.keep is not None:
            self.keep.keys[self.dataset_id] = (self.by_key, self.by_q)
            self.keep.golds[self.dataset_id] = self.golds
            self.keep.contexts[self.dataset_id] = self.item_contexts
        if unanswerable:  # as `ingest`: labelled only where the dataset has unanswerable items
            self.conn.execute(
                "UPDATE items SET answerable = CASE WHEN is_impossible = 1 OR NOT EXISTS (SELECT 1 FROM golds g"
                " WHERE g.item_id = items.id AND g.superseded = 0) THEN 'unanswerable' ELSE 'answerable' END"
                " WHERE dataset_id = ?", (self.dataset_id,))
        return self.items, golds, 0
