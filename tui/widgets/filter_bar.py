"""One line naming what the item table shows: run, comparison and every active filter."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from qa_inspect.core.query import FACETS, WRONG_MAX, Filter, judge_facet

from ..present import plural
from ..text import clean, truncate


def describe(f: Filter) -> list[tuple[str, str]]:
    """(label, value) for every part of a filter that narrows or orders the items."""
    out: list[tuple[str, str]] = []
    if f.run:
        out.append(("run", f.run))
    elif f.dataset:
        out.append(("dataset", f.dataset))
    if f.compare:
        out.append(("vs", f.compare + (" · disagree" if f.only_disagree else "")))
    for label, values in (("split", f.splits), ("tag", f.tags), ("type", f.answer_types)):
        if values:
            out.append((label, ",".join(values)))
    if f.refused is not None:
        out.append(("", "refused" if f.refused else "answered"))
    if f.em is not None:
        out.append(("EM", str(f.em)))
    if f.f1_min is None and f.f1_max == WRONG_MAX:  # `w` on an F1-recall run: said as the rule, not a number
        out.append(("score", "below 1"))
    elif f.f1_min is not None or f.f1_max is not None:
        lo = "0" if f.f1_min is None else f"{f.f1_min:g}"
        hi = "1" if f.f1_max is None else f"{f.f1_max:g}"
        out.append(("score", f"{lo}–{hi}"))
    if f.stale is not None:
        out.append(("", "stale" if f.stale else "not stale"))
    if f.has_proposal is not None:
        out.append(("", "has proposal" if f.has_proposal else "no proposal"))
    if f.search.strip():
        out.append(("search", f.search.strip()))
    if getattr(f, "expression", "").strip():  # the expression filter (`|`)
        out.append(("where", f.expression.strip()))
    facets = getattr(f, "facets", ())  # set by saved slices / the run diff (core.facets)
    grouped: dict[str, list[str]] = {}
    for name, value in facets:
        grouped.setdefault(str(name), []).append(str(value))
    for name, chosen in grouped.items():  # values of one facet are OR-ed: one chip
        d = FACETS.get(name) or judge_facet(name)
        out.append((d.label if d is not None else name, ",".join(chosen)))
    keys = getattr(f, "keys", None)  # a listed set of items (the release diff's golds changed)
    if keys is not None:
        out.append(("only", plural(len(keys), "listed item")))
    outcome = getattr(f, "outcome", None)
    if outcome:
        t = getattr(f, "outcome_threshold", None)
        by = "by EM" if t is None else f"by score ≥ {t * 100:g}"  # the compare table's row (scores read 0–100)
        out.append(("outcome", f"{str(outcome).replace('_', ' ')} {by}"))
    bands = getattr(f, "bands", None)
    if bands:  # a cell of the distribution view's A-vs-B score grid
        out.append(("score band", f"A {bands[0]} · B {bands[1]}"))
    return out


class FilterBar(Static):
    """Chips for the active filter; clicking it opens the filter dialog."""

    DEFAULT_CSS = """
    FilterBar { height: 1; padding: 0 1; background: $panel; color: $foreground; }
    """

    def show(self, f: Filter, width: int) -> None:
        parts: list[Content | tuple[str, str] | str] = []
        for label, value in describe(f):
            if parts:
                parts.append(("  ", ""))
            if label:
                parts.append((f"{label} ", "$foreground-muted"))
            parts.append((truncate(clean(value), 40), "bold $accent"))
        if len(describe(f)) <= 1 + int(bool(f.compare)):
            parts.append(("   f filters · / search · w wrong only · ^f facets", "$foreground-muted"))
        self.update(Content.assemble(*parts))

    async def on_click(self) -> None:
        await self.app.run_action("screen.filters")  # a coroutine: not awaited, the click did nothing
