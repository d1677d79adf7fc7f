"""The schema as its forward-only migrations: `MIGRATIONS[n]` takes a database of version n to n+1.

Tables and columns are only ever added, never renamed (the database is a documented artefact,
docs/database.md); each script is self-contained (`CREATE … IF NOT EXISTS`, `ALTER TABLE … ADD
COLUMN`), so a database of any earlier version upgrades in place keeping every annotation.
`core.store.schema` runs them (`migrate`, `open_db`).
"""

from __future__ import annotations

from .label_state import LABEL_STATE_MIGRATION
from .passages import PASSAGES_MIGRATION

__all__ = ["MIGRATIONS"]

MIGRATIONS: list[str] = [
    # 0 → 1: the first schema.
    """
    CREATE TABLE IF NOT EXISTS files (
        path TEXT PRIMARY KEY,          -- relative to the runs folder, '/'-separated
        kind TEXT NOT NULL,             -- 'dataset' | 'run' | 'side' (read with its owner run)
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        format TEXT,
        encoding TEXT,
        owner TEXT,                     -- for side files: the run file they belong to
        loaded_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS datasets (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL,
        format TEXT NOT NULL,
        family TEXT NOT NULL,           -- 'cmrc' | 'squad' | 'cdqa'
        scorer TEXT NOT NULL,           -- default scorer for this dataset's runs
        encoding TEXT,
        item_count INTEGER NOT NULL DEFAULT 0,
        gold_count INTEGER NOT NULL DEFAULT 0,
        meta TEXT                       -- JSON
    );
    CREATE TABLE IF NOT EXISTS contexts (
        id INTEGER PRIMARY KEY,
        dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        context_key TEXT NOT NULL,
        title TEXT,
        text TEXT NOT NULL,
        UNIQUE (dataset_id, context_key)
    );
    CREATE TABLE IF NOT EXISTS items (
        id INTEGER PRIMARY KEY,
        dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        key TEXT NOT NULL,              -- stable identity: dataset id, else question hash
        qkey TEXT NOT NULL,             -- question hash of the shown question (matches runs by text)
        question TEXT NOT NULL,
        context_id INTEGER REFERENCES contexts(id) ON DELETE SET NULL,
        split TEXT,
        tag TEXT,
        answer_type TEXT,
        is_impossible INTEGER NOT NULL DEFAULT 0,
        source_line INTEGER,
        human_em REAL,                  -- human estimate: each gold scored against the others
        human_f1 REAL,                  -- (NULL when the item has fewer than two golds)
        meta TEXT,                      -- JSON: original labels, evidence URL, ...
        UNIQUE (dataset_id, key)
    );
    CREATE INDEX IF NOT EXISTS items_split ON items(dataset_id, split);
    CREATE INDEX IF NOT EXISTS items_tag ON items(dataset_id, tag);
    CREATE INDEX IF NOT EXISTS items_answer_type ON items(dataset_id, answer_type);
    CREATE INDEX IF NOT EXISTS items_qkey ON items(dataset_id, qkey);
    CREATE TABLE IF NOT EXISTS golds (
        id INTEGER PRIMARY KEY,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,           -- position in the dataset's answer list
        text TEXT NOT NULL,
        answer_start INTEGER,           -- as given by the dataset
        span_start INTEGER,             -- located in the context (NULL: no span)
        span_end INTEGER,
        superseded INTEGER NOT NULL DEFAULT 0,  -- replaced by a rewritten answer; not scored
        UNIQUE (item_id, idx)
    );
    CREATE TABLE IF NOT EXISTS runs (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        path TEXT NOT NULL,
        format TEXT NOT NULL,
        dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
        model TEXT,
        scorer TEXT,
        encoding TEXT,
        prediction_count INTEGER NOT NULL DEFAULT 0,
        unmatched_count INTEGER NOT NULL DEFAULT 0,
        link_reason TEXT,
        meta TEXT                       -- JSON: framework settings, unmatched refs sample
    );
    CREATE TABLE IF NOT EXISTS predictions (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        item_id INTEGER NOT NULL REFERENCES items(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        raw TEXT,                       -- full model response when the answer was extracted
        candidates TEXT,                -- JSON list of n-best {text, probability, score}
        source_line INTEGER,
        meta TEXT,
        scorer TEXT,                    -- which scorer produced the columns below
        em INTEGER,
        f1 REAL,
        refused INTEGER,
        f1_recall REAL,
        best_gold INTEGER,              -- golds.idx of the best-scoring gold
        UNIQUE (run_id, item_id)
    );
    CREATE INDEX IF NOT EXISTS predictions_item ON predictions(item_id);
    CREATE INDEX IF NOT EXISTS predictions_run_em ON predictions(run_id, em);
    CREATE INDEX IF NOT EXISTS predictions_run_f1 ON predictions(run_id, f1);
    CREATE INDEX IF NOT EXISTS predictions_run_refused ON predictions(run_id, refused);
    CREATE INDEX IF NOT EXISTS predictions_run_f1r ON predictions(run_id, f1_recall);
    CREATE TABLE IF NOT EXISTS annotations (
        id INTEGER PRIMARY KEY,         -- append-only journal; state is derived from it
        ts TEXT NOT NULL,
        author TEXT NOT NULL,
        action TEXT NOT NULL,
        dataset TEXT NOT NULL,          -- dataset name
        item_key TEXT NOT NULL,
        gold_text TEXT NOT NULL,
        reason TEXT,
        proposed TEXT,
        evidence TEXT,
        ref INTEGER,                    -- for 'undo': the journal entry it cancels
        uid TEXT UNIQUE,                -- globally unique entry id: importing a journal twice adds nothing
        meta TEXT
    );
    CREATE INDEX IF NOT EXISTS annotations_target ON annotations(dataset, item_key, gold_text);
    CREATE TABLE IF NOT EXISTS slices (
        name TEXT PRIMARY KEY,          -- a saved item-browser filter
        filter TEXT NOT NULL,           -- JSON of core.query.Filter fields
        created_at TEXT NOT NULL,
        author TEXT
    );
    CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(question, golds, tokenize='trigram');
    CREATE VIRTUAL TABLE IF NOT EXISTS predictions_fts USING fts5(
        text, content='predictions', content_rowid='id', tokenize='trigram');
    """,
    # 1 → 2: stale-answer journal support (core.flags). `settings` is a small key/value table
    # (`author:<system user>` = the annotator name that user set once); indexes serve undo
    # lookups (`ref`) and per-author undo history; entries written before uids were set get one
    # (early development databases lacked `annotations.uid` and `slices`: added when missing).
    """
    CREATE TABLE IF NOT EXISTS settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    ALTER TABLE annotations ADD COLUMN uid TEXT;
    CREATE UNIQUE INDEX IF NOT EXISTS annotations_uid ON annotations(uid);
    CREATE TABLE IF NOT EXISTS slices (
        name TEXT PRIMARY KEY,
        filter TEXT NOT NULL,
        created_at TEXT NOT NULL,
        author TEXT
    );
    CREATE INDEX IF NOT EXISTS annotations_ref ON annotations(ref);
    CREATE INDEX IF NOT EXISTS annotations_author ON annotations(author, id);
    UPDATE annotations SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
    """,
    # 2 → 3: a covering index for the item browser. Every filter change aggregates one run's
    # scores over all items of the slice; with the scores in the index SQLite never reads the
    # (large, text-holding) prediction rows: ~25% faster metrics at 100k items (tests/bench/bench_tui.py).
    """
    CREATE INDEX IF NOT EXISTS predictions_scores ON predictions(run_id, item_id, em, f1, f1_recall, refused);
    """,
    # 3 → 4: files that are not QA data (config.json, metrics…) are remembered with the reason they
    # were skipped (kind 'skipped'), so an unchanged folder re-reads nothing at all.
    """
    ALTER TABLE files ADD COLUMN note TEXT;
    """,
    # 4 → 5: unanswerable questions are a slice of their own (SQuAD 2.0 HasAns/NoAns):
    # 'answerable' / 'unanswerable' where the dataset has unanswerable items, else NULL.
    """
    ALTER TABLE items ADD COLUMN answerable TEXT;
    """,
    # 5 → 6: datasets are known by content, not by file name (see core.store.bindings). A journal
    # entry keeps the name it was written with and the fingerprint of that dataset; `dataset` becomes
    # its binding, re-derived after each load and import (a renamed file keeps its flags).
    """
    ALTER TABLE datasets ADD COLUMN fingerprint TEXT;
    ALTER TABLE annotations ADD COLUMN written_as TEXT;
    ALTER TABLE annotations ADD COLUMN dataset_fp TEXT;
    CREATE INDEX IF NOT EXISTS datasets_fingerprint ON datasets(fingerprint);
    UPDATE annotations SET written_as = dataset WHERE written_as IS NULL;
    """,
    # 6 → 7: why a prediction is wrong and what an item is like, computed at ingest:
    # `predictions.error_category` (a code of `core.metrics.CATEGORIES`; the reason in words is
    # recomputed by the detail: a pure function) and the item features of
    # `core.metrics.question_features` as columns of `items`. NULL = not computed yet: a database
    # of an older version gets them on its next load (`core.load.backfill`; settings
    # `analysis_filled` = 1 once nothing is missing). The browser's covering index (2 → 3) gains the
    # category: the category facet and filter of a run never read prediction rows.
    """
    ALTER TABLE predictions ADD COLUMN error_category TEXT;
    ALTER TABLE items ADD COLUMN question_type TEXT;
    ALTER TABLE items ADD COLUMN gold_length TEXT;
    ALTER TABLE items ADD COLUMN passage_length TEXT;
    ALTER TABLE items ADD COLUMN answer_position TEXT;
    ALTER TABLE items ADD COLUMN gold_count INTEGER;
    ALTER TABLE items ADD COLUMN gold_agreement TEXT;
    ALTER TABLE items ADD COLUMN cross_sentence INTEGER;
    ALTER TABLE items ADD COLUMN question_overlap TEXT;
    CREATE INDEX IF NOT EXISTS items_question_type ON items(dataset_id, question_type);
    DELETE FROM settings WHERE key = 'analysis_filled';
    DROP INDEX IF EXISTS predictions_scores;
    CREATE INDEX IF NOT EXISTS predictions_scores ON predictions(run_id, item_id, em, f1, f1_recall, refused,
        error_category);
    """,
    # 7 → 8: error labels by hand (core.labels) share the journal. A label entry names a run (by
    # its stored name) and an item, `label` (never NULL on label, unlabel and note entries, nor on
    # the undos that cancel them: stale-flag readers keep to `label IS NULL`), `gold_text` ''.
    # `label_source`: 'hand' or 'category' (accepted from the automatic error category).
    """
    ALTER TABLE annotations ADD COLUMN run TEXT;
    ALTER TABLE annotations ADD COLUMN label TEXT;
    ALTER TABLE annotations ADD COLUMN label_source TEXT;
    CREATE INDEX IF NOT EXISTS annotations_label ON annotations(run, dataset, item_key, label) WHERE label IS NOT NULL;
    """,
    # 8 → 9: the browser at a million items. Its pages walk an index in the order
    # shown and stop after one page (`core.query.paging`): items of a dataset in id order, and
    # each run's scores with the item id as the tie-break (the old score indexes ended in the
    # prediction's rowid, which need not follow item order). Same number of score indexes. The
    # browser's `answerable` values by index (partial: most datasets leave the column NULL).
    """
    CREATE INDEX IF NOT EXISTS items_dataset ON items(dataset_id);
    CREATE INDEX IF NOT EXISTS items_answerable ON items(dataset_id, answerable) WHERE answerable IS NOT NULL;
    DROP INDEX IF EXISTS predictions_run_em;
    CREATE INDEX IF NOT EXISTS predictions_run_em ON predictions(run_id, em, item_id);
    DROP INDEX IF EXISTS predictions_run_f1;
    CREATE INDEX IF NOT EXISTS predictions_run_f1 ON predictions(run_id, f1, item_id);
    DROP INDEX IF EXISTS predictions_run_refused;
    CREATE INDEX IF NOT EXISTS predictions_run_refused ON predictions(run_id, refused, item_id);
    DROP INDEX IF EXISTS predictions_run_f1r;
    CREATE INDEX IF NOT EXISTS predictions_run_f1r ON predictions(run_id, f1_recall, item_id);
    """,
    # 9 → 10: the overview's grouped rows per dataset, under a stamp of the data they sum
    # (`core.store.overview_cache`; a million items take seconds to group).
    """
    CREATE TABLE IF NOT EXISTS overview_cache (
        dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        slices INTEGER NOT NULL,
        stamp TEXT NOT NULL,
        payload TEXT NOT NULL,
        PRIMARY KEY (dataset_id, slices)
    );
    """,
    # 10 → 11: the browser's Δ order of a compared pair of runs (`core.query.delta_order`):
    # the items of run A's dataset by Δ (B − A) and item id, so a page sorted by Δ walks an index
    # instead of sorting a million items. Built once per (A, B) the user compares, under a stamp of
    # both runs' data; gone with either run (cascade; `delta_pairs_b` serves run B's).
    """
    CREATE TABLE IF NOT EXISTS delta_pairs (
        id INTEGER PRIMARY KEY,
        run_a INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        run_b INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        stamp TEXT NOT NULL,
        items INTEGER NOT NULL,
        built_at TEXT NOT NULL,
        UNIQUE (run_a, run_b)
    );
    CREATE INDEX IF NOT EXISTS delta_pairs_b ON delta_pairs(run_b);
    CREATE TABLE IF NOT EXISTS delta_order (
        pair_id INTEGER NOT NULL REFERENCES delta_pairs(id) ON DELETE CASCADE,
        delta REAL NOT NULL,
        item_id INTEGER NOT NULL,
        PRIMARY KEY (pair_id, delta, item_id)
    ) WITHOUT ROWID;
    """,
    # 11 → 12: how each prediction relates to its item's golds (`core.metrics.relation`: same,
    # format, superseded, partial, different; a judgement beside the official scores, which never
    # change), computed with the scores at ingest. NULL = not computed yet: a database of an older
    # version gets it on its next load (`core.load.backfill`). The superseded golds of a dataset
    # are read by a partial index (few items have one).
    """
    ALTER TABLE predictions ADD COLUMN relation TEXT;
    CREATE INDEX IF NOT EXISTS golds_superseded ON golds(item_id) WHERE superseded = 1;
    DELETE FROM settings WHERE key = 'analysis_filled';
    """,
    # 12 → 13: judge verdicts, imported (`core.formats.judge_verdicts`), never computed: what each
    # judge said of a run's answer, beside the official score. Keyed like hand labels, by run name
    # and item key (not row ids), so a reloaded run keeps them; `source` is the file they were read
    # from (a verdicts JSONL, or the run's own log): reloading or removing it replaces its rows.
    """
    CREATE TABLE IF NOT EXISTS verdicts (
        run TEXT NOT NULL,              -- runs.name
        item_key TEXT NOT NULL,         -- items.key in the run's dataset
        judge TEXT NOT NULL,            -- the judge (an Inspect scorer's name, ...)
        verdict TEXT NOT NULL,          -- 'correct' | 'incorrect' | 'partial'
        value REAL NOT NULL,            -- 0-1: 1 correct, 0 incorrect
        raw TEXT,                       -- the verdict as the source wrote it ('C', '0.7', ...)
        rationale TEXT,
        source TEXT NOT NULL,           -- files.path it was read from
        PRIMARY KEY (run, item_key, judge)
    );
    CREATE INDEX IF NOT EXISTS verdicts_source ON verdicts(source);
    CREATE INDEX IF NOT EXISTS verdicts_judge ON verdicts(run, judge, verdict);
    """,
    # 13 → 14: many answers per item (epochs, repeats). Each sample of a (run, item) is a row of
    # `completions`, keyed by its prediction and sample number (1-based), with its own scores; the
    # `predictions` row stays the official answer (first or marked sample) and gains the samples'
    # aggregate (`core.metrics.summarise_item`). Runs of one answer per item write no completions
    # and leave these columns NULL: their numbers are what they were. Run files of the frameworks
    # that sample (Inspect, lm-eval, OpenCompass) are marked changed, so the next load reads their samples.
    """
    CREATE TABLE IF NOT EXISTS completions (
        prediction_id INTEGER NOT NULL REFERENCES predictions(id) ON DELETE CASCADE,
        sample INTEGER NOT NULL,
        text TEXT NOT NULL,
        em INTEGER,
        f1 REAL,
        refused INTEGER,
        f1_recall REAL,
        PRIMARY KEY (prediction_id, sample)
    ) WITHOUT ROWID;
    ALTER TABLE predictions ADD COLUMN samples INTEGER;          -- how many; NULL = one
    ALTER TABLE predictions ADD COLUMN correct_samples INTEGER;  -- right at EM (F1-recall: at 0.5)
    ALTER TABLE predictions ADD COLUMN mean_em REAL;
    ALTER TABLE predictions ADD COLUMN mean_f1 REAL;             -- F1, or F1-recall for CDQA
    ALTER TABLE predictions ADD COLUMN majority TEXT;            -- the most frequent equivalent answer
    ALTER TABLE predictions ADD COLUMN majority_share REAL;
    ALTER TABLE predictions ADD COLUMN majority_correct INTEGER;
    ALTER TABLE predictions ADD COLUMN distinct_answers INTEGER;
    ALTER TABLE predictions ADD COLUMN flaky INTEGER;            -- some samples right, some wrong
    UPDATE files SET mtime_ns = -1, sha256 = '' WHERE kind = 'run'
        AND format IN ('inspect-log', 'lm-eval-samples', 'opencompass-predictions');  -- read again: their samples
    """,
    # 14 → 15: the browser's sorts on the registry columns at a million items (`core.query.paging`,
    # `core.query.column_order`): run A's error category and relation by `(run_id, value, item_id)`,
    # and each item feature by `(dataset_id, value)` (entries end in the item id), so a page walks
    # an index in the order shown instead of sorting every item. `meta` keys get expression
    # indexes of their own when a load finds them (`core.query.column_order.index_meta_keys`).
    """
    CREATE INDEX IF NOT EXISTS predictions_run_category ON predictions(run_id, error_category, item_id);
    CREATE INDEX IF NOT EXISTS predictions_run_relation ON predictions(run_id, relation, item_id);
    CREATE INDEX IF NOT EXISTS items_gold_length ON items(dataset_id, gold_length);
    CREATE INDEX IF NOT EXISTS items_passage_length ON items(dataset_id, passage_length);
    CREATE INDEX IF NOT EXISTS items_answer_position ON items(dataset_id, answer_position);
    CREATE INDEX IF NOT EXISTS items_gold_count ON items(dataset_id, gold_count);
    CREATE INDEX IF NOT EXISTS items_gold_agreement ON items(dataset_id, gold_agreement);
    CREATE INDEX IF NOT EXISTS items_cross_sentence ON items(dataset_id, cross_sentence);
    CREATE INDEX IF NOT EXISTS items_question_overlap ON items(dataset_id, question_overlap);
    """,
    # 15 → 16: a million items at once. Each run's facet and count frame stored (`frame_columns`,
    # `core.store.frame_store`: the arrays of value codes and scores the facet panel and the
    # browser's counts read, as BLOBs under a stamp of the loaded data), so the first panel of a run
    # reads a few blobs instead of every item; and the items by question text per dataset, so the
    # question sort pages, steps (n/p) and jumps down an index instead of sorting every item.
    """
    CREATE TABLE IF NOT EXISTS frame_columns (
        dataset_id INTEGER NOT NULL,
        run_id INTEGER NOT NULL,        -- 0: the dataset's item columns, shared by its runs
        name TEXT NOT NULL,
        stamp TEXT NOT NULL,
        dtype TEXT NOT NULL,            -- numpy dtype string of the array
        data BLOB NOT NULL,
        vals TEXT,                      -- JSON: the values its codes index
        PRIMARY KEY (dataset_id, run_id, name)
    );
    """,
    PASSAGES_MIGRATION,  # 16 → 17: which passages of a dataset share one text (`core.store.passages`)
    LABEL_STATE_MIGRATION,  # 17 → 18: the labels on now, kept by triggers (`core.store.label_state`)
]
