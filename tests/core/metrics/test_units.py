"""Unit tests: human estimate, aggregation, registry, display alignment, import hygiene."""

from __future__ import annotations

import subprocess
import sys

import pytest
from qa_inspect.core.metrics import align, cdqa, cmrc, human, registry
from qa_inspect.core.metrics.registry import ScoreRow

# --- human estimate --------------------------------------------------------------------------


def test_human_needs_two_golds() -> None:
    assert human.human_score([]) is None
    assert human.human_score(["中国"]) is None


def test_human_leave_one_out_mean() -> None:
    h = human.human_score(["蓉江新区", "蓉江新区", "江新区"])
    assert h is not None
    # gold 0 and 1 find their twin (EM 1, F1 1); gold 2 vs the others: EM 0, F1 6/7
    assert h.per_gold == [(1, 1.0), (1, 1.0), (0, pytest.approx(6 / 7))]
    assert h.em == pytest.approx(2 / 3) and h.f1 == pytest.approx((2 + 6 / 7) / 3)
    assert h.best_gold == 0


def test_human_aggregate_skips_single_gold_items() -> None:
    scores = [human.human_score(g) for g in (["a", "a"], ["a", "b"], ["only one"])]
    out = human.aggregate_human(scores)
    assert out == {"em": 50.0, "f1": 50.0, "average": 50.0, "items": 2}
    assert human.aggregate_human([None])["items"] == 0


# --- aggregation -----------------------------------------------------------------------------


def test_cmrc_aggregate_skip_and_total() -> None:
    rows = [cmrc.score("中国", ["中国"]), None, cmrc.score("中", ["中国"])]
    out = cmrc.aggregate(rows, total=5)  # two questions absent from `rows` altogether
    assert out["total"] == 5 and out["skip"] == 3
    assert out["em"] == 20.0
    assert out["f1"] == float("%.3f" % (100.0 * (1.0 + 2 / 3) / 5)) == 33.333
    assert out["average"] == float("%.3f" % ((20.0 + 100.0 * (1.0 + 2 / 3) / 5) * 0.5))


def test_cmrc_aggregate_rejects_too_small_total() -> None:
    with pytest.raises(ValueError):
        cmrc.aggregate([None, None], total=1)


def test_cdqa_aggregate_rates() -> None:
    rows = [cdqa.score("张海燕", ["张海燕"]), cdqa.score("2023", ["2023年"]),
            cdqa.score("抱歉", ["x"]), None]
    out = cdqa.aggregate(rows, total=6)
    # 3 responses (the None is a missing prediction): answer rate 2/3, as cdqa_eval.py divides
    assert out == {"f1_recall": 75.0, "answer_rate": 66.67, "total": 6, "answered": 2, "responses": 3}
    assert cdqa.aggregate([cdqa.score("抱歉", ["x"])], 1)["f1_recall"] is None


# --- registry --------------------------------------------------------------------------------


def test_registry_names_and_defaults() -> None:
    assert registry.SCORERS == ("cmrc2018-official", "squad-v1.1", "squad-v2", "cdqa-f1-recall")
    assert registry.default_scorer("cmrc") == registry.default_scorer("cmrc", unanswerable=True) == "cmrc2018-official"
    assert registry.default_scorer("squad") == "squad-v1.1"
    assert registry.default_scorer("squad", unanswerable=True) == "squad-v2"
    assert registry.default_scorer("cdqa") == "cdqa-f1-recall"
    with pytest.raises(ValueError, match="cmrc"):
        registry.default_scorer("trivia")


def test_registry_unknown_scorer_lists_names() -> None:
    with pytest.raises(ValueError, match="cmrc2018-official, squad-v1.1, squad-v2, cdqa-f1-recall"):
        registry.score_prediction("rouge", "a", ["a"])
    with pytest.raises(ValueError, match="cdqa-f1-recall"):
        registry.aggregate("rouge", [], 0)


