"""Significance of a diff (core.report.significance through `diff_runs(stats=…)`) on the sample
runs, with a twin of one CMRC run and one CDQA run (same predictions, another name)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from qa_inspect.core import stats
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import StatOptions, diff_runs
from qa_inspect.core.stats import StatsError
from qa_inspect.core.store import open_db

FAST = StatOptions(resamples=2000)


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    root = tmp_path_factory.mktemp("significance") / "runs"
    shutil.copytree(sample_runs, root, ignore=shutil.ignore_patterns(".qa-inspect"))
    shutil.copy(root / "cmrc2018/runs/bert-base-chinese.json", root / "cmrc2018/runs/bert-twin.json")
    shutil.copy(root / "cdqa/runs/glm-6b.jsonl", root / "cdqa/runs/glm-twin.jsonl")
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    c = open_db(root / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


@pytest.mark.parametrize(("a", "b"), [("bert-base-chinese", "bert-twin"), ("glm-6b", "glm-twin")])
def test_identical_runs_give_zero_delta_zero_interval_and_p_one(conn, a: str, b: str) -> None:
    for test in ("bootstrap", "randomisation"):
        sig = diff_runs(conn, a, b, stats=StatOptions(resamples=1000, test=test)).significance
        assert sig is not None and sig.tests
        for t in sig.tests:
            assert (t.delta, t.low, t.high, t.p) == (0.0, 0.0, 0.0, 1.0), t
            assert t.p_mcnemar in (None, 1.0) and t.mde is None  # no disagreement: nothing to size an MDE on
            assert t.primary or t.p_holm == 1.0
        assert set(sig.outcomes.values()) == {1.0}


def test_cmrc_is_resampled_by_passage_and_deltas_match_the_diff(conn) -> None:
    d = diff_runs(conn, "bert-base-chinese", "roberta-wwm-large", stats=FAST)
    sig = d.significance
    assert sig is not None and (sig.unit, sig.options) == ("passage", FAST)
    passages = conn.execute(
        "SELECT COUNT(DISTINCT i.context_id) FROM items i JOIN predictions pa ON pa.item_id = i.id"
        " JOIN predictions pb ON pb.item_id = i.id WHERE pa.run_id = (SELECT id FROM runs WHERE name = ?)"
        " AND pb.run_id = (SELECT id FROM runs WHERE name = ?)", ("bert-base-chinese", "roberta-wwm-large"),
    ).fetchone()[0]
    assert sig.units == passages < d.common
    for s in d.slices:  # EM and F1 are tested on the very items the diff's delta is over
        t = sig.test(s.dimension, s.value, s.metric)
        assert t is not None and t.base == "common items" and t.n == s.items
        assert t.delta == pytest.approx(s.delta) and t.low <= t.delta <= t.high
    em = sig.test("overall", "all", "em")
    o = d.outcome("em")
    assert em.p_mcnemar == sig.outcomes["em"] == stats.mcnemar_exact(o.fixed, o.broken)
    assert em.mde == pytest.approx(stats.minimum_detectable_effect(em.se))
    by_item = diff_runs(conn, "bert-base-chinese", "roberta-wwm-large", stats=StatOptions(resamples=2000, unit="item"))
    t_item = by_item.significance.test("overall", "all", "em")
    assert (by_item.significance.unit, by_item.significance.units, t_item.units) == ("item", d.common, d.common)
    assert t_item.delta == em.delta  # (the sample's synthetic runs err independently of passages, so the
    # widths are alike here; tests/core/stats shows the clustered interval wider where errors cluster)


def test_swapping_the_runs_mirrors_every_number(conn) -> None:
    ab = diff_runs(conn, "bidaf-baseline", "roberta-wwm-large", stats=FAST).significance
    ba = diff_runs(conn, "roberta-wwm-large", "bidaf-baseline", stats=FAST).significance
    for x, y in zip(ab.tests, ba.tests, strict=True):
        assert (x.delta, x.low, x.high) == (-y.delta, -y.high, -y.low)
        assert (x.p, x.p_holm, x.p_mcnemar, x.se) == (y.p, y.p_holm, y.p_mcnemar, y.se)


def test_cdqa_tests_f1_recall_on_items_both_answered_and_answer_rate_apart(conn) -> None:
    d = diff_runs(conn, "glm-6b", "qwen-7b-chat", stats=FAST)
    sig = d.significance
    assert sig.unit == "item"  # CDQA questions have no passage
    both = conn.execute(
        "SELECT COUNT(*) FROM predictions a JOIN predictions b ON a.item_id = b.item_id"
        " WHERE a.run_id = (SELECT id FROM runs WHERE name = 'glm-6b')"
        " AND b.run_id = (SELECT id FROM runs WHERE name = 'qwen-7b-chat') AND a.refused = 0 AND b.refused = 0"
    ).fetchone()[0]
    f1r = sig.test("overall", "all", "f1_recall")
    rate = sig.test("overall", "all", "answer_rate")
    assert (f1r.base, f1r.n) == ("items both answered", both)
    assert (rate.base, rate.n) == ("common items", d.common)
    shown = next(s for s in d.slices if (s.dimension, s.metric) == ("overall", "answer_rate"))
    assert rate.delta == pytest.approx(shown.delta)
    assert rate.p_mcnemar is not None and f1r.p_mcnemar is None
    assert list(sig.outcomes) == ["threshold"]  # no EM for F1-recall runs


def test_slices_are_corrected_within_each_metric(conn) -> None:
    sig = diff_runs(conn, "glm-6b", "qwen-7b-chat", stats=FAST).significance
    for metric in ("f1_recall", "answer_rate"):
        slices = [t for t in sig.tests if t.metric == metric and not t.primary]
        family = sum(t.p is not None for t in slices)
        assert family == sig.family(metric) > 5
        assert all(t.family == family for t in slices)
        ps = [t.p for t in slices]
        assert [t.p_holm for t in slices] == stats.holm(ps)
        assert [t.p_bh for t in slices] == stats.benjamini_hochberg(ps)
        assert all(t.p_holm is None or t.p_holm >= t.p for t in slices)
    overall = sig.test("overall", "all", "f1_recall")
    assert (overall.p_holm, overall.family) == (None, 0)
    tiny = [t for t in sig.tests if t.units < stats.MIN_BOOTSTRAP_UNITS]
    assert tiny and all(t.method == "randomisation" and t.mde is None for t in tiny)


def test_a_fixed_seed_reproduces_and_json_carries_everything(conn) -> None:
    one = diff_runs(conn, "bert-base-chinese", "bidaf-baseline", stats=FAST).to_dict()
    assert one == diff_runs(conn, "bert-base-chinese", "bidaf-baseline", stats=FAST).to_dict()
    other = diff_runs(conn, "bert-base-chinese", "bidaf-baseline", stats=StatOptions(resamples=2000, seed=1)).to_dict()
    assert other["significance"]["tests"] != one["significance"]["tests"]
    data = json.loads(json.dumps(one, ensure_ascii=False))
    assert data["significance"]["options"] == {"seed": stats.DEFAULT_SEED, "resamples": 2000, "level": 0.95,
                                               "unit": "auto", "test": "bootstrap", "alpha": 0.05}
    first = data["significance"]["tests"][0]
    assert {"delta", "low", "high", "p", "p_holm", "p_bh", "p_mcnemar", "mde", "significant", "base"} <= set(first)
    assert "significance" not in diff_runs(conn, "bert-base-chinese", "bidaf-baseline").to_dict()


def test_options_that_no_test_can_use_are_one_line(conn) -> None:
    for options, needle in ((StatOptions(unit="paragraph"), "unit"), (StatOptions(test="t"), "test"),
                            (StatOptions(seed=-2), "seed"), (StatOptions(resamples=0), "resamples"),
                            (StatOptions(alpha=5), "alpha")):
        with pytest.raises(StatsError, match=needle):
            diff_runs(conn, "bert-base-chinese", "bidaf-baseline", stats=options)


def test_questions_on_one_unnamed_squad_paragraph_are_one_passage(tmp_path: Path) -> None:
    """SQuAD files give paragraphs no id, so each question stores its passage apart; questions on
    the same text still resample together (diff and leaderboard alike)."""
    from qa_inspect.core.report import leaderboard

    paragraphs = [
        {"context": f"Paragraph about word{p}0 word{p}1 word{p}2.",
         "qas": [{"id": f"p{p}q{q}", "question": f"What is answer {p}-{q}?",
                  "answers": [{"text": f"word{p}{q}", "answer_start": 16 + 6 * q}]} for q in range(3)]}
        for p in range(4)
    ]
    data = {"version": "1.1", "data": [{"title": "T", "paragraphs": paragraphs}]}
    (tmp_path / "dev.json").write_text(json.dumps(data), encoding="utf-8")
    for run, right in (("run_a", {"p0q0", "p1q1"}), ("run_b", {"p0q0", "p2q2", "p3q0"})):
        preds = {f"p{p}q{q}": (f"word{p}{q}" if f"p{p}q{q}" in right else "nothing") for p in range(4) for q in range(3)}
        (tmp_path / f"{run}.json").write_text(json.dumps(preds), encoding="utf-8")
    summary = load_runs(tmp_path)
    assert not summary.errors, summary.errors
    c = open_db(tmp_path / ".qa-inspect" / "qa.db").conn
    try:
        sig = diff_runs(c, "run_a", "run_b", stats=FAST).significance
        assert (sig.unit, sig.units) == ("passage", 4)
        assert sig.test("overall", "all", "em").units == 4
        [board] = leaderboard(c, options=FAST)
        assert (board.unit, board.units) == ("passage", 4)
    finally:
        c.close()


def test_a_cancelled_caller_stops_the_work_between_tests(conn) -> None:
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2  # let two tests run, then give up

    d = diff_runs(conn, "glm-6b", "qwen-7b-chat", stats=FAST, stop=stop)
    assert d.significance is None and len(asked) == 3
    assert d.slices and d.outcomes  # the diff itself is whole


def test_the_unit_follows_the_data_and_the_option() -> None:
    import numpy as np
    from qa_inspect.core.report import resampling_unit

    shared, unique, none = np.array([1, 1, 2]), np.array([1, 2, 3]), np.array([-1, -1, -1])
    assert [resampling_unit("auto", c) for c in (shared, unique, none)] == ["passage", "item", "item"]
    assert [resampling_unit("passage", c) for c in (shared, unique, none)] == ["passage", "passage", "item"]
    assert resampling_unit("item", shared) == "item"
