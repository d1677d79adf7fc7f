"""Columns of the stored tables that both sides of the store name: the load writes them, queries read them."""

from __future__ import annotations

__all__ = ["DIMENSIONS", "FEATURE_COLUMNS"]

FEATURE_COLUMNS: tuple[str, ...] = (
    "question_type", "gold_length", "passage_length", "answer_position", "gold_count", "gold_agreement",
    "cross_sentence", "question_overlap",
)
"""The `items` columns holding `QuestionFeatures`, in its field order (`question_type` is never NULL
once computed: a NULL there marks an item whose features are still to be computed)."""

DIMENSIONS: tuple[str, ...] = ("split", "tag", "answer_type", "answerable")
"""Item labels that slice every report, in display order (`items` columns; fixed names: the only
way a column name enters SQL). `answerable` is set only where some question has no answer."""
