"""A filter moved from one scorer's run to another's: what each part means there, or why it goes.

The browser keeps its filter when the user switches run; a CMRC run's "EM 0" means nothing on a
CDQA run (whose predictions have no EM: the clause would select every item). `convert_filter` is
the one rule that turns each score part of a filter into the new scorer's meaning — "wrong" and
"right" as the new scorer says them — or drops it and says which, so a chip always describes the
rows shown. It is pure: the browser, the command line and tests call the same function.
"""

from __future__ import annotations

from qa_inspect.core.metrics import CATEGORIES, uses_f1_recall

from .filters import Filter

__all__ = ["RIGHT_MIN", "WRONG_MAX", "convert_filter", "errors_only", "for_other_dataset", "shows_errors_only"]

WRONG_MAX = 0.999999
"""An F1-recall scorer's "wrong": a score below 1 (refusals included, they score 0)."""
RIGHT_MIN = 1.0
"""An F1-recall scorer's "right": the full score."""


def _recall(scorer: str | None) -> bool:
    """Whether `scorer` gives F1-recall and refusals (CDQA) rather than EM and F1 (span readers)."""
    return uses_f1_recall(scorer)


def shows_errors_only(f: Filter, scorer: str | None) -> bool:
    """Whether `f` is "wrong answers only" as `scorer` says it (what `w` toggles)."""
    if _recall(scorer):
        return f.f1_max == WRONG_MAX and f.f1_min is None
    return f.em == 0


def errors_only(f: Filter, scorer: str | None, on: bool) -> Filter:
    """`f` with only wrong answers (`on`) or without that restriction: EM 0 for span scorers,
    F1-recall below 1 (refusals included) for F1-recall scorers. The one definition `w` uses."""
    if _recall(scorer):
        return f.with_(f1_max=WRONG_MAX, refused=None) if on else f.with_(f1_max=None)
    return f.with_(em=0 if on else None)


def _span_to_recall(f: Filter, dropped: list[str]) -> Filter:
    """EM becomes the F1-recall range it means; a refusal filter stays (span runs never refuse)."""
    if f.em is None:
        return f
    lo, hi = f.f1_min, f.f1_max
    if f.em == 0:
        hi = WRONG_MAX if hi is None else min(hi, WRONG_MAX)
        dropped.append("EM 0 → score below 1 (F1-recall)")
    else:
        lo = RIGHT_MIN if lo is None else max(lo, RIGHT_MIN)
        dropped.append("EM 1 → score 1 (F1-recall)")
    return f.with_(em=None, f1_min=lo, f1_max=hi)


def _recall_to_span(f: Filter, dropped: list[str]) -> Filter:
    """"Wrong" and "right" as F1-recall said them become EM 0 / EM 1; other ranges are F1 ranges
    (the chip says "score": the new scorer's score); "refused" selects nothing on a span run."""
    if f.em is None and f.f1_min is None and f.f1_max == WRONG_MAX:
        f = f.with_(em=0, f1_max=None)
        dropped.append("score below 1 → EM 0")
    elif f.em is None and f.f1_max is None and f.f1_min == RIGHT_MIN:
        f = f.with_(em=1, f1_min=None)
        dropped.append("score 1 → EM 1")
    if f.refused:
        f = f.with_(refused=None)
        dropped.append("refused dropped: span scorers have no refusals")
    return f


def _facets_for(f: Filter, recall: bool, dropped: list[str]) -> Filter:
    """Error categories the new scorer never gives are dropped (a span run is never `partial`)."""
    kind = "llm" if recall else "span"
    allowed = {c.code for c in CATEGORIES if c.runs in ("all", kind)}
    kept: list[tuple[str, str]] = []
    for name, value in f.facets:
        if name == "error_category" and value not in allowed:
            dropped.append(f"error category {value} dropped: the new scorer never gives it")
            continue
        if name == "refused" and not recall and value == "1":
            dropped.append("refused dropped: span scorers have no refusals")
            continue
        kept.append((name, value))
    return f if len(kept) == len(f.facets) else f.with_(facets=tuple(kept))


def convert_filter(f: Filter, from_scorer: str | None, to_scorer: str | None) -> tuple[Filter, list[str]]:
    """`f`, written for runs scored by `from_scorer`, as it means on runs scored by `to_scorer`, and
    one short sentence per part that was converted or dropped (the browser toasts them). Scorers of
    one family (CMRC and SQuAD both give EM and F1) change nothing."""
    dropped: list[str] = []
    before, after = _recall(from_scorer), _recall(to_scorer)
    if before == after:
        return f, dropped
    out = _span_to_recall(f, dropped) if after else _recall_to_span(f, dropped)
    out = _facets_for(out, after, dropped)
    if out.outcome is not None and out.outcome_threshold is None and after:
        out = out.with_(outcome_threshold=RIGHT_MIN)  # "right" = EM 1 means nothing without EM
        dropped.append("outcome by EM → by score ≥ 1")
    return out, dropped


def for_other_dataset(f: Filter) -> tuple[Filter, list[str]]:
    """`f` on a run of another dataset: the parts that name the old dataset's values or items
    (splits, tags, answer types, a list of item keys, the compared run and what it filters) go,
    each said; the rest (scores, search, flags, item features) means the same there."""
    dropped: list[str] = []
    changes: dict[str, object] = {}
    for label, name in (("split", "splits"), ("tag", "tags"), ("type", "answer_types")):
        if getattr(f, name):
            changes[name] = ()
            dropped.append(f"{label} {','.join(getattr(f, name))} dropped: a value of the other dataset")
    if f.keys is not None:
        changes["keys"] = None
        dropped.append("only the listed items dropped: items of the other dataset")
    if f.compare is not None:
        changes.update(compare=None, only_disagree=False, outcome=None, outcome_threshold=None, bands=None)
        with_it = [w for w, on in (("disagree", f.only_disagree), ("outcome", f.outcome), ("score band", f.bands)) if on]
        also = f" with its {', '.join(with_it)} filter" if with_it else ""
        dropped.append(f"vs {f.compare}{also} dropped: a run of the other dataset")
    return (f.with_(**changes) if changes else f), dropped
