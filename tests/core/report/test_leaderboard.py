"""Per-run intervals and the leaderboard on the sample runs (plus a twin of one CMRC run), and the
booktabs writer."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from qa_inspect.core import stats
from qa_inspect.core.errors import UnknownNameError
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import (
    HUMAN,
    LeaderboardError,
    StatOptions,
    latex_escape,
    latex_table,
    leaderboard,
    report,
    run_intervals,
)
from qa_inspect.core.report.run_stats import dataset_items, metric_values
from qa_inspect.core.report.significance import clusters_for
from qa_inspect.core.store import open_db

FAST = StatOptions(resamples=2000)
CMRC = "cmrc2018_dev_sample"


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory, sample_runs: Path) -> Iterator[sqlite3.Connection]:
    root = tmp_path_factory.mktemp("leaderboard") / "runs"
    shutil.copytree(sample_runs, root, ignore=shutil.ignore_patterns(".qa-inspect"))
    shutil.copy(root / "cmrc2018/runs/bert-base-chinese.json", root / "cmrc2018/runs/bert-twin.json")
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    c = open_db(root / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


def test_run_intervals_hold_the_official_numbers(conn) -> None:
    official = report(conn, by=[]).filter(pl.col("slice") == "overall")
    for dataset in ("cdqa_sample", CMRC):
        unit, rows = run_intervals(conn, dataset, FAST)
        assert unit == ("passage" if dataset == CMRC else "item")
        for r in rows:
            expected = official.filter((pl.col("dataset") == dataset) & (pl.col("run") == r.run)).row(0, named=True)
            assert r.metrics, r.run
            for metric, ci in r.metrics.items():
                assert ci.value == pytest.approx(expected[metric]), (r.run, metric)
                assert ci.low <= ci.value <= ci.high
        assert rows[0].human == (dataset == CMRC) and (rows[0].run == HUMAN) == rows[0].human
    _, cdqa = run_intervals(conn, "cdqa_sample", FAST)
    glm = next(r for r in cdqa if r.run == "glm-6b")
    assert (glm.metrics["f1_recall"].over, glm.metrics["answer_rate"].over) == ("answered items", "the run's responses")
    assert glm.metrics["f1_recall"].n == official.filter(pl.col("run") == "glm-6b")["answered"][0]


def test_cmrc_leaderboard_ranks_with_intervals_and_tests_every_pair(conn) -> None:
    [board] = leaderboard(conn, CMRC, options=FAST)
    assert (board.metric, board.metrics, board.unit) == ("f1", ["em", "f1"], "passage")
    assert board.rows[0].human and board.rank(HUMAN) is None
    ranked = board.ranked
    values = [r.metrics["f1"].value for r in ranked]
    assert values == sorted(values, reverse=True)
    assert [board.rank(r.run) for r in ranked] == list(range(1, len(ranked) + 1))
    assert len(board.pairs) == len(list(combinations(ranked, 2)))
    assert [c.p_holm for c in board.pairs] == stats.holm([c.p for c in board.pairs])
    twin = board.pair("bert-base-chinese", "bert-twin")
    assert (twin.delta, twin.low, twin.high, twin.p) == (0.0, 0.0, 0.0, 1.0)
    top = ranked[0].run
    for r in ranked[1:]:
        cell = board.pair(top, r.run)
        assert cell.delta == pytest.approx(r.metrics["f1"].value - ranked[0].metrics["f1"].value)
        assert board.tied_with_best(r.run) == (not cell.significant(0.05))
        back = board.pair(r.run, top)
        assert (back.delta, back.low, back.high, back.p) == (-cell.delta, -cell.high, -cell.low, cell.p)
    assert board.tied_with_best(top) and board.pair(top, top) is None


def test_ranking_by_another_metric_and_cdqa(conn) -> None:
    [by_em] = leaderboard(conn, CMRC, metric="em", options=FAST)
    ems = [r.metrics["em"].value for r in by_em.ranked]
    assert ems == sorted(ems, reverse=True)
    [cdqa] = leaderboard(conn, "cdqa_sample", options=FAST)
    assert (cdqa.metric, cdqa.metrics, cdqa.unit) == ("f1_recall", ["f1_recall", "answer_rate"], "item")
    assert not any(r.human for r in cdqa.rows)
    both = leaderboard(conn, options=FAST)
    assert [b.dataset for b in both] == ["cdqa_sample", CMRC]
    assert [b.dataset for b in leaderboard(conn, metric="em", options=FAST)] == [CMRC]  # CDQA has no EM


def test_leaderboard_refusals_and_json(conn) -> None:
    with pytest.raises(LeaderboardError, match="unknown metric 'em' to rank"):
        leaderboard(conn, "cdqa_sample", metric="em", options=FAST)
    with pytest.raises(UnknownNameError):
        leaderboard(conn, "nope", options=FAST)
    [board] = leaderboard(conn, CMRC, options=FAST)
    data = json.loads(json.dumps(board.to_dict(), ensure_ascii=False))
    assert data["options"]["resamples"] == 2000 and data["unit"] == "passage"
    assert [r["rank"] for r in data["rows"]] == [None, 1, 2, 3, 4]
    assert data["pairs_tested"] == 6 and {"p_holm", "significant"} <= set(data["pairs"][0])
    assert board.to_dict() == leaderboard(conn, CMRC, options=FAST)[0].to_dict()  # the seed repeats exactly


def test_pairs_come_from_one_resampling_of_the_dataset(conn) -> None:
    """The pinned definition: every pair is `stats.paired_all` on the runs' per-item values, drawn
    from the dataset's shared stream (named by the dataset and the unit, never by a run)."""
    for options in (FAST, StatOptions(resamples=500, test="randomisation"), StatOptions(resamples=500, unit="item")):
        [board] = leaderboard(conn, CMRC, options=options)
        data = dataset_items(conn, CMRC)
        names = sorted(data.runs)
        columns = [metric_values(data, data.runs[run], "f1") for run in names]
        pairs = list(combinations(range(len(names)), 2))
        expected = stats.paired_all(
            np.array([v for v, _ in columns]), np.array([o for _, o in columns]), pairs,
            clusters_for(board.unit, data.contexts, data.item_ids), resamples=options.resamples,
            level=options.level, rng=stats.rng_for(options.seed, CMRC, "shared resampling", board.unit),
            randomisation=options.test == "randomisation",
        )
        for (a, b), t in zip(pairs, expected, strict=True):
            cell = board.pair(names[a], names[b])
            assert t is not None and cell is not None
            assert (cell.delta, cell.low, cell.high, cell.p, cell.method) == (t.delta, t.low, t.high, t.p, t.method)


