"""Adjudicated scores: the official scorer over golds + accepted aliases, beside official numbers
that never move."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qa_inspect.core import flags as F
from qa_inspect.core.metrics import score_prediction
from qa_inspect.core.report import (
    adjudicated_items,
    adjudicated_scores,
    adjudicated_summary,
    leaderboard,
    report,
)
from qa_inspect.core.report.adjudicated import ADJUDICATED
from qa_inspect.core.report.run_stats import dataset_items

from tests.helpers import Env

RUN, DS, CDQA = "bert-base-chinese", "cmrc2018_dev_sample", "cdqa_sample"
K0 = "DEV_4_QUERY_0"

pytestmark = pytest.mark.usefixtures("no_author_env")


def _item(env: Env, run: str, key: str) -> tuple[int, str, str, list[str]]:
    """(position in id order, prediction, scorer, scored golds) of one item of a run."""
    item_id, text, scorer = env.conn.execute(
        "SELECT i.id, p.text, p.scorer FROM predictions p JOIN runs r ON r.id = p.run_id"
        " JOIN items i ON i.id = p.item_id WHERE r.name = ? AND i.key = ?", (run, key)).fetchone()
    ids = [r[0] for r in env.conn.execute(
        "SELECT id FROM items WHERE dataset_id = (SELECT dataset_id FROM items WHERE id = ?) ORDER BY id", (item_id,))]
    golds = [r[0] for r in env.conn.execute(
        "SELECT text FROM golds WHERE item_id = ? AND superseded = 0 ORDER BY idx", (item_id,))]
    return ids.index(item_id), text, scorer, golds


def test_without_aliases_adjudicated_is_official_to_the_bit(env: Env) -> None:
    data = dataset_items(env.conn, DS)
    for run, scores in data.runs.items():
        adj = adjudicated_scores(env.conn, run)
        assert all(np.array_equal(adj[k], scores[k]) for k in scores)
    assert all(r.official == r.adjudicated and r.moved_items == 0 for r in adjudicated_summary(env.conn))


def test_an_alias_rescores_its_item_with_the_same_scorer_and_nothing_else(env: Env) -> None:
    official_report = report(env.conn)
    before = dataset_items(env.conn, DS).runs[RUN]
    pos, text, scorer, golds = _item(env, RUN, K0)
    assert before["em"][pos] == 0
    F.accept_answer(env.conn, RUN, K0, author="ann")
    adj = adjudicated_scores(env.conn, RUN)
    expected = score_prediction(scorer, text, [*golds, text])
    assert (adj["em"][pos], adj["f1"][pos]) == (expected.em, expected.f1)
    others = np.arange(len(adj["em"])) != pos
    assert np.array_equal(adj["em"][others], before["em"][others])
    assert report(env.conn).equals(official_report)  # official numbers never move
    assert np.array_equal(dataset_items(env.conn, DS).runs[RUN]["em"], before["em"])
    row = next(r for r in adjudicated_summary(env.conn) if r.run == RUN and r.metric == "em")
    n = len(adj["em"])
    assert (row.aliased_items, row.moved_items) == (1, 1)
    assert row.adjudicated == pytest.approx(row.official + 100 * (expected.em - before["em"][pos]) / n)
    assert row.to_dict()[ADJUDICATED] == row.adjudicated


def test_cdqa_keeps_its_denominators(env: Env) -> None:
    run = "qwen-7b-chat"
    data = dataset_items(env.conn, CDQA)
    scores = data.runs[run]
    answered = np.flatnonzero((scores["predicted"] > 0) & (scores["refused"] == 0) & (scores["f1_recall"] < 1))
    keys = dict(env.conn.execute("SELECT id, key FROM items"))
    key = keys[int(data.item_ids[answered[0]])]
    F.accept_answer(env.conn, run, key, author="ann")
    rows = {r.metric: r for r in adjudicated_summary(env.conn, [run])}
    assert rows["answer_rate"].adjudicated == rows["answer_rate"].official  # refusals are the answer's, not the golds'
    assert rows["f1_recall"].adjudicated > rows["f1_recall"].official
    assert adjudicated_scores(env.conn, run)["f1_recall"][answered[0]] == 1.0


def test_the_leaderboard_ranks_on_adjudicated_scores_when_asked(env: Env) -> None:
    F.accept_answer(env.conn, RUN, K0, author="ann")
    official = leaderboard(env.conn, DS)[0]
    adjudicated = leaderboard(env.conn, DS, adjudicated=True)[0]
    em = {r.run: r.metrics["em"].value for r in official.rows}
    adj = {r.run: r.metrics["em"].value for r in adjudicated.rows}
    assert adj[RUN] > em[RUN] and adjudicated.adjudicated and not official.adjudicated
    data = dataset_items(env.conn, DS)
    for run in data.runs:  # each board is the mean of its own per-item scores
        assert adj[run] == pytest.approx(adjudicated_scores(env.conn, run)["em"].mean() * 100)
        assert em[run] == pytest.approx(data.runs[run]["em"].mean() * 100)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=5, unique=True))
def test_aliases_only_raise_span_scores(picks: list[int], env: Env) -> None:
    """Adding golds can only raise a max-over-golds score: every adjudicated item ≥ official."""
    data = dataset_items(env.conn, DS)
    wrong = [r[0] for r in env.conn.execute(  # answers an alias can be made of: wrong, not empty
        "SELECT i.key FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.name = 'bidaf-baseline' AND p.em = 0 AND trim(p.text) != '' ORDER BY i.id")]
    for p in picks:
        F.accept_answer(env.conn, "bidaf-baseline", wrong[p % len(wrong)], author="ann")
    adj = adjudicated_items(env.conn, DS)
    for run, scores in data.runs.items():
        assert (adj.runs[run]["f1"] >= scores["f1"]).all() and (adj.runs[run]["em"] >= scores["em"]).all()
    for _ in picks:
        F.undo(env.conn, "ann")


def test_the_overview_in_adjudicated_mode_moves_only_what_aliases_move(env: Env) -> None:
    from qa_inspect.core.report import overview, overview_adjudicated

    official = overview(env.conn)
    assert overview_adjudicated(env.conn, official) == overview_adjudicated(env.conn, overview(env.conn))
    F.accept_answer(env.conn, RUN, K0, author="ann")
    adj = {(ds.name, r.name): r for ds in overview_adjudicated(env.conn, overview(env.conn)) for r in ds.runs}
    before = {(ds.name, r.name): r for ds in official for r in ds.runs}
    assert before == {(ds.name, r.name): r for ds in overview(env.conn) for r in ds.runs}  # official unchanged
    summary = {(r.dataset, r.run, r.metric): r.adjudicated for r in adjudicated_summary(env.conn)}
    for (ds, run), r in adj.items():
        for metric in ("em", "f1", "f1_recall", "answer_rate"):
            value = getattr(r.overall, metric, None)
            if value is not None and (ds, run, metric) in summary:
                assert value == pytest.approx(summary[ds, run, metric])
