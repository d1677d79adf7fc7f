"""`qa-inspect score`: two files, no database, the official scorers' numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qa_inspect.core.metrics import cdqa
from tests.cli.helpers import invoke

@pytest.fixture(scope="module")
def conformance_rows(conformance_dir: Path) -> list[dict[str, Any]]:
    rows = [json.loads(ln) for ln in (conformance_dir / "cmrc2018_official.jsonl").read_text(encoding="utf-8").splitlines() if ln.strip()]
    return [r for r in rows if not r["id"].startswith("EDGE")]


def _official(total: int, em_sum: float, f1_sum: float) -> dict[str, Any]:
    em, f1 = 100.0 * em_sum / total, 100.0 * f1_sum / total
    return {"em": float("%.3f" % em), "f1": float("%.3f" % f1), "average": float("%.3f" % ((em + f1) / 2))}


def test_score_trial_set_gives_the_official_numbers(shared_data: Path, conformance_rows: list[dict[str, Any]],
                                                    tmp_path: Path) -> None:
    trial = shared_data / "cmrc2018_trial.json"
    assert len(conformance_rows) == 1002  # the non-EDGE rows cover every trial question
    preds = tmp_path / "pred.json"
    preds.write_text(json.dumps({r["id"]: r["prediction"] for r in conformance_rows}, ensure_ascii=False), encoding="utf-8")
    res = invoke("score", str(trial), str(preds), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert set(summary) >= {"dataset", "predictions", "scorer", "overall", "by_split", "by_tag", "by_answer_type"}
    assert summary["scorer"] == "cmrc2018-official"
    expected = _official(1002, sum(r["em"] for r in conformance_rows), sum(r["f1"] for r in conformance_rows))
    assert summary["overall"] == {**expected, "total": 1002, "skip": 0}
    assert summary["by_split"] == {"trial": summary["overall"]}
    assert summary["unmatched"] == 0


def test_score_with_missing_and_unknown_ids(shared_data: Path, conformance_rows: list[dict[str, Any]],
                                            tmp_path: Path) -> None:
    kept = conformance_rows[::3]  # two of every three questions unanswered
    preds = {r["id"]: r["prediction"] for r in kept}
    preds.update({"TRIAL_9999_QUERY_0": "不存在", "bogus": "x"})
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    items = tmp_path / "items.jsonl"
    res = invoke("score", str(shared_data / "cmrc2018_trial.json"), str(path), "--json", "--items", str(items))
    assert res.exit_code == 0, res.output  # unknown ids are reported, not fatal
    summary = json.loads(res.stdout)
    expected = _official(1002, sum(r["em"] for r in kept), sum(r["f1"] for r in kept))
    assert summary["overall"] == {**expected, "total": 1002, "skip": 1002 - len(kept)}
    assert summary["unmatched"] == 2
    assert sorted(summary["unmatched_sample"]) == ["TRIAL_9999_QUERY_0", "bogus"]

    lines = items.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1002
    records = [json.loads(ln) for ln in lines]
    assert all(set(r) == {"id", "question", "prediction", "em", "f1", "refused", "f1_recall", "best_gold"} for r in records)
    by_id = {r["id"]: r for r in records}
    for row in kept:
        rec = by_id[row["id"]]
        assert rec["prediction"] == row["prediction"]
        assert rec["em"] == row["em"]
        assert rec["f1"] == pytest.approx(row["f1"], abs=1e-6)
        assert rec["refused"] is None and rec["f1_recall"] is None
        assert rec["best_gold"] in row["golds"]
        assert isinstance(rec["question"], str)  # (two trial questions are empty strings)
    missing = [r for r in records if r["id"] not in preds]
    assert len(missing) == 1002 - len(kept)
    assert all(r["prediction"] is None and r["em"] is None and r["f1"] is None for r in missing)


def test_score_plain_output(shared_data: Path, conformance_rows: list[dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "pred.json"
    path.write_text(json.dumps({r["id"]: r["prediction"] for r in conformance_rows[:10]} | {"zzz": "a"},
                               ensure_ascii=False), encoding="utf-8")
    res = invoke("score", str(shared_data / "cmrc2018_trial.json"), str(path))
    assert res.exit_code == 0
    assert "overall" in res.stdout and "split=trial" in res.stdout
    assert "1 predictions name no item of the dataset, e.g. zzz" in res.stdout


def test_score_unknown_scorer_is_one_line(sample_runs: Path) -> None:
    res = invoke("score", str(sample_runs / "cmrc2018/cmrc2018_dev_sample.json"),
                 str(sample_runs / "cmrc2018/runs/bert-base-chinese.json"), "--scorer", "bleu")
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr.strip() == "qa-inspect: --scorer: unknown scorer 'bleu'; known: cmrc2018-official, squad-v1.1, squad-v2, cdqa-f1-recall"


def test_score_file_errors_are_one_line(sample_runs: Path, tmp_path: Path) -> None:
    ds = sample_runs / "cmrc2018/cmrc2018_dev_sample.json"
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ', encoding="utf-8")
    cases = {
        (str(ds), str(tmp_path / "none.json")): f"qa-inspect: {tmp_path / 'none.json'}: no such file",
        (str(ds), str(bad)): f"qa-inspect: {bad}: invalid JSON at line 1, column 7: Expecting value",
        (str(ds), str(ds)): f"qa-inspect: {ds}: not a run file (a dataset (squad), not a run)",
    }
    for args, line in cases.items():
        res = invoke("score", *args)
        assert res.exit_code == 1
        assert res.stderr.strip() == line


def test_score_with_the_other_scorer(sample_runs: Path) -> None:
    res = invoke("score", str(sample_runs / "cmrc2018/cmrc2018_dev_sample.json"),
                 str(sample_runs / "cmrc2018/runs/bert-base-chinese.json"), "--scorer", "cdqa-f1-recall", "--json")
    assert res.exit_code == 0
    summary = json.loads(res.stdout)
    assert summary["scorer"] == "cdqa-f1-recall"
    assert set(summary["overall"]) == {"f1_recall", "answer_rate", "total", "answered", "responses"}
    assert summary["overall"]["total"] == 153


CDQA_SMALL = [
    {"qa": "\ufeff问题: 甲市最新开通的地铁是几号线？\n答案: 6号线",
     "annotation": {"分类1": "y可以接受", "知识动态性分类": "快速变化", "回答类型": "其他", "准确性检查": "https://example.org/a"}},
    {"qa": "\ufeff问题: 乙公司最近发布的旗舰手机叫什么？\n答案: 云帆X9",
     "annotation": {"分类1": "p修改", "知识动态性分类": "快速变化", "回答类型": "作品（事物）", "p-改写答案": "云帆X10",
                    "p-改写问题": "乙公司2024年发布的旗舰手机叫什么？"}},
    {"qa": "\ufeff问题: 丙河的发源地在哪个省？\n答案: 青海省",
     "annotation": {"分类1": "y可以接受", "知识动态性分类": "静态知识", "回答类型": "地名"}},
    {"qa": "\ufeff问题: 丁队上赛季的主教练是谁？\n答案: 王大明",
     "annotation": {"分类1": "y可以接受", "知识动态性分类": "中速变化", "回答类型": "人名"}},
]


def test_score_cdqa_small(tmp_path: Path) -> None:
    ds = tmp_path / "cdqa_small.json"
    ds.write_text(json.dumps(CDQA_SMALL, ensure_ascii=False, indent=1), encoding="utf-8")
    preds = [
        {"question": "甲市最新开通的地铁是几号线？", "prediction": "6号线"},
        {"question": "乙公司2024年发布的旗舰手机叫什么？", "prediction": "云帆X9"},  # the superseded answer
        {"question": "丙河的发源地在哪个省？", "prediction": "抱歉，我无法确定。"},  # refusal
        {"question": "戊城有多少人口？", "prediction": "一百万"},  # not in the dataset
        # 丁队: no answer at all
    ]
    pred_path = tmp_path / "llm.jsonl"
    pred_path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds), encoding="utf-8")
    items = tmp_path / "items.jsonl"
    res = invoke("score", str(ds), str(pred_path), "--json", "--items", str(items))
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["scorer"] == "cdqa-f1-recall"
    stale = cdqa.f1_recall("云帆X9", ["云帆X10"])  # scored against the rewrite only
    assert stale < 1.0
    assert summary["overall"] == {
        "f1_recall": float(format((1.0 + stale) / 2 * 100, ".4f")),
        "answer_rate": 66.67,  # 2 answered of the run's 3 responses, as cdqa_eval.py divides
        "total": 4,
        "answered": 2,
        "responses": 3,
    }
    assert summary["unmatched"] == 1
    assert summary["by_tag"]["fast-changing"]["answered"] == 2
    assert summary["by_tag"]["never-changing"] == {
        "f1_recall": None, "answer_rate": 0.0, "total": 1, "answered": 0, "responses": 1}  # the refusal
    assert set(summary["by_answer_type"]) == {"other", "work", "location", "person"}
    records = {r["question"]: r for r in map(json.loads, items.read_text(encoding="utf-8").splitlines())}
    assert len(records) == 4
    assert records["甲市最新开通的地铁是几号线？"] | {"id": None} == {
        "id": None, "question": "甲市最新开通的地铁是几号线？", "prediction": "6号线", "em": None, "f1": None,
        "refused": False, "f1_recall": 1.0, "best_gold": "6号线",
    }
    assert records["乙公司2024年发布的旗舰手机叫什么？"]["best_gold"] == "云帆X10"
    assert records["丙河的发源地在哪个省？"]["refused"] is True
    assert records["丙河的发源地在哪个省？"]["f1_recall"] is None
    assert records["丁队上赛季的主教练是谁？"]["prediction"] is None


def test_score_cdqa_sample_runs(sample_runs: Path) -> None:
    res = invoke("score", str(sample_runs / "cdqa/cdqa_sample.json"), str(sample_runs / "cdqa/runs/qwen-7b-chat.jsonl"),
                 "--json")
    assert res.exit_code == 0
    overall = json.loads(res.stdout)["overall"]
    assert overall["total"] == 38
    assert 0 < overall["answered"] < 38
    assert overall["answer_rate"] == round(100 * overall["answered"] / 38, 2)
    assert 0 < overall["f1_recall"] <= 100


@pytest.mark.parametrize("name", ["v2_mixed", "v2_abstainer", "v11_missing10"])
def test_score_squad_runs_print_the_official_dict(name: str, conformance_dir: Path, shared_data: Path) -> None:
    """`score DATASET PRED --json` gives what the official SQuAD script prints (same keys, same values)."""
    runs = conformance_dir / "squad_runs"
    case = json.loads((runs / "expected.json").read_text(encoding="utf-8"))[name]
    res = invoke("score", str(shared_data / case["dataset"]), str(runs / f"{name}_predictions.json"), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["scorer"] == case["scorer"]
    assert list(summary["overall"]) == list(case["official"])
    for key, value in case["official"].items():
        assert summary["overall"][key] == pytest.approx(value, abs=1e-9), key


def test_score_squad_v2_with_given_probabilities_and_threshold(conformance_dir: Path, shared_data: Path) -> None:
    runs = conformance_dir / "squad_runs"
    case = json.loads((runs / "expected.json").read_text(encoding="utf-8"))["v2_mixed"]
    res = invoke("score", str(shared_data / case["dataset"]), str(runs / "v2_mixed_predictions.json"),
                 "--null-odds", str(runs / case["no_answer_probabilities"]), "--na-prob-thresh", "0.5", "--json")
    assert res.exit_code == 0, res.output
    overall = json.loads(res.stdout)["overall"]
    for key, value in case["official_thresh_0.5"].items():
        assert overall[key] == pytest.approx(value, abs=1e-9), key
    plain = invoke("score", str(shared_data / case["dataset"]), str(runs / "v2_mixed_predictions.json"))
    assert "HasAns_exact" in plain.stdout and "squad-v2" in plain.stdout and "matched by id" in plain.stdout


def test_score_bad_probabilities_file_is_one_line(tmp_path: Path, conformance_dir: Path, shared_data: Path) -> None:
    bad = tmp_path / "odds.json"
    bad.write_text('["not", "a", "map"]', encoding="utf-8")
    res = invoke("score", str(shared_data / "squad2_dev_normans.json"),
                 str(conformance_dir / "squad_runs" / "v2_mixed_predictions.json"), "--null-odds", str(bad))
    assert res.exit_code == 1 and "expected a JSON object of id → number" in res.stderr
    assert "Traceback" not in res.output


def test_score_a_partly_tagged_dataset(tmp_path: Path) -> None:
    """Items without a tag are in no tag slice (this used to compare None with str and crash)."""
    ds = tmp_path / "ds.jsonl"
    ds.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (
        {"id": "a", "question": "q a?", "answers": ["x"], "tag": "fast"},
        {"id": "b", "question": "q b?", "answers": ["y"]},
    )), encoding="utf-8")
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps({"a": "x", "b": "z"}), encoding="utf-8")
    res = invoke("score", str(ds), str(preds), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["scorer"] == "squad-v1.1" and summary["overall"] == {"exact_match": 50.0, "f1": 50.0}
    assert set(summary["by_tag"]) == {"fast"}


def _pair(tmp_path: Path, predictions: dict[str, str]) -> tuple[Path, Path]:
    dataset = tmp_path / "dev.json"
    dataset.write_text(json.dumps({"data": [{"title": "t", "paragraphs": [{"context": "The fox", "qas": [
        {"id": "A1", "question": "What?", "answers": [{"text": "fox", "answer_start": 4}]}]}]}]}), encoding="utf-8")
    run = tmp_path / "p.json"
    run.write_text(json.dumps(predictions), encoding="utf-8")
    return dataset, run


def test_score_of_a_run_matching_nothing_is_one_error_line_not_zero(tmp_path: Path) -> None:
    dataset, run = _pair(tmp_path, {"X1": "fox", "X2": "dog"})
    res = invoke("score", str(dataset), str(run))
    assert res.exit_code == 1
    assert res.output.strip().splitlines() == [
        f"qa-inspect: {run}: none of its 2 predictions names an item of {dataset} (by id or question; e.g. X1, X2):"
        " nothing to score"]


def test_score_never_speaks_of_a_manifest(tmp_path: Path) -> None:
    dataset, run = _pair(tmp_path, {"A1": "fox", **{f"X{i}": "dog" for i in range(5)}})
    res = invoke("score", str(dataset), str(run))
    assert res.exit_code == 0 and "qa-inspect.toml" not in res.output
    assert "only 1 of its 6 predictions (16.7%) name an item of 'dev'" in res.output


def test_score_says_what_reading_said(tmp_path: Path) -> None:
    """A repeated key is never silent, in `score` as in `load`: the warning names file, record and key."""
    dataset, run = _pair(tmp_path, {})
    run.write_text('{"A1": "dog", "A1": "fox"}', encoding="utf-8")
    res = invoke("score", str(dataset), str(run), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["overall"]["exact_match"] == 100.0
    assert summary["warnings"] == [f"{run}: 1 duplicate id; the last of each was kept (e.g. 'A1': 'fox')"]
    assert f"warning: {run}: 1 duplicate id" in invoke("score", str(dataset), str(run)).output
