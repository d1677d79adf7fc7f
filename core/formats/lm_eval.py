"""lm-evaluation-harness `--log_samples` output (github.com/EleutherAI/lm-evaluation-harness).

Layout: `<output_path>/<model_name_sanitized>/samples_<task>_<date>.jsonl` beside
`results_<date>.json` (same `<date>`, e.g. `2024-05-01T12-30-05.123456`); one JSON line per
document and filter: `doc_id`, `doc`, `target`, `arguments` (`{"gen_args_0": {"arg_0": prompt,
"arg_1": generation kwargs}}`; a list of `[prompt, kwargs]` pairs in the legacy form), `resps`
(raw responses, one list per request), `filtered_resps` (after the task's filters), `filter`,
`metrics` (names of the per-sample metrics), one key per metric, and hashes. The legacy form
(v0.4.0: `<model_args>_<task>.jsonl`) is one JSON array of the same records, paired with
`results.json`.

- Item: `doc`'s own id (`id`/`qid`/`query_id`/`question_id`/`_id`) with the question in
  `meta["question"]` (so a run with its own numbering still matches by text); else the question
  text (`question`/`query`, or a CDQA `qa` record's 问题 part); else the question found in the
  prompt (`meta["prompt"]` keeps the prompt for the loader's fallback).
- Text = the first filtered response, raw = the first raw response; `target` goes to meta.
- Several responses per document (`repeats` in the task config, self-consistency): every filtered
  response of the first request (else every raw one, when the record has no `filtered_resps`) is a
  sample (`Prediction.samples`), the first the official answer; a document logged again under the
  same filter adds its answer as a further sample. A filter that keeps one of them (`take_first`,
  majority vote) leaves one answer: no samples.
- The framework's per-sample metrics (numbers and booleans only: SQuAD-style metrics that hold
  (prediction, reference) pairs are aggregated later and are not scores) go to
  `meta["framework_scores"]`. Several filters per document (`strict-match`, `flexible-extract`):
  the file's first filter gives the prediction; the others' answers go to `meta["filtered"]` and
  their scores to `framework_scores` as `metric,filter`.
- Model and settings come from the results file (`model_name`, else `pretrained=` in
  `config.model_args`; `config`, the task's `configs` entry, `n-shot`, versions), the task's
  aggregate scores to `Run.meta["framework_results"]`; without a results file the model is the
  folder name lm-eval made from it (`Qwen__Qwen2-7B` → `Qwen/Qwen2-7B`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from qa_inspect.core.errors import FormatError
from qa_inspect.core.model import Prediction, Run

from ._common import build_run, fail, first_id
from .prompts import extract_question, message_text
from .textio import Document, number_text, plain, read_document, type_name

__all__ = [
    "FORMAT",
    "FRAMEWORK",
    "ID_FIELDS",
    "KIND",
    "PRIORITY",
    "QUESTION_FIELDS",
    "claims_name",
    "display_name",
    "read",
    "results_for",
    "side_file_owners",
    "side_file_reason",
    "sniff",
]

FORMAT = "lm-eval-samples"
KIND: Literal["run"] = "run"
PRIORITY = 10

FRAMEWORK = "lm-evaluation-harness"
_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
_SAMPLES = re.compile(rf"^samples_(?P<task>.+)_(?P<date>{_DATE})\.jsonl?$")
_RESULTS = re.compile(rf"^results(?:_(?P<date>{_DATE}))?\.json$")
ID_FIELDS = ("id", "qid", "query_id", "question_id", "_id")
QUESTION_FIELDS = ("question", "query", "Question")
_BOOKKEEPING = frozenset(
    {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
     "doc_hash", "prompt_hash", "target_hash"}
)
_CONFIG_KEYS = ("model", "model_args", "batch_size", "device", "gen_kwargs", "limit", "random_seed",
                "numpy_seed", "torch_seed", "fewshot_seed", "apply_chat_template")
_TASK_CONFIG_KEYS = ("dataset_path", "dataset_name", "test_split", "validation_split", "num_fewshot",
                     "output_type", "generation_kwargs", "repeats")
_TOP_KEYS = ("lm_eval_version", "git_hash", "date", "system_instruction", "fewshot_as_multiturn",
             "chat_template_sha", "model_source", "transformers_version")


# ------------------------------------------------------------------------------------ by name


def claims_name(path: Path) -> bool:
    return _SAMPLES.match(path.name) is not None


def _listing(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.is_file())
    except OSError:
        return []


def results_for(samples: Path, listing: list[Path] | None = None) -> Path | None:
    """The results file of a samples file: `results_<same date>.json`, else the folder's only
    `results*.json`."""
    listing = _listing(samples.parent) if listing is None else listing
    match = _SAMPLES.match(samples.name)
    if match is not None:
        same = samples.with_name(f"results_{match.group('date')}.json")
        if same in listing:
            return same
    found = [p for p in listing if _RESULTS.match(p.name)]
    return found[0] if len(found) == 1 else None


def _looks_like_samples(path: Path) -> bool:
    """A samples file by name, or (legacy `<model_args>_<task>.jsonl`) by `"doc_id"` near its start."""
    if _SAMPLES.match(path.name):
        return True
    if path.suffix.lower() not in (".jsonl", ".json") or _RESULTS.match(path.name):
        return False
    try:
        with path.open("rb") as fh:
            return b'"doc_id"' in fh.read(4096)
    except OSError:
        return False


def _samples_beside(results: Path) -> list[Path]:
    listing = _listing(results.parent)
    return [p for p in listing if _looks_like_samples(p) and results_for(p, listing) == results]


def side_file_owners(path: Path) -> list[Path]:
    return _samples_beside(path) if _RESULTS.match(path.name) else []


def side_file_reason(path: Path) -> str | None:
    if not _RESULTS.match(path.name):
        return None
    owners = _samples_beside(path)
    if not owners:
        return None
    shown = ", ".join(p.name for p in owners[:3]) + (", ..." if len(owners) > 3 else "")
    return f"lm-eval results (model and settings) of {shown}, read with them"


def display_name(path: Path) -> str | None:
    """`<model folder>/<task>` for `samples_<task>_<date>.jsonl`."""
    match = _SAMPLES.match(path.name)
    return f"{path.parent.name}/{match.group('task')}" if match is not None else None


# ------------------------------------------------------------------------------------- by shape


def sniff(doc: Document) -> bool:
    """Records whose first is an object with `doc_id` and `resps` or `filtered_resps`."""
    records = doc.records()
    if not records or not isinstance(records[0][1], dict):
        return False
    first = records[0][1]
    return "doc_id" in first and ("resps" in first or "filtered_resps" in first)


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    predictions: dict[str, Prediction] = {}
    order: list[str] = []
    filters: list[str] = []
    primary: str | None = None
    for number, record in doc.records() or []:
        where = doc.where(number)
        if not isinstance(record, dict):
            raise fail(doc, f"record is {type_name(record)}, expected an object", where)
        flt = record.get("filter") if isinstance(record.get("filter"), str) else None
        if flt is not None and flt not in filters:
            filters.append(flt)
        if primary is None:
            primary = flt
        doc_id = number_text(record.get("doc_id"))
        if doc_id is None:
            raise fail(doc, f"doc_id is {type_name(record.get('doc_id'))}, expected a number", where)
        known = predictions.get(doc_id)
        try:
            if known is None:
                predictions[doc_id] = _prediction(doc, number, record, flt)
                order.append(doc_id)
            elif flt is not None and flt != known.meta.get("filter"):
                _add_filter(known, record, flt)
            else:
                known.meta["repeats"] = known.meta.get("repeats", 1) + 1
                known.samples = (*(known.samples or (known.text,)), _answer(record)[0])
        except OverflowError:
            raise fail(doc, "a score is a number too large to read", where) from None
    task = _task(doc.path)
    meta: dict[str, Any] = {"framework": FRAMEWORK}
    if task is not None:
        meta["task"] = task
    if filters:
        meta["filter"] = primary
        if len(filters) > 1:
            meta["filters"] = filters
    model = hints.get("model")
    extra: list[str] = []
    results = results_for(doc.path)
    if results is not None:
        extra.append(str(results))
        meta["results_file"] = results.name
        try:
            found_model, settings, aggregate = _from_results(results, task)
        except FormatError as exc:
            meta["results_error"] = exc.message
            problem = f"its results file {results.name} is not read ({exc.message})"
            meta["warnings"] = [f"{problem}: no model or settings from it"]
        else:
            model = model or found_model
            if settings:
                meta["settings"] = settings
            if aggregate:
                meta["framework_results"] = aggregate
    if model is None and _SAMPLES.match(doc.path.name) and doc.path.parent.name:
        model = doc.path.parent.name.replace("__", "/", 1)
        meta["model_from"] = "folder name"
    chosen = [predictions[k] for k in order]
    return build_run(doc, hints, FORMAT, chosen, model, meta, display=display_name, extra_paths=extra)


def _task(path: Path) -> str | None:
    match = _SAMPLES.match(path.name)
    return match.group("task") if match is not None else None


def _prediction(doc: Document, number: int, record: dict[str, Any], flt: str | None) -> Prediction:
    where = doc.where(number)
    item = record.get("doc")
    item = item if isinstance(item, dict) else {}
    ref = first_id(doc, item, ID_FIELDS, where)
    question = _doc_question(item)
    prompt = _prompt(record.get("arguments"))
    meta: dict[str, Any] = {"doc_id": plain(record.get("doc_id"))}
    if flt is not None:
        meta["filter"] = flt
    kind: Literal["id", "question"]
    if ref is not None:
        kind = "id"
        if question:
            meta["question"] = question
    elif question:
        ref, kind = question, "question"
    else:
        found = extract_question(prompt) if prompt else None
        if not found:
            raise fail(doc, "sample names no item: its doc has no id or question, and its prompt no question", where)
        ref, kind = found, "question"
        meta["prompt"] = prompt
    target = record.get("target")
    if target is not None:
        meta["target"] = plain(target)
    scores = _scores(record, None)
    if scores:
        meta["framework_scores"] = scores
    text, raw = _answer(record)
    return Prediction(ref=ref, ref_kind=kind, text=text, raw=raw, meta=meta, line=number, samples=_samples(record))


def _samples(record: dict[str, Any]) -> tuple[str, ...]:
    """Every response of the first request when it holds several (filtered, else raw); else ()."""
    value = record.get("filtered_resps" if "filtered_resps" in record else "resps")
    if isinstance(value, list) and value and isinstance(value[0], list):
        texts = tuple(t for t in value[0] if isinstance(t, str))
        return texts if len(texts) > 1 else ()
    return ()


def _add_filter(prediction: Prediction, record: dict[str, Any], flt: str) -> None:
    text, _ = _answer(record)
    prediction.meta.setdefault("filtered", {})[flt] = text
    scores = _scores(record, flt)
    if scores:
        prediction.meta.setdefault("framework_scores", {}).update(scores)


def _doc_question(item: dict[str, Any]) -> str | None:
    for name in QUESTION_FIELDS:
        value = item.get(name)
        if isinstance(value, str) and value.strip():
            return value.strip()
    qa = item.get("qa")
    if isinstance(qa, str):  # a CDQA v1 record used as the task's doc
        from .cdqa import split_qa

        parts = split_qa(qa)
        if parts is not None:
            return parts[0]
    return None


def _prompt(arguments: Any) -> str | None:
    """The first request's prompt (`gen_args_0.arg_0`, or `arguments[0][0]` in the legacy form)."""
    first: Any = None
    if isinstance(arguments, dict):
        first = arguments.get("gen_args_0")
        first = first.get("arg_0") if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments:
        first = arguments[0][0] if isinstance(arguments[0], list) and arguments[0] else arguments[0]
    if isinstance(first, list):  # a chat template applied: a list of messages
        return "\n".join(t for t in (message_text(m.get("content")) for m in first if isinstance(m, dict)) if t) or None
    if isinstance(first, str):
        try:  # chat prompts are logged as a JSON-encoded list of messages
            decoded = json.loads(first)
        except json.JSONDecodeError:
            return first
        return _prompt([[decoded]]) if isinstance(decoded, list) else first
    return None


