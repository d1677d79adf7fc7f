"""core.stale_view: the TUI's numbers with stale golds excluded agree with core.flags' re-scoring
(`rescore_excluding_stale`) and, with nothing flagged, with the stored all-golds numbers."""

from __future__ import annotations

import math

import pytest
from qa_inspect.core import flags, query
from qa_inspect.core.query import Filter
from qa_inspect.core.report import (
    overview,
    overview_excluding_stale,
    rescore_excluding_stale,
    slice_metrics_excluding_stale,
    stale_counts,
)

from tests.helpers import Env

DS = "cmrc2018_dev_sample"
CDQA = "cdqa_sample"
RUNS = ("bidaf-baseline", "bert-base-chinese", "roberta-wwm-large", "glm-6b", "qwen-7b-chat")
METRICS = ("items", "predicted", "em", "f1", "answered", "f1_recall", "answer_rate")


def _same(a: object, b: object) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(float(a), float(b), abs_tol=1e-9)  # type: ignore[arg-type]


def _flag_some(env: Env) -> None:
    c = env.conn
    flags.mark(c, DS, "DEV_52_QUERY_3", "8线", author="t")  # golds 8线 · 8线 · 8条线: re-scored against 8条线
    flags.mark(c, DS, "DEV_4_QUERY_1", "足球运动员", author="t")  # the only gold: dropped
    flags.mark(c, DS, "DEV_176_QUERY_0", "1,000米", author="t", proposed="约1,000米")
    key = c.execute(
        "SELECT i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY i.id LIMIT 1", (CDQA,)
    ).fetchone()[0]
    flags.bulk_mark(c, flags.targets_for_item(c, CDQA, key), author="t")


def test_nothing_flagged_equals_stored_metrics(env: Env) -> None:
    for run in RUNS:
        for f in (Filter(run=run), Filter(run=run, em=0), Filter(run=run, search="年")):
            stored = query.metrics(env.conn, f)
            s = slice_metrics_excluding_stale(env.conn, f)
            assert s.stale_items == s.dropped == 0
            for m in METRICS:
                assert _same(getattr(s.metrics, m), getattr(stored, m)), (run, f, m)
    assert stale_counts(env.conn) == {}


def test_whole_run_equals_rescore_excluding_stale(env: Env) -> None:
    _flag_some(env)
    for run in RUNS:
        want = rescore_excluding_stale(env.conn, run).excluding_stale
        got = slice_metrics_excluding_stale(env.conn, Filter(run=run)).metrics
        for m in METRICS:
            assert _same(getattr(got, m), want.get(m)), (run, m)
    s = slice_metrics_excluding_stale(env.conn, Filter(run="bidaf-baseline"))
    assert (s.stale_items, s.dropped) == (3, 1)
    counts = stale_counts(env.conn)
    assert (counts[DS].golds, counts[DS].items, counts[DS].dropped) == (3, 3, 1)
    assert counts[CDQA].dropped == counts[CDQA].items == 1


def test_filtered_slice_and_compare_run(env: Env) -> None:
    _flag_some(env)
    f = Filter(run="bidaf-baseline", compare="roberta-wwm-large", search="嘉兴南站")
    s = slice_metrics_excluding_stale(env.conn, f)
    stored, stored_b = query.metrics_ab(env.conn, f)
    assert s.compare is not None and s.metrics.items == stored.items == s.compare.items
    assert s.stale_items == 1 and s.dropped == 0
    # DEV_52_QUERY_3: bidaf said 8线 (EM 1 against the stale gold, 0 against 8条线)
    assert s.metrics.em == pytest.approx(stored.em - 100 / stored.items)
    assert s.compare.em is not None and stored_b is not None and s.compare.em <= stored_b.em


