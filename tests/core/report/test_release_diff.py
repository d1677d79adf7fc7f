"""Release diff: items added and removed, golds changed, open flags resolved or left,
and each run's score change split into the changed golds' part and the rest, adding up exactly."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.load import load_runs
from qa_inspect.core.metrics import CDQA_F1_RECALL, CMRC_OFFICIAL, SQUAD_V11
from qa_inspect.core.model import Gold, Item
from qa_inspect.core.query import pair_items
from qa_inspect.core.report import MetricSplit, ReleaseDiff, release_diff, rescore_excluding_stale, score_split
from qa_inspect.core.store import open_db

from tests.release_data import (
    Q,
    V2_GOLD,
    cdqa_v2,
    flag_tiny,
    tiny_cdqa,
    tiny_squad,
    write_json,
)


def adds_up(m: MetricSplit) -> bool:
    """The split's parts add up to the total exactly (fractions), and as printed (floats) to 1e-9."""
    if m.total is None:
        return True
    assert m.gold_changed is not None and m.rest is not None
    d = m.to_dict()
    return m.gold_changed + m.rest == m.total and abs(d["gold_changed"] + d["added_removed"] - d["total_change"]) < 1e-9


def diff_of(runs: Path, old: Path, new: Path) -> ReleaseDiff:
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    try:
        return release_diff(old, new, conn)
    finally:
        conn.close()


def test_tiny_cdqa_counts_flags_and_split(tmp_path: Path) -> None:
    old, new = tiny_cdqa(tmp_path)
    flag_tiny(tmp_path / "runs")
    d = diff_of(tmp_path / "runs", old, new)
    assert (d.old_items, d.new_items, len(d.added), len(d.removed)) == (6, 6, 1, 1)
    assert d.dataset == "tiny_cdqa"
    assert {g.question: (g.old, g.new) for g in d.gold_changes} == {
        Q[2]: (["乙二"], ["新乙二"]), Q[3]: (["丙三"], ["别的丙三"]), Q[6]: (["己六"], ["新己六"])}
    assert {f.question: f.outcome for f in d.flags} == {
        Q[2]: "resolved-to-proposal", Q[3]: "resolved-otherwise", Q[4]: "left", Q[5]: "item-removed"}
    assert d.flag_counts() == {"resolved-to-proposal": 1, "resolved-otherwise": 1, "left": 1, "item-removed": 1}
    assert sorted(r.run for r in d.runs) == ["m1", "m2"]
    for r in d.runs:
        assert r.scorer == CDQA_F1_RECALL and [m.metric for m in r.metrics] == ["f1_recall", "answer_rate"]
        assert all(adds_up(m) for m in r.metrics)
        rate = r.metrics[1]
        assert rate.gold_changed == 0  # refusals do not depend on golds
    m2 = next(r for r in d.runs if r.run == "m2").metrics
    assert m2[1].rest != 0  # m2's refusal on Q1 weighs more once Q5 is gone: 4 of 5 answered
    assert m2[1].new == Fraction(80)
    body = json.dumps(d.to_dict(), ensure_ascii=False)
    assert json.loads(body)["counts"]["golds_changed"] == 3


def test_old_score_is_the_stored_score(tmp_path: Path) -> None:
    old, new = tiny_cdqa(tmp_path)
    flag_tiny(tmp_path / "runs")
    d = diff_of(tmp_path / "runs", old, new)
    conn = open_db(tmp_path / "runs" / ".qa-inspect" / "qa.db").conn
    try:
        for r in d.runs:
            stored = rescore_excluding_stale(conn, r.run).all_golds
            assert float(r.metrics[0].old) == pytest.approx(stored["f1_recall"], abs=1e-3)
            assert float(r.metrics[1].old) == pytest.approx(stored["answer_rate"], abs=1e-3)
    finally:
        conn.close()


def test_without_a_database_only_the_files_are_compared(tmp_path: Path) -> None:
    old, new = tiny_cdqa(tmp_path)
    d = release_diff(old, new)
    assert d.dataset is None and d.flags == [] and d.runs == []
    assert len(d.gold_changes) == len(V2_GOLD)


