"""Readers for evaluation frameworks' own outputs, on fixtures written to match each framework's
writer code (see tests/fixtures/frameworks/make_fixtures.py): lm-evaluation-harness samples,
OpenCompass predictions, Inspect AI logs, CDQA's evaluation output, HF null odds; and the prompt
helper they share."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.errors import FormatError
from qa_inspect.core.formats import (
    CANDIDATE_SUFFIXES,
    Skip,
    formats,
    read_source,
    side_owners,
)
from qa_inspect.core.formats.prompts import extract_question, prompt_text, shown_prompt
from qa_inspect.core.formats.textio import read_document
from qa_inspect.core.load import run_display_name, walk
from qa_inspect.core.model import Candidate, Dataset, Run

from tests.paths import FIXTURES

RUNS = FIXTURES / "frameworks" / "runs"
LM = RUNS / "lm_eval" / "Qwen__Qwen2-7B-Instruct"
LM_DATE = "2024-06-01T10-20-30.123456"
OC = RUNS / "opencompass" / "20240601_102030"
OC_PRED = OC / "predictions" / "internlm2-chat-7b-hf"
CDQA_STEM = "2024-03-01_12-00-00--Qwen-7B-Chat--vanilla--0shots--1k"
CDQA_FILE = RUNS / "cdqa" / "cfreshqa_fast" / f"{CDQA_STEM}.prediction"
INSPECT_EVAL = RUNS / "inspect" / "2024-06-01T10-20-30+00-00_cdqa-mini_Ab3dE5.eval"
INSPECT_JSON = RUNS / "inspect" / "2024-06-02T09-00-00+00-00_cmrc-mini_Fg6hI7.json"
HF = RUNS / "hf" / "roberta-wwm-ext"


def run_of(path: Path, **hints: Any) -> Run:
    result = read_source(path, hints=hints or None)
    assert isinstance(result, Run), result
    return result


def skip_of(path: Path) -> str:
    result = read_source(path)
    assert isinstance(result, Skip), result
    return result.reason


def write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), encoding="utf-8")
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_registry_knows_the_framework_readers() -> None:
    known = formats()
    for name in ("lm-eval-samples", "opencompass-predictions", "inspect-log", "cdqa-eval"):
        assert known[name] == "run"
    assert {".eval", ".prediction"} <= CANDIDATE_SUFFIXES


# ----------------------------------------------------------------------------------- lm-eval


def test_lm_eval_samples_with_results() -> None:
    run = run_of(LM / f"samples_cmrc_mini_{LM_DATE}.jsonl")
    assert (run.format, run.name, run.model) == ("lm-eval-samples", "Qwen__Qwen2-7B-Instruct/cmrc_mini", "Qwen/Qwen2-7B-Instruct")
    assert len(run.predictions) == 6
    first = run.predictions[0]
    assert (first.ref, first.ref_kind, first.line) == ("MINI_DEV_0_QUERY_0", "id", 1)
    assert (first.text, first.raw) == (" 北部", " 北部\n"), "filtered answer beside the raw response"
    assert first.meta["question"] == "示例湖位于示例省的哪个方向？", "id-named samples still carry the question"
    assert first.meta["framework_scores"] == {"exact_match": 1.0}
    assert first.meta["target"] == "北部" and first.meta["doc_id"] == 0 and first.meta["filter"] == "none"
    assert "prompt" not in first.meta, "the doc names the item: no need to keep the prompt"
    assert run.predictions[5].meta["framework_scores"] == {"exact_match": 0.0}
    meta = run.meta
    assert meta["framework"] == "lm-evaluation-harness" and meta["task"] == "cmrc_mini"
    assert meta["framework_results"]["exact_match,none"] == 0.6667
    settings = meta["settings"]
    assert settings["model_args"] == "pretrained=Qwen/Qwen2-7B-Instruct,dtype=bfloat16"
    assert settings["n-shot"] == 0 and settings["versions"] == 1.0
    assert settings["task_config"]["generation_kwargs"]["max_gen_toks"] == 32
    assert run.extra_paths == [str(LM / f"results_{LM_DATE}.json")]


def test_lm_eval_several_filters_and_question_docs() -> None:
    """CDQA records as docs (no id: matched by the question inside `qa`), two filters per doc."""
    run = run_of(LM / f"samples_cdqa_mini_{LM_DATE}.jsonl")
    assert len(run.predictions) == 4, "one prediction per doc, not per (doc, filter)"
    assert run.meta["filter"] == "strict-match" and run.meta["filters"] == ["strict-match", "flexible-extract"]
    refused = run.predictions[1]
    assert (refused.ref, refused.ref_kind) == ("示例公司现任首席执行官是谁？", "question")
    assert (refused.text, refused.raw) == ("[invalid]", "对不起，我无法确定。")
    assert refused.meta["filtered"] == {"flexible-extract": "对不起，我无法确定。"}
    assert refused.meta["framework_scores"] == {"exact_match": 0.0, "exact_match,flexible-extract": 0.0}
    assert run.predictions[3].ref == "示例足球队上赛季获得联赛第几名？", "the original question (the item's key)"
    assert run.meta["framework_results"]["exact_match,strict-match"] == 0.25


def test_lm_eval_results_file_is_a_side_file_of_its_samples() -> None:
    path = LM / f"results_{LM_DATE}.json"
    assert skip_of(path) == (
        f"lm-eval results (model and settings) of samples_cdqa_mini_{LM_DATE}.jsonl, "
        f"samples_cmrc_mini_{LM_DATE}.jsonl, read with them"
    )
    assert side_owners(path) == sorted(LM.glob("samples_*.jsonl"))


def test_lm_eval_legacy_json_array() -> None:
    """v0.4.0: the samples file is one JSON array, arguments are [prompt, kwargs], results.json beside."""
    run = run_of(RUNS / "lm_eval_legacy" / "pretrained__uer__gpt2-chinese-cluecorpussmall_cmrc_mini.jsonl")
    assert (run.format, run.model) == ("lm-eval-samples", "uer/gpt2-chinese-cluecorpussmall")
    assert [p.ref for p in run.predictions] == [f"MINI_DEV_0_QUERY_{i}" for i in range(3)] + ["MINI_DEV_1_QUERY_0"]
    assert run.predictions[1].text == "候鸟" and run.predictions[1].meta["framework_scores"] == {"exact_match": 0.0}
    assert run.meta["settings"]["limit"] == 4 and run.meta["results_file"] == "results.json"
    assert "filter" not in run.meta
    results = RUNS / "lm_eval_legacy" / "results.json"
    assert skip_of(results).startswith("lm-eval results (model and settings) of pretrained__uer__"), "found by a peek"
    assert side_owners(results) == [Path(run.path)]


def test_lm_eval_without_results_takes_the_model_folder(tmp_path: Path) -> None:
    folder = tmp_path / "meta-llama__Llama-3-8B"
    folder.mkdir()
    shutil.copy(LM / f"samples_cmrc_mini_{LM_DATE}.jsonl", folder)
    run = run_of(folder / f"samples_cmrc_mini_{LM_DATE}.jsonl")
    assert run.model == "meta-llama/Llama-3-8B" and run.meta["model_from"] == "folder name"
    assert run.extra_paths == [] and "settings" not in run.meta


def test_lm_eval_prompt_only_docs_and_chat_prompts(tmp_path: Path) -> None:
    """No id or question in the doc: the question comes from the (chat-template, JSON-encoded) prompt."""
    chat = json.dumps([{"role": "system", "content": "你是助手。"},
                       {"role": "user", "content": "问题：示例大桥全长多少米？\n答案："}], ensure_ascii=False)
    record = {"doc_id": 0, "doc": {"text": "x"}, "target": "1200米",
              "arguments": {"gen_args_0": {"arg_0": chat, "arg_1": {"until": []}}},
              "resps": [["1200米"]], "filtered_resps": ["1200米"], "filter": "none", "metrics": ["acc"], "acc": True}
    path = write(tmp_path / f"samples_x_{LM_DATE}.jsonl", json.dumps(record, ensure_ascii=False) + "\n")
    (prediction,) = run_of(path).predictions
    assert (prediction.ref, prediction.ref_kind) == ("示例大桥全长多少米？", "question")
    assert prediction.meta["prompt"].endswith("问题：示例大桥全长多少米？\n答案：")
    assert prediction.meta["framework_scores"] == {"acc": 1.0}


def test_lm_eval_sample_naming_no_item_is_an_error(tmp_path: Path) -> None:
    record = {"doc_id": 3, "doc": {"x": 1}, "arguments": {}, "resps": [["a"]], "filtered_resps": ["a"]}
    path = write(tmp_path / f"samples_x_{LM_DATE}.jsonl", json.dumps(record) + "\n")
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value) == f"{path}, line 1: sample names no item: its doc has no id or question, and its prompt no question"


def test_lm_eval_unreadable_results_file_is_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "org__m"
    folder.mkdir()
    shutil.copy(LM / f"samples_cmrc_mini_{LM_DATE}.jsonl", folder)
    write(folder / f"results_{LM_DATE}.json", '{"results": ')
    run = run_of(folder / f"samples_cmrc_mini_{LM_DATE}.jsonl")
    assert run.meta["warnings"] == [f"its results file results_{LM_DATE}.json is not read (invalid JSON at line 1,"
                                    " column 13: Expecting value): no model or settings from it"]
    assert run.model == "org/m"


def test_framework_score_too_large_names_the_record(tmp_path: Path) -> None:
    record = {"doc_id": 0, "doc": {"id": "a"}, "resps": [["x"]], "filtered_resps": ["x"], "metrics": ["em"]}
    path = write(tmp_path / f"samples_x_{LM_DATE}.jsonl", json.dumps(record)[:-1] + ', "em": ' + "9" * 400 + "}\n")
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value) == f"{path}, line 1: a score is a number too large to read"


def test_lm_eval_name_without_lm_eval_shape_falls_through(tmp_path: Path) -> None:
    """The name is a hint, not a verdict: a records file named like samples is still read by shape."""
    path = write(tmp_path / f"samples_x_{LM_DATE}.jsonl", '{"id": "a", "prediction": "b"}\n')
    assert run_of(path).format == "prediction-records"


# -------------------------------------------------------------------------------- OpenCompass


def test_opencompass_shards_results_and_config() -> None:
    run = run_of(OC_PRED / "cmrc_mini_0.json")
    assert (run.format, run.name, run.model) == (
        "opencompass-predictions", "internlm2-chat-7b-hf/cmrc_mini", "internlm/internlm2-chat-7b"
    )
    assert [p.meta["position"] for p in run.predictions] == [0, 1, 2, 3, 4, 5], "shards joined in order"
    assert [p.meta.get("shard") for p in run.predictions] == [0, 0, 0, 1, 1, 1]
    assert run.extra_paths == [str(OC_PRED / "cmrc_mini_1.json"), str(OC / "results" / "internlm2-chat-7b-hf" / "cmrc_mini.json")]
    first = run.predictions[0]
    assert (first.ref, first.ref_kind) == ("示例湖位于示例省的哪个方向？", "question")
    assert (first.text, first.raw) == ("北部", "答案是北部。"), "the evaluator's extracted answer beside the raw output"
    assert first.meta["gold"] == ["北部", "示例省北部"] and first.meta["framework_scores"] == {"correct": 1.0}
    assert first.meta["prompt"].startswith("HUMAN: 根据文章回答问题。")
    assert run.predictions[4].ref == "林远写的哪首交响乐得过一等奖？", "a reworded prompt: the loader matches it by position"
    assert run.predictions[5].meta["framework_scores"] == {"correct": 0.0}
    meta = run.meta
    assert (meta["model_abbr"], meta["dataset_abbr"], meta["timestamp"]) == ("internlm2-chat-7b-hf", "cmrc_mini", "20240601_102030")
    assert meta["shards"] == ["cmrc_mini_0.json", "cmrc_mini_1.json"]
    assert meta["framework_results"] == {"score": 83.3333}
    settings = meta["settings"]
    assert settings["max_out_len"] == 1024 and settings["batch_size"] == 8
    assert settings["generation_kwargs"] == {"do_sample": False} and settings["run_cfg"] == {"num_gpus": 1}
    assert settings["type"] == "opencompass.models.HuggingFacewithChatTemplate"


def test_opencompass_side_files() -> None:
    assert skip_of(OC_PRED / "cmrc_mini_1.json") == "shard 1 of cmrc_mini_0.json (OpenCompass predictions), read with it"
    results = OC / "results" / "internlm2-chat-7b-hf" / "cmrc_mini.json"
    assert skip_of(results) == (
        "OpenCompass results (per-item verdicts) of predictions/internlm2-chat-7b-hf/cmrc_mini_0.json, read with it"
    )
    assert side_owners(results) == [OC_PRED / "cmrc_mini_0.json"]
    assert side_owners(OC_PRED / "cmrc_mini_1.json") == [OC_PRED / "cmrc_mini_0.json"]
    assert side_owners(OC_PRED / "cmrc_mini_0.json") == []


def test_opencompass_base_model_without_results_or_config(tmp_path: Path) -> None:
    folder = tmp_path / "20240102_030405" / "predictions" / "llama-7b"
    rows = {
        "0": {"origin_prompt": "Q: Who wrote Hamlet?\nA:", "prediction": [" Shakespeare", " Marlowe"], "gold": "Shakespeare"},
        "1": {"origin_prompt": None, "prediction": " 42"},
    }
    run = run_of(write(folder / "nq.json", rows))
    assert (run.model, run.name, run.extra_paths) == ("llama-7b", "llama-7b/nq", [])
    first, second = run.predictions
    assert (first.ref, first.text, first.raw) == ("Who wrote Hamlet?", " Shakespeare", " Shakespeare")
    assert first.meta["all_predictions"] == [" Shakespeare", " Marlowe"] and first.meta["gold"] == "Shakespeare"
    assert (second.ref, second.ref_kind, second.meta["position"]) == ("#1", "id", 1), "no prompt: only the position can match"


def test_opencompass_results_that_cannot_be_used_are_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "20240102_030405"
    rows = {"0": {"origin_prompt": "问：甲？", "prediction": "a"}, "1": {"origin_prompt": "问：乙？", "prediction": "b"}}
    path = write(root / "predictions" / "m" / "d.json", rows)
    results = write(root / "results" / "m" / "d.json", {"score": 50, "details": [{"pred": "a"}]})
    assert run_of(path).meta["warnings"] == [
        "results/m/d.json is not used (1 details for 2 predictions): no extracted answers or verdicts"
    ]
    write(results, '{"score": 50, "details": [')
    assert run_of(path).meta["warnings"][0].startswith("results/m/d.json is not used (invalid JSON at line 1")


def test_opencompass_bad_row_among_good_ones_is_named(tmp_path: Path) -> None:
    """The file is still recognised (by its good rows) and the bad row named, not the file skipped."""
    path = write(tmp_path / "20240102_030405" / "predictions" / "m" / "d.json",
                 {"0": {"origin_prompt": "问：甲？", "prediction": "a"}, "1": "b"})
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value) == f"{path}, key '1': row is a string, expected an object"


def test_opencompass_rows_must_run_from_zero(tmp_path: Path) -> None:
    path = write(tmp_path / "20240102_030405" / "predictions" / "m" / "d.json",
                 {"0": {"origin_prompt": "问：甲？", "prediction": "a"}, "2": {"origin_prompt": "问：乙？", "prediction": "b"}})
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value) == f"{path}: row indexes are not 0..1: row 1 is missing"


def test_opencompass_partial_output_and_work_dir_files_are_named(tmp_path: Path) -> None:
    root = tmp_path / "20240102_030405"
    partial = write(root / "predictions" / "m" / "tmp_d.jsonl", '{"idx": 0, "origin_prompt": "问：甲？", "prediction": "a"}\n')
    assert skip_of(partial) == "OpenCompass partial predictions (written while inference runs; the .json follows when it ends)"
    write(root / "configs" / "20240102_030405.py", "models = []\n")
    write(root / "summary" / "summary_20240102_030405.txt", "x\n")
    reasons = {p.name: r for p, r in walk(tmp_path).skipped}
    assert reasons["20240102_030405.py"].startswith("OpenCompass config")
    assert reasons["summary_20240102_030405.txt"] == "OpenCompass summary (not per-item data)"


# ------------------------------------------------------------------------------------ Inspect


def test_inspect_eval_archive() -> None:
    run = run_of(INSPECT_EVAL)
    assert (run.format, run.model) == ("inspect-log", "openai/gpt-4o-mini")
    assert [p.ref for p in run.predictions] == ["1", "2", "3", "4"]
    first = run.predictions[0]
    assert first.text == "今年的马拉松比赛在4月21日举行。", "output.completion is the prediction"
    assert first.meta["question"] == "示例市今年的马拉松比赛在哪天举行？" and first.meta["target"] == "4月21日"
    assert first.meta["framework_scores"] == {"match": 1.0}
    assert first.meta["framework_answers"] == {"match": "今年的马拉松比赛在4月21日举行。"}
    assert "prompt" not in first.meta, "the input is the question itself"
    chat = run.predictions[3]
    assert chat.meta["question"] == "示例足球队在上一个赛季的联赛中排名第几？", "from the last user turn of a chat input"
    assert chat.meta["prompt"].startswith("system: 你是一个问答助手。\nuser: 请回答下面的问题。")
    assert run.predictions[1].meta["framework_scores"] == {"match": 0.0}
    meta = run.meta
    assert meta["framework"] == "Inspect AI" and meta["status"] == "success"
    assert meta["framework_results"]["match"] == {"accuracy": 0.5, "stderr": 0.25}
    settings = meta["settings"]
    assert settings["task"] == "cdqa_mini" and settings["model_generate_config"] == {"temperature": 0.0, "max_tokens": 64}
    assert settings["plan"] == ["generate"] and settings["dataset"]["samples"] == 4


def test_inspect_json_log() -> None:
    run = run_of(INSPECT_JSON)
    assert (run.format, run.model) == ("inspect-log", "anthropic/claude-3-5-haiku-latest")
    assert [p.ref for p in run.predictions] == ["MINI_DEV_0_QUERY_0", "MINI_DEV_0_QUERY_1", "MINI_DEV_0_QUERY_2"]
    third = run.predictions[2]
    assert third.text == "三孔石桥" and third.meta["framework_scores"] == {"match": 0.0}
    assert third.meta["question"] == "青石镇上的三孔石桥叫什么名字？", "extracted from the prompt after 问题："
    assert third.meta["target"] == ["望月桥", "望月桥", "望月桥"]
    assert third.meta["prompt"].startswith("阅读文章并回答问题。")


def _zip(path: Path, members: dict[str, Any]) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, value in members.items():
            zf.writestr(name, json.dumps(value, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return path


def _members() -> dict[str, Any]:
    with zipfile.ZipFile(INSPECT_EVAL) as zf:
        return {name: json.loads(zf.read(name)) for name in zf.namelist()}


def test_inspect_running_log_reads_the_journal_epochs_and_attachments(tmp_path: Path) -> None:
    members = _members()
    del members["header.json"]
    sample = members.pop("samples/1_epoch_1.json")
    sample["input"] = "attachment://abc"
    sample["attachments"] = {"abc": "问题：示例市今年的马拉松比赛在哪天举行？"}
    members["samples/1_epoch_1.json"] = sample
    members["samples/1_epoch_2.json"] = {**sample, "epoch": 2, "output": {"completion": "4月22日"},
                                         "scores": {"match": {"value": "I"}}}
    run = run_of(_zip(tmp_path / "live.eval", members))
    assert run.model == "openai/gpt-4o-mini" and "status" not in run.meta
    first = run.predictions[0]
    assert len(run.predictions) == 4 and run.meta["epochs"] == 2
    assert first.meta["question"] == "示例市今年的马拉松比赛在哪天举行？", "attachment resolved"
    assert first.meta["other_epochs"] == [{"epoch": 2, "completion": "4月22日", "framework_scores": {"match": 0.0}}]


def test_inspect_look_alikes_are_skipped_with_reasons(tmp_path: Path) -> None:
    members = {k: v for k, v in _members().items() if not k.startswith("samples/")}
    assert skip_of(_zip(tmp_path / "a.eval", members)) == (
        "Inspect log without samples (logged with --no-log-samples, or no sample finished yet)"
    )
    other = skip_of(_zip(tmp_path / "b.eval", {"data.json": [1]}))
    assert other == "not QA data: a zip archive with members 'data.json'"
    header = json.loads(INSPECT_JSON.read_text(encoding="utf-8"))
    del header["samples"]
    assert skip_of(write(tmp_path / "h.json", header)).startswith("Inspect log without samples")
    listing = write(tmp_path / "logs.json", {"x.eval": header, "y.eval": header})
    assert skip_of(listing) == "Inspect log listing (logs.json: headers of other logs), not a log"


def test_truncated_eval_archive_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "cut.eval"
    path.write_bytes(INSPECT_EVAL.read_bytes()[:200])
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value).startswith(f"{path}: not a readable zip archive")


def test_archive_members_parse_lazily_and_name_bad_members(tmp_path: Path) -> None:
    path = tmp_path / "x.eval"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("header.json", "{not json")
        zf.writestr("samples/1_epoch_1.json", "{}")
    path.write_bytes(buffer.getvalue())
    doc = read_document(path)
    assert doc.archive is not None and doc.value is None and doc.archive.names == ["header.json", "samples/1_epoch_1.json"]
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value).startswith(f"{path}, header.json: invalid JSON at line 1")


# --------------------------------------------------------------------------------------- CDQA


def test_cdqa_eval_output() -> None:
    run = run_of(CDQA_FILE)
    assert (run.format, run.name, run.model) == ("cdqa-eval", "cfreshqa_fast/Qwen-7B-Chat--vanilla--0shots", "Qwen-7B-Chat")
    assert [p.ref for p in run.predictions[:2]] == ["示例市今年的马拉松比赛在哪天举行？", "示例公司现任首席执行官是谁？"]
    assert all(p.ref_kind == "question" for p in run.predictions)
    second = run.predictions[1]
    assert (second.text, second.raw) == ("王五", "王五。"), "normalized_pred beside raw_pred"
    assert second.meta["gold"] == ["赵六"] and second.meta["prompt"].startswith("请回答下面的问题")
    assert run.predictions[2].ref == "请先重新表述并扩展这个问题，然后再回答。", "no marker: the loader searches the prompt"
    meta = run.meta
    assert meta["framework_results"] == {"F1": 66.6667, "answer_rate": 75.0}
    settings = meta["settings"]
    assert (settings["prompt_type"], settings["ntrain"], settings["k"], settings["task"]) == ("vanilla", 0, 1, "cfreshqa_fast")
    assert settings["model_path"] == "/models/Qwen-7B-Chat" and settings["max_tokens"] == 50 and settings["is_openai"] is False


def test_cdqa_eval_real_file_names_hold_colons(tmp_path: Path) -> None:
    stem = "2024-03-01_12:00:00--chatglm3-6b--rar--3shots--1k"
    path = tmp_path / "cfreshqa_slow" / f"{stem}.prediction"
    path.parent.mkdir()
    shutil.copy(CDQA_FILE, path)
    run = run_of(path)
    assert run.model == "chatglm3-6b" and run.meta["settings"]["time"] == "2024-03-01_12:00:00"
    assert run_display_name(path, tmp_path) == "cfreshqa_slow/chatglm3-6b--rar--3shots"
    assert "framework_results" not in run.meta, "no .metrics beside it"


def test_cdqa_eval_prompt_without_question_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "x.prediction", [{"raw_pred": "a", "normalized_pred": "a", "answers": ["a"], "requests": "  \n"}])
    with pytest.raises(FormatError) as info:
        read_source(path)
    assert str(info.value) == f"{path}, record 1: no question found in the prompt (requests)"


def test_cdqa_metrics_file_is_named_in_the_walk() -> None:
    reasons = {p.name: r for p, r in walk(RUNS).skipped}
    assert reasons[f"{CDQA_STEM}--75.0AR--66.6667F1.metrics"] == (
        f"CDQA metrics of {CDQA_STEM}.prediction (F1 and answer rate; read with it)"
    )


# ---------------------------------------------------------------------------------- HF extras


def test_hf_null_odds_and_nbest_are_kept_per_prediction() -> None:
    run = run_of(HF / "eval_predictions.json")
    by_ref = {p.ref: p for p in run.predictions}
    assert by_ref["MINI_DEV_0_QUERY_2"].meta == {"null_odds": 0.75}
    assert by_ref["MINI_DEV_0_QUERY_2"].candidates == [Candidate("", 0.55, 5.5), Candidate("望月桥", 0.45, 5.25)]
    assert run.extra_paths == [str(HF / "eval_nbest_predictions.json"), str(HF / "eval_null_odds.json")]
    assert run.meta["null_odds"]["without_null_odds"] == 0
    assert skip_of(HF / "eval_null_odds.json") == "null-odds side file of eval_predictions.json"
    assert side_owners(HF / "eval_null_odds.json") == [HF / "eval_predictions.json"]


def test_hf_null_odds_alone_or_bad(tmp_path: Path) -> None:
    alone = write(tmp_path / "a" / "eval_null_odds.json", {"x": 1.5})
    assert skip_of(alone) == "null odds without a predictions file (expected eval_predictions.json beside it)"
    write(tmp_path / "b" / "eval_predictions.json", {"x": "y"})
    bad = write(tmp_path / "b" / "eval_null_odds.json", {"x": "high"})
    with pytest.raises(FormatError) as info:
        read_source(tmp_path / "b" / "eval_predictions.json")
    assert str(info.value) == f"{bad}, key 'x': null odds are a string, expected a number"


# ------------------------------------------------------------------------------------- prompts


@pytest.mark.parametrize(
    ("prompt", "question"),
    [
        ("根据文章回答问题。\n文章：甲乙丙。\n问：甲是谁？\n答：", "甲是谁？"),
        ("Title: X\n\nBackground: ...\n\nQuestion: Who is A?\n\nAnswer:", "Who is A?"),
        ("问题：一加一？\n答案：二\n\n问题：二加二？\n答案：四\n\n问题：三加三？\n答案：", "三加三？"),
        ("请回答下面的问题：\n示例大桥全长多少米？\n", "示例大桥全长多少米？"),
        ("问题：“示例大桥全长多少米？” 答案：", "示例大桥全长多少米？"),
        ("示例大桥全长多少米？\n答案：", "示例大桥全长多少米？"),
        ("Q: Who wrote Hamlet?\nA:", "Who wrote Hamlet?"),
        ("请访问：https://example.com\n问题：甲在哪？", "甲在哪？"),
        ("   \n", None),
    ],
)
def test_extract_question(prompt: str, question: str | None) -> None:
    assert extract_question(prompt) == question


def test_prompt_text_and_shown_prompt() -> None:
    chat = [{"role": "SYSTEM", "prompt": "sys"}, {"role": "HUMAN", "prompt": "问：甲？"}, {"role": "BOT", "prompt": ""}]
    assert prompt_text(chat) == "问：甲？", "the last user turn"
    parts = [{"role": "user", "content": [{"type": "text", "text": "问题：乙？"}, {"type": "image", "image": "x"}]}]
    assert prompt_text(parts) == "问题：乙？"
    assert shown_prompt(chat) == "SYSTEM: sys\nHUMAN: 问：甲？\nBOT: "
    assert prompt_text(None) is None and prompt_text("x") == "x"


def test_datasets_of_the_fixture_folder() -> None:
    cmrc = read_source(RUNS / "data" / "cmrc_mini_dev.json")
    cdqa = read_source(RUNS / "data" / "cdqa_mini.json")
    assert isinstance(cmrc, Dataset) and isinstance(cdqa, Dataset)
    assert (cmrc.family, len(cmrc.items), cdqa.family, len(cdqa.items)) == ("cmrc", 6, "cdqa", 4)


@pytest.mark.parametrize(
    "template",
    [
        "根据文章回答问题。你的答案应该尽可能简练，请以 ‘答案是’ 开头的句式作答。\n文章：{c}\n问：{q}\n答：",
        "Title: t\n\nBackground: {c}\n\nQuestion: {q}\n\nAnswer:",
        "问题：示例大桥全长多少米？\n答案：1200米\n\n问题：{q}\n答案：",
        "请回答以下问题：\n{q}",
        "{q}",
    ],
)
def test_extract_question_on_every_real_question(shared_data: Path, template: str) -> None:
    """Every CMRC 2018 dev and CDQA v1 question comes back out of each template (by question key)."""
    from qa_inspect.core.keys import question_key

    missed = []
    for name in ("cmrc2018_dev.json", "CDQA_v1.json"):
        dataset = read_source(shared_data / name)
        assert isinstance(dataset, Dataset)
        for item in dataset.items:
            question = item.meta.get("original_question") or item.question
            found = extract_question(template.format(c=item.context or "", q=question))
            if found is None or question_key(found) != question_key(question):
                missed.append((item.key, question, found))
    assert missed == []
