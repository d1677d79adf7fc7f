"""`paper_table` from per-run sums gives every number the item-frame path (`frame_table`) gives:
every cell kind (EM, F1, F1-recall, answer rate, counts, errors, pass@k, maj, consistency), with
intervals, the human row, columns of item slices and of settings, rows made of several runs —
on the sample runs and on the real data beside the repository."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import (
    TableError,
    TableSpec,
    frame_table,
    paper_table,
    stored_run_settings,
)

from tests.paths import SAMPLE_RUNS
from tests.sampled_runs import sampled_runs

COUNTS = ("items", "predicted", "answered", "errors")
SPAN = ("em", "f1", "items", "predicted", "errors")
CDQA = ("f1_recall (answer_rate)", "answered", "items", "predicted", "errors")
SAMPLES = ("pass@1", "pass@2", "pass@4", "maj", "consistency", "em")


def _close(a: Any, b: Any, where: str) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for key in a:
            _close(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{where}: {a} != {b}"
        for n, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{n}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-9), f"{where}: {a} != {b}"
    else:
        assert a == b and type(a) is type(b), f"{where}: {a!r} != {b!r}"


def _same(db: Path, spec: TableSpec) -> dict[str, Any]:
    """The table both ways, equal cell by cell (counts as integers, floats to the last bits the
    summation order leaves); returns it."""
    with sqlite3.connect(db) as conn:
        runs = stored_run_settings(conn)
        new, old = paper_table(conn, spec, runs).to_dict(), frame_table(conn, spec, runs).to_dict()
    _close(new, old, "table")
    return new


def _load(root: Path) -> Path:
    summary = load_runs(root)
    assert not summary.errors, summary.errors
    return root / ".qa-inspect" / "qa.db"


@pytest.fixture(scope="module")
def samples_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sample_runs")
    for part in ("cmrc2018", "cdqa"):
        shutil.copytree(SAMPLE_RUNS / part, root / part, ignore=shutil.ignore_patterns(".qa-inspect"))
    return _load(root)


@pytest.mark.parametrize("spec", [
    TableSpec(cells=SPAN, dataset="cmrc2018_dev_sample"),
    TableSpec(cols="split", cells=SPAN, human=True, dataset="cmrc2018_dev_sample"),
    TableSpec(cells=("em", "f1"), human=True, ci=True, resamples=300, dataset="cmrc2018_dev_sample"),
    TableSpec(cells=CDQA, dataset="cdqa_sample", ci=True, resamples=300),
    TableSpec(cols="tag", cells=CDQA, dataset="cdqa_sample", ci=True, resamples=300),
], ids=["span", "span-split-human", "span-ci", "cdqa-ci", "cdqa-tag-ci"])
def test_sample_runs_every_cell_kind(samples_db: Path, spec: TableSpec) -> None:
    table = _same(samples_db, spec)
    assert any(cell["values"] for row in table["table"] for cell in row["cells"].values())
    if spec.ci:
        assert any(cell["ci"] for row in table["table"] for cell in row["cells"].values())


def test_mixed_datasets_make_one_row_each(samples_db: Path) -> None:
    """No --dataset: CMRC and CDQA runs side by side, each with the metrics its scorer gives."""
    table = _same(samples_db, TableSpec(cells=("em", "f1_recall", "items")))
    em = {row["labels"]["run"]: row["cells"]["all · em"]["values"]["em"] for row in table["table"]}
    assert em["glm-6b"] is None and em["bert-base-chinese"] is not None
    absent = _same(samples_db, TableSpec(cols="answer_type", cells=("em",), dataset="cmrc2018_dev_sample"))
    assert absent["columns"] == [], "a dimension no item has is no column"


def test_sampled_runs_pass_at_k(tmp_path: Path) -> None:
    db = _load(sampled_runs(tmp_path))
    table = _same(db, TableSpec(cells=SAMPLES))
    values = [row["cells"]["all · pass@1"]["values"]["pass@1"] for row in table["table"]]
    assert values and all(v is not None for v in values)


def _cdqa_eval(root: Path, duplicate: bool = False) -> Path:
    """`cdqa_eval.py` output: a file per model × shots × tag (each answering one tag's items);
    `duplicate`: one file twice, under two times of writing (the same settings)."""
    dataset = root / "cdqa_sample.json"
    shutil.copy(SAMPLE_RUNS / "cdqa" / "cdqa_sample.json", dataset)
    words = {"快速变化": "fast", "中速变化": "slow", "静态知识": "never"}
    items = []
    for record in json.loads(dataset.read_text(encoding="utf-8")):
        question, gold = re.match(r"\ufeff?问题: (.*)\n答案: (.*)", record["qa"]).groups()  # type: ignore[union-attr]
        items.append((question, gold, words[record["annotation"]["知识动态性分类"]]))
    for model, skill in (("Qwen-7B-Chat", 0.8), ("Baichuan2-13B", 0.5)):
        for shots in (0, 5):
            rng = random.Random(f"{model}{shots}")
            for tag in ("fast", "slow", "never"):
                records = [{"raw_pred": p, "normalized_pred": p, "answers": [g], "requests": f"问题：{q}\n答案："}
                           for q, g, t in items if t == tag
                           for p in [g if rng.random() < skill else ("对不起，我无法回答。" if rng.random() < 0.3 else "错误答案")]]
                folder = root / f"cfreshqa_{tag}_google"
                folder.mkdir(exist_ok=True)
                for time in ("12-00-00", "13-00-00") if duplicate and (model, shots, tag) == ("Qwen-7B-Chat", 0, "fast") \
                        else ("12-00-00",):
                    name = f"2024-03-01_{time}--{model}--vanilla--{shots}shots--5k.prediction"
                    (folder / name).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    return _load(root)


@pytest.mark.parametrize("spec", [
    TableSpec(rows=("model",), cols="tag", cells=CDQA, best_over="shots"),
    TableSpec(rows=("model",), cells=CDQA, best_over="shots", ci=True, resamples=200),
    TableSpec(rows=("model",), cols="shots", cells=("f1_recall", "answer_rate"), where={"prompt": "vanilla"}),
], ids=["tags-best-over", "union-ci", "setting-columns"])
def test_rows_of_several_runs(tmp_path: Path, spec: TableSpec) -> None:
    """CDQA's fast/slow/never files of one configuration are one run over their union."""
    table = _same(_cdqa_eval(tmp_path), spec)
    assert all(len(row["runs"]) >= 3 for row in table["table"])


def test_same_errors_both_ways(tmp_path: Path) -> None:
    db = _cdqa_eval(tmp_path, duplicate=True)
    spec = TableSpec(rows=("model",), cols="tag", cells=("f1_recall",), where={"shots": "0"})
    with sqlite3.connect(db) as conn:
        runs = stored_run_settings(conn)
        messages = []
        for build in (paper_table, frame_table):
            with pytest.raises(TableError) as caught:
                build(conn, spec, runs)
            messages.append(str(caught.value))
    assert messages[0] == messages[1] and "answer the same items" in messages[0]


def _span_run(dataset: Path, out: Path, seed: str) -> None:
    """A prediction map for a SQuAD-style file: the first gold, a part of it, a wrong span, or
    nothing (and "" for some unanswerable questions), drawn per question."""
    rng = random.Random(seed)
    preds: dict[str, str] = {}
    for article in json.loads(dataset.read_text(encoding="utf-8"))["data"]:
        for para in article["paragraphs"]:
            for qa in para["qas"]:
                golds = [a["text"] for a in qa.get("answers", [])]
                roll = rng.random()
                if roll < 0.1:
                    continue
                gold = golds[0] if golds else ""
                preds[qa["id"]] = (gold if roll < 0.6 else gold[: max(1, len(gold) // 2)] if roll < 0.8
                                   else para["context"][:8])
    out.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")


@pytest.fixture(scope="module")
def real_db(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("real")
    shutil.copy(shared_data / "cmrc2018_dev.json", root / "cmrc2018_dev.json")
    for run in (shared_data / "runs").glob("*.json"):
        shutil.copy(run, root / run.name)
    for name in ("squad2_dev_normans.json", "DRCD_dev.json"):
        shutil.copy(shared_data / name, root / name)
        (root / name.removesuffix(".json")).mkdir()
        _span_run(shared_data / name, root / name.removesuffix(".json") / "eval_predictions.json", name)
    return _load(root)


@pytest.mark.parametrize("spec", [
    TableSpec(cols="split", cells=SPAN, human=True, ci=True, resamples=200, dataset="cmrc2018_dev"),
    TableSpec(cols="answerable", cells=SPAN, ci=True, resamples=200, dataset="squad2_dev_normans"),
    TableSpec(cells=SPAN),
], ids=["cmrc-dev-human-ci", "squad2-answerable-ci", "all-datasets"])
def test_real_data(real_db: Path, spec: TableSpec) -> None:
    table = _same(real_db, spec)
    assert table["table"] and all(row["cells"] for row in table["table"])
    if spec.ci:
        assert all(cell["ci"] for row in table["table"] for key, cell in row["cells"].items() if key.endswith("· em"))
