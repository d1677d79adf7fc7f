"""Load a runs folder into the database, re-reading only files whose content changed.

A file is unchanged when its size and mtime match what `files` remembers (nothing is read), or when
its SHA-256 does (only hashed). Each changed file is written in its own transaction, so an error in
one file leaves that file's rows as they were and the others still load.

Side files (n-best, null odds, OpenCompass shards and results, lm-eval results) are read by their
run: when one appears, changes or goes, every run reading it is reloaded (linking: `core.linking`).
"""

from __future__ import annotations

import sqlite3
import stat
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

from qa_inspect.core.errors import FormatError, QAInspectError
from qa_inspect.core.formats import DatasetStream, NotStreamable, Skip, VerdictFile, side_owners, use_limits
from qa_inspect.core.metrics import clear_score_caches
from qa_inspect.core.model import Dataset, Run
from qa_inspect.core.store import get_setting, open_placed, place_db, set_setting, store_error, store_fingerprint

from .backfill import fill_missing
from .bulk import no_cycle_collection
from .bulk_indexes import deferred_indexes, restore_indexes
from .changed import find_changed
from .discover import run_display_name, walk
from .file_writes import manifest_changed, mark_loading, record_side, resuming, taken, write_file
from .ingest import FileStamp, Steps, delete_path, parents_known, record_file, transaction, write_dataset
from .ingest_runs import RunCache, RunWrite, start_ahead, write_run
from .items import dataset_scorer
from .journals import merge_journal_files
from .linking import link_stored_run, run_parts
from .log import record_load
from .manifest import MANIFEST_NAME, Manifest, load_manifest
from .read_beside import BESIDE_BYTES, BESIDE_MAX, Outcome, read_in_turn, read_outcome
from .relpaths import rel as _rel, relmsg as _relmsg
from .score_ahead import ScoreAhead
from .score_pool import START_BYTES, ScorePool
from .search_index import INLINE_LIMIT, build_search_index, pending_rows
from .stored import bind_datasets, dataset_warnings, report_stored, unique_name
from .staging import drop_stage, has_rows
from .stream import start_reading, stop_reading, stream_in_folder, write_stream
from .summary import DatasetReport, LoadSummary, RunReport
from .warmup import warm_app
from .verdicts import PendingVerdicts, framework_pending, pending_file, store_verdicts

__all__ = ["SCORING_RULES", "STEP_ROWS", "Progress", "load_runs"]

Progress = Callable[[int, int, str], None]
"""on_progress(done, total, message), as files are examined; a message leads with its verb (the phase)."""


@dataclass(slots=True)
class _Candidate:
    path: Path
    rel: str
    size: int
    mtime_ns: int
    sha256: str | None = None

    def stamp(self, kind: str, fmt: str | None, encoding: str | None, *, note: str | None = None) -> FileStamp:
        return FileStamp(self.rel, kind, self.size, self.mtime_ns, self.sha256 or "", fmt, encoding, note=note)


def load_runs(
    runs_dir: Path,
    db_path: Path | None = None,
    *,
    on_progress: Progress | None = None,
    timeout: float | None = None,
) -> LoadSummary:
    """Bring the database in line with the folder; never raises for a bad source file.

    A database that is locked (waited on for `timeout` seconds, see `store.open_db`) or corrupt
    raises `StoreError`, one line, whether that shows when opening it or only when writing.
    """
    runs_dir = runs_dir.resolve()
    place = place_db(runs_dir, db_path)  # a read-only folder or file: a user-side overlay (store.overlay)
    db_path = place.path
    summary = LoadSummary(db=str(db_path))
    if not runs_dir.is_dir():
        raise QAInspectError(f"{runs_dir}: not a folder")
    db, notes = open_placed(place, timeout=timeout)
    summary.warnings += [{"path": str(place.shipped or db_path), "message": note} for note in notes]
    summary.database_notes += notes
    conn = db.conn
    try:
        with no_cycle_collection():
            conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            with_meta = _load(runs_dir, conn, summary, on_progress or (lambda done, total, msg: None))
            record_load(conn, summary)
            if summary.changed:  # the first open after a load paints from stored sums, sorts down indexes
                warm_app(conn, with_meta)
                clear_score_caches()  # the app keeps none of what this load scored, nor walks it at exit
    except sqlite3.Error as exc:
        raise store_error(db_path, exc) from None
    finally:
        conn.close()
    return summary


