"""Readers on the real files in `../shared/data` (skipped visibly when absent).

Excerpts in other formats (CMRC original, JSONL, prediction maps/records) are built here at
test time from the real files; nothing from CDQA is written into the repository.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

import pytest
from qa_inspect.core.formats import read_source
from qa_inspect.core.formats.cdqa import split_qa
from qa_inspect.core.load import DatasetIndex, link_run
from qa_inspect.core.model import Dataset, Run


@pytest.fixture(scope="module")
def dev(shared_data: Path) -> Dataset:
    result = read_source(shared_data / "cmrc2018_dev.json")
    assert isinstance(result, Dataset)
    return result


@pytest.fixture(scope="module")
def cdqa(shared_data: Path) -> Dataset:
    result = read_source(shared_data / "CDQA_v1.json")
    assert isinstance(result, Dataset)
    return result


def test_cmrc_dev(dev: Dataset, record_property: pytest.RecordProperty) -> None:
    assert (dev.format, dev.family, len(dev.items)) == ("squad", "cmrc", 3219)
    assert all(len(item.golds) == 3 and item.split == "dev" for item in dev.items)
    assert len({item.key for item in dev.items}) == 3219
    spans = dev.meta["spans"]
    record_property("spans", spans)
    print(f"cmrc2018_dev spans: {spans}")
    # 193 answers have answer_start -1 (none of them occur in their passage); 7 starts are off.
    assert spans == {"given": 9457, "recovered": 7, "none": 193}
    assert sum(1 for i in dev.items for g in i.golds if g.answer_start == -1) == 193
    for item in dev.items:
        for gold in item.golds:
            if gold.span_start is not None:
                assert item.context is not None and item.context[gold.span_start : gold.span_end] == gold.text


def test_cmrc_trial(shared_data: Path) -> None:
    trial = read_source(shared_data / "cmrc2018_trial.json")
    assert isinstance(trial, Dataset)
    assert (len(trial.items), trial.family) == (1002, "cmrc")
    assert all(len(i.golds) == 1 and i.split == "trial" for i in trial.items)
    assert trial.meta["spans"] == {"given": 997, "recovered": 5, "none": 0}
    assert trial.meta["empty_questions"] == 2


def test_cdqa(cdqa: Dataset, shared_data: Path) -> None:
    assert (cdqa.format, cdqa.family, len(cdqa.items)) == ("cdqa-v1", "cdqa", 1339)
    tags = Counter(i.meta["tag_label"] for i in cdqa.items)
    assert tags == {"快速变化": 525, "中速变化": 520, "静态知识": 294}
    assert Counter(i.tag for i in cdqa.items) == {"fast-changing": 525, "slow-changing": 520, "never-changing": 294}
    types = Counter(i.meta["answer_type_label"] for i in cdqa.items)
    assert types == {"人名": 490, "组织机构": 433, "其他": 147, "地名": 87, "事件": 59, "作品（事物）": 58,
                     "量词": 30, "作品": 24, "自然": 6, "时间": 5}
    assert Counter(i.answer_type for i in cdqa.items)["work"] == 82
    assert sum(1 for i in cdqa.items if any(g.superseded for g in i.golds)) == 438
    assert cdqa.meta["superseded_answers"] == 438
    assert sum(1 for i in cdqa.items if "original_question" in i.meta) == 440
    assert all(sum(not g.superseded for g in i.golds) == 1 for i in cdqa.items)
    assert len({i.key for i in cdqa.items}) == 1339
    assert sum(1 for i in cdqa.items if "evidence_url" in i.meta) == 1338
    assert not any("\ufeff" in i.question or i.question != i.question.strip() for i in cdqa.items)


def test_read_times(shared_data: Path, record_property: pytest.RecordProperty) -> None:
    times = {}
    for name in ("cmrc2018_dev.json", "cmrc2018_trial.json", "CDQA_v1.json"):
        start = time.perf_counter()
        read_source(shared_data / name)
        times[name] = round(time.perf_counter() - start, 3)
    record_property("read_seconds", times)
    print(f"read times (s): {times}")
    assert all(t < 2.0 for t in times.values()), times


def test_cdqa_llm_run_links_by_question(cdqa: Dataset, shared_data: Path, tmp_path: Path) -> None:
    raw = json.loads((shared_data / "CDQA_v1.json").read_text(encoding="utf-8"))
    lines = []
    for record in raw[:200]:
        question, answer = split_qa(record["qa"])  # type: ignore[misc]
        lines.append(json.dumps({"question": question, "response": answer, "model": "echo"}, ensure_ascii=False))
    path = tmp_path / "echo.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_source(path)
    assert isinstance(run, Run) and run.model == "echo"
    link = link_run(run, {"cdqa": DatasetIndex.from_dataset(cdqa)})
    assert (link.dataset, link.matched, link.unmatched) == ("cdqa", 200, [])


def test_cmrc_original_and_map_built_from_dev(dev: Dataset, shared_data: Path, tmp_path: Path) -> None:
    squad = json.loads((shared_data / "cmrc2018_dev.json").read_text(encoding="utf-8"))
    original = []
    for article in squad["data"][:40]:
        for para in article["paragraphs"]:
            qas = [{"query_id": q["id"], "query_text": q["question"],
                    "answers": [float(a["text"]) if a["text"] == "39764.0" else a["text"] for a in q["answers"]]}
                   for q in para["qas"]]
            original.append({"context_id": para["id"], "context_text": para["context"], "title": article["title"],
                             "qas": qas})
    path = tmp_path / "cmrc2018_dev_original.json"
    path.write_text(json.dumps(original, ensure_ascii=False), encoding="utf-8")
    ds = read_source(path)
    assert isinstance(ds, Dataset) and ds.format == "cmrc-original"
    by_key = {i.key: i for i in dev.items}
    assert all([g.text for g in i.golds] == [g.text for g in by_key[i.key].golds] for i in ds.items)
    assert "39764.0" in {g.text for i in ds.items for g in i.golds}

    preds = tmp_path / "eval_predictions.json"
    preds.write_text(json.dumps({i.key: i.golds[0].text for i in ds.items}, ensure_ascii=False), encoding="utf-8")
    run = read_source(preds)
    assert isinstance(run, Run)
    link = link_run(run, {"dev": DatasetIndex.from_dataset(dev), "dev-head": DatasetIndex.from_dataset(ds)})
    assert link.dataset == "dev-head" and link.coverage == 1.0
