"""The item browser's filter keys: `f` (the filter dialog), `r` (the run), `C` (run B's columns),
`d` (only disagreements), `w` (only wrong answers), `o` / `O` (sort), `x` (clear), and the runs
the compare screen hands back (`b` there). Each works out
a new filter — plain functions of the old one — and hands it to the screen (`apply`)."""

from __future__ import annotations

from collections.abc import Callable

from qa_inspect.core.query import Filter, is_cdqa
from qa_inspect.core.report import BrowseInfo

from ..base import BaseScreen
from ..dialogs import FilterScreen, RunPicker
from ..widgets import Col


def with_run(f: Filter, run: str, info: BrowseInfo | None) -> Filter:
    """Show `run`: not compared with itself; a run of another dataset drops the label filters."""
    compare = None if f.compare == run else f.compare
    keep = dict(splits=(), tags=(), answer_types=()) if info is None or run not in info.runs else {}
    return f.with_(run=run, compare=compare, dataset=None, **keep)


def with_compare(f: Filter, run: str) -> Filter:
    """Run B's columns (`""`: none); only-disagree needs a run B."""
    value = None if run == "" else run
    return f.with_(compare=value, only_disagree=f.only_disagree and bool(value))


def with_pair(f: Filter, compared: Filter) -> Filter:
    """Runs A and B as the compare screen left them (`b`); the outcome filters of another pair go."""
    new = f.with_(run=compared.run, compare=compared.compare)
    if (new.run, new.compare) != (f.run, f.compare):
        new = new.with_(outcome=None, outcome_threshold=None, only_disagree=False)
    return new


def errors_toggled(f: Filter, info: BrowseInfo | None) -> Filter:
    """Only wrong answers, or all items: EM 0 (CDQA: F1-recall below 1, refusals included)."""
    if info is not None and is_cdqa(info.scorer, info.family):
        return f.with_(f1_max=None if f.f1_max is not None else 0.999999, refused=None)
    return f.with_(em=None if f.em == 0 else 0)


def sorted_by(f: Filter, sort: str) -> Filter:
    """Sort by `sort`; the same column again reverses."""
    return f.with_(sort=sort, descending=not f.descending if sort == f.sort else False)


def cleared(f: Filter) -> Filter:
    """Every filter off but the dataset, the runs and the sort."""
    return Filter(dataset=f.dataset, run=f.run, compare=f.compare, sort=f.sort, descending=f.descending)


class FilterKeys:
    """The dialogs behind the keys; `current`, `info` and `apply` are the screen's."""

    def __init__(self, host: BaseScreen, current: Callable[[], Filter], info: Callable[[], BrowseInfo | None],
                 apply: Callable[[Filter], None]) -> None:
        self.host = host
        self.current = current
        self.info = info
        self.apply = apply

    def _apply_if(self, f: Filter | None) -> None:
        if f is not None:
            self.apply(f)

    def filters(self) -> None:
        self.host.app.push_screen(FilterScreen(self.current()), self._apply_if)

    def choose_run(self) -> None:
        def done(run: str | None) -> None:
            if run and run != self.current().run:
                self.apply(with_run(self.current(), run, self.info()))

        self.host.app.push_screen(RunPicker("Show run", self.current().run, None), done)

    def choose_compare(self) -> None:
        info, f = self.info(), self.current()
        if info is None:
            return
        others = [r for r in info.runs if r != f.run]
        if not others:
            self.host.notify("No other run on this dataset to compare with.", severity="warning")
            return

        def done(run: str | None) -> None:
            if run is not None:
                self.apply(with_compare(self.current(), run))

        self.host.app.push_screen(RunPicker("Compare with", f.compare, others, allow_none=True), done)

    def toggle_disagree(self) -> None:
        f = self.current()
        if not f.compare:
            self.host.notify("Disagreement needs a run B: press C to add its columns.", severity="warning")
            return
        self.apply(f.with_(only_disagree=not f.only_disagree))

    def choose_sort(self, cols: list[Col]) -> None:
        choices = [c.sort for c in cols if c.sort]
        labels = {c.sort: c.label for c in cols if c.sort}

        def done(sort: str | None) -> None:
            if sort:
                self.apply(sorted_by(self.current(), sort))

        self.host.app.push_screen(RunPicker("Sort by (again: reverse)", self.current().sort, choices, labels=labels),
                                  done)


__all__ = ["FilterKeys", "cleared", "errors_toggled", "sorted_by", "with_compare", "with_pair", "with_run"]
