"""Readers keep every sample of an item: OpenCompass lists of predictions (and the evaluator's
extracted answers per sample), lm-eval repeated documents, Inspect epochs, plain sampled records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from qa_inspect.core.formats import FormatError, read_source
from qa_inspect.core.model import Run

from tests.sampled_runs import ANSWERS, INSPECT, write_lm_eval, write_plain


def _run(path: Path) -> Run:
    run = read_source(path)
    assert isinstance(run, Run), run
    return run


def _write(path: Path, value: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_opencompass_predictions_lists_are_samples(tmp_path: Path) -> None:
    ts = tmp_path / "20240102_030405"
    rows = {"0": {"origin_prompt": "Q: Who wrote Hamlet?\nA:", "prediction": [" Shakespeare", " Marlowe", " Shakespeare"],
                  "gold": "Shakespeare"}}
    pred = _write(ts / "predictions" / "llama-7b" / "nq.json", rows)
    first = _run(pred).predictions[0]
    assert first.text == " Shakespeare" and first.samples == (" Shakespeare", " Marlowe", " Shakespeare")
    _write(ts / "results" / "llama-7b" / "nq.json",
           {"score": 66.7, "details": [{"pred": ["Shakespeare", "Marlowe", "Shakespeare"], "correct": [True, False, True]}]})
    first = _run(pred).predictions[0]
    assert first.text == "Shakespeare" and first.samples == ("Shakespeare", "Marlowe", "Shakespeare")


def test_inspect_epochs_are_samples_in_epoch_order() -> None:
    run = _run(INSPECT)
    assert run.meta["epochs"] == 4
    assert {p.ref: p.samples for p in run.predictions} == {k: tuple(v) for k, v in ANSWERS.items()}
    assert all(p.text == p.samples[0] for p in run.predictions)


def test_lm_eval_and_plain_records_keep_every_sample(tmp_path: Path) -> None:
    write_lm_eval(tmp_path)
    write_plain(tmp_path)
    for path in (next(tmp_path.rglob("samples_*.jsonl")), tmp_path / "sampled.jsonl"):
        assert {p.ref: p.samples for p in _run(path).predictions} == {k: tuple(v) for k, v in ANSWERS.items()}


def test_lm_eval_documents_logged_again_add_samples(tmp_path: Path) -> None:
    folder = tmp_path / "org__m"
    folder.mkdir()
    path = folder / "samples_qa_2024-05-01T12-30-05.123456.jsonl"
    record = {"doc_id": 0, "doc": {"id": "Q1", "question": "Q?"}, "arguments": {}, "filter": "none"}
    path.write_text("".join(json.dumps({**record, "resps": [[a]], "filtered_resps": [a]}) + "\n" for a in ("x", "y", "x")))
    first = _run(path).predictions[0]
    assert first.text == "x" and first.samples == ("x", "y", "x")


def test_plain_records_in_any_order_with_a_marked_sample(tmp_path: Path) -> None:
    lines = [{"id": "Q1", "sample": 3, "prediction": "c", "model": "m"}, {"id": "Q1", "sample": 1, "prediction": "a"},
             {"id": 7, "sample": 1, "prediction": "x"}, {"id": "Q1", "sample": 2, "prediction": "b", "official": True},
             {"id": 7, "sample": 2, "prediction": None}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    q1, seven = _run(path).predictions
    assert (q1.ref, q1.text, q1.samples, q1.line) == ("Q1", "b", ("a", "b", "c"), 4)
    assert (seven.ref, seven.text, seven.samples) == ("7", "x", ("x", ""))


def test_later_samples_of_every_shape_read_as_the_first(tmp_path: Path) -> None:
    """Later samples are read from their fields alone when plain; any other shape (a null id
    beside another id field, an epoch, a number, a marked one, a repeated sample) is read whole,
    with the same result and the same errors."""
    lines = [{"id": "Q1", "sample": 1, "prediction": "a"}, {"qid": None, "id": "Q1", "sample": 2, "prediction": "b"},
             {"id": "Q1", "sample": 3, "answer": 1.50}, {"id": "Q1", "epoch": 4, "prediction": "d", "note": "x"},
             {"id": "Q1", "sample": 5, "prediction": "e", "official": False}, {"id": "Q1", "sample": 6, "prediction": "f"}]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines).replace("1.5", "1.50"))
    (q1,) = _run(path).predictions
    assert (q1.text, q1.samples) == ("a", ("a", "b", "1.50", "d", "e", "f"))
    for bad, message in (({"id": "Q1", "sample": True, "prediction": "x"}, "sample is a boolean"),
                         ({"id": "Q1", "sample": 1, "prediction": "x"}, "sample 1 of 'Q1' given twice")):
        path.write_text("".join(json.dumps(r) + "\n" for r in [*lines, bad]).replace("1.5", "1.50"))
        with pytest.raises(FormatError, match=re.escape(message)):
            read_source(path)