CACHE_KIB = 256 * 1024
"""SQLite page cache of a load's connection: the indexes of a 1M-question load stay in memory."""
STEP_ROWS = 100_000
"""A file with more rows than this (new dataset items, run predictions) is committed in steps of this
many: a killed load loses at most one step, and the next load resumes the file."""


@dataclass(slots=True)
class _Pass:
    """One load pass over a folder: what every phase reads and adds to."""

    runs_dir: Path
    conn: sqlite3.Connection
    summary: LoadSummary
    progress: Progress
    manifest: Manifest | None = None
    manifest_ok: bool = True
    stored: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    """path → (kind, size, mtime_ns, sha256, owner, note) as the `files` table last saw it."""
    errored: list[str] = field(default_factory=list)  # files that failed this time; their stored rows (if any) stay
    cache: RunCache = field(default_factory=RunCache)
    """Lookups and golds of the datasets, shared by the runs (a streamed dataset's filled as stored)."""
    readers: dict[str, Any] = field(default_factory=dict)  # reading processes of datasets to stream (they read ahead)
    verdicts: list[PendingVerdicts] = field(default_factory=list)
    with_meta: list[int] = field(default_factory=list)  # runs stored whose predictions carry `meta`

    def error(self, rel: str, message: str) -> None:
        self.summary.errors.append({"path": rel, "message": message})
        self.errored.append(rel)


def _load(runs_dir: Path, conn: sqlite3.Connection, summary: LoadSummary, progress: Progress) -> list[int]:
    """The phases of a load, in order: manifest, walk, forget removed files, find what changed,
    read it, store datasets, then link, score and store runs, then report what stayed; the ids of the runs stored with `meta`."""
    lp = _Pass(runs_dir, conn, summary, progress)
    restore_indexes(conn)  # a killed bulk load's (`bulk_indexes`)
    _read_manifest(lp)
    with use_limits(lp.manifest.limits if lp.manifest is not None else None):  # [limits] for every reader
        candidates = _walk(lp)
        lp.stored = {row[0]: row[1:] for row in conn.execute("SELECT path, kind, size, mtime_ns, sha256, owner, note FROM files")}
        old_manifest = lp.stored.pop(MANIFEST_NAME, None)  # its own stamp, not a file to read
        reread_all = (lp.manifest_ok and manifest_changed(conn, runs_dir, old_manifest)) | _scoring_rules_changed(lp)
        _forget_removed(lp, {c.rel for c in candidates} | set(lp.errored))
        changed, unchanged = find_changed(lp, candidates, reread_all)
        _reread_dependents(lp, candidates, changed, unchanged)
        with ScorePool(start=sum(c.size for c in changed) >= START_BYTES) as lp.cache.pool:  # reads and scores beside this one
            try:
                datasets, runs, later = _read_changed(lp, changed)
                with deferred_indexes(conn, sum(len(d.items) for _, d in datasets if isinstance(d, Dataset)), "items"):
                    _store_datasets(lp, datasets)
            finally:
                for worker in lp.readers.values():
                    stop_reading(worker)
            for i, cand in enumerate(later):  # the big files no stream reads, once the streamed datasets are stored
                lp.progress(i, len(later), f"reading {cand.rel}")
                found: list[tuple[_Candidate, Dataset | DatasetStream]] = []
                _take(lp, cand, _read_one(lp, cand), found, runs)
                _store_datasets(lp, found)
            lp.summary.warnings.extend(bind_datasets(lp.conn))  # journal entries follow their dataset by content
            merge_journal_files(lp.runs_dir, lp.conn, lp.summary)  # the team's journal files: the database is their cache
            with deferred_indexes(conn, sum(len(r.predictions) for _, r in runs)):  # a bulk load's built after its rows
                lp.cache.ahead = ScoreAhead(lp.cache.pool)
                _store_runs(lp, runs)
                lp.cache.pool.close()  # nothing left for it: it ends while the indexes are built
        lp.cache.ahead = None
        store_verdicts(conn, lp.verdicts, lp.cache, lp.summary)  # after the runs they name
        _finish(lp, unchanged)
    return lp.with_meta


def _read_manifest(lp: _Pass) -> None:
    try:
        lp.manifest = load_manifest(lp.runs_dir)
    except FormatError as exc:
        lp.manifest_ok = False
        lp.summary.errors.append({"path": _rel(lp.runs_dir, Path(exc.path)), "message": _relmsg(lp.runs_dir, str(exc))})


