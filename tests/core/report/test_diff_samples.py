"""`sample_diff` (the samples' side of a run diff): pass@1 over the items both runs answer, the
items that became flaky or stable, their keys and the browser filter of each list; nothing at
all for runs of one answer per item."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from fractions import Fraction

import pytest
from qa_inspect.core import query
from qa_inspect.core.load import load_runs
from qa_inspect.core.metrics.squad import normalize_answer
from qa_inspect.core.query import Filter
from qa_inspect.core.report import SAMPLE_CHANGES, diff_runs, sample_change_filter, sample_change_keys, sample_diff
from qa_inspect.core.store import open_db

from tests.diff_samples_data import B_ANSWERS, diff_samples_folder
from tests.sampled_runs import ANSWERS, GOLDS


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    runs = diff_samples_folder(tmp_path_factory.mktemp("diff_samples"))
    assert not load_runs(runs).errors
    db = open_db(runs / ".qa-inspect" / "qa.db")
    yield db.conn
    db.conn.close()


def _right(text: str, gold: str) -> bool:
    """EM under the dataset's scorer (SQuAD v1.1: "Quick brown fox." is right)."""
    return normalize_answer(text) == normalize_answer(gold)


def _pass1(answers: dict[str, list[str]]) -> float:
    """pass@1 by hand: the mean over items of the share of right samples."""
    shares = [Fraction(sum(_right(a, GOLDS[k]) for a in texts), len(texts)) for k, texts in answers.items()]
    return float(sum(shares) / len(shares) * 100)


def _flaky(texts: list[str], gold: str) -> bool:
    right = sum(_right(t, gold) for t in texts)
    return 0 < right < len(texts)


def test_pass_at_1_and_flaky_changes_of_two_sampled_runs(conn: sqlite3.Connection) -> None:
    s = sample_diff(conn, "a", "b")
    assert s is not None and (s.items, s.sampled_a, s.sampled_b) == (3, 3, 3)
    assert s.pass1_a == pytest.approx(_pass1(ANSWERS)) and s.pass1_b == pytest.approx(_pass1(B_ANSWERS))
    assert s.delta == pytest.approx(s.pass1_b - s.pass1_a)
    expected = {c: [] for c in SAMPLE_CHANGES}
    for key in GOLDS:
        a, b = _flaky(ANSWERS[key], GOLDS[key]), _flaky(B_ANSWERS[key], GOLDS[key])
        change = {(False, True): "became_flaky", (True, False): "became_stable", (True, True): "still_flaky"}.get((a, b))
        if change:
            expected[change].append(key)
    for change in SAMPLE_CHANGES:
        assert s.count(change) == len(expected[change])
        assert sample_change_keys(conn, "a", "b", change) == expected[change]
        f = sample_change_filter(conn, "a", "b", change)
        assert (f.run, f.compare, f.dataset) == ("a", "b", "qa")
        assert query.count(conn, f) == s.count(change)
    assert sum(s.count(c) for c in SAMPLE_CHANGES) > 0


def test_swapping_runs_swaps_the_changes(conn: sqlite3.Connection) -> None:
    ab, ba = sample_diff(conn, "a", "b"), sample_diff(conn, "b", "a")
    assert ab is not None and ba is not None
    assert (ba.became_flaky, ba.became_stable, ba.still_flaky) == (ab.became_stable, ab.became_flaky, ab.still_flaky)
    assert ba.delta == pytest.approx(-ab.delta)


def test_single_answer_runs_have_no_samples_side(conn: sqlite3.Connection) -> None:
    assert sample_diff(conn, "one", "two") is None
    d = diff_runs(conn, "one", "two")
    assert d.samples is None and "samples" not in d.to_dict()


def test_one_sampled_run_against_one_answer(conn: sqlite3.Connection) -> None:
    """A single answer is pass@1 = right or not, and never flaky."""
    s = sample_diff(conn, "one", "a")
    assert s is not None and (s.sampled_a, s.sampled_b) == (0, 3)
    assert s.pass1_a == pytest.approx(100 / 3)  # `one` has Q1 right only
    assert s.became_stable == s.still_flaky == 0
    assert s.became_flaky == sum(_flaky(ANSWERS[k], GOLDS[k]) for k in GOLDS)


def test_within_restricts_the_items(conn: sqlite3.Connection) -> None:
    s = sample_diff(conn, "a", "b", within=Filter(dataset="qa", search="Q3"))
    assert s is not None and s.items == 1 and s.became_flaky == 1


def test_json_of_the_diff(conn: sqlite3.Connection) -> None:
    out = json.loads(json.dumps(diff_runs(conn, "a", "b").to_dict()))
    assert set(out["samples"]) >= {"pass1_a", "pass1_b", "delta", *SAMPLE_CHANGES}
