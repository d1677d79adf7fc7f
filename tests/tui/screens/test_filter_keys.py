"""The browser's filter keys as plain functions of the filter: what each key makes of it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from qa_inspect.core.query import Filter
from qa_inspect.core.report import BrowseInfo
from qa_inspect.tui.screens.filter_keys import (
    cleared,
    errors_toggled,
    moved,
    sorted_by,
    with_compare,
    with_pair,
    with_run,
)

CMRC = BrowseInfo(dataset="cmrc", family="cmrc2018", scorer="cmrc2018-official", items=3, runs=["a", "b"])
CDQA = BrowseInfo(dataset="cdqa", family="cdqa", scorer="cdqa-f1-recall", items=3, runs=["x", "y"])


def test_w_twice_gives_the_filter_back_for_either_metric() -> None:
    f = Filter(dataset="cmrc", run="a")
    wrong = errors_toggled(f, CMRC)
    assert wrong.em == 0 and errors_toggled(wrong, CMRC) == f
    g = Filter(dataset="cdqa", run="x", refused=True)
    below = errors_toggled(g, CDQA)
    assert below.f1_max is not None and below.f1_max < 1 and below.refused is None and below.em is None
    assert errors_toggled(below, CDQA).f1_max is None


@given(st.sampled_from(["key", "em", "f1", "question"]), st.sampled_from(["key", "em", "f1", "question"]),
       st.booleans())
def test_a_column_sorts_ascending_and_again_reverses(first: str, second: str, descending: bool) -> None:
    f = Filter(sort=first, descending=descending)
    again = sorted_by(f, second)
    assert again.sort == second
    assert again.descending == ((not descending) if second == first else False)


def test_a_run_of_another_dataset_drops_the_label_filters_and_is_never_compared_with_itself() -> None:
    f = Filter(dataset="cmrc", run="a", compare="b", splits=("dev",), tags=("t",))
    same = with_run(f, "b", CMRC)
    assert same.run == "b" and same.compare is None and same.splits == ("dev",) and same.dataset is None
    assert moved(same, CMRC, CMRC) == (same, [])
    other, notes = moved(with_run(f, "x", CMRC), CMRC, CDQA)
    assert other.run == "x" and other.compare is None and other.splits == () and other.tags == ()
    assert len(notes) == 3 and any("vs b" in n for n in notes), notes


def test_w_then_another_scorers_run_keeps_wrong_only_and_w_again_clears_it() -> None:
    wrong = errors_toggled(Filter(dataset="cmrc", run="a"), CMRC)
    there, notes = moved(with_run(wrong, "x", CMRC), CMRC, CDQA)
    assert there.em is None and there.f1_max is not None and notes
    assert errors_toggled(there, CDQA).f1_max is None and errors_toggled(there, CDQA).em is None
    back, _ = moved(with_run(there, "a", CDQA), CDQA, CMRC)
    assert back.em == 0 and back.f1_max is None


def test_no_run_b_means_no_disagreement_filter() -> None:
    f = Filter(run="a", compare="b", only_disagree=True)
    assert with_compare(f, "").compare is None and not with_compare(f, "").only_disagree
    assert with_compare(f, "c") == f.with_(compare="c")


def test_clear_keeps_dataset_runs_and_sort_only() -> None:
    f = Filter(dataset="cmrc", run="a", compare="b", sort="f1", descending=True, em=0, search="x", splits=("dev",))
    assert cleared(f) == Filter(dataset="cmrc", run="a", compare="b", sort="f1", descending=True)


def test_the_pair_from_the_compare_screen_keeps_the_filter_and_drops_another_pairs_outcome() -> None:
    f = Filter(dataset="cmrc", run="a", compare="b", outcome="fixed", only_disagree=True, em=0)
    assert with_pair(f, Filter(run="a", compare="b")) == f
    swapped = with_pair(f, Filter(run="b", compare="a"))
    assert (swapped.run, swapped.compare, swapped.outcome, swapped.only_disagree) == ("b", "a", None, False)
    assert swapped.em == 0