def _walk(lp: _Pass) -> list[_Candidate]:
    """Candidate files with their size and mtime; unreadable ones are errors (not removals)."""
    scan = walk(lp.runs_dir, lp.manifest)
    lp.summary.skipped.extend({"path": _rel(lp.runs_dir, p), "reason": r} for p, r in scan.skipped)
    lp.summary.warnings.extend({"path": _rel(lp.runs_dir, p), "message": m} for p, m in scan.warnings)
    for path, message in scan.errors:  # unreadable folders, file names that are not one line of text
        lp.error(_rel(lp.runs_dir, path), message)
    candidates: list[_Candidate] = []
    for path in scan.files:
        rel = _rel(lp.runs_dir, path)
        try:
            st = path.stat()
            problem = None if stat.S_ISREG(st.st_mode) else "not a regular file"  # a FIFO would block
        except OSError as exc:
            problem = exc.strerror or str(exc)
        except RuntimeError:  # pathlib's "Symlink loop from …"
            problem = "a symlink loop"
        if problem is not None:
            lp.error(rel, f"{rel}: cannot read ({problem})")
            continue
        candidates.append(_Candidate(path, rel, st.st_size, st.st_mtime_ns))
    return candidates


SCORING_RULES = "2"
"""Bumped when the choice of scorers changes (2: SQuAD data gets the SQuAD scorers): a database
loaded under older rules has every file read again, so stored scores follow the new choice."""


def _scoring_rules_changed(lp: _Pass) -> bool:
    """Recorded only once the pass has finished (`_finish`), so an interrupted load re-reads again."""
    return get_setting(lp.conn, "scoring_rules") != SCORING_RULES and bool(lp.stored)


def _forget_removed(lp: _Pass, present: set[str]) -> None:
    """Forget files gone from the folder; those in a folder that cannot be listed are not gone."""
    for rel in sorted(set(lp.stored) - present):
        if any(folder == "." or rel.startswith(f"{folder}/") for folder in lp.errored):
            lp.errored.append(rel)  # kept, reported as in error, read again next time
            continue
        with transaction(lp.conn):
            delete_path(lp.conn, rel)
        if lp.stored[rel][0] != "skipped":
            lp.summary.removed.append(rel)


def _reread_dependents(lp: _Pass, candidates: list[_Candidate], changed: list[_Candidate], unchanged: list[_Candidate]) -> None:
    """A side file (n-best, null odds, shard, framework results) is read by its run: when one
    changes, appears or goes, the run(s) reading it are read again instead of the side file.
    Runs whose dataset is gone (deleted or moved) are read again to re-link them."""
    stored = lp.stored
    sides = {c.rel for c in changed if c.rel in stored and stored[c.rel][0] == "side"}
    owners = {stored[rel][4] for rel in sides}
    owners |= {stored[rel][4] for rel in lp.summary.removed if rel in stored and stored[rel][0] == "side"}
    for cand in changed:
        owners.update(_rel(lp.runs_dir, owner) for owner in side_owners(cand.path))
    changed[:] = [c for c in changed if c.rel not in sides]
    unchanged.extend(c for c in candidates if c.rel in sides)  # reported as side files
    orphans = {row[0] for row in lp.conn.execute("SELECT path FROM runs WHERE dataset_id IS NULL")}
    for again in (owners, orphans):
        for cand in [c for c in unchanged if c.rel in again]:
            unchanged.remove(cand)
            changed.append(cand)