def test_squad_pair_renumbered_ids_pair_by_question(tmp_path: Path) -> None:
    old, new = tiny_squad(tmp_path)
    assert not load_runs(tmp_path / "runs").errors
    d = diff_of(tmp_path / "runs", old, new)
    assert (d.added, d.removed, d.paired_by_question) == (["s5"], ["s4"], 1)
    assert [(g.key, g.old, g.new) for g in d.gold_changes] == [("s2", ["Alice"], ["Alice met Bob"])]
    (run,) = d.runs
    assert run.scorer == SQUAD_V11
    em, f1 = run.metrics
    assert (em.old, em.new, em.gold_changed, em.rest) == (75, 50, -25, 0)
    assert all(adds_up(m) for m in run.metrics)


def test_real_cdqa_slice_v2(shared_data: Path, tmp_path: Path) -> None:
    """A hand-made v2 of twelve CDQA v1 items: two golds rewritten, one item dropped, one added."""
    records = json.loads((shared_data / "CDQA_v1.json").read_text(encoding="utf-8-sig"))
    plain = [r for r in records if "p-改写答案" not in r["annotation"]][:12]
    questions = {n: r["qa"].split("\n")[0].removeprefix("\ufeff问题: ").strip() for n, r in enumerate(plain[:6], 1)}
    old = write_json(tmp_path / "runs" / "cdqa" / "CDQA_slice.json", plain[:6])
    answers = {n: r["qa"].split("答案:")[1].strip() for n, r in enumerate(plain[:6], 1)}
    run = [json.dumps({"question": q, "prediction": answers[n]}, ensure_ascii=False) for n, q in questions.items()]
    write_json(tmp_path / "runs" / "cdqa" / "runs" / "x.jsonl", {}).write_text("\n".join(run) + "\n", encoding="utf-8")
    v2 = cdqa_v2(plain[:6], {**questions, 7: "unused"})
    v2[-1] = plain[6]  # the added item: a real one
    new = write_json(tmp_path / "v2.json", v2)
    assert not load_runs(tmp_path / "runs").errors
    d = diff_of(tmp_path / "runs", old, new)
    assert (len(d.added), len(d.removed), len(d.gold_changes)) == (1, 1, 3)
    (r,) = d.runs
    f1r = r.metrics[0]
    assert f1r.old == 100 and f1r.gold_changed is not None and f1r.gold_changed < 0 and adds_up(f1r)


# --- the split adds up, whatever the releases ----------------------------------------------------

TEXTS = st.sampled_from(["甲", "乙", "丙丁", "long", "Alice", ""])


@st.composite
def releases(draw: st.DrawFn) -> tuple[list[Item], list[Item], dict[str, str]]:
    n = draw(st.integers(0, 8))
    old = [Item(f"k{i}", f"q{i}", [Gold(t) for t in draw(st.lists(TEXTS, max_size=2))]) for i in range(n)]
    new = []
    for it in old:
        if draw(st.booleans()) or not old:
            golds = it.golds if draw(st.booleans()) else [Gold(t) for t in draw(st.lists(TEXTS, max_size=2))]
            new.append(Item(it.key, it.question, golds))
    new += [Item(f"n{i}", f"nq{i}", [Gold(draw(TEXTS))]) for i in range(draw(st.integers(0, 3)))]
    preds = {it.key: draw(st.sampled_from(["甲", "乙丙丁", "对不起", "Alice", "long river"]))
             for it in old if draw(st.booleans())}
    return old, new, preds


@settings(max_examples=60, deadline=None)
@given(releases(), st.sampled_from([CMRC_OFFICIAL, SQUAD_V11, CDQA_F1_RECALL]))
def test_split_adds_up(data: tuple[list[Item], list[Item], dict[str, str]], scorer: str) -> None:
    old, new, preds = data
    pairs = pair_items(old, new)
    for m in score_split(scorer, pairs, preds):
        assert adds_up(m)
        if not any(p.golds_changed for p in pairs):
            assert m.gold_changed in (0, None)
        if all(p.old is not None and p.new is not None for p in pairs):
            assert m.rest in (0, None)
