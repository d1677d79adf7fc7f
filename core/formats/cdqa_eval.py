"""CDQA's own evaluation output (`cdqa_eval.py` in github.com/Alibaba-NLP/CDQA).

With `--write_metrics` the script writes, under `<out_dir>/<task>/`:
- `<time>--<model>--<prompt_type>--<ntrain>shots--<k>k.prediction`: a JSON list (indent 6) of
  `{raw_pred, normalized_pred, answers, requests}` — the model's raw output, the output cut and
  normalised by the script, the (normalised) gold answers, and the full prompt sent;
- `<same>--<answer rate>AR--<F1>F1.metrics`: the arguments as `key:value` lines, then one prompt.

The records carry no id and no question, only the prompt, so:
- Item: the question found in the prompt (`prompts.extract_question`); the prompt stays in
  `meta["prompt"]` so the loader can search dataset questions inside it when the extraction
  misses (the prompt templates are not published), and the answers in `meta["gold"]`.
- Text = `normalized_pred` (what the official script scores), raw = `raw_pred`. The script
  keeps no per-item score; its F1 and answer rate (from the `.metrics` name) go to
  `Run.meta["framework_results"]`.
- Model = the `<model>` part of the file name (the basename of `--model_path`); settings from the
  name (`prompt_type`, shots, k), the task folder, and the `.metrics` file's arguments.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from qa_inspect.core.model import Prediction, Run

from ._common import build_run, fail, first_object
from .prompts import extract_question
from .textio import Document, number_text, plain, type_name

__all__ = [
    "FORMAT",
    "FRAMEWORK",
    "KIND",
    "PRIORITY",
    "SUFFIX",
    "claims_name",
    "display_name",
    "metrics_path",
    "parse_name",
    "read",
    "side_file_reason",
    "sniff",
]

FORMAT = "cdqa-eval"
KIND: Literal["run"] = "run"
PRIORITY = 10

FRAMEWORK = "CDQA cdqa_eval.py"
SUFFIX = ".prediction"
_NAME = re.compile(r"^(?P<time>.+?)--(?P<model>.+)--(?P<prompt>[^-]+)--(?P<ntrain>\d+)shots--(?P<k>\d+)k$")
_METRICS = re.compile(r"^(?P<base>.+)--(?P<ar>\d+(?:\.\d+)?)AR--(?P<f1>\d+(?:\.\d+)?)F1\.metrics$")
_ARG = re.compile(r"^(?P<key>[a-z_]+):(?P<value>.*)$")
_ARGS = frozenset({"is_openai", "model_path", "write_metrics", "ntrain", "k", "out_dir", "task", "prompt_type", "max_tokens"})


def parse_name(path: Path) -> dict[str, str] | None:
    """`time`, `model`, `prompt`, `ntrain`, `k` from a `.prediction` file name."""
    if path.suffix != SUFFIX:
        return None
    match = _NAME.match(path.stem)
    return match.groupdict() if match is not None else None


def claims_name(path: Path) -> bool:
    return path.suffix == SUFFIX


def metrics_path(path: Path) -> tuple[Path, str, str] | None:
    """The `.metrics` file written with a `.prediction` file: (path, answer rate, F1)."""
    try:
        siblings = sorted(path.parent.iterdir())
    except OSError:
        return None
    for sibling in siblings:
        match = _METRICS.match(sibling.name)
        if match is not None and match.group("base") == path.stem:
            return sibling, match.group("ar"), match.group("f1")
    return None


def side_file_reason(path: Path) -> str | None:
    match = _METRICS.match(path.name)
    if match is None:
        return None
    main = path.with_name(match.group("base") + SUFFIX)
    if main.is_file():
        return f"CDQA metrics of {main.name} (F1 and answer rate; read with it)"
    return "CDQA metrics (aggregate F1 and answer rate, not per-item data)"


def display_name(path: Path) -> str | None:
    """`<task folder>/<model>--<prompt>--<n>shots` for a CDQA `.prediction` file."""
    parts = parse_name(path)
    if parts is None:
        return None
    return f"{path.parent.name}/{parts['model']}--{parts['prompt']}--{parts['ntrain']}shots"


def sniff(doc: Document) -> bool:
    """A JSON list whose first element has `raw_pred` and `requests`."""
    first = first_object(doc.value)
    return first is not None and "raw_pred" in first and "requests" in first


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    predictions = [_prediction(doc, number, record) for number, record in enumerate(doc.value, start=1)]
    meta: dict[str, Any] = {"framework": FRAMEWORK}
    settings: dict[str, Any] = {}
    model = hints.get("model")
    parts = parse_name(doc.path)
    if parts is not None:
        model = model or parts["model"]
        settings.update(
            prompt_type=parts["prompt"], ntrain=int(parts["ntrain"]), k=int(parts["k"]), time=parts["time"]
        )
        settings["task"] = doc.path.parent.name
    found = metrics_path(doc.path)
    if found is not None:
        path, answer_rate, f1 = found
        meta["framework_results"] = {"F1": float(f1), "answer_rate": float(answer_rate)}
        meta["metrics_file"] = path.name
        settings.update(_arguments(path))
    if settings:
        meta["settings"] = settings
    return build_run(doc, hints, FORMAT, predictions, model, meta, display=display_name)


def _arguments(path: Path) -> dict[str, Any]:
    """The `key:value` argument lines at the top of a `.metrics` file (the prompt follows)."""
    out: dict[str, Any] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return out
    for line in lines:
        match = _ARG.match(line)
        if match is None or match.group("key") not in _ARGS:
            break
        value: Any = match.group("value")
        if value.isdigit():
            value = int(value)
        elif value in ("True", "False"):
            value = value == "True"
        out[match.group("key")] = value
    return out


def _prediction(doc: Document, number: int, record: Any) -> Prediction:
    if not isinstance(record, dict):
        raise fail(doc, f"record is {type_name(record)}, expected an object", number)
    prompt = record.get("requests")
    if not isinstance(prompt, str):
        raise fail(doc, f"requests is {type_name(prompt)}, expected the prompt text", number)
    question = extract_question(prompt)
    if not question:
        raise fail(doc, "no question found in the prompt (requests)", number)
    raw = number_text(record.get("raw_pred")) if record.get("raw_pred") is not None else None
    normalized = record.get("normalized_pred")
    text = number_text(normalized) if normalized is not None else raw
    if text is None:
        raise fail(doc, f"normalized_pred is {type_name(normalized)}, expected text", number)
    meta: dict[str, Any] = {"prompt": prompt}
    if "answers" in record:
        meta["gold"] = plain(record["answers"])
    return Prediction(ref=question, ref_kind="question", text=text, raw=raw, meta=meta, line=number)