def _read_changed(
    lp: _Pass, changed: list[_Candidate]
) -> tuple[list[tuple[_Candidate, Dataset | DatasetStream]], list[tuple[_Candidate, Run]], list[_Candidate]]:
    """Read what changed; a big dataset is only opened (read while stored). Other big files are
    left for after it is stored (the third list): a million-prediction run takes 0.5 GB in memory,
    and holding two beside a streamed dataset's rows was the peak of a 1M load."""
    datasets: list[tuple[_Candidate, Dataset | DatasetStream]] = []
    runs: list[tuple[_Candidate, Run]] = []
    streams = {}
    for cand in changed:  # the reading processes first: they read ahead while the small files are read here
        stored = lp.stored.get(cand.rel)
        stream = stream_in_folder(cand.path, lp.manifest) if stored is None or stored[0] == "dataset" else None
        if stream is not None:
            lp.readers[cand.rel] = start_reading(stream)
            streams[cand.rel] = stream
    later = [c for c in changed if c.rel not in streams and streams and c.size >= DEFER_BYTES]
    now = [(i, c) for i, c in enumerate(changed) if c not in later]
    limits = lp.manifest.limits if lp.manifest is not None else None
    def beside(n: tuple[int, _Candidate]) -> bool:
        return n[1].rel not in streams and BESIDE_BYTES <= n[1].size < BESIDE_MAX

    def told(n: tuple[int, _Candidate]) -> Path:  # as a file is read (here) or sent (there)
        lp.progress(n[0], len(changed), f"reading {n[1].rel}")
        return n[1].path

    def here(n: tuple[int, _Candidate]) -> Outcome:
        path = told(n)
        stream = streams.get(n[1].rel)
        return ("read", stream) if stream is not None else read_outcome(path, lp.runs_dir, lp.manifest)

    for (i, cand), outcome in read_in_turn(lp.cache.pool, now, beside, lambda n: (told(n), lp.runs_dir, lp.manifest, limits), here):
        _take(lp, cand, _read_one(lp, cand, outcome), datasets, runs)
    return datasets, runs, later


DEFER_BYTES = 16 << 20  # files from this size on are read after the streamed datasets are stored (when there are any)


def _take(lp: _Pass, cand: _Candidate, src: Any, datasets: list[Any], runs: list[tuple[_Candidate, Run]]) -> None:
    if isinstance(src, (Dataset, DatasetStream)):
        datasets.append((cand, src))
    elif isinstance(src, Run):
        src.name = src.name or run_display_name(cand.path, lp.runs_dir, lp.manifest)
        runs.append((cand, src))
        lp.verdicts += framework_pending(cand.path, cand.rel, src, lp.summary)
    elif isinstance(src, VerdictFile):
        lp.verdicts.append(pending_file(cand.rel, src, cand.stamp("verdicts", src.format, None)))


def _read_one(lp: _Pass, cand: _Candidate, outcome: Outcome | None = None) -> Dataset | Run | VerdictFile | None:
    """One file read whole (or what the second process read); None when not QA data (remembered) or unreadable."""
    kind, value = outcome or read_outcome(cand.path, lp.runs_dir, lp.manifest)
    if kind == "format":
        lp.error(cand.rel, _relmsg(lp.runs_dir, value))
        return None
    if kind == "failed":
        lp.error(cand.rel, f"{cand.rel}: cannot read ({value[0]}: {_relmsg(lp.runs_dir, value[1])[:200]})")
        return None
    if isinstance(value, Skip):
        _remember_skip(lp, cand, value.reason)
        return None
    return value


def _remember_skip(lp: _Pass, cand: _Candidate, reason: str) -> None:
    """Remembered, so an unchanged folder re-reads nothing. A file that held data and now holds
    something else keeps its rows (wrong shape = bad input) and is re-read next time."""
    lp.summary.skipped.append({"path": cand.rel, "reason": reason})
    if cand.rel not in lp.stored or lp.stored[cand.rel][0] == "skipped":
        with transaction(lp.conn):
            record_file(lp.conn, cand.stamp("skipped", None, None, note=reason))


def _store_datasets(lp: _Pass, parsed: list[tuple[_Candidate, Dataset | DatasetStream]]) -> None:
    conn = lp.conn
    for i, (cand, ds) in enumerate(parsed):
        lp.progress(i, len(parsed), f"storing {cand.rel}")
        ds.name = unique_name(conn, "datasets", ds.name, cand.rel)
        if isinstance(ds, DatasetStream):
            _store_stream(lp, cand, ds)
            continue
        fresh = not has_rows(conn, ds.name)
        resume = resuming(lp.stored.get(cand.rel), cand.sha256)
        stepped = (fresh or resume) and len(ds.items) > STEP_ROWS

        def store_dataset(ds: Dataset = ds, cand: _Candidate = cand, stepped: bool = stepped) -> tuple[int, int, int]:
            if stepped:
                mark_loading(conn, cand.rel, "dataset", cand.mtime_ns, cand.sha256 or "")
            out = write_dataset(conn, ds, cand.rel, Steps(conn, STEP_ROWS if stepped else None), resume=resume, pool=lp.cache.pool)
            store_fingerprint(conn, ds.name)
            record_file(conn, cand.stamp("dataset", ds.format, ds.encoding))
            return out

        def undo(name: str = ds.name, cand: _Candidate = cand) -> None:
            conn.execute("DELETE FROM datasets WHERE name = ?", (name,))  # its rows cascade away
            _forget_loading(lp, cand)

        written = write_file(conn, cand.rel, store_dataset, lp.summary, lp.errored, undo if stepped else None)
        if written is not None:
            items, golds, _ = written
            lp.summary.datasets.append(
                DatasetReport(ds.name, cand.rel, ds.format, items, golds, "loaded", ds.encoding, dataset_scorer(ds))
            )
            lp.summary.warnings.extend(dataset_warnings(cand.rel, ds.meta))  # kept in its meta: said on every load