def test_adding_a_run_changes_no_other_pair(conn, tmp_path: Path, sample_runs: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(sample_runs, root, ignore=shutil.ignore_patterns(".qa-inspect"))
    shutil.copy(root / "cmrc2018/runs/bert-base-chinese.json", root / "cmrc2018/runs/bert-twin.json")
    preds = json.loads((root / "cmrc2018/runs/bidaf-baseline.json").read_text(encoding="utf-8"))
    for key in list(preds)[::3]:
        preds[key] = preds[key][:2]
    (root / "cmrc2018/runs/bidaf-cut.json").write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    assert not load_runs(root).errors
    more = open_db(root / ".qa-inspect" / "qa.db").conn
    try:
        [before] = leaderboard(conn, CMRC, options=FAST)
        [after] = leaderboard(more, CMRC, options=FAST)
    finally:
        more.close()
    assert len(after.pairs) == len(before.pairs) + len(before.ranked)
    for cell in before.pairs:
        again = after.pair(cell.a, cell.b)
        assert again is not None
        assert (again.delta, again.low, again.high, again.p) == (cell.delta, cell.low, cell.high, cell.p)


def test_latex_helpers() -> None:
    assert latex_escape("a_b & 50% #1 {x} ~^\\\n") == r"a\_b \& 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{} "
    table = latex_table(["Run", "F1"], [["h", "1"], ["a", "2"], ["b", "3"]], rule_after=[0])
    assert table.splitlines() == [
        r"\begin{tabular}{lr}", r"\toprule", r"Run & F1 \\", r"\midrule", r"h & 1 \\", r"\midrule",
        r"a & 2 \\", r"b & 3 \\", r"\bottomrule", r"\end{tabular}",
    ]
    with pytest.raises(ValueError):
        latex_table(["a"], [["1", "2"]])
