"""The item browser's filter: one immutable value every query, slice and comparison is built from."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

__all__ = ["OUTCOMES", "SORTS", "Filter"]

SORTS: dict[str, str] = {
    "key": "i.id",
    "split": "i.split",
    "tag": "i.tag",
    "answer_type": "i.answer_type",
    "question": "i.question",
    "prediction": "p.text",
    "em": "p.em",
    "f1": "p.f1",
    "f1_recall": "p.f1_recall",
    "refused": "p.refused",
    "stale": "stale",  # expanded by order_clause
    "delta": "delta",  # expanded by order_clause (needs a compare run): B − A, as `qa-inspect diff` reports
}
"""Sortable columns: name → SQL expression (the only way a column name enters SQL)."""

@dataclass(frozen=True, slots=True)
class Filter:
    """What the item browser shows; immutable so a worker can hold one safely."""

    dataset: str | None = None
    run: str | None = None
    splits: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    answer_types: tuple[str, ...] = ()
    refused: bool | None = None
    em: int | None = None
    f1_min: float | None = None
    f1_max: float | None = None
    stale: bool | None = None
    has_proposal: bool | None = None
    search: str = ""
    compare: str | None = None
    only_disagree: bool = False
    sort: str = "key"
    descending: bool = False
    facets: tuple[tuple[str, str], ...] = ()
    """(facet name, value) pairs from `core.facets` (length buckets, question word …): values of
    one facet are OR-ed, different facets AND-ed."""
    outcome: str | None = None
    """With `compare`: one cell of the run diff (`OUTCOMES`), on items both runs answer; run = A,
    compare = B, so "fixed" = the run wrong and the compare run right. Matches nothing without
    `compare`."""
    outcome_threshold: float | None = None
    """How `outcome` judges right: None = EM 1; a number = F1 (F1-recall for CDQA) ≥ it, refusals wrong."""
    keys: tuple[str, ...] | None = None
    """Only the items with these keys (a release diff's "golds changed", `core.query.gold_changed_keys`);
    None = no such restriction, () = no item."""
    bands: tuple[str, str] | None = None
    """With `compare`: one cell of the A-vs-B score grid, (A's band, B's band) named in
    `core.query.sql.BANDS`, on items both runs predicted (a refusal scores 0). Matches nothing
    without `compare`."""
    expression: str = ""
    """An expression over the item columns (`core.query.expression`), AND-ed with the rest."""

    def with_(self, **changes: Any) -> Filter:
        return replace(self, **changes)

    def same_items(self, other: Filter) -> bool:
        """Whether both select the same items (their order aside)."""
        return self.with_(sort="key", descending=False) == other.with_(sort="key", descending=False)

    def to_dict(self) -> dict[str, Any]:
        """The fields that differ from the defaults, JSON-ready (tuples become lists)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value != f.default:
                out[f.name] = [list(v) if isinstance(v, tuple) else v for v in value] if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Filter:
        """Inverse of `to_dict`; unknown keys (from a newer qa-inspect) are ignored; a value of the
        wrong type (a hand-edited slice) is a ValueError naming the field."""
        known = {f.name for f in fields(cls)}
        kwargs: dict[str, Any] = {}
        for name, value in data.items():
            if name not in known:
                continue
            if isinstance(value, list):
                value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
            kwargs[name] = value
        for name, value in kwargs.items():
            _check_field(name, value)
        if kwargs.get("facets"):
            kwargs["facets"] = _current_facets(kwargs["facets"])
        if kwargs.get("expression"):  # a hand-edited slice: the expression must read
            from .expression import expression_sql

            expression_sql(kwargs["expression"], [])
        return cls(**kwargs)


def _current_facets(facets: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """Saved before schema 7, the question-word facet held the word itself (谁, 多少); it now holds
    the question type the word asks (who, how-many): a saved slice keeps selecting the same questions."""
    from qa_inspect.core.metrics import QUESTION_TYPES, question_type

    out = []
    for name, value in facets:
        if name == "qword" and value not in QUESTION_TYPES:
            value = question_type(value)
        if (name, value) not in out:
            out.append((name, value))
    return tuple(out)


OUTCOMES: tuple[str, ...] = ("fixed", "broken", "both_wrong", "both_right")
"""Cells of a run diff: A wrong → B right, A right → B wrong, both wrong, both right."""


_TEXTS = ("splits", "tags", "answer_types")
_FLAGS = ("refused", "stale", "has_proposal", "only_disagree", "descending")
_NUMBERS = ("f1_min", "f1_max", "outcome_threshold")
_STRINGS = ("dataset", "run", "search", "compare", "sort", "outcome", "expression")


def _check_field(name: str, value: Any) -> None:
    """ValueError unless `value` has the type field `name` holds (None allowed where it is)."""
    ok: bool
    if name in _TEXTS:
        ok = isinstance(value, tuple) and all(isinstance(v, str) for v in value)
    elif name in _FLAGS:
        ok = value is None or isinstance(value, bool)
    elif name in _NUMBERS:
        ok = value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == value)
    elif name in _STRINGS:
        ok = value is None or isinstance(value, str)
    elif name == "keys":
        ok = value is None or isinstance(value, tuple) and all(isinstance(v, str) for v in value)
    elif name == "bands":
        ok = value is None or (isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, str) for v in value))
    elif name == "em":
        ok = value is None or value in (0, 1) and not isinstance(value, bool)
    else:  # facets: (name, value) pairs
        ok = isinstance(value, tuple) and all(isinstance(v, tuple) and len(v) == 2 for v in value)
    if not ok:
        raise ValueError(f"{name} = {value!r} is not a valid value")