def test_registry_rows_fill_only_their_family() -> None:
    row = registry.score_prediction("cmrc2018-official", "2023", ["x", "2023年"])
    assert row == ScoreRow("cmrc2018-official", em=0, f1=pytest.approx(2 / 3), best_gold=1)
    assert row.refused is None and row.f1_recall is None
    row = registry.score_prediction("cdqa-f1-recall", "2023", ["2023年"])
    assert row == ScoreRow("cdqa-f1-recall", refused=False, f1_recall=0.5, best_gold=0)
    assert row.em is None and row.f1 is None
    row = registry.score_prediction("cdqa-f1-recall", "无可奉告", ["x"], refusal_phrases=("无可奉告",))
    assert row.refused is True and row.f1_recall is None


def test_registry_aggregate_dispatch() -> None:
    rows = [registry.score_prediction("cmrc2018-official", "中国", ["中国"]), None]
    assert registry.aggregate("cmrc2018-official", rows, 2)["em"] == 50.0
    rows = [registry.score_prediction("cdqa-f1-recall", p, ["张海燕"]) for p in ("张海燕", "抱歉")]
    assert registry.aggregate("cdqa-f1-recall", rows, 2) == {
        "f1_recall": 100.0, "answer_rate": 50.0, "total": 2, "answered": 1, "responses": 2}


# --- alignment -------------------------------------------------------------------------------


def test_align_f1_maps_back_to_raw() -> None:
    pred, gold = "答案是 the U.S. Open，对", "U.S. Open"
    al = align.align_f1(pred, gold)
    assert [pred[a:b] for a, b in al.pred_ranges] == ["U.S. Open"]
    assert al.gold_ranges == [(0, len(gold))] and al.matched == ["u.s.", "open"]


def test_align_f1_first_run_like_find_lcs() -> None:
    al = align.align_f1("马楠马楠", "马楠")
    assert al.pred_ranges == [(0, 2)] and al.gold_ranges == [(0, 2)]
    assert align.align_f1("x", "y") == align.Alignment()


def test_align_f1_token_joined_across_punct() -> None:
    al = align.align_f1("他是co-founder。", "Co-Founder")
    assert al.pred_ranges == [(2, 12)] and al.matched == ["cofounder"]


def test_align_chars_subsequence() -> None:
    al = align.align_chars("江新区蓉", "蓉江新区")
    assert al.pred_ranges == [(0, 3)] and al.gold_ranges == [(1, 4)]


def test_align_cdqa_hits() -> None:
    pred = "我认为是张海燕，但也可能是魏敦瑞。"
    al = align.align_cdqa(pred, "张海燕")
    assert [pred[a:b] for a, b in al.pred_ranges] == ["张海燕"] and al.gold_ranges == [(0, 3)]


def test_find_in_context() -> None:
    ctx = "He is the Co-Founder of  X Corp."
    assert align.find_in_context(ctx, "Co-Founder") == (10, 20)
    assert align.find_in_context(ctx, "co-founder") == (10, 20)
    assert align.find_in_context(ctx, "co-founder of x") == (10, 26)
    assert align.find_in_context(ctx, "nobody") is None
    assert align.find_in_context(ctx, "  ") is None


def test_merge_ranges() -> None:
    assert align.merge_ranges([(5, 6), (0, 2), (2, 3), (4, 4)]) == [(0, 3), (5, 6)]
    assert align.merge_ranges([(0, 1), (3, 4)], "a，-b") == [(0, 4)]


# --- hygiene ---------------------------------------------------------------------------------


