"""The mixed frameworks runs folder through `load_runs`: every file attributed to its dataset and
model, every other file listed with a reason, side files reloading their runs; and the loader's
fallback matching (dataset questions found inside prompts, OpenCompass positions checked against
the gold)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import (
    LoadSummary,
    load_runs,
    match_by_position,
    match_in_prompts,
)
from qa_inspect.core.model import Prediction

from tests.paths import FIXTURES

FIXTURE = FIXTURES / "frameworks" / "runs"
LM = "lm_eval/Qwen__Qwen2-7B-Instruct"
DATE = "2024-06-01T10-20-30.123456"
LM_CMRC = f"{LM}/samples_cmrc_mini_{DATE}.jsonl"
LM_CDQA = f"{LM}/samples_cdqa_mini_{DATE}.jsonl"
LM_RESULTS = f"{LM}/results_{DATE}.json"
LM_LEGACY = "lm_eval_legacy/pretrained__uer__gpt2-chinese-cluecorpussmall_cmrc_mini.jsonl"
OC = "opencompass/20240601_102030"
OC_RUN = f"{OC}/predictions/internlm2-chat-7b-hf/cmrc_mini_0.json"
OC_SHARD = f"{OC}/predictions/internlm2-chat-7b-hf/cmrc_mini_1.json"
OC_RESULTS = f"{OC}/results/internlm2-chat-7b-hf/cmrc_mini.json"
INSPECT_EVAL = "inspect/2024-06-01T10-20-30+00-00_cdqa-mini_Ab3dE5.eval"
INSPECT_JSON = "inspect/2024-06-02T09-00-00+00-00_cmrc-mini_Fg6hI7.json"
CDQA_RUN = "cdqa/cfreshqa_fast/2024-03-01_12-00-00--Qwen-7B-Chat--vanilla--0shots--1k.prediction"
HF_RUN = "hf/roberta-wwm-ext/eval_predictions.json"
HF_ODDS = "hf/roberta-wwm-ext/eval_null_odds.json"

EXPECTED_RUNS = {  # file → (format, dataset, model, predictions)
    CDQA_RUN: ("cdqa-eval", "cdqa_mini", "Qwen-7B-Chat", 4),
    HF_RUN: ("prediction-map", "cmrc_mini_dev", None, 6),
    INSPECT_EVAL: ("inspect-log", "cdqa_mini", "openai/gpt-4o-mini", 4),
    INSPECT_JSON: ("inspect-log", "cmrc_mini_dev", "anthropic/claude-3-5-haiku-latest", 3),
    LM_CDQA: ("lm-eval-samples", "cdqa_mini", "Qwen/Qwen2-7B-Instruct", 4),
    LM_CMRC: ("lm-eval-samples", "cmrc_mini_dev", "Qwen/Qwen2-7B-Instruct", 6),
    LM_LEGACY: ("lm-eval-samples", "cmrc_mini_dev", "uer/gpt2-chinese-cluecorpussmall", 4),
    OC_RUN: ("opencompass-predictions", "cmrc_mini_dev", "internlm/internlm2-chat-7b", 6),
}
EXPECTED_SKIPS = {
    f"{CDQA_RUN[: -len('.prediction')]}--75.0AR--66.6667F1.metrics": "CDQA metrics of",
    "hf/roberta-wwm-ext/all_results.json": "all values are numbers",
    "hf/roberta-wwm-ext/eval_nbest_predictions.json": "n-best side file of eval_predictions.json",
    HF_ODDS: "null-odds side file of eval_predictions.json",
    LM_RESULTS: "lm-eval results (model and settings) of",
    "lm_eval_legacy/results.json": "lm-eval results (model and settings) of pretrained__uer__",
    "misc/plot_data.json": "settings or metadata, not predictions (keys such as 'x', 'y')",
    "notes.txt": "not a JSON/JSONL file",
    f"{OC}/configs/20240601_102030.py": "OpenCompass config",
    f"{OC}/logs/infer/internlm2-chat-7b-hf/cmrc_mini_0.out": "OpenCompass log",
    f"{OC}/summary/summary_20240601_102030.csv": "OpenCompass summary",
    OC_SHARD: "shard 1 of cmrc_mini_0.json",
    OC_RESULTS: "OpenCompass results (per-item verdicts) of",
}


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    dest = tmp_path / "runs"
    shutil.copytree(FIXTURE, dest)
    return dest


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "db" / "qa.db"


def load(runs: Path, db: Path) -> LoadSummary:
    summary = load_runs(runs, db)
    assert summary.errors == []
    return summary


def query(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def bump(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def edit_json(path: Path, change: Any) -> None:
    value = json.loads(path.read_text(encoding="utf-8"))
    change(value)
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
    bump(path)


def statuses(summary: LoadSummary) -> dict[str, str]:
    return {r.path: r.status for r in summary.runs}


# ----------------------------------------------------------------------------------- the folder


def test_mixed_folder_loads_in_one_call(runs: Path, db: Path) -> None:
    summary = load(runs, db)
    assert {d.name: (d.format, d.items) for d in summary.datasets} == {
        "cdqa_mini": ("cdqa-v1", 4), "cmrc_mini_dev": ("squad", 6)
    }
    found = {r.path: (r.format, r.dataset, r.predictions, r.unmatched) for r in summary.runs}
    assert found == {path: (fmt, ds, n, 0) for path, (fmt, ds, _, n) in EXPECTED_RUNS.items()}
    models = dict(query(db, "SELECT path, model FROM runs"))
    assert models == {path: model for path, (_, _, model, _) in EXPECTED_RUNS.items()}
    skipped = {s["path"]: s["reason"] for s in summary.skipped}
    assert set(skipped) == set(EXPECTED_SKIPS), "every file is a dataset, a run, or listed with its reason"
    for path, start in EXPECTED_SKIPS.items():
        assert skipped[path].startswith(start), (path, skipped[path])


def test_stored_raw_answers_framework_scores_and_settings(runs: Path, db: Path) -> None:
    load(runs, db)
    rows = query(
        db,
        "SELECT i.key, p.text, p.raw, p.meta, p.em FROM predictions p JOIN runs r ON r.id = p.run_id"
        " JOIN items i ON i.id = p.item_id WHERE r.path = ? ORDER BY p.source_line",
        OC_RUN,
    )
    assert [r[0] for r in rows] == [f"MINI_DEV_{p}_QUERY_{q}" for p in (0, 1) for q in (0, 1, 2)]
    key, text, raw, meta, em = rows[4]
    assert (text, raw, em) == ("春潮", "答案是《春潮》", 1)
    meta = json.loads(meta)
    assert meta["matched_by"] == "position" and meta["framework_scores"] == {"correct": 1.0}
    assert meta["extracted_question"] == "林远写的哪首交响乐得过一等奖？"
    run_meta, reason = query(db, "SELECT meta, link_reason FROM runs WHERE path = ?", OC_RUN)[0]
    assert json.loads(run_meta)["fallback_matching"]["position_gold_checked"] == 1
    assert reason.endswith("; 1 by position (1 gold-checked)")
    cdqa = query(db, "SELECT link_reason FROM runs WHERE path = ?", CDQA_RUN)[0][0]
    assert cdqa.endswith("4/4 predictions matched, covering 100.0% of 'cdqa_mini'; 1 by a dataset question found in the prompt")
    settings = json.loads(query(db, "SELECT meta FROM runs WHERE path = ?", LM_CMRC)[0][0])["settings"]
    assert settings["model_args"] == "pretrained=Qwen/Qwen2-7B-Instruct,dtype=bfloat16"
    refused = query(
        db, "SELECT p.text, p.refused, p.f1_recall, p.meta FROM predictions p JOIN runs r ON r.id = p.run_id"
        " WHERE r.path = ? AND p.source_line IS NULL AND p.text LIKE '抱歉%'", INSPECT_EVAL,
    )
    assert [(t, r, f) for t, r, f, _ in refused] == [("抱歉，我没有相关信息。", 1, None)]
    assert json.loads(refused[0][3])["framework_scores"] == {"match": 0.0}, "theirs beside ours"
    odds = query(db, "SELECT p.meta FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
                     " WHERE r.path = ? AND i.key = 'MINI_DEV_0_QUERY_2'", HF_RUN)
    assert json.loads(odds[0][0]) == {"null_odds": 0.75}


def test_second_load_changes_nothing(runs: Path, db: Path) -> None:
    load(runs, db)
    again = load(runs, db)
    assert set(statuses(again).values()) == {"unchanged"}
    assert not again.changed
    side = {s["path"]: s["reason"] for s in again.skipped}
    assert side[OC_SHARD] == f"side file of {OC_RUN}, read with it"
    assert side[HF_ODDS] == f"side file of {HF_RUN}, read with it"


def test_changed_shared_results_reload_every_samples_file(runs: Path, db: Path) -> None:
    load(runs, db)
    edit_json(runs / LM_RESULTS, lambda v: v.update(model_name="Qwen/Qwen2-7B-Instruct-AWQ"))
    summary = load(runs, db)
    assert {p for p, s in statuses(summary).items() if s == "loaded"} == {LM_CMRC, LM_CDQA}
    assert {m for (m,) in query(db, "SELECT model FROM runs WHERE format = 'lm-eval-samples' AND path LIKE 'lm_eval/%'")} == {
        "Qwen/Qwen2-7B-Instruct-AWQ"
    }


def test_changed_shard_or_results_reload_the_opencompass_run(runs: Path, db: Path) -> None:
    load(runs, db)
    edit_json(runs / OC_SHARD, lambda v: v["2"].update(prediction="答案是十五年"))
    summary = load(runs, db)
    assert {p for p, s in statuses(summary).items() if s == "loaded"} == {OC_RUN}
    assert query(db, "SELECT p.raw FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.path = ?"
                     " AND p.source_line = 6", OC_RUN) == [("答案是十五年",)]
    (runs / OC_RESULTS).unlink()
    summary = load(runs, db)
    assert statuses(summary)[OC_RUN] == "loaded" and summary.removed == [OC_RESULTS]
    texts = [t for (t,) in query(db, "SELECT p.text FROM predictions p JOIN runs r ON r.id = p.run_id"
                                      " WHERE r.path = ? ORDER BY p.source_line", OC_RUN)]
    assert texts[0] == "答案是北部。", "without the evaluator's details the raw output is the answer"


def test_side_file_that_appears_later_reloads_its_run(runs: Path, db: Path) -> None:
    odds = (runs / HF_ODDS).read_text(encoding="utf-8")
    (runs / HF_ODDS).unlink()
    load(runs, db)
    assert query(db, "SELECT count(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
                     " WHERE r.path = ? AND p.meta LIKE '%null_odds%'", HF_RUN) == [(0,)]
    (runs / HF_ODDS).write_text(odds, encoding="utf-8")
    summary = load(runs, db)
    assert {p for p, s in statuses(summary).items() if s == "loaded"} == {HF_RUN}
    assert query(db, "SELECT count(*) FROM predictions p JOIN runs r ON r.id = p.run_id"
                     " WHERE r.path = ? AND p.meta LIKE '%null_odds%'", HF_RUN) == [(6,)]


# ------------------------------------------------------------------------- fallback matching


def _p(prompt: str | None = None, **meta: Any) -> Prediction:
    if prompt is not None:
        meta["prompt"] = prompt
    return Prediction(ref="x", ref_kind="question", text="", meta=meta)


def test_match_in_prompts_takes_the_last_question_asked() -> None:
    questions = ["示例大桥全长多少米？", "示例公司现任首席执行官是谁？", "谁？"]
    few_shot = "问题：示例大桥全长多少米？\n答案：1200米\n\n现在请回答：示例公司现任首席执行官是谁\n"
    found = match_in_prompts([_p(few_shot), _p("没有问题"), _p(None), _p("问：谁？")], questions)
    assert found == {0: "示例公司现任首席执行官是谁？"}, "trailing ？ and spacing normalised; short questions never searched"


def test_match_by_position_checks_gold() -> None:
    ordered = [("a", ["北部", "北部"]), ("b", ["《春潮》", "春潮"]), ("c", ["十五年"])]
    preds = [_p(position=0, gold=["北部"]), _p(position=1, gold=["春潮", "《春潮》"]), _p(position=2, gold="十年"),
             _p(position=3, gold=["x"]), _p(position=1), _p()]
    result = match_by_position(preds, ordered)
    assert result.keys == {0: "a", 1: "b", 4: "b"}
    assert (result.checked, result.unchecked, result.beyond) == (2, 1, 1)
    assert result.mismatches == [{"position": 2, "gold": ["十年"], "dataset_golds": ["十五年"]}]


def _opencompass(runs: Path, rows: dict[str, Any], name: str = "cmrc_mini") -> str:
    rel = f"opencompass/20240701_000000/predictions/m/{name}.json"
    path = runs / rel
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return rel


def test_position_mismatches_are_reported_not_linked(runs: Path, db: Path) -> None:
    rows = {
        "0": {"origin_prompt": "问：甲乙丙丁戊？", "prediction": "北部", "gold": ["北部", "示例省北部"]},
        "1": {"origin_prompt": "问：己庚辛壬癸？", "prediction": "白鹤", "gold": ["丹顶鹤"]},
        "2": {"origin_prompt": None, "prediction": "望月桥", "gold": "望月桥"},
    }
    rel = _opencompass(runs, rows)
    summary = load(runs, db)
    (report,) = [r for r in summary.runs if r.path == rel]
    assert (report.dataset, report.predictions, report.unmatched) == ("cmrc_mini_dev", 2, 1)
    assert report.link.endswith("2 by position (2 gold-checked); 1 positions whose gold differs, not linked")
    stats = json.loads(query(db, "SELECT meta FROM runs WHERE path = ?", rel)[0][0])["fallback_matching"]
    assert stats["position_mismatch_sample"] == [
        {"position": 1, "gold": ["丹顶鹤"], "dataset_golds": ["白鹤", "白鹤", "白鹤"]}
    ]


def test_positions_without_gold_need_agreement(runs: Path, db: Path) -> None:
    """No gold and no question: positions are not trusted on their own..."""
    rel = _opencompass(runs, {"0": {"origin_prompt": None, "prediction": "北部"}})
    summary = load_runs(runs, db)
    assert [e["message"] for e in summary.errors] == [
        f"{rel}: no prediction matches any dataset by id or question (tried: cdqa_mini, cmrc_mini_dev);"
        " nor by a dataset question inside the prompts or by position"
    ]


def test_positions_without_gold_follow_matched_neighbours(runs: Path, db: Path) -> None:
    """...but are, on the linked dataset, when the rows matched by question sit at their positions."""
    items = json.loads((FIXTURE / "data" / "cmrc_mini_dev.json").read_text(encoding="utf-8"))
    questions = [qa["question"] for art in items["data"] for para in art["paragraphs"] for qa in para["qas"]]
    rows = {str(n): {"origin_prompt": f"问：{q}\n答：", "prediction": "x"} for n, q in enumerate(questions)}
    rows["3"]["origin_prompt"] = "（提示词丢失）"
    rel = _opencompass(runs, rows)
    summary = load(runs, db)
    (report,) = [r for r in summary.runs if r.path == rel]
    assert (report.predictions, report.unmatched) == (6, 0)
    assert report.link.endswith("1 by position (0 gold-checked)")


def test_repeated_questions_are_told_apart_by_position(runs: Path, db: Path) -> None:
    """A dataset asking the same question twice: by text both rows would go to the first item."""
    context = "甲河发源于北山，乙河发源于南山。"
    dataset = {"data": [{"title": "t", "paragraphs": [
        {"id": "R_0", "context": context, "qas": [{"id": "R_0_QUERY_0", "question": "这条河的发源地是哪里？",
                                                    "answers": [{"text": "北山", "answer_start": 5}]}]},
        {"id": "R_1", "context": context, "qas": [{"id": "R_1_QUERY_0", "question": "这条河的发源地是哪里？",
                                                    "answers": [{"text": "南山", "answer_start": 12}]}]},
    ]}]}
    (runs / "data" / "repeated.json").write_text(json.dumps(dataset, ensure_ascii=False), encoding="utf-8")
    rows = {str(n): {"origin_prompt": f"文章：{context}\n问：这条河的发源地是哪里？\n答：", "prediction": a, "gold": [g]}
            for n, (a, g) in enumerate([("北山", "北山"), ("南山", "南山")])}
    rel = _opencompass(runs, rows, name="repeated")
    summary = load(runs, db)
    (report,) = [r for r in summary.runs if r.path == rel]
    assert (report.dataset, report.predictions, report.unmatched) == ("repeated", 2, 0)
    assert report.link == (
        "best match by id; 2/2 predictions matched, covering 100.0% of 'repeated';"
        " 2 predictions of repeated questions told apart by position"
    )
    stored = query(db, "SELECT i.key, p.em FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i"
                       " ON i.id = p.item_id WHERE r.path = ? ORDER BY i.key", rel)
    assert stored == [("R_0_QUERY_0", 1), ("R_1_QUERY_0", 1)]


@pytest.mark.parametrize("run_path, dataset", [(OC_RUN, "cmrc_mini_dev"), (CDQA_RUN, "cdqa_mini"), (INSPECT_EVAL, "cdqa_mini")])
def test_score_links_like_load(runs: Path, db: Path, run_path: str, dataset: str) -> None:
    """`score DATASET RUN` matches predictions exactly as `load` does: by prompt and by position too."""
    from qa_inspect.core.formats import read_source
    from qa_inspect.core.load import score_run

    load(runs, db)
    stored = dict(query(
        db, "SELECT i.key, p.em FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.path = ? AND p.em IS NOT NULL", run_path))
    stored_recall = dict(query(
        db, "SELECT i.key, p.f1_recall FROM predictions p JOIN runs r ON r.id = p.run_id"
        " JOIN items i ON i.id = p.item_id WHERE r.path = ?", run_path))
    ds = read_source(runs / "data" / f"{dataset}.json")
    run = read_source(runs / run_path)
    scored = score_run(ds, run)  # type: ignore[arg-type]
    answered = {item.key: row for item, pred, row in scored.rows if pred is not None}
    assert set(answered) == set(stored_recall), "the same items are answered"
    if stored:
        assert {k: r.em for k, r in answered.items()} == stored
    assert scored.link is not None and scored.link.dataset == dataset
