"""A dataset split into several files: a run that leaves predictions unscored that another file's
items would take says so, whatever its coverage, in place of the low-coverage question."""

from __future__ import annotations

from qa_inspect.core.load.matching import LOW_COVERAGE, DatasetIndex, link_run
from qa_inspect.core.model import Prediction, Run


def _index(ids: range) -> DatasetIndex:
    return DatasetIndex(frozenset(f"A{i}" for i in ids), frozenset())


def _run(ids: range) -> Run:
    predictions = [Prediction(f"A{i}", "id", "x", None, [], {}, n) for n, i in enumerate(ids, start=1)]
    return Run(name="r", path="r.json", format="prediction-map", predictions=predictions, model=None)


def test_the_larger_half_is_chosen_and_the_other_half_named() -> None:
    indexes = {"d1": _index(range(0, 5609)), "d2": _index(range(5609, 10570))}
    link = link_run(_run(range(10570)), indexes)
    assert link.dataset == "d1" and link.run_coverage > LOW_COVERAGE  # no coverage warning would fire
    assert link.warnings == ("4,961 predictions match no item of 'd1'; 4,961 of them are items of 'd2' — split "
                             'dataset? [[run]] path = "r.json", dataset = ["d1", "d2"] in qa-inspect.toml scores it '
                             "against each",)


def test_three_files_are_named_by_how_many_they_take_and_replace_the_coverage_warning() -> None:
    indexes = {"p1": _index(range(0, 4)), "p2": _index(range(4, 9)), "p3": _index(range(9, 12))}
    link = link_run(_run(range(12)), indexes, prefer="p1", path="r.json")
    assert len(link.warnings) == 1
    assert "8 predictions match no item of 'p1'; 5 of them are items of 'p2', 3 of them are items of 'p3'" \
        in link.warnings[0]


def test_strays_no_other_file_takes_are_not_a_split() -> None:
    indexes = {"d1": _index(range(0, 10)), "d2": _index(range(100, 110))}
    link = link_run(_run(range(0, 12)), indexes)
    assert link.dataset == "d1" and link.warnings == ()
