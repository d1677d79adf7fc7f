"""Well-formed files of every source format the tool reads, as bytes, for the bad-input corpus to
break one thing at a time (`bad_inputs.py`), and the good runs folder every case sits beside.

Everything is generated here: nothing binary is committed. The good folder holds a SQuAD dataset
(`dev.json`, items Q1-Q4) and a prediction map (`good-run.json`: EM 50, F1 66.7 on it). Bad runs
answer Q1-Q4 too, so a bad run that were read anyway would link to `dev`; bad datasets use ids
B1-B4, so one read anyway would not take the good run away from `dev`.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable
from typing import Any

__all__ = [
    "CONTEXT",
    "GOOD_EM",
    "GOOD_F1",
    "GOOD_FILES",
    "GOOD_RUN",
    "LM_RESULTS",
    "LM_SAMPLES",
    "OC_PREDICTIONS",
    "OC_RESULTS",
    "OC_ROOT",
    "QUESTIONS",
    "arrow",
    "cdqa_eval_record",
    "cdqa_record",
    "cmrc_original",
    "csv_text",
    "dataset_records",
    "eval_zip",
    "inspect_header",
    "inspect_sample",
    "js",
    "jl",
    "lm_sample",
    "oc_rows",
    "parquet",
    "qa",
    "squad",
]

CONTEXT = "The quick brown fox jumps over the lazy dog near the river bank."
QUESTIONS = {"Q1": ("What jumps?", "quick brown fox"), "Q2": ("Over what?", "the lazy dog"),
             "Q3": ("Near what?", "the river bank"), "Q4": ("What colour?", "brown")}
GOOD_RUN = "good-run"
GOOD_EM, GOOD_F1 = 50.0, 66.67
LM_SAMPLES = "lm/Org__model-7b/samples_squad_2024-05-01T12-30-05.123456.jsonl"
LM_RESULTS = "lm/Org__model-7b/results_2024-05-01T12-30-05.123456.json"
OC_ROOT = "oc/20240501_123005"
OC_PREDICTIONS = f"{OC_ROOT}/predictions/model-7b/squad.json"
OC_RESULTS = f"{OC_ROOT}/results/model-7b/squad.json"


def js(value: Any) -> bytes:
    """One JSON document, UTF-8."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


def jl(*records: Any) -> bytes:
    """JSONL: one record per line; a `str` or `bytes` record is written as it is (a broken line)."""
    lines = []
    for record in records:
        if isinstance(record, bytes):
            lines.append(record)
        elif isinstance(record, str):
            lines.append(record.encode("utf-8"))
        else:
            lines.append(js(record))
    return b"\n".join(lines) + b"\n"


def qa(item_id: str, question: str, answer: str, **extra: Any) -> dict[str, Any]:
    """A SQuAD question record whose answer is located in `CONTEXT`."""
    start = CONTEXT.find(answer)
    return {"id": item_id, "question": question, "answers": [{"text": answer, "answer_start": start}], **extra}


def squad(qas: Iterable[Any], *, context: Any = CONTEXT, version: str = "1.1") -> dict[str, Any]:
    return {"version": version, "data": [{"title": "Fox", "paragraphs": [{"context": context, "qas": list(qas)}]}]}


def _good_dataset() -> dict[str, Any]:
    return squad(qa(i, q, a) for i, (q, a) in QUESTIONS.items())


GOOD_FILES = {
    "dev.json": js(_good_dataset()),
    f"{GOOD_RUN}.json": js({"Q1": "quick brown fox", "Q2": "a lazy dog", "Q3": "river", "Q4": "red"}),
}
"""The good dataset and run every case is loaded beside."""


def dataset_records(n: int = 3) -> list[dict[str, Any]]:
    """JSONL-dataset records B1..Bn (golds located in their context)."""
    return [{"id": f"B{i}", "question": f"Bad question {i}?", "context": CONTEXT, "answers": ["brown"]}
            for i in range(1, n + 1)]


def cmrc_original(qas: list[Any] | None = None, **passage: Any) -> list[dict[str, Any]]:
    record = {"context_id": "C1", "context_text": "甲乙丙丁", "title": "t",
              "qas": qas if qas is not None else [{"query_id": "B1", "query_text": "第一个是什么？", "answers": ["甲"]}]}
    record.update(passage)
    return [record]


def cdqa_record(qa_text: Any = "问题: 澜州最长的河是哪条？\n答案: 澜江", **annotation: Any) -> dict[str, Any]:
    return {"qa": qa_text, "annotation": {"知识动态性分类": "静态知识", "回答类型": "地名", **annotation}}


def cdqa_eval_record(**fields: Any) -> dict[str, Any]:
    record = {"raw_pred": "quick brown fox", "normalized_pred": "quick brown fox", "answers": ["quick brown fox"],
              "requests": "Question: What jumps?\nAnswer:"}
    record.update(fields)
    return record


def lm_sample(doc_id: Any = 0, item: str = "Q1", **fields: Any) -> dict[str, Any]:
    question, answer = QUESTIONS[item]
    record = {"doc_id": doc_id, "doc": {"id": item, "question": question}, "target": answer,
              "arguments": {"gen_args_0": {"arg_0": f"Question: {question}\nAnswer:", "arg_1": {}}},
              "resps": [[answer]], "filtered_resps": [answer], "filter": "none",
              "metrics": ["exact_match"], "exact_match": 1.0}
    record.update(fields)
    return record


def oc_rows(n: int = 2, **override: Any) -> dict[str, Any]:
    """OpenCompass predictions: rows "0".."n-1" asking Q1.. in order."""
    rows: dict[str, Any] = {}
    for index, (question, answer) in enumerate(list(QUESTIONS.values())[:n]):
        rows[str(index)] = {"origin_prompt": f"Question: {question}\nAnswer:", "prediction": answer, "gold": answer}
    rows.update(override)
    return rows


def inspect_header(**extra: Any) -> dict[str, Any]:
    return {"version": 2, "status": "success", "eval": {"task": "qa", "model": "org/model-7b"}, **extra}


def inspect_sample(item: str = "Q1", **fields: Any) -> dict[str, Any]:
    question, answer = QUESTIONS[item]
    sample = {"id": item, "epoch": 1, "input": question, "target": answer,
              "output": {"completion": answer}, "scores": {"match": {"value": "C", "answer": answer}}}
    sample.update(fields)
    return sample


def eval_zip(members: dict[str, bytes]) -> bytes:
    """An Inspect `.eval` archive holding `members` (name → bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def csv_text(*rows: str) -> bytes:
    return ("\n".join(rows) + "\n").encode("utf-8")


def parquet(columns: dict[str, list[Any]]) -> bytes:
    """A Parquet table (polars is imported only when a case builds one)."""
    import polars as pl

    buffer = io.BytesIO()
    pl.DataFrame(columns).write_parquet(buffer)
    return buffer.getvalue()


def arrow(columns: dict[str, list[Any]]) -> bytes:
    import polars as pl

    buffer = io.BytesIO()
    pl.DataFrame(columns).write_ipc(buffer)
    return buffer.getvalue()
