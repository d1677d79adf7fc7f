"""The item browser's filter keys: `f` (the filter dialog), `r` (the run), `C` (run B's columns),
`d` (only disagreements), `w` (only wrong answers), `o` / `O` (sort), `x` (clear), and the runs
the compare screen hands back (`b` there). Each works out
a new filter — plain functions of the old one — and hands it to the screen (`apply`)."""

from __future__ import annotations

from collections.abc import Callable

from qa_inspect.core.metrics import default_scorer
from qa_inspect.core.query import Filter, convert_filter, errors_only, for_other_dataset, shows_errors_only
from qa_inspect.core.report import BrowseInfo

from ..base import BaseScreen
from ..dialogs import FilterScreen, RunPicker
from ..widgets import Col


def with_run(f: Filter, run: str, info: BrowseInfo | None) -> Filter:
    """Show `run`, not compared with itself; what the rest means there `moved` works out once the
    run's dataset and scorer are known."""
    compare = None if f.compare == run else f.compare
    return f.with_(run=run, compare=compare, dataset=None)


def scorer_of(info: BrowseInfo | None) -> str | None:
    """The scorer of the run the browser shows (the dataset's default when none is stored)."""
    if info is None or info.scorer:
        return info.scorer if info is not None else None
    try:
        return default_scorer(info.family)
    except ValueError:
        return None


def moved(f: Filter, old: BrowseInfo | None, new: BrowseInfo) -> tuple[Filter, list[str]]:
    """`f` on a newly loaded run (`new`) after `old`'s: another dataset's values and runs go, and
    every score part means what the new scorer says (`core.query.convert_filter`); each change said."""
    if old is None:
        return f, []
    notes: list[str] = []
    if new.dataset != old.dataset:
        f, notes = for_other_dataset(f)
    f, converted = convert_filter(f, scorer_of(old), scorer_of(new))
    return f, notes + converted


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
    scorer = scorer_of(info)
    return errors_only(f, scorer, not shows_errors_only(f, scorer))


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

    def arrived(self, f: Filter, old: BrowseInfo | None, new: BrowseInfo) -> Filter:
        """`f` as it means on the run just loaded (`moved`), its dataset filled in; a toast names
        every part converted or dropped."""
        f, notes = moved(f, old, new)
        if f.dataset is None and new.dataset:
            f = f.with_(dataset=new.dataset)
        if notes:
            self.host.notify("Filter on this run: " + "; ".join(notes) + ".", timeout=8, markup=False)
            self.host.qa_app.remember_filter(f)
        return f

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


__all__ = ["FilterKeys", "cleared", "errors_toggled", "moved", "scorer_of", "sorted_by", "with_compare", "with_pair",
           "with_run"]