def test_metrics_import_is_light() -> None:
    """Importing the metrics must not pull in textual, nltk or jieba (they load on first use)."""
    code = (
        "import sys; import qa_inspect.core.metrics.registry, qa_inspect.core.metrics.align, "
        "qa_inspect.core.metrics.human; "
        "print(sorted(m for m in ('textual', 'nltk', 'jieba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registry_squad_scorers_score_and_aggregate_like_the_scripts() -> None:
    row = registry.score_prediction("squad-v1.1", "the 1050s", ["1050s"])
    assert (row.em, row.f1, row.best_gold) == (1, 1.0, 0)
    assert registry.score_prediction("squad-v2", "", []).em == 1  # no answer expected, none given
    assert registry.score_prediction("squad-v1.1", "", []).em == 0
    items = [registry.RunItem("a", ["x"], "x"), registry.RunItem("b", [], ""), registry.RunItem("c", ["y"], None)]
    v2 = registry.aggregate_run("squad-v2", items)
    assert (v2["exact"], v2["total"], v2["HasAns_total"], v2["NoAns_exact"]) == (200 / 3, 3, 2, 100.0)
    assert "best_exact" not in v2  # no no-answer probabilities
    with_probs = [registry.RunItem(i.id, i.golds, i.prediction, na_prob=p) for i, p in zip(items, (0.1, 0.9, None))]
    assert "best_f1_thresh" in registry.aggregate_run("squad-v2", with_probs)
    assert registry.aggregate_run("squad-v1.1", items) == {"exact_match": 100 / 3, "f1": 100 / 3}
    with pytest.raises(ValueError, match="aggregate_run"):
        registry.aggregate("squad-v2", [], 0)


def test_metrics_of_and_uses_f1_recall_answer_for_every_scorer() -> None:
    for scorer in registry.SCORERS:
        metrics = registry.metrics_of(scorer)
        assert registry.uses_f1_recall(scorer) == ("f1_recall" in metrics)
    assert registry.uses_f1_recall(family="cdqa") and not registry.uses_f1_recall(family="squad")
    assert not registry.uses_f1_recall("squad-v2", "cdqa"), "the stored scorer decides over the family"


def test_align_squad_highlights_the_words_squad_f1_counts() -> None:
    from qa_inspect.core.metrics import align

    a = align.align_squad("The Normans, indeed", "the normans")
    assert a.matched == ["normans"]  # articles dropped, punctuation removed, case folded
    assert a.pred_ranges == [(4, 12)] and a.gold_ranges == [(4, 11)]
    assert align.align_squad("", "x").matched == []


def test_clearing_the_score_caches_changes_no_score() -> None:
    from qa_inspect.core.metrics import CDQA_F1_RECALL, CMRC_OFFICIAL, clear_score_caches, score_prediction

    cases = [(CMRC_OFFICIAL, "光荣和ω-force公司", ["光荣和ω-force"]), (CDQA_F1_RECALL, "北京大学", ["北京"])]
    before = [score_prediction(*case) for case in cases]
    clear_score_caches()
    assert [score_prediction(*case) for case in cases] == before


def test_clearing_the_score_caches_empties_every_per_text_cache() -> None:
    """Scores, categories and relations fill the caches of every module that keeps one; clearing
    empties all of them (a load ends with it) and the judgement is the same afterwards."""
    import functools
    import importlib

    from qa_inspect.core.metrics import CMRC_OFFICIAL, category_and_relation, clear_score_caches, question_features

    passage = "光荣和ω-force公司于2007年发售了这款游戏。之后又推出了续作。"
    judged = category_and_relation("ω-force公司", ["光荣和ω-force"], passage, CMRC_OFFICIAL, gold_spans=[(0, 10)])
    question_features("谁发售了这款游戏？", ["光荣和ω-force"], passage)
    modules = ["segment", "cdqa", "squad", "textnorm", "equivalence", "categories", "span_categories", "sentences",
               "question_features"]
    caches = [value for name in modules for value in vars(importlib.import_module(f"qa_inspect.core.metrics.{name}")).values()
              if isinstance(value, functools._lru_cache_wrapper) and value.cache_info().maxsize not in (None, 1)]
    assert sum(c.cache_info().currsize for c in caches) > 10
    clear_score_caches()
    assert [c for c in caches if c.cache_info().currsize] == []
    assert category_and_relation("ω-force公司", ["光荣和ω-force"], passage, CMRC_OFFICIAL, gold_spans=[(0, 10)]) == judged
