"""How numbers and names look on screen and in the terminal: the one rule for each.

Every command, widget and dialog formats figures through these functions, so a p-value reads
"<0.001" everywhere, a count carries thousands separators everywhere and "1 item" never reads
"1 items". They return plain strings (a widget wraps them in a `Text` with its own style): this
module imports nothing but the standard library, so the command line loads it without Rich or
Textual. Markdown cells are core's rule (`core.query.markdown_cell`): exports write them too.
"""

from __future__ import annotations

import math

__all__ = [
    "DIMENSION_NAMES",
    "MISSING",
    "P_FLOOR",
    "SLICE_FINDER",
    "count",
    "dimension_name",
    "interval",
    "noun",
    "number",
    "p_value",
    "percent",
    "plural",
    "share",
    "signed",
]

MISSING = "—"
"""What a figure that is not there (not computed, not applicable) shows as."""

P_FLOOR = 0.001
"""p-values below this print as "<0.001": more digits would claim a precision resampling lacks."""

SLICE_FINDER = "slice finder"
"""The feature's one name (sentence case at the start of a line: `SLICE_FINDER.capitalize()`)."""

DIMENSION_NAMES: dict[str, str] = {
    "split": "split",
    "tag": "tag",
    "answer_type": "answer type",
    "answerable": "answerable",
    "refused": "refused",
    "stale": "stale",
    "pred_len": "prediction length",
    "gold_len": "gold length",
    "gold_length": "gold length",
    "passage_length": "passage length",
    "error_category": "error category",
    "qword": "question type",
    "question_type": "question type",
    "answer_position": "answer position",
    "cross_sentence": "cross-sentence",
    "question_overlap": "question overlap",
    "gold_count": "gold count",
    "gold_agreement": "gold agreement",
    "label": "label",
    "pass_band": "pass rate",
    "distinct_answers": "distinct answers",
    "flaky": "flaky",
    "overall": "overall",
    "em": "EM",
    "f1": "F1",
    "f1_recall": "F1-recall",
    "answer_rate": "answer rate",
    "em_hasans": "HasAns EM",
    "f1_hasans": "HasAns F1",
    "em_noans": "NoAns EM",
    "f1_noans": "NoAns F1",
    "item_share": "item share",
    "error_share": "error share",
}
"""Internal names of dimensions, facets and metrics (`qword`, `gold_len`, `f1_recall`) → the words a
person reads. Facet names agree with `core.query.FACETS` labels (a test holds them together)."""


def dimension_name(name: str) -> str:
    """The human name of a dimension, facet or metric; an unlisted one with its underscores as spaces."""
    return DIMENSION_NAMES.get(name, name.replace("_", " "))


def _known(value: float | None) -> float | None:
    """The value, or None when missing or not a number (NaN): both show as —."""
    return None if value is None or math.isnan(value) else value


def number(value: float | None, places: int = 1) -> str:
    """A figure to `places` decimals (never "-0.0"); — when missing."""
    v = _known(value)
    if v is None:
        return MISSING
    return f"{v if round(v, places) != 0 else 0.0:.{places}f}"


def percent(value: float | None, places: int = 1) -> str:
    """A value already on 0–100 with a % sign ("45.3%"); — when missing."""
    v = _known(value)
    return MISSING if v is None else number(v, places) + "%"


def share(fraction: float | None, places: int = 0) -> str:
    """A fraction of one (0.453) as a percentage ("45%"); — when missing."""
    v = _known(fraction)
    return MISSING if v is None else percent(100 * v, places)


def signed(delta: float | None, places: int = 2) -> str:
    """A change with its sign ("+0.50", "-1.25"; zero as "+0.00", never "-0.00"); — when missing."""
    v = _known(delta)
    if v is None:
        return MISSING
    return f"{v if round(v, places) != 0 else 0.0:+.{places}f}"


def interval(low: float | None, high: float | None, places: int = 2, *, sign: bool = False) -> str:
    """An interval as "[low, high]" (each signed when `sign`: intervals of a change); — when missing."""
    lo, hi = _known(low), _known(high)
    if lo is None or hi is None:
        return MISSING
    fmt = signed if sign else number
    return f"[{fmt(lo, places)}, {fmt(hi, places)}]"


def p_value(p: float | None, *, mark: bool = False) -> str:
    """A p-value to 3 places, "<0.001" below that, "*" after it when `mark` (significant); — when
    not tested. The one rule for p in the CLI, the app and written tables."""
    v = _known(p)
    if v is None:
        return MISSING
    text = "<0.001" if v < P_FLOOR else f"{min(v, 1.0):.3f}"
    return text + ("*" if mark else "")


def count(n: int | None) -> str:
    """A count with thousands separators ("12,345"); — when missing."""
    return MISSING if n is None else f"{n:,}"


_IRREGULAR = {"query": "queries", "category": "categories", "entry": "entries", "passage": "passages", "is": "are",
              "was": "were", "has": "have", "this": "these", "it": "they"}


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 item", "2 items", "1,000 items": a count with the word in the form it takes (`many` for an
    irregular plural not listed here)."""
    return f"{n:,} {noun(n, word, many)}"


def noun(n: int, word: str, many: str | None = None) -> str:
    """The form of `word` that goes with a count of `n` ("item", "items"): for a count styled apart."""
    return word if n == 1 else many or _plural(word)


def _plural(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"