def test_overview_in_both_modes(env: Env) -> None:
    base = overview(env.conn)
    same = overview_excluding_stale(env.conn, base)
    for a, b in zip(base, same):
        for ra, rb in zip([*a.runs, *([a.human] if a.human else [])], [*b.runs, *([b.human] if b.human else [])]):
            for sa, sb in zip([ra.overall, *ra.slices], [rb.overall, *rb.slices]):
                assert (sa.dimension, sa.value, sa.items, sa.errors) == (sb.dimension, sb.value, sb.items, sb.errors)
                for m in ("em", "f1", "f1_recall", "answer_rate", "error_share"):
                    assert _same(getattr(sa, m), getattr(sb, m)), (ra.name, sa.dimension, sa.value, m)
    _flag_some(env)
    excl = overview_excluding_stale(env.conn, overview(env.conn))
    for ds in excl:
        assert [r.name for r in ds.runs] == [r.name for r in next(d for d in base if d.name == ds.name).runs]
        for r in ds.runs:
            want = rescore_excluding_stale(env.conn, r.name).excluding_stale
            assert r.overall.items == want["items"] and r.overall.errors == want["errors"]
            assert _same(r.overall.em, want.get("em")) and _same(r.overall.f1_recall, want.get("f1_recall"))
            assert r.slices and sum(s.items for s in r.slices if s.dimension == ds.dimensions[0]) == r.overall.items
    cmrc = next(d for d in excl if d.name == DS)
    # the human estimate needs two golds: the three flagged items keep one or none
    assert cmrc.human is not None and cmrc.human.overall.items == 153 - 3


def test_switching_modes_rescores_only_after_a_change(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """The excluded overview and the stale counts are kept under a stamp of the data and the
    journal: asked again they re-score nothing; a new flag (or a load) computes them afresh."""
    from qa_inspect.core.report import stale_overview

    built: list[int] = []
    real = stale_overview.item_frame_excluding_stale
    monkeypatch.setattr(stale_overview, "item_frame_excluding_stale", lambda *a, **k: built.append(1) or real(*a, **k))
    _flag_some(env)
    quick, full = overview(env.conn, slices=False), overview(env.conn)
    first = overview_excluding_stale(env.conn, quick, slices=False)
    whole = overview_excluding_stale(env.conn, full)
    assert len(built) == 1  # the full pass reuses the quick pass's frame
    first[0].runs.clear()  # what a caller does with its answer does not reach the kept one
    again = overview_excluding_stale(env.conn, overview(env.conn, slices=False), slices=False)
    assert again[0].runs and overview_excluding_stale(env.conn, overview(env.conn)) == whole
    counts = stale_counts(env.conn)
    assert len(built) == 1 and stale_counts(env.conn) == counts
    flags.mark(env.conn, DS, "DEV_52_QUERY_3", "8条线", author="t")  # now no gold is left: the item is dropped
    after = overview_excluding_stale(env.conn, overview(env.conn))
    assert len(built) == 2 and after != whole
    assert stale_counts(env.conn)[DS].dropped == counts[DS].dropped + 1


def test_the_overview_moved_by_the_stale_items_equals_the_whole_rescore(env: Env) -> None:
    """Without a frame given, the excluded overview is the stored one less what the stale items
    added plus what they add re-scored: every number of every run, slice and the human estimate
    equals re-aggregating the whole re-scored item frame (the adjudicated mode's path)."""
    from qa_inspect.core.report import item_frame_excluding_stale, stale_overview

    _flag_some(env)
    for slices in (False, True):
        base = overview(env.conn, slices=slices)
        stale_overview._ANSWERS.clear()
        moved = overview_excluding_stale(env.conn, base, slices=slices)
        stale_overview._ANSWERS.clear()
        whole = overview_excluding_stale(env.conn, base, slices=slices,
                                         frame=item_frame_excluding_stale(env.conn, None, human=True))
        assert [d.name for d in moved] == [d.name for d in whole]
        for a, b in zip(moved, whole, strict=True):
            runs_a = [*a.runs, *([a.human] if a.human else [])]
            runs_b = [*b.runs, *([b.human] if b.human else [])]
            assert [(r.name, r.predictions) for r in runs_a] == [(r.name, r.predictions) for r in runs_b]
            for ra, rb in zip(runs_a, runs_b, strict=True):
                assert len(ra.slices) == len(rb.slices) and (ra.slices or not slices or not a.dimensions)
                for sa, sb in zip([ra.overall, *ra.slices], [rb.overall, *rb.slices], strict=True):
                    assert (sa.dimension, sa.value, sa.items, sa.predicted, sa.errors, sa.answered) == (
                        sb.dimension, sb.value, sb.items, sb.predicted, sb.errors, sb.answered), (ra.name, sa)
                    for m in ("em", "f1", "f1_recall", "answer_rate", "error_share"):
                        assert _same(getattr(sa, m), getattr(sb, m)), (ra.name, sa.dimension, sa.value, m)
    assert any(s.items < t.items for d, e in zip(moved, overview(env.conn), strict=True)
               for r, q in zip(d.runs, e.runs, strict=True) for s, t in zip([r.overall], [q.overall], strict=True))
