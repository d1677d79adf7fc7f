"""Scoring as pure functions (no I/O), checked against the official scorers' conformance files.

- `cmrc`: CMRC 2018 official EM/F1 (QUIRKS listed there); `segment`: its segmentation, cached,
  with raw offsets; `treebank`: NLTK 3.10's Treebank word tokenizer rules, carried (no `nltk`).
- `squad`: SQuAD v1.1 and v2.0 official EM/F1, HasAns/NoAns, no-answer thresholds (QUIRKS there).
- `cdqa`: CDQA F1-recall and refusals.
- `human`: human performance estimate from an item's golds.
- `align`: matched ranges in raw strings, for display.
- `caches`: the per-text caches of scoring and judgement, emptied together (`clear_score_caches`).
- `registry`: scorer names, defaults per dataset family, `score_prediction`, `aggregate`.
- `categories`: why a prediction is wrong, one error category each (`CATEGORIES` is the table);
  `question_features`: question type, length/position buckets, cross-sentence reasoning;
  `sentences`: Chinese and English sentence boundaries; `textnorm`: "written the same way";
  `equivalence`: how an answer relates to the golds (same, format, alias, superseded, partial,
  different), the one judgement categories, the review queue and adjudication ask;
  `samples`: many answers per item — pass@k (unbiased), majority vote, consistency.

Importing this package is cheap: jieba, OpenCC and cn2an load on first use, and NLTK never does.

May import: nothing of the project (the standard library, jieba, opencc and cn2an only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "CATEGORIES",
    "CATEGORY_CODES",
    "CDQA_F1_RECALL",
    "GOLD_LENGTHS",
    "PASSAGE_LENGTHS",
    "Category",
    "CategoryDef",
    "Equivalence",
    "RELATIONS",
    "Relation",
    "relation",
    "scorer_form",
    "wide_form",
    "QUESTION_TYPES",
    "QuestionFeatures",
    "category_and_relation",
    "error_category",
    "gold_length",
    "question_features",
    "question_type",
    "split_sentences",
    "HumanScore",
    "CMRC_OFFICIAL",
    "SCORERS",
    "SQUAD_V11",
    "SQUAD_V2",
    "RunItem",
    "ScoreRow",
    "aggregate",
    "aggregate_run",
    "answer_rate",
    "aggregate_human",
    "clear_score_caches",
    "default_scorer",
    "human_score",
    "metrics_of",
    "score_prediction",
    "uses_f1_recall",
    "SAMPLE_F1_THRESHOLD",
    "ItemRow",
    "ItemSamples",
    "SampleCounts",
    "SampleScore",
    "answer_groups",
    "pass_at_k",
    "pass_ks",
    "run_sample_metrics",
    "sample_correct",
    "summarise_item",
    "item_row",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .categories import (
        CATEGORIES,
        Category,
        CATEGORY_CODES,
        CategoryDef,
        category_and_relation,
        error_category,
    )
    from .equivalence import (
        Equivalence,
        relation,
        Relation,
        RELATIONS,
        scorer_form,
        wide_form,
    )
    from .human import (
        aggregate_human,
        human_score,
        HumanScore,
    )
    from .question_features import (
        gold_length,
        GOLD_LENGTHS,
        PASSAGE_LENGTHS,
        question_features,
        question_type,
        QUESTION_TYPES,
        QuestionFeatures,
    )
    from .caches import (
        clear_score_caches,
    )
    from .registry import (
        aggregate,
        aggregate_run,
        answer_rate,
        CDQA_F1_RECALL,
        CMRC_OFFICIAL,
        default_scorer,
        metrics_of,
        RunItem,
        score_prediction,
        ScoreRow,
        SCORERS,
        SQUAD_V11,
        SQUAD_V2,
        uses_f1_recall,
    )
    from .samples import (
        answer_groups,
        item_row,
        ItemRow,
        ItemSamples,
        pass_at_k,
        pass_ks,
        run_sample_metrics,
        SAMPLE_F1_THRESHOLD,
        sample_correct,
        SampleCounts,
        SampleScore,
        summarise_item,
    )
    from .sentences import (
        split_sentences,
    )

lazy_face(__name__)