def _store_stream(lp: _Pass, cand: _Candidate, stream: DatasetStream) -> None:
    """A big new dataset stored while read (`write_stream`); should streaming give up, read it whole."""
    conn = lp.conn
    resume = resuming(lp.stored.get(cand.rel), cand.sha256)
    staged = not resume and has_rows(conn, stream.name)

    def store() -> tuple[int, int, int]:
        if not staged:  # a changed dataset is staged: its `files` row stays as it was until applied
            mark_loading(conn, cand.rel, "dataset", cand.mtime_ns, cand.sha256 or "")
        out = write_stream(conn, stream, cand.rel, Steps(conn, STEP_ROWS), resume=resume, keep=None if staged else lp.cache,
                           worker=lp.readers.pop(cand.rel, None), stage=cand.sha256 if staged else None)
        store_fingerprint(conn, stream.name)
        record_file(conn, cand.stamp("dataset", stream.format, stream.encoding))
        return out

    def undo() -> None:
        lp.cache.forget()  # it may hold the lookups of the rows just removed
        if staged:
            drop_stage(conn)  # the stored rows stay
            return
        conn.execute("DELETE FROM datasets WHERE name = ?", (stream.name,))  # its rows cascade away
        _forget_loading(lp, cand)

    try:
        written = write_file(conn, cand.rel, store, lp.summary, lp.errored, undo)
    except (FormatError, NotStreamable) as exc:
        with transaction(conn):
            undo()
        if isinstance(exc, FormatError):
            lp.error(cand.rel, _relmsg(lp.runs_dir, str(exc)))
            return
        whole = _read_one(lp, cand)
        if isinstance(whole, Dataset):
            _store_datasets(lp, [(cand, whole)])
        return
    if written is not None:
        scorer = conn.execute("SELECT scorer FROM datasets WHERE name = ?", (stream.name,)).fetchone()[0]
        lp.summary.datasets.append(DatasetReport(stream.name, cand.rel, stream.format, *written[:2], "loaded", stream.encoding, scorer))


def _forget_loading(lp: _Pass, cand: _Candidate) -> None:
    """A stepped write failed and its steps were removed: nothing is left to resume."""
    old = lp.stored.get(cand.rel)
    if old is None:
        lp.conn.execute("DELETE FROM files WHERE path = ?", (cand.rel,))
    else:  # the old stamp is forgotten at the end of the load (`_finish`), as for every failed file
        lp.conn.execute("UPDATE files SET note = ? WHERE path = ?", (old[5], cand.rel))


class _Linked(NamedTuple):
    """A run (or a part of one) linked to the stored dataset it is written against."""

    cand: _Candidate
    run: Run
    link: Any
    dataset_id: int


def _linked(lp: _Pass, parsed: list[tuple[_Candidate, Run]]) -> Iterator[_Linked]:
    """Each run linked to a stored dataset, in order; one that links to none is an error."""
    conn = lp.conn
    indexes = lp.cache.indexes(conn)
    declared = lp.manifest.datasets_for if lp.manifest else (lambda _path: ())  # several: one run per file
    for cand, run, target in ((c, part, to) for c, r in taken(parsed) for part, to in run_parts(r, declared(c.path), indexes)):
        link = link_stored_run(conn, run, indexes, target, cand.rel)
        link = replace(link, warnings=(*run.meta.pop("warnings", ()), *link.warnings))  # the reader's first
        if link.dataset is None:
            lp.error(cand.rel, f"{cand.rel}: {link.reason}")
            continue
        yield _Linked(cand, run, link, conn.execute("SELECT id FROM datasets WHERE name = ?", (link.dataset,)).fetchone()[0])


