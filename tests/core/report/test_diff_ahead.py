"""Every slice's test computed beside the counts (`ahead_tests`): the rows a diff picks from them
are the numbers `diff_significance` computes after the diff, bit for bit (with and without a
scope, for CMRC and CDQA runs, either order); they are not used for other settings, other runs,
another scope or an adjudicated diff, and a slice they lack makes the diff compute its own."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from qa_inspect.core.query import Filter
from qa_inspect.core.report import (
    StatOptions,
    ahead_tests,
    comparison_arrays,
    diff_runs,
    diff_significance,
)

from tests.helpers import loaded_sample

OPTIONS = StatOptions(resamples=400)


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    c = loaded_sample(tmp_path_factory.mktemp("diff_ahead"), sample_runs)
    yield c
    c.close()


@pytest.mark.parametrize(("a", "b"), [("bert-base-chinese", "bidaf-baseline"), ("roberta-wwm-large", "bert-base-chinese"),
                                      ("qwen-7b-chat", "glm-6b"), ("glm-6b", "qwen-7b-chat")])
@pytest.mark.parametrize("scoped", [False, True])
def test_rows_picked_ahead_are_the_diffs_own(conn, a: str, b: str, scoped: bool) -> None:
    within = Filter(run=a, em=0) if scoped and not a.endswith(("chat", "6b")) else (
        Filter(run=a, refused=False) if scoped else None)
    d = diff_runs(conn, a, b, within=within)
    assert d.common > 0 and d.slices
    ahead = ahead_tests(conn, a, b, lambda n: OPTIONS, within=within)
    assert ahead is not None and len(ahead.tests.rows) >= len(d.slices)
    picked = diff_significance(conn, d, OPTIONS, ahead=ahead)
    computed = diff_significance(conn, d, OPTIONS)
    assert picked is not None and computed is not None
    assert picked.to_dict() == computed.to_dict()
    assert ahead.tests.for_slices([(s.dimension, s.value, s.metric) for s in d.slices],
                                  {o.criterion: (o.fixed, o.broken) for o in d.outcomes}) == picked


def test_tests_for_other_settings_runs_or_scope_are_not_used(conn, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = "bert-base-chinese", "bidaf-baseline"
    d = diff_runs(conn, a, b)
    ahead = ahead_tests(conn, a, b, OPTIONS)
    assert ahead is not None
    import qa_inspect.core.report.diff as diff_module

    computed: list[int] = []
    real = diff_module.pair_significance
    monkeypatch.setattr(diff_module, "pair_significance", lambda *args, **kw: computed.append(1) or real(*args, **kw))
    diff_significance(conn, d, OPTIONS, ahead=ahead)
    assert computed == []  # picked
    for other in (replace(ahead, run_a=b, run_b=a), replace(ahead, within=Filter(run=a, em=0))):
        diff_significance(conn, d, OPTIONS, ahead=other)
    diff_significance(conn, d, replace(OPTIONS, seed=OPTIONS.seed + 1), ahead=ahead)
    diff_significance(conn, replace(d, adjudicated=True), OPTIONS, ahead=ahead)
    assert len(computed) == 4  # each computed its own


def test_a_slice_not_tested_ahead_makes_the_diff_compute(conn) -> None:
    a, b = "qwen-7b-chat", "glm-6b"
    d = diff_runs(conn, a, b)
    ahead = ahead_tests(conn, a, b, OPTIONS)
    assert ahead is not None
    slices = [(s.dimension, s.value, s.metric) for s in d.slices]
    assert ahead.tests.for_slices([*slices, ("split", "no such split", "f1_recall")], {}) is None
    assert ahead.tests.for_slices([(dim, v, "em") for dim, v, _ in slices], {}) is None  # CDQA: no EM rows


def test_runs_a_diff_refuses_give_none(conn) -> None:
    assert ahead_tests(conn, "glm-6b", "glm-6b", OPTIONS) is None
    assert ahead_tests(conn, "glm-6b", "bert-base-chinese", OPTIONS) is None  # other datasets


def test_passages_are_read_once_per_data_stamp(conn, monkeypatch: pytest.MonkeyPatch) -> None:
    """Computed (and stored) by the first comparison; the next reads the memo, a new process
    (the memo empty) the stored row."""
    import qa_inspect.core.report.diff_ahead as ahead_module

    reads: list[int] = []
    real = ahead_module.passage_ids
    conn.execute("DELETE FROM passage_firsts")
    if conn.in_transaction:
        conn.commit()
    monkeypatch.setattr(ahead_module, "_PASSAGES", {})
    monkeypatch.setattr(ahead_module, "passage_ids", lambda c, ds: reads.append(ds) or real(c, ds))
    first = ahead_tests(conn, "bert-base-chinese", "bidaf-baseline", OPTIONS)
    again = ahead_tests(conn, "bidaf-baseline", "bert-base-chinese", OPTIONS)  # swapped: the same passages
    assert first is not None and again is not None and len(reads) == 1
    assert first.tests.unit == again.tests.unit and first.tests.units == again.tests.units
    monkeypatch.setattr(ahead_module, "_PASSAGES", {})
    third = ahead_tests(conn, "bert-base-chinese", "roberta-wwm-large", OPTIONS)
    assert third is not None and len(reads) == 1 and third.tests.units == first.tests.units


@pytest.mark.parametrize(("a", "b"), [("bert-base-chinese", "bidaf-baseline"), ("glm-6b", "qwen-7b-chat")])
@pytest.mark.parametrize("scoped", [False, True])
def test_tests_on_the_counts_arrays_are_the_same(conn, a: str, b: str, scoped: bool) -> None:
    """On the arrays the counts read too (`comparison_arrays`: every score and category) every
    row is the one `ahead_tests` computes reading its own, bit for bit."""
    within = Filter(run=a, refused=False) if scoped else None
    shared = ahead_tests(conn, a, b, OPTIONS, within=within, arrays=comparison_arrays(conn, a, b, within=within))
    own = ahead_tests(conn, a, b, OPTIONS, within=within)
    assert shared is not None and own is not None
    assert shared.tests == own.tests