def _first_text(value: Any) -> str | None:
    """The first string in a (possibly nested) list of responses."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        for element in value:
            found = _first_text(element)
            if found is not None:
                return found
    return None


def _answer(record: dict[str, Any]) -> tuple[str, str | None]:
    raw = _first_text(record.get("resps"))
    if "filtered_resps" in record:
        text = _first_text(record.get("filtered_resps"))
    else:
        text = raw
    return (text if text is not None else ""), raw


def _scores(record: dict[str, Any], flt: str | None) -> dict[str, float]:
    names = record.get("metrics")
    if isinstance(names, list):
        candidates = [n for n in names if isinstance(n, str)]
    else:
        candidates = [k for k in record if k not in _BOOKKEEPING]
    out: dict[str, float] = {}
    for name in candidates:
        value = record.get(name)
        if isinstance(value, bool) or (isinstance(value, (int, float))):
            out[f"{name},{flt}" if flt is not None else name] = float(value)
    return out


def _from_results(path: Path, task: str | None) -> tuple[str | None, dict[str, Any], dict[str, Any]]:
    value = read_document(path).value
    if not isinstance(value, dict):
        raise FormatError(str(path), f"results file is {type_name(value)}, expected an object")
    config = c if isinstance(c := value.get("config"), dict) else {}
    model = value.get("model_name") if isinstance(value.get("model_name"), str) and value["model_name"] else None
    if model is None:
        model = _model_from_args(config.get("model_args"))
    configs = cs if isinstance(cs := value.get("configs"), dict) else {}
    if task is None and len(configs) == 1:
        task = next(iter(configs))
    settings: dict[str, Any] = {k: plain(config[k]) for k in _CONFIG_KEYS if config.get(k) is not None}
    settings.update({k: plain(value[k]) for k in _TOP_KEYS if value.get(k) is not None})
    if task is not None:
        task_config = configs.get(task)
        if isinstance(task_config, dict):
            settings["task_config"] = {k: plain(task_config[k]) for k in _TASK_CONFIG_KEYS if k in task_config}
        for key in ("n-shot", "versions"):
            table = value.get(key)
            if isinstance(table, dict) and task in table:
                settings[key] = plain(table[task])
    results = r if isinstance(r := value.get("results"), dict) else {}
    aggregate = results.get(task) if task is not None else None
    return model, settings, plain(aggregate) if isinstance(aggregate, dict) else {}


def _model_from_args(args: Any) -> str | None:
    """`pretrained=Qwen/Qwen2-7B,dtype=bfloat16` → `Qwen/Qwen2-7B` (lm-eval's own precedence)."""
    if isinstance(args, dict):
        args = ",".join(f"{k}={v}" for k, v in args.items())
    if not isinstance(args, str):
        return None
    for key in ("peft=", "delta=", "pretrained=", "model=", "path=", "engine="):
        if key in args:
            return args.split(key, 1)[1].split(",", 1)[0] or None
    return None