def _store_runs(lp: _Pass, parsed: list[tuple[_Candidate, Run]]) -> None:
    """Score and store each run (one transaction, or steps), the next scored meanwhile
    (`start_ahead`). A run is linked two runs ahead of its write, while the second process
    scores: linking all first had left the second process idle (6 ms a run)."""
    linked = _linked(lp, parsed) if parsed else iter(())
    ahead, i = deque(islice(linked, 3)), 0
    while ahead:
        now = ahead.popleft()
        lp.progress(i, max(len(parsed), i + 1), f"scoring {now.cand.rel}")
        _store_run(lp, now, [(x.run, x.dataset_id) for x in ahead])
        now.run.predictions = []  # stored: freed now, beside the second process, not all at the end
        ahead.extend(islice(linked, 3 - len(ahead)))
        i += 1


def _store_run(lp: _Pass, now: _Linked, following: list[tuple[Run, int]]) -> None:  # the next two, to score ahead
    conn, cand, run, link = lp.conn, now.cand, now.run, now.link
    run.name = unique_name(conn, "runs", run.name, cand.rel)
    run.meta["link"] = {"method": link.method, "coverage": round(100 * link.coverage, 2),
                        "run_coverage": round(100 * link.run_coverage, 2), "warnings": list(link.warnings)}
    stepped = len(run.predictions) > STEP_ROWS
    after = following[1] if len(following) > 1 else None
    ahead = (lambda: start_ahead(conn, *following[0], lp.cache, after)) if following else None

    def store_run() -> RunWrite:
        if stepped:
            mark_loading(conn, cand.rel, "run", cand.mtime_ns, cand.sha256 or "")
        out = write_run(conn, run, cand.rel, now.dataset_id, link.reason, lp.cache, Steps(conn, STEP_ROWS if stepped else None),
                        resume_key=cand.sha256 or "", then=ahead)
        record_file(conn, cand.stamp("run", run.format, run.encoding))
        for extra in run.extra_paths:
            record_side(conn, lp.runs_dir, Path(extra), cand.rel)
        return out

    def undo() -> None:
        conn.execute("DELETE FROM runs WHERE path = ? AND json_extract(meta, '$.loading') IS NOT NULL", (cand.rel,))
        _forget_loading(lp, cand)

    fresh = not stepped and conn.execute("SELECT 1 FROM runs WHERE path = ?", (cand.rel,)).fetchone() is None
    with parents_known(conn, fresh):
        res = write_file(conn, cand.rel, store_run, lp.summary, lp.errored, undo if stepped else None)
    if res is not None:
        lp.with_meta += [res.run_id] if res.meta and res.run_id is not None else []
        lp.summary.runs.append(
            RunReport(run.name, cand.rel, run.format, link.dataset, res.predictions, len(res.unmatched),
                      "loaded", link.reason, run.encoding, round(100 * link.coverage, 2),
                      round(100 * link.run_coverage, 2), link.method, list(link.warnings))
        )
        lp.summary.warnings.extend({"path": cand.rel, "message": f"{cand.rel}: {w}"} for w in link.warnings)


def _finish(lp: _Pass, unchanged: list[_Candidate]) -> None:
    report_stored(lp.conn, [c.rel for c in unchanged], lp.summary, "unchanged")
    report_stored(lp.conn, lp.errored, lp.summary, "error")
    if lp.errored:
        # Keep the old rows but forget the stamp, so the next load reads the file again.
        with transaction(lp.conn):
            lp.conn.executemany("UPDATE files SET size = -1, sha256 = '' WHERE path = ?", [(rel,) for rel in lp.errored])
    lp.progress(0, 1, "categorising errors and item features")
    fill_missing(lp.conn)  # rows of an older database, or of a load killed before it got there
    if get_setting(lp.conn, "scoring_rules") != SCORING_RULES:
        set_setting(lp.conn, "scoring_rules", SCORING_RULES)
    if 0 < pending_rows(lp.conn) <= INLINE_LIMIT:  # a big load leaves the search index to its first search
        build_search_index(lp.conn)
    lp.summary.datasets.sort(key=lambda d: d.path)
    lp.summary.runs.sort(key=lambda r: r.path)
    lp.progress(1, 1, "done")
