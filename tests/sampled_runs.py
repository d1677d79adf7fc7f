"""A small runs folder whose runs sample each question four times, in every form the readers
take (plain records, lm-eval samples, the real Inspect log written by inspect_ai with epochs=4)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.paths import FIXTURES

INSPECT = FIXTURES / "frameworks" / "inspect_epochs" / "qa-samples-fixture.eval"
GOLDS = {"Q1": "quick brown fox", "Q2": "the lazy dog", "Q3": "the river bank"}
ANSWERS = {"Q1": ["quick brown fox", "Quick brown fox.", "a hare", "quick brown fox"],
           "Q2": ["the lazy dog", "a cat", "the lazy dog", "the lazy dog"],
           "Q3": ["a tree", "a tree", "the hill", "a tree"]}


def write_dataset(runs: Path) -> None:
    runs.mkdir(exist_ok=True)
    with (runs / "qa.jsonl").open("w", encoding="utf-8") as f:
        for key, gold in GOLDS.items():
            f.write(json.dumps({"id": key, "question": f"Question {key}?", "answers": [gold]}) + "\n")


def write_plain(runs: Path) -> None:
    with (runs / "sampled.jsonl").open("w", encoding="utf-8") as f:
        for key, answers in ANSWERS.items():
            for n, answer in enumerate(answers, 1):
                f.write(json.dumps({"id": key, "sample": n, "prediction": answer}) + "\n")


def write_lm_eval(runs: Path) -> None:
    folder = runs / "lm_eval" / "org__model"
    folder.mkdir(parents=True)
    with (folder / "samples_qa_2024-05-01T12-30-05.123456.jsonl").open("w", encoding="utf-8") as f:
        for n, (key, answers) in enumerate(ANSWERS.items()):
            f.write(json.dumps({"doc_id": n, "doc": {"id": key, "question": f"Question {key}?"},
                                "target": GOLDS[key], "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": {}}},
                                "resps": [answers], "filtered_resps": [answers], "filter": "none"}) + "\n")


def copy_inspect(runs: Path) -> None:
    shutil.copy(INSPECT, runs / INSPECT.name)


def sampled_runs(root: Path) -> Path:
    """The dataset and the three sampled runs in `root/runs`."""
    runs = root / "runs"
    write_dataset(runs)
    for write in (write_plain, write_lm_eval, copy_inspect):
        write(runs)
    return runs
