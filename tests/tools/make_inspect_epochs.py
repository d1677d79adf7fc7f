#!/usr/bin/env python
"""Write the small real Inspect log with four epochs in `tests/fixtures/frameworks/inspect_epochs/`:
inspect_ai itself (`pip install inspect_ai`), offline, its mock model answering from a list so the
epochs disagree (some items flaky, one always right, one always wrong).

    python tests/tools/make_inspect_epochs.py OUT_DIR

Samples run one at a time (`max_samples=1`, `max_tasks=1`), so each answer goes to a known sample.
"""

from __future__ import annotations

import sys


def main(out_dir: str) -> None:
    import inspect_ai.model._model as m

    m.count_text_tokens = lambda *a, **k: 10  # type: ignore[assignment]  # it would fetch a tiktoken encoding
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, get_model
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate

    samples = [Sample(id="Q1", input="What jumps?", target="quick brown fox", metadata={"question": "What jumps?"}),
               Sample(id="Q2", input="Over what?", target="the lazy dog"),
               Sample(id="Q3", input="Near what?", target="the river bank")]
    answers = ["quick brown fox", "the lazy dog", "a tree",      # epoch 1: Q1, Q2, Q3
               "Quick brown fox.", "a cat", "a tree",             # epoch 2
               "a hare", "the lazy dog", "the hill",              # epoch 3
               "quick brown fox", "the lazy dog", "a tree"]       # epoch 4
    model = get_model("mockllm/model", custom_outputs=[ModelOutput.from_content("mockllm/model", a) for a in answers])
    eval(Task(dataset=samples, solver=[generate()], scorer=includes(), epochs=4, name="qa_samples_fixture"),
         model=model, log_dir=out_dir, display="none", max_samples=1, max_tasks=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "logs")
