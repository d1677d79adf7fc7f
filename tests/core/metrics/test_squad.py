"""SQuAD v1.1 / v2.0 scorers: every conformance row, the three official whole runs, the quirks
listed in `qa_inspect.core.metrics.squad`, and a few properties."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from qa_inspect.core.metrics import squad
from qa_inspect.core.metrics.squad import V2Item, V11Item

SHARED = Path(__file__).resolve().parents[3] / ".." / "shared"
CONFORMANCE = SHARED / "conformance" / "squad_official.jsonl"
RUNS = SHARED / "conformance" / "squad_runs"
DATA = SHARED / "data"
TOL_ROW = 1e-12
TOL_RUN = 1e-9


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"conformance data not available: {path} is absent (it sits beside the repository)")
    return path


def _conformance_rows() -> list[Any]:
    """One pytest.param per row, its id `<n>-<scorer>-<case id or edge>`; a single skipped
    param when the file is absent (collection must not fail)."""
    if not CONFORMANCE.exists():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CONFORMANCE} is absent"), id="absent")]
    with CONFORMANCE.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [pytest.param(r, id=f"{n}-{r['scorer']}-{r.get('id', 'edge')}") for n, r in enumerate(rows, 1)]


@pytest.mark.parametrize("row", _conformance_rows())
def test_conformance_row(row: dict[str, Any]) -> None:
    scorer = squad.score_v2 if row["scorer"] == "squad-v2" else squad.score_v11
    assert row["scorer"] in ("squad-v2", "squad-v1.1")
    got = scorer(row["prediction"], row["golds"])
    assert got.em == row["em"]
    assert abs(got.f1 - row["f1"]) <= TOL_ROW


def test_conformance_file_is_complete() -> None:
    with _need(CONFORMANCE).open(encoding="utf-8") as fh:
        assert sum(1 for line in fh if line.strip()) == 2780


# --- whole runs -------------------------------------------------------------------------------


def _qas(name: str) -> list[dict[str, Any]]:
    """The questions of a SQuAD-format file, in file order (parsed here, not by the readers)."""
    with _need(DATA / name).open(encoding="utf-8") as fh:
        data = json.load(fh)["data"]
    return [qa for article in data for p in article["paragraphs"] for qa in p["qas"]]


def _json(path: Path) -> Any:
    with _need(path).open(encoding="utf-8") as fh:
        return json.load(fh)


def _v2_items(run: str) -> list[V2Item]:
    preds = _json(RUNS / f"{run}_predictions.json")
    return [
        V2Item(qa["id"], [a["text"] for a in qa["answers"]], bool(qa["answers"]), preds.get(qa["id"]))
        for qa in _qas("squad2_dev_normans.json")
    ]


def _assert_same(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert list(got) == list(want)  # same keys, in the script's order
    bad = {k: (got[k], v) for k, v in want.items() if abs(got[k] - v) > TOL_RUN}
    assert not bad, f"(got, want): {bad}"


def test_run_v2_mixed() -> None:
    expected = _json(RUNS / "expected.json")["v2_mixed"]
    na_probs = _json(RUNS / expected["no_answer_probabilities"])
    items = _v2_items("v2_mixed")
    _assert_same(squad.aggregate_v2(items, na_probs), expected["official"])
    _assert_same(squad.aggregate_v2(items, na_probs, na_prob_thresh=0.5), expected["official_thresh_0.5"])


def test_run_v2_abstainer() -> None:
    expected = _json(RUNS / "expected.json")["v2_abstainer"]
    assert expected["no_answer_probabilities"] is None
    _assert_same(squad.aggregate_v2(_v2_items("v2_abstainer")), expected["official"])


def test_run_v11_missing10() -> None:
    expected = _json(RUNS / "expected.json")["v11_missing10"]
    preds = _json(RUNS / "v11_missing10_predictions.json")
    qas = _qas(expected["dataset"])
    items = [V11Item(qa["id"], [a["text"] for a in qa["answers"]], preds.get(qa["id"])) for qa in qas]
    assert sum(it.prediction is None for it in items) == 10
    _assert_same(squad.aggregate_v11(items), expected["official"])


# --- quirks -----------------------------------------------------------------------------------


def test_articles_only_normalise_to_empty() -> None:
    assert squad.normalize_answer("The a AN") == ""
    assert squad.get_tokens("the") == [] and squad.get_tokens("") == []
    assert squad.normalize_answer("An apple a day") == "apple day"
    assert squad.normalize_answer("theatre") == "theatre"  # \b keeps words that start with one


def test_unicode_punctuation_kept() -> None:
    assert squad.normalize_answer("“quoted”") == "“quoted”"
    assert squad.normalize_answer("—dash—") == "—dash—"
    assert squad.score_v2("quoted", ["“quoted”"]) == squad.SquadScore(0, 0.0, 0)
    assert squad.normalize_answer("state-of-the-art") == "stateoftheart"


def test_both_empty_v2_is_1_v11_is_0() -> None:
    assert squad.score_v2("", [""]) == squad.SquadScore(em=1, f1=1.0, best_gold=None)
    assert squad.score_v2("the", ["a"]).f1 == 1.0
    assert squad.score_v11("the", ["a"]) == squad.SquadScore(em=1, f1=0.0, best_gold=0)
    assert squad.score_v2("Paris", ["", "Paris"]) == squad.SquadScore(1, 1.0, 1)  # index as given


def test_best_gold_is_first_max() -> None:
    s = squad.score_v2("red dog", ["cat", "red dog x", "red dog y", "big red dog z"])
    assert (s.em, s.f1, s.best_gold) == (0, 0.8, 1)  # golds 1 and 2 tie → first
    s = squad.score_v11("x", ["y", "x", "X."])
    assert (s.em, s.f1, s.best_gold) == (1, 1.0, 1)
    assert squad.score_v11("x", []) == squad.SquadScore(0, 0.0, None)


def test_no_answer_threshold_is_strict() -> None:
    has = {"a": True, "b": False}
    scores = {"a": 0.5, "b": 0.0}
    out = squad.apply_no_ans_threshold(scores, {"a": 0.7, "b": 0.7}, has, 0.7)
    assert out == scores  # 0.7 is not above 0.7
    out = squad.apply_no_ans_threshold(scores, {"a": 0.71, "b": 0.71}, has, 0.7)
    assert out == {"a": 0.0, "b": 1.0}


def test_best_thresh_ties_follow_na_probs_order() -> None:
    has = {"u": False, "h": True}
    preds = {"u": "wrong", "h": "right"}
    scores = {"u": 0.0, "h": 1.0}
    # same probability: the stable sort keeps the mapping's order, not the dataset's
    assert squad.find_best_thresh(preds, scores, {"h": 0.4, "u": 0.4}, has) == (100.0, 0.4)
    assert squad.find_best_thresh(preds, scores, {"u": 0.4, "h": 0.4}, has) == (50.0, 0.0)


def test_best_thresh_charges_raw_nonempty_prediction() -> None:
    # "the" scores 1 on an unanswerable question, yet find_best_thresh charges it -1
    items = [V2Item("u", [], False, "the")]
    out = squad.aggregate_v2(items, {"u": 0.2})
    assert out["exact"] == 100.0 and out["best_exact"] == 100.0 and out["best_exact_thresh"] == 0.0
    assert squad.find_best_thresh({"u": "the"}, {"u": 1.0}, {"u": 0.2}, {"u": False}) == (100.0, 0.0)


def test_v2_missing_prediction_counts_zero() -> None:
    items = [V2Item("h", ["Paris"], True, "Paris"), V2Item("u", [], False, None)]
    out = squad.aggregate_v2(items, {"h": 0.1, "u": 0.9}, na_prob_thresh=0.5)
    assert (out["exact"], out["total"], out["NoAns_exact"], out["NoAns_total"]) == (50.0, 2, 0.0, 1)
    assert out["best_exact"] == 50.0  # the missing unanswerable id earns nothing
    assert squad.aggregate_v2([V2Item("u", [], False, "")])["exact"] == 100.0  # empty ≠ missing


def test_v2_groups_and_empty_run() -> None:
    out = squad.aggregate_v2([V2Item("h", ["the"], True, "")])  # all golds dropped, still HasAns
    assert out == {"exact": 100.0, "f1": 100.0, "total": 1,
                   "HasAns_exact": 100.0, "HasAns_f1": 100.0, "HasAns_total": 1}
    assert squad.aggregate_v2([]) == {"exact": 0.0, "f1": 0.0, "total": 0}
    assert squad.aggregate_v11([]) == {"exact_match": 0.0, "f1": 0.0}
    with pytest.raises(ValueError, match="no-answer probability"):
        squad.aggregate_v2([V2Item("h", ["x"], True, "x")], {})


# --- properties -------------------------------------------------------------------------------

_text = st.text(alphabet=st.sampled_from(list("ab cdTHE.,-“")) | st.characters(), max_size=20)
_golds = st.lists(_text, min_size=1, max_size=4)


@given(_text, _golds)
def test_scores_in_range_and_em_implies_f1(pred: str, golds: list[str]) -> None:
    for scorer in (squad.score_v11, squad.score_v2):
        s = scorer(pred, golds)
        assert 0.0 <= s.f1 <= 1.0 and s.em in (0, 1)
        assert s.best_gold is None or 0 <= s.best_gold < len(golds)
    v2 = squad.score_v2(pred, golds)
    if v2.em:
        assert v2.f1 == 1.0
    v11 = squad.score_v11(pred, golds)
    if v11.em and squad.normalize_answer(pred):
        assert v11.f1 == 1.0  # only the both-empty case breaks it under v1.1


@given(_text, _text)
def test_single_gold_symmetry(a: str, b: str) -> None:
    assert squad.score_v11(a, [b]) == squad.score_v11(b, [a])
    assert squad.compute_f1_v2(a, b) == squad.compute_f1_v2(b, a)
    if squad.normalize_answer(a) and squad.normalize_answer(b):
        assert squad.score_v2(a, [b]) == squad.score_v2(b, [a])


@given(_text)
def test_normalize_is_idempotent_and_v1_v2_agree_on_nonempty(s: str) -> None:
    n = squad.normalize_answer(s)
    assert squad.normalize_answer(n) == n
    assert squad.score_v2(s, [s]).em == 1
    if n:
        assert squad.score_v11(s, [s]) == squad.score_v2(s, [s])
