"""OpenCompass predictions (github.com/open-compass/opencompass).

Layout: `<work_dir>/<YYYYMMDD_HHMMSS>/predictions/<model_abbr>/<dataset_abbr>.json`, an object
keyed by row index ("0", "1", ...) with `origin_prompt` (a string, or a list of
`{role, prompt}` turns for chat models), `prediction` (the raw model output) and `gold` (when the
dataset has an output column). A dataset split into shards is written as `<dataset_abbr>_0.json`,
`<dataset_abbr>_1.json`, ... each indexed from 0; OpenCompass concatenates them in shard order,
and so does this reader: `_0` is the run, the other shards are its side files (`Run.extra_paths`).

- Item: by the question found in the prompt (`prompts.extract_question`); `meta["position"]`
  (the row's index over all shards) and `meta["gold"]` let the loader match by position against
  the dataset instead, checked against the gold (see `core.discover.match_by_position`), and
  `meta["prompt"]` lets it search dataset questions inside the prompt.
- Raw = `prediction`. Text = the evaluator's extracted answer (`pred`/`predictions` in the
  details of `<work_dir>/<ts>/results/<model_abbr>/<dataset_abbr>.json`, written with
  `--dump-eval-details`) when there is one, else the prediction itself; the evaluator's per-item
  verdict (`correct`) goes to `meta["framework_scores"]`, its aggregate to
  `Run.meta["framework_results"]`. The results file is a side file of the predictions.
- Several predictions per row (`num_return_sequences`, `n`: `prediction` is a list): each is a
  sample (`Prediction.samples`), the first the official answer; the evaluator's extracted answers,
  when it gives one per sample, replace them (text = the first).
- Model: the `path` (else `abbr`) of the entry in `<ts>/configs/*.py` whose `abbr` is the model
  folder, with its plain settings (`max_out_len`, `batch_size`, `generation_kwargs`, ...); the
  config is parsed with `ast`, never executed. Without a config the model is the folder name.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from itertools import islice
from pathlib import Path
from typing import Any, Literal, NamedTuple

from qa_inspect.core.errors import FormatError
from qa_inspect.core.model import Prediction, Run

from ._common import build_run
from .prompts import extract_question, prompt_text, shown_prompt
from .textio import Document, plain, read_document, type_name

__all__ = [
    "FORMAT",
    "FRAMEWORK",
    "KIND",
    "PRIORITY",
    "Layout",
    "claims_name",
    "display_name",
    "layout",
    "read",
    "side_file_owners",
    "side_file_reason",
    "sniff",
]

FORMAT = "opencompass-predictions"
KIND: Literal["run"] = "run"
PRIORITY = 10

FRAMEWORK = "OpenCompass"
_SHARD = re.compile(r"^(?P<base>.+)_(?P<n>\d+)$")
_TIMESTAMP = re.compile(r"^\d{8}_\d{6}$")
_SNIFF = 5


class Layout(NamedTuple):
    root: Path  # <work_dir>/<timestamp>
    model: str
    dataset: str  # abbr without the shard suffix
    shard: int | None


def layout(path: Path) -> Layout | None:
    """Where a file sits in an OpenCompass work dir, when it sits in `predictions/<model>/`."""
    if path.parent.parent.name != "predictions" or path.suffix.lower() != ".json":
        return None
    stem, shard = path.stem, None
    match = _SHARD.match(stem)
    if match is not None and (match.group("n") == "0" or path.with_name(f"{match.group('base')}_0.json").is_file()):
        stem, shard = match.group("base"), int(match.group("n"))
    return Layout(path.parent.parent.parent, path.parent.name, stem, shard)


def _results_path(where: Layout) -> Path:
    return where.root / "results" / where.model / f"{where.dataset}.json"


def _main_of_results(path: Path) -> Path | None:
    """`predictions/<model>/<dataset>.json` (or its `_0` shard) for a results file."""
    if path.parent.parent.name != "results" or path.suffix.lower() != ".json":
        return None
    folder = path.parent.parent.parent / "predictions" / path.parent.name
    for candidate in (folder / path.name, folder / f"{path.stem}_0.json"):
        if candidate.is_file():
            return candidate
    return None


def claims_name(path: Path) -> bool:
    return layout(path) is not None


def side_file_owners(path: Path) -> list[Path]:
    where = layout(path)
    if where is not None and where.shard:
        first = path.with_name(f"{where.dataset}_0.json")
        return [first] if first.is_file() else []
    main = _main_of_results(path)
    return [main] if main is not None else []


def side_file_reason(path: Path) -> str | None:
    where = layout(path)
    if where is not None and where.shard:
        if path.with_name(f"{where.dataset}_0.json").is_file():
            return f"shard {where.shard} of {where.dataset}_0.json (OpenCompass predictions), read with it"
    main = _main_of_results(path)
    if main is not None:
        return f"OpenCompass results (per-item verdicts) of predictions/{main.parent.name}/{main.name}, read with it"
    parts = path.parts
    if path.name.startswith("tmp_") and path.suffix.lower() == ".jsonl" and len(parts) > 2 and parts[-3] == "predictions":
        return "OpenCompass partial predictions (written while inference runs; the .json follows when it ends)"
    if len(parts) > 2 and _TIMESTAMP.match(parts[-3]) and parts[-2] == "configs" and path.suffix == ".py":
        return "OpenCompass config (model and settings are read from it with the predictions)"
    for n in range(len(parts) - 2):
        if _TIMESTAMP.match(parts[n]) and parts[n + 1] in ("summary", "logs"):
            return f"OpenCompass {'summary' if parts[n + 1] == 'summary' else 'log'} (not per-item data)"
    return None


def display_name(path: Path) -> str | None:
    where = layout(path)
    return f"{where.model}/{where.dataset}" if where is not None else None


# ------------------------------------------------------------------------------------- by shape


def _rows(value: Any) -> bool:
    """At least half the first rows are indexed rows with a `prediction`, one with a prompt or
    gold (a bad row among them is then the reader's error to name, not a reason to skip)."""
    if not isinstance(value, dict) or not value:
        return False
    head = list(islice(value.items(), _SNIFF))  # not a list of every row first: an answer map has thousands
    rows = [v for k, v in head if k.isdigit() and isinstance(v, dict) and "prediction" in v]
    return len(rows) * 2 >= len(head) and any("origin_prompt" in v or "gold" in v for v in rows)


def sniff(doc: Document) -> bool:
    """An object keyed by row index whose rows hold `prediction` and `origin_prompt` or `gold`."""
    return _rows(doc.value)


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    where = layout(doc.path)
    shards: list[tuple[Path, Document | None]] = [(doc.path, doc)]  # later shards read in turn
    if where is not None and where.shard == 0:
        n = 1
        while (nxt := doc.path.with_name(f"{where.dataset}_{n}.json")).is_file():
            shards.append((nxt, None))
            n += 1
    predictions: list[Prediction] = []
    offset = 0
    extra: list[str] = []
    for number, (path, given) in enumerate(shards):
        shard_doc = given or read_document(path)
        if shard_doc is not doc:
            extra.append(str(path))
            if not _rows(shard_doc.value):
                raise FormatError(str(path), "shard is not OpenCompass predictions (an object of row index → row)")
        rows = _indexed(shard_doc)
        for index, row in rows:
            predictions.append(_prediction(shard_doc, offset + index, index, row, number if len(shards) > 1 else None))
        offset += len(rows)
    dataset = where.dataset if where is not None else doc.path.stem
    meta: dict[str, Any] = {"framework": FRAMEWORK, "dataset_abbr": dataset}
    if len(shards) > 1:
        meta["shards"] = [p.name for p, _ in shards]
    model = hints.get("model")
    if where is not None:
        meta["model_abbr"] = where.model
        meta["timestamp"] = where.root.name
        found, settings = _config(where)
        model = model or found or where.model
        if settings:
            meta["settings"] = settings
        results = _results_path(where)
        if results.is_file():
            extra.append(str(results))
            _attach_results(results, predictions, meta)
    return build_run(doc, hints, FORMAT, predictions, model, meta, display=display_name, extra_paths=extra)


def _indexed(doc: Document) -> list[tuple[int, Any]]:
    """Rows by their integer index, checked to run 0..n-1 (how OpenCompass reads them back)."""
    rows = sorted((int(k), v) for k, v in doc.value.items() if k.isdigit())
    if len(rows) != len(doc.value):
        bad = next(k for k in doc.value if not k.isdigit())
        raise FormatError(str(doc.path), "row key is not a row index", f"key {bad!r}")
    if [i for i, _ in rows] != list(range(len(rows))):
        missing = next(i for i in range(len(rows)) if rows[i][0] != i)
        raise FormatError(str(doc.path), f"row indexes are not 0..{len(rows) - 1}: row {missing} is missing")
    return rows


def _prediction(doc: Document, position: int, index: int, row: Any, shard: int | None) -> Prediction:
    where = f"key {str(index)!r}"
    if not isinstance(row, dict):
        raise FormatError(str(doc.path), f"row is {type_name(row)}, expected an object", where)
    value = row.get("prediction")
    if isinstance(value, dict):
        value = value.get("prediction")
    raw = _first_text(value)
    if value is not None and raw is None:
        raise FormatError(str(doc.path), f"prediction is {type_name(value)}, expected text", where)
    prompt = row.get("origin_prompt")
    text = prompt_text(prompt)
    question = extract_question(text) if text else None
    meta: dict[str, Any] = {"position": position}
    if shard is not None:
        meta["shard"], meta["index"] = shard, index
    if "gold" in row:
        meta["gold"] = plain(row["gold"])
    shown = shown_prompt(prompt)
    if shown:
        meta["prompt"] = shown
    samples: tuple[str, ...] = ()
    if isinstance(value, list) and len(value) > 1:
        meta["all_predictions"] = plain(value)
        texts = tuple(v for v in value if isinstance(v, str))
        samples = texts if len(texts) > 1 else ()
    if question:
        return Prediction(ref=question, ref_kind="question", text=raw or "", raw=raw, meta=meta, line=position + 1,
                          samples=samples)
    # No question to go by: an id that names nothing, so only the position (or prompt) can match it.
    return Prediction(ref=f"#{position}", ref_kind="id", text=raw or "", raw=raw, meta=meta, line=position + 1,
                      samples=samples)


def _first_text(value: Any) -> str | None:
    """A prediction's text: the string, or the first string of a list (several samples/turns)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return next((v for v in value if isinstance(v, str)), None)
    return None


def _attach_results(path: Path, predictions: list[Prediction], meta: dict[str, Any]) -> None:
    try:
        value = read_document(path).value
    except FormatError as exc:
        return _results_problem(path, meta, exc.message)
    if not isinstance(value, dict):
        return _results_problem(path, meta, f"results file is {type_name(value)}, expected an object")
    meta["framework_results"] = {k: plain(v) for k, v in value.items() if k not in ("details", "type")}
    details = value.get("details")
    if isinstance(details, dict):
        details = [details.get(str(i)) for i in range(len(details))]
    if not isinstance(details, list):
        return
    if len(details) != len(predictions):
        return _results_problem(path, meta, f"{len(details)} details for {len(predictions)} predictions")
    for prediction, detail in zip(predictions, details):
        if not isinstance(detail, dict):
            continue
        extracted = detail.get("pred", detail.get("predictions"))
        if isinstance(extracted, list) and len(extracted) == 1:
            extracted = extracted[0]
        if (isinstance(extracted, list) and prediction.samples and len(extracted) == len(prediction.samples)
                and all(isinstance(e, str) for e in extracted)):
            prediction.samples = tuple(extracted)  # one extracted answer per sample
            extracted = extracted[0]
        if isinstance(extracted, str):
            prediction.text = extracted
        for key, name in (("correct", "correct"), ("right", "correct"), ("score", "score")):
            verdict = detail.get(key)
            if isinstance(verdict, list) and len(verdict) == 1:
                verdict = verdict[0]
            if isinstance(verdict, (bool, int, float)) and abs(verdict) < 2**1023:
                prediction.meta["framework_scores"] = {name: float(verdict)}
                break


def _results_problem(path: Path, meta: dict[str, Any], problem: str) -> None:
    """A results file that cannot be used: the run loads without it and says why."""
    meta["results_error"] = problem
    rel = f"results/{path.parent.name}/{path.name}"
    meta.setdefault("warnings", []).append(f"{rel} is not used ({problem}): no extracted answers or verdicts")


# ------------------------------------------------------------------------------------- config


def _config(where: Layout) -> tuple[str | None, dict[str, Any]]:
    """(model, settings) from the run's dumped config (`<ts>/configs/*.py`), parsed, not run."""
    folder = where.root / "configs"
    try:
        files = sorted(folder.glob("*.py"))
    except OSError:
        return None, {}
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # not a config we can read: the model is the folder name
        for entry in _list_of_dicts(tree, "models"):
            if entry.get("abbr") == where.model:
                model = entry.get("path") if isinstance(entry.get("path"), str) else None
                settings = {k: v for k, v in entry.items() if k not in ("abbr", "path")}
                settings["config_file"] = path.name
                return model or where.model, settings
    return None, {}


def _list_of_dicts(tree: ast.Module, name: str) -> list[dict[str, Any]]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)):
                return [d for d in (_literal_dict(e) for e in value.elts) if d is not None]
    return []


def _literal_dict(node: ast.expr) -> dict[str, Any] | None:
    """`dict(a=1, b='x', c=dict(...))` or `{'a': 1}` with only literal values kept."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        pairs = [(kw.arg, kw.value) for kw in node.keywords if kw.arg is not None]
    elif isinstance(node, ast.Dict):
        pairs = [(k.value, v) for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    else:
        return None
    out: dict[str, Any] = {}
    for key, value in pairs:
        nested = _literal_dict(value)
        if nested is not None:
            out[key] = nested
            continue
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
    return out
