"""A runs folder for comparing sampled runs: run `a` and run `b` sample each question four times
(`b` steadier on Q1, shakier on Q3), `one` and `two` answer once."""

from __future__ import annotations

import json
from pathlib import Path

from tests.sampled_runs import ANSWERS, GOLDS, write_dataset

B_ANSWERS = {"Q1": ["quick brown fox"] * 4,                                      # flaky in a → stable (right)
             "Q2": ["the lazy dog", "a cat", "the lazy dog", "the lazy dog"],    # flaky in both
             "Q3": ["the river bank", "a tree", "the river bank", "a tree"]}     # stable (wrong) in a → flaky


def _sampled(path: Path, answers: dict[str, list[str]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for key, texts in answers.items():
            for n, text in enumerate(texts, 1):
                f.write(json.dumps({"id": key, "sample": n, "prediction": text}) + "\n")


def _single(path: Path, answers: dict[str, str]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for key, text in answers.items():
            f.write(json.dumps({"id": key, "prediction": text}) + "\n")


def diff_samples_folder(root: Path) -> Path:
    runs = root / "runs"
    write_dataset(runs)
    _sampled(runs / "a.jsonl", ANSWERS)
    _sampled(runs / "b.jsonl", B_ANSWERS)
    _single(runs / "one.jsonl", {"Q1": GOLDS["Q1"], "Q2": "a cat", "Q3": "a tree"})
    _single(runs / "two.jsonl", {"Q1": GOLDS["Q1"], "Q2": GOLDS["Q2"], "Q3": "a tree"})
    return runs
