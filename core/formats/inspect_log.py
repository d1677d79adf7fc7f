"""Inspect AI evaluation logs (github.com/UKGovernmentBEIS/inspect_ai).

Two forms of the same `EvalLog`:
- `.eval`: a zip archive (recognised by its magic bytes) with `header.json` (the log without its
  samples: `version`, `status`, `eval`, `plan`, `results`, `stats`) and one
  `samples/<id>_epoch_<n>.json` per sample; a log still being written has `_journal/start.json`
  instead of the header; the oldest archives had `start.json` + `results.json`.
- `.json`: the whole log as one object, samples under `samples`.

- Item: the sample's `id` (the dataset's own id when the task loaded one); its question goes to
  `meta["question"]` (the sample's `metadata.question`, else the question found in its input,
  else the input itself) so auto-numbered ids still match by text; `target` goes to meta.
- Text = `output.completion` (the assistant's final text), as Inspect's own scorers see it; the
  scorers' extracted answers go to `meta["framework_answers"]` and their values to
  `meta["framework_scores"]` as numbers (C/I/P/N → 1/0/0.5/0, as Inspect's `value_to_float`).
- Several epochs: every epoch's completion is a sample (`Prediction.samples`, in epoch order);
  the first epoch is the official prediction; the epochs are counted in `Run.meta["epochs"]` and
  the later ones' framework scores kept in the first one's `meta["other_epochs"]`.
- Model = `eval.model`; settings: task, task args, dataset, generation config, solver plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from typing import Any, Literal

from qa_inspect.core.errors import FormatError
from qa_inspect.core.model import Prediction, Run

from ._common import build_run, clean_id
from ._repeats import Repeat, find_repeats
from .judge_verdicts import InspectVerdicts
from .prompts import extract_question, message_text, prompt_text, shown_prompt
from .textio import Document, plain, type_name

__all__ = ["FORMAT", "FRAMEWORK", "KIND", "PRIORITY", "read", "samples", "skip_reason", "sniff"]

FORMAT = "inspect-log"
KIND: Literal["run"] = "run"
PRIORITY = 10

FRAMEWORK = "Inspect AI"
_HEADERS = ("header.json", "_journal/start.json", "start.json")
_SAMPLE = re.compile(r"^samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json$")
_VALUES = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
_EVAL_KEYS = ("task", "task_version", "task_file", "task_args", "solver", "solver_args", "dataset",
              "model_base_url", "model_args", "model_generate_config", "config", "revision", "tags",
              "created", "packages")


def _is_eval_header(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("eval"), dict) and "model" in value["eval"]


def sniff(doc: Document) -> bool:
    """A `.eval` archive with a header (or journal start), or a JSON object with an `eval` spec."""
    if doc.archive is not None:
        return any(name in doc.archive for name in _HEADERS)
    return _is_eval_header(doc.value) and "task" in doc.value["eval"]


def skip_reason(doc: Document) -> str | None:
    if doc.archive is not None:
        if any(name in doc.archive for name in _HEADERS) and not any(_SAMPLE.match(n) for n in doc.archive.names):
            return "Inspect log without samples (logged with --no-log-samples, or no sample finished yet)"
        return None
    value = doc.value
    if _is_eval_header(value) and "task" in value["eval"] and not value.get("samples"):
        return "Inspect log without samples (logged with --no-log-samples, or a header-only export)"
    if isinstance(value, dict) and value and all(_is_eval_header(v) for v in value.values()):
        return "Inspect log listing (logs.json: headers of other logs), not a log"
    return None


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    header, samples = _archive(doc) if doc.archive is not None else _json(doc)
    spec = header["eval"]
    chosen: dict[str, Prediction] = {}
    texts: dict[str, list[tuple[int, str]]] = {}
    order: list[str] = []
    epochs: set[int] = set()
    repeats: list[Repeat] = []
    verdicts = InspectVerdicts(doc.path)
    for where, sample in samples:
        if doc.archive is not None and doc.archive.repeats:  # samples are not kept: look as they pass
            repeats.extend(find_repeats(f"member {where}", sample))
        prediction, epoch = _prediction(doc, where, sample)
        verdicts.add(sample)
        epochs.add(epoch)
        first = chosen.get(prediction.ref)
        texts.setdefault(prediction.ref, []).append((epoch, prediction.text))
        if first is None:
            chosen[prediction.ref] = prediction
            order.append(prediction.ref)
        else:
            later = {"epoch": epoch, "completion": prediction.text}
            if "framework_scores" in prediction.meta:
                later["framework_scores"] = prediction.meta["framework_scores"]
            first.meta.setdefault("other_epochs", []).append(later)
    meta: dict[str, Any] = {"framework": FRAMEWORK}
    settings = {k: plain(spec[k]) for k in _EVAL_KEYS if spec.get(k) not in (None, {}, [])}
    plan = header.get("plan")
    if isinstance(plan, dict) and isinstance(plan.get("steps"), list):
        settings["plan"] = [s.get("solver") for s in plan["steps"] if isinstance(s, dict)]
    if settings:
        meta["settings"] = settings
    if isinstance(header.get("status"), str):
        meta["status"] = header["status"]
    results = _results(header.get("results"))
    if results:
        meta["framework_results"] = results
    if len(epochs) > 1:
        meta["epochs"] = len(epochs)
    model = hints.get("model") or (spec["model"] if isinstance(spec.get("model"), str) else None)
    predictions = [replace(chosen[r], samples=tuple(t for _, t in sorted(texts[r], key=lambda e: e[0])))
                   if len(texts[r]) > 1 else chosen[r] for r in order]
    run = build_run(doc, hints, FORMAT, predictions, model, meta, repeats=repeats)
    run.framework_verdicts = verdicts.file()
    return run


def _archive(doc: Document) -> tuple[dict[str, Any], Iterator[tuple[str, Any]]]:
    """The header, and the samples one at a time (each inflated, parsed and dropped in turn: a
    log's memory is its predictions, not its samples; each sample is a record for the limits)."""
    archive = doc.archive
    assert archive is not None
    name = next(n for n in _HEADERS if n in archive)
    header = archive.json(name)
    if not _is_eval_header(header):
        raise FormatError(str(doc.path), "not an Inspect log header (no eval.model)", name)
    found = [(m, n) for n in archive.names if (m := _SAMPLE.match(n)) is not None]
    found.sort(key=lambda pair: (int(pair[0].group("epoch")), _natural(pair[0].group("id"))))
    return header, ((n, archive.json(n, "max_record_bytes", keep=False)) for _, n in found)


def samples(doc: Document) -> Iterable[tuple[str, Any]]:
    """Each sample of a log with where it sits, one at a time: for other readers of the same log
    (judge verdicts), through the same archive helpers and limits."""
    return (_archive(doc) if doc.archive is not None else _json(doc))[1]


def _json(doc: Document) -> tuple[dict[str, Any], Iterable[tuple[str, Any]]]:
    samples = doc.value.get("samples")
    if not isinstance(samples, list):
        raise FormatError(str(doc.path), f"samples is {type_name(samples)}, expected a list", "samples")
    return doc.value, [(f"samples[{i}]", s) for i, s in enumerate(samples)]


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.isdigit() else (1, text)


def _prediction(doc: Document, where: str, sample: Any) -> tuple[Prediction, int]:
    if not isinstance(sample, dict):
        raise FormatError(str(doc.path), f"sample is {type_name(sample)}, expected an object", where)
    ref = clean_id(doc, sample.get("id"), where)
    if ref is None:
        raise FormatError(str(doc.path), "sample has no id", where)
    epoch: int = sample["epoch"] if isinstance(sample.get("epoch"), int) else 1
    attachments = _dict(sample.get("attachments"))
    meta: dict[str, Any] = {"epoch": epoch}
    metadata = _dict(sample.get("metadata"))
    input_text = _resolve(prompt_text(sample.get("input")), attachments)
    question = metadata.get("question") if isinstance(metadata.get("question"), str) else None
    if question is None and input_text:
        question = extract_question(input_text) or input_text.strip()
    if question:
        meta["question"] = question.strip()
    shown = _resolve(shown_prompt(sample.get("input")), attachments)
    if shown and shown.strip() != meta.get("question"):
        meta["prompt"] = shown
    if "target" in sample:
        meta["target"] = plain(sample["target"])
    try:
        scores, answers = _scores(sample.get("scores"))
    except OverflowError:
        raise FormatError(str(doc.path), "a score is a number too large to read", where) from None
    if scores:
        meta["framework_scores"] = scores
    if answers:
        meta["framework_answers"] = answers
    error = sample.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        meta["error"] = error["message"]
    output = _dict(sample.get("output"))
    text = _completion(output, attachments)
    return Prediction(ref=ref, ref_kind="id", text=text, meta=meta), epoch


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _completion(output: dict[str, Any], attachments: dict[str, Any]) -> str:
    """`output.completion`, else the first choice's message text ("" when the model said nothing)."""
    completion = output.get("completion")
    if not isinstance(completion, str) or not completion:
        choices = output.get("choices")
        message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
        completion = message_text(message.get("content")) if isinstance(message, dict) else None
    return _resolve(completion, attachments) or ""


def _resolve(text: str | None, attachments: dict[str, Any]) -> str | None:
    """Inspect stores long content once as `attachment://<hash>`; put it back."""
    if isinstance(text, str) and text.startswith("attachment://"):
        found = attachments.get(text[len("attachment://"):])
        return found if isinstance(found, str) else text
    return text


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value in _VALUES:
            return _VALUES[value]
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _scores(scores: Any) -> tuple[dict[str, float], dict[str, str]]:
    values: dict[str, float] = {}
    answers: dict[str, str] = {}
    if not isinstance(scores, dict):
        return values, answers
    for name, score in scores.items():
        if not isinstance(score, dict):
            continue
        value = score.get("value")
        if isinstance(value, dict):
            for key, part in value.items():
                number = _number(part)
                if number is not None:
                    values[f"{name}.{key}"] = number
        else:
            number = _number(value)
            if number is not None:
                values[name] = number
        if isinstance(score.get("answer"), str):
            answers[name] = score["answer"]
    return values, answers


def _results(results: Any) -> dict[str, Any]:
    """`{scorer: {metric: value}}` from the header's `results.scores`."""
    if not isinstance(results, dict) or not isinstance(results.get("scores"), list):
        return {}
    out: dict[str, Any] = {}
    for score in results["scores"]:
        if not isinstance(score, dict) or not isinstance(score.get("metrics"), dict):
            continue
        metrics = {k: plain(m.get("value")) for k, m in score["metrics"].items() if isinstance(m, dict)}
        out[str(score.get("name", score.get("scorer", "score")))] = metrics
    for key in ("total_samples", "completed_samples"):
        if isinstance(results.get(key), int):
            out[key] = results[key]
    return out
