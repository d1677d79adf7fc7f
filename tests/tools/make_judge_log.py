#!/usr/bin/env python
"""An Inspect AI log with LLM-judge verdicts, written by inspect_ai itself, offline.

    pip install inspect_ai
    python tests/tools/make_judge_log.py tests/fixtures/frameworks/judge

Six questions of `tests/fixtures/frameworks/runs/data/cmrc_mini_dev.json` (their own ids),
answered by `mockllm/model` with set answers, scored by two scorers per sample: `includes()` and
`model_graded_fact(partial_credit=True)`, whose grader is a second mock model with set grades
(correct, incorrect and partial, each with the grader's reasoning as its explanation). Samples run
one at a time, so each mock's outputs go to the samples in order. inspect_ai would fetch a
tokenizer to count tokens: `count_text_tokens` is replaced by a constant (offline).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

DATASET = Path(__file__).resolve().parents[1] / "fixtures" / "frameworks" / "runs" / "data" / "cmrc_mini_dev.json"

ANSWERS = ["北部", "灰鹤", "望月桥", "示例音乐学院的作曲系", "春潮", "二十年"]
"""The model's answers, in dataset order: right, wrong, right, a longer right one, right without
the title marks, wrong."""

GRADES = [
    ("The answer names the north, as the reference does.", "C"),
    ("The reference names the white crane; the answer names another bird.", "I"),
    ("Same bridge name.", "C"),
    ("The answer holds the academy and adds its department: correct.", "C"),
    ("The title without its marks is the same work, but the answer is terse.", "P"),
    ("Fifteen years, not twenty.", "I"),
]
"""The grader's verdicts, in dataset order: its reasoning, then `GRADE: <letter>`."""


def questions() -> list[tuple[str, str, str]]:
    """(id, question, first gold) of every question of the mini dataset, in file order."""
    data = json.loads(DATASET.read_text(encoding="utf-8"))
    return [(qa["id"], qa["question"], qa["answers"][0]["text"])
            for article in data["data"] for paragraph in article["paragraphs"] for qa in paragraph["qas"]]


def main(out_dir: str) -> None:
    import inspect_ai.model._model as model_module

    model_module.count_text_tokens = lambda *args, **kwargs: 10  # type: ignore[assignment]
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import includes, model_graded_fact
    from inspect_ai.solver import generate

    samples = [Sample(id=key, input=question, target=gold, metadata={"question": question})
               for key, question, gold in questions()]
    answerer = get_model("mockllm/model", custom_outputs=[
        ModelOutput.from_content(model="mockllm/model", content=text) for text in ANSWERS])
    grader = get_model("mockllm/model", custom_outputs=[
        ModelOutput.from_content(model="mockllm/model", content=f"{why}\n\nGRADE: {letter}") for why, letter in GRADES])
    task = Task(dataset=samples, solver=[generate()], scorer=[includes(), model_graded_fact(partial_credit=True, model=grader)],
                name="cmrc_mini_judged")
    eval(task, model=answerer, log_dir=out_dir, display="none", max_samples=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "logs")
