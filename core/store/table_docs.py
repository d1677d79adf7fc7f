"""What every stored table and column means, in words: the one place the documented schema lives.

`docs/gen_schema.py` writes these beside the columns it reads off a real database, and
`core.report.publish_metadata` hands them to Datasette, so the manual and a published copy say the
same thing. A migration that adds a table or a column adds its line here (a test compares this
with a freshly migrated database).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TABLE_DOCS", "TableDoc"]


@dataclass(frozen=True, slots=True)
class TableDoc:
    """One table: what one row is, and what each column holds."""

    row: str
    """What one row stands for ("one row per …")."""
    columns: dict[str, str] = field(default_factory=dict)


_JOURNAL_TARGET = {
    "dataset": "the loaded dataset the entry binds to now (its name)",
    "item_key": "the item's stable id (items.key)",
}

TABLE_DOCS: dict[str, TableDoc] = {
    "files": TableDoc("source file seen in the runs folder", {
        "path": "relative to the runs folder, '/'-separated",
        "kind": "dataset, run or side (a file read with its owner run)",
        "size": "bytes when loaded",
        "mtime_ns": "modification time when loaded (ns)",
        "sha256": "content hash: an unchanged file is not read again",
        "format": "the reader that read it",
        "encoding": "text encoding detected",
        "owner": "for side files: the run file they belong to",
        "loaded_at": "when it was loaded (UTC, ISO 8601)",
        "note": "why it was skipped; 'loading <sha256>' while a big file is written in steps",
    }),
    "datasets": TableDoc("dataset", {
        "id": "row id (never used by annotations)",
        "name": "unique human name",
        "path": "its file, relative to the runs folder",
        "format": "source format (squad, cmrc-original, cdqa, jsonl …)",
        "family": "cmrc, squad or cdqa: which official scorer family applies",
        "scorer": "the scorer its runs are scored with",
        "encoding": "text encoding detected",
        "item_count": "questions",
        "gold_count": "gold answers",
        "meta": "JSON: what the reader kept beside the items",
        "fingerprint": "sha256 of its item keys and questions: journal entries follow it across renames",
    }),
    "contexts": TableDoc("passage", {
        "id": "row id",
        "dataset_id": "its dataset (datasets.id)",
        "context_key": "the passage's id in the source file",
        "title": "article title, where the format has one",
        "text": "the passage",
    }),
    "items": TableDoc("question", {
        "id": "row id (never used by annotations)",
        "dataset_id": "its dataset (datasets.id)",
        "key": "stable id: the dataset's own id, else a hash of the normalised question",
        "qkey": "hash of the shown question (matches runs keyed by question text)",
        "question": "the question",
        "context_id": "its passage (contexts.id), if any",
        "split": "slice: split",
        "tag": "slice: tag (CDQA: fast/slow/never-changing)",
        "answer_type": "slice: answer type",
        "is_impossible": "1: the question has no answer (SQuAD 2.0)",
        "source_line": "line or record number in the source file",
        "human_em": "human performance estimate of EM, where the dataset has several golds",
        "human_f1": "human performance estimate of F1",
        "meta": "JSON: original labels, evidence URL, original question",
        "answerable": "slice: answerable/unanswerable where the dataset has unanswerable items",
        "question_type": "feature: question type (NULL: features not computed yet)",
        "gold_length": "feature: length bucket of the first gold (CJK characters or words)",
        "passage_length": "feature: length bucket of the passage",
        "answer_position": "feature: quarter of the passage where the first gold found starts",
        "gold_count": "feature: number of gold answers",
        "gold_agreement": "feature: none, one, agree, nested or differ",
        "cross_sentence": "feature: 1 when the sentence nearest the question holds no gold (challenge-set property)",
        "question_overlap": "feature: share of the question found in the gold's sentence (none/low/medium/high)",
    }),
    "golds": TableDoc("gold answer", {
        "id": "row id",
        "item_id": "its question (items.id)",
        "idx": "position among the item's golds",
        "text": "the gold answer",
        "answer_start": "character offset as given in the source",
        "span_start": "located start in the passage",
        "span_end": "located end in the passage",
        "superseded": "1: a gold a later release replaced (kept for the 'superseded' judgement)",
    }),
    "runs": TableDoc("prediction file (a model run)", {
        "id": "row id",
        "name": "unique run name",
        "path": "its file, relative to the runs folder",
        "format": "source format",
        "dataset_id": "the dataset it answers (datasets.id)",
        "model": "model name, where the file says",
        "scorer": "scorer override (NULL: the dataset's)",
        "encoding": "text encoding detected",
        "prediction_count": "predictions read",
        "unmatched_count": "predictions that matched no item",
        "link_reason": "why it was linked to this dataset",
        "meta": "JSON: framework settings, a sample of unmatched ids",
    }),
    "predictions": TableDoc("run × item: one answer", {
        "id": "row id",
        "run_id": "its run (runs.id)",
        "item_id": "its question (items.id)",
        "text": "the answer scored",
        "raw": "the full model response when the answer was extracted from it",
        "candidates": "JSON n-best list {text, probability, score}",
        "source_line": "line or record number in the run file",
        "meta": "JSON: what the reader kept beside the answer (a load indexes each short scalar key for sorting)",
        "scorer": "the official scorer that produced the scores",
        "em": "official exact match (0/1; NULL for CDQA)",
        "f1": "official F1 (0–1; NULL for CDQA)",
        "refused": "CDQA: 1 when the response is a refusal",
        "f1_recall": "CDQA: official F1-recall (0–1)",
        "best_gold": "golds.idx of the best-scoring gold",
        "error_category": "automatic error category code",
        "relation": "judgement beside the official score: same, format, superseded, partial, different",
        "samples": "how many sampled answers the run has for the item (NULL: one)",
        "correct_samples": "samples right at EM (F1-recall: at 0.5)",
        "mean_em": "mean EM over the samples",
        "mean_f1": "mean F1 (F1-recall for CDQA) over the samples",
        "majority": "the most frequent equivalent answer",
        "majority_share": "its share of the samples",
        "majority_correct": "1 when the majority answer is right",
        "distinct_answers": "distinct answers among the samples",
        "flaky": "1 when some samples are right and some wrong",
    }),
    "completions": TableDoc("sampled answer of a run on an item (epochs, repeats)", {
        "prediction_id": "its prediction row (predictions.id): the official answer and the aggregate",
        "sample": "sample number, 1-based",
        "text": "the answer",
        "em": "its exact match (0/1; NULL for CDQA)",
        "f1": "its F1 (NULL for CDQA)",
        "refused": "CDQA: 1 when it is a refusal",
        "f1_recall": "CDQA: its F1-recall",
    }),
    "annotations": TableDoc("journal entry (append-only): stale flag, verification, label, note, alias, undo", {
        "id": "row id (an undo's ref names it)",
        "ts": "when it was written (UTC, ISO 8601)",
        "author": "the annotator",
        "action": "mark, unmark, verify, undo; label, unlabel, note (labels); alias, unalias",
        **_JOURNAL_TARGET,
        "gold_text": "the gold answer the entry is about (aliases: the accepted answer)",
        "reason": "why (the note of a verify, label or note)",
        "proposed": "the answer proposed in place of a stale gold",
        "evidence": "a URL or text supporting it",
        "ref": "the entry an undo cancels (annotations.id)",
        "uid": "unique id: journals merge as a union by uid",
        "meta": "JSON: anything else the entry carries",
        "written_as": "the dataset's name when the entry was written",
        "dataset_fp": "the dataset's fingerprint when the entry was written",
        "run": "labels and notes: the run the label is about",
        "label": "labels: the error label",
        "label_source": "labels: hand, or category (accepted from the automatic category)",
    }),
    "settings": TableDoc("setting", {
        "key": "setting name (e.g. author:<system user>)",
        "value": "its value",
    }),
    "slices": TableDoc("saved item filter", {
        "name": "unique name",
        "filter": "JSON of the item-browser filter",
        "created_at": "when it was saved",
        "author": "who saved it",
    }),
    "overview_cache": TableDoc("the overview's grouped rows of a dataset (a cache)", {
        "dataset_id": "its dataset (datasets.id)",
        "slices": "0: each run's totals; 1: per slice",
        "stamp": "hash of what the sums are computed from: another stamp means computed again",
        "payload": "JSON: the sums, the item count, the longest id",
    }),
    "frame_columns": TableDoc("a run's facet and count arrays, per item of its dataset (a cache)", {
        "dataset_id": "its dataset (datasets.id)",
        "run_id": "its run (runs.id); 0: the dataset's item columns, shared by its runs",
        "name": "the array: `ids`, `errors`, a score, or `item:FACET` / `run:FACET` (value codes)",
        "stamp": "hash of what the arrays are read from: another stamp means read again",
        "dtype": "numpy dtype string of the array",
        "data": "the array's bytes",
        "vals": "JSON: the values the codes index (NULL for scores)",
    }),
    "passage_firsts": TableDoc("which passages of a dataset share one text (a cache)", {
        "dataset_id": "its dataset (datasets.id)",
        "stamp": "hash of what the pairs are computed from: another stamp means computed again",
        "pairs": "JSON: [context id, the first context id with the same text] where they differ",
    }),
    "delta_pairs": TableDoc("compared pair of runs (a cache)", {
        "id": "row id",
        "run_a": "run A (runs.id)",
        "run_b": "run B (runs.id)",
        "stamp": "hash of what Δ is computed from",
        "items": "items compared",
        "built_at": "when it was built",
    }),
    "delta_order": TableDoc("item of a compared pair, ordered by Δ (a cache)", {
        "pair_id": "the pair (delta_pairs.id)",
        "delta": "B − A",
        "item_id": "the item (items.id)",
    }),
    "items_fts": TableDoc("full-text index of questions and golds (FTS5 trigram)", {
        "question": "the question",
        "golds": "its gold answers",
    }),
    "predictions_fts": TableDoc("full-text index of prediction text (FTS5 trigram)", {
        "text": "the answer",
    }),
    "verdicts": TableDoc("judge verdict on a run's answer (imported, never computed)", {
        "run": "runs.name",
        "item_key": "items.key in the run's dataset",
        "judge": "the judge (an Inspect scorer's name, ...)",
        "verdict": "correct, incorrect or partial",
        "value": "0–1: 1 correct, 0 incorrect",
        "raw": "the verdict as the source wrote it ('C', '0.7', ...)",
        "rationale": "the judge's reasoning",
        "source": "files.path it was read from",
    }),
    "current_labels": TableDoc("label on a (run, item) now: derived from the journal, kept by triggers", {
        "run": "runs.name, as the label entries name it",
        "dataset": "the dataset the entries bind to (its name)",
        "item_key": "the item's stable id (items.key)",
        "label": "the error label",
        "entry_id": "the entry that decides it (annotations.id, a `label`)",
    }),
    "label_sets": TableDoc("labels of a (run, item) now, joined: derived from the journal, kept by triggers", {
        "run": "runs.name, as the label entries name it",
        "dataset": "the dataset the entries bind to (its name)",
        "item_key": "the item's stable id (items.key)",
        "labels": "its labels sorted and joined with ', ' (the label column's value)",
        "item_id": "the item's row (items.id) while it is loaded, else NULL",
    }),
}
"""Every table the migrations create, and each of its columns, in words."""
