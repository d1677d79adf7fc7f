"""Prediction maps `{id: text}`: HF `eval_predictions.json` / `predict_predictions.json` /
`test_predictions.json`, CMRC 2018 submissions.

- Numbers become text as written (`1.50` → "1.50"); a `[text, null]` pair (or `[text, score]`)
  is its text; `[null, null]` is an error naming the key.
- An id given twice (a repeated key, or keys equal once stripped) keeps its last value, as JSON
  parsers do, and the run's warnings say how many were dropped: never silently.
- A `{prefix}nbest_predictions.json` beside `{prefix}predictions.json` is read with it: its
  candidates become `Prediction.candidates` (score = start_logit + end_logit) and its path goes
  to `Run.extra_paths`; met on its own, the n-best file is skipped as a side file.
- Likewise `{prefix}null_odds.json` (SQuAD v2-style runs, `--version_2_with_negative`: the null
  answer's score minus the best span's, per id): kept per prediction as `meta["null_odds"]`.
- Objects that only look like maps are skipped with a reason, not read: all-number objects
  (metrics, `null_odds.json`) and settings objects (`config.json`, `special_tokens_map.json`,
  lm-eval `results_*.json`) whose keys are all setting names such as `model_type`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from qa_inspect.core.errors import FormatError
from qa_inspect.core.model import Candidate, Prediction, Run

from ._common import build_run
from .textio import Document, duplicate_keys, number_text, read_document, shown, type_name

__all__ = [
    "FORMAT",
    "KIND",
    "NBEST_SUFFIX",
    "NULL_ODDS_SUFFIX",
    "PRIORITY",
    "SIDE_SUFFIXES",
    "main_path",
    "nbest_path",
    "null_odds_path",
    "read",
    "side_file_owners",
    "side_file_reason",
    "skip_reason",
    "sniff",
]

FORMAT = "prediction-map"
KIND: Literal["run"] = "run"
PRIORITY = 40

NBEST_SUFFIX = "nbest_predictions.json"
NULL_ODDS_SUFFIX = "null_odds.json"
SIDE_SUFFIXES = {NBEST_SUFFIX: "n-best", NULL_ODDS_SUFFIX: "null-odds"}
_SETTING = re.compile(r"_?[A-Za-z]+(?:[_\-][A-Za-z]+)*")


def nbest_path(path: Path) -> Path | None:
    """`eval_nbest_predictions.json` for `eval_predictions.json` (HF naming); None for other names."""
    name = path.name
    if not name.endswith("predictions.json") or name.endswith(NBEST_SUFFIX):
        return None
    return path.with_name(name[: -len("predictions.json")] + NBEST_SUFFIX)


def null_odds_path(path: Path) -> Path | None:
    """`eval_null_odds.json` for `eval_predictions.json` (HF naming); None for other names."""
    name = path.name
    if not name.endswith("predictions.json") or name.endswith(NBEST_SUFFIX):
        return None
    return path.with_name(name[: -len("predictions.json")] + NULL_ODDS_SUFFIX)


def main_path(path: Path) -> Path | None:
    """`eval_predictions.json` for `eval_nbest_predictions.json` or `eval_null_odds.json`; None
    for other names."""
    for suffix in SIDE_SUFFIXES:
        if path.name.endswith(suffix):
            return path.with_name(path.name[: -len(suffix)] + "predictions.json")
    return None


def side_file_reason(path: Path) -> str | None:
    """Skip reason for an n-best or null-odds file whose predictions file is beside it (decided
    before parsing, so the side file is parsed once, by the run that owns it)."""
    main = main_path(path)
    if main is not None and main.is_file():
        what = next(label for suffix, label in SIDE_SUFFIXES.items() if path.name.endswith(suffix))
        return f"{what} side file of {main.name}"
    return None


def side_file_owners(path: Path) -> list[Path]:
    main = main_path(path)
    return [main] if main is not None and main.is_file() else []


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def skip_reason(doc: Document) -> str | None:
    """Why an object that could pass for a map is not predictions (None: it may be one)."""
    value = doc.value
    if not isinstance(value, dict) or not value:
        return None
    values = list(value.values())
    if all(isinstance(v, list) and (not v or isinstance(v[0], dict) and "text" in v[0]) for v in values):
        main = main_path(doc.path)
        beside = f" (expected {main.name} beside it)" if main is not None else ""
        return f"n-best predictions without a predictions file{beside}"
    if all(_is_number(v) for v in values):
        if doc.path.name.endswith(NULL_ODDS_SUFFIX):
            main = main_path(doc.path)
            return f"null odds without a predictions file (expected {main.name if main else 'predictions.json'} beside it)"
        return "all values are numbers: a metrics or scores file, not predictions"
    keys = list(value)
    if all(_SETTING.fullmatch(k) for k in keys) and (
        any(not isinstance(v, str) for v in values) or all(("_" in k or "-" in k) for k in keys)
    ):
        shown = ", ".join(repr(k) for k in keys[:3])
        return f"settings or metadata, not predictions (keys such as {shown})"
    return None


def sniff(doc: Document) -> bool:
    """A non-empty JSON object whose values are mostly strings."""
    value = doc.value
    if not isinstance(value, dict) or not value:
        return False
    values = value.values()
    strings = list(map(type, values)).count(str)  # at C speed: most maps are all strings
    if strings * 2 < len(value):
        strings += sum(isinstance(v, str) or _is_pair(v) for v in values if type(v) is not str)
    return strings >= 1 and strings * 2 >= len(value)


def _is_pair(value: Any) -> bool:
    """`[text, null]`, `[text, score]` or `[null, null]`: a submission's answer pair."""
    return (isinstance(value, list) and len(value) == 2 and (value[0] is None or isinstance(value[0], str))
            and not isinstance(value[1], (str, list, dict)))


def read(doc: Document, hints: Mapping[str, Any]) -> Run:
    """One prediction per id, in file order (`Prediction.line` = position in the object).

    An id given twice (as the same key, or as keys equal once stripped) keeps its last value, as
    JSON itself does, and the run says how many were dropped (`Run.meta["warnings"]`)."""
    by_ref: dict[str, Prediction] = {}
    collided: list[str] = []
    for number, (raw_key, value) in enumerate(doc.value.items(), start=1):
        ref = raw_key.strip()
        text = value if type(value) is str else _value_text(value)  # the common case without a call
        if text is None:
            what = "[null, null] (no text in the pair)" if _is_pair(value) else type_name(value)
            raise FormatError(str(doc.path), f"value is {what}, expected the predicted text", _key(raw_key))
        if not ref:
            raise FormatError(str(doc.path), "empty id (a blank key)", _key(raw_key))
        if ref in by_ref:
            collided.append(ref)
        by_ref[ref] = Prediction(ref, "id", text, None, [], {}, number)  # positional: a million of these
    run = build_run(doc, hints, FORMAT, list(by_ref.values()), hints.get("model"), root_repeats_said=True)
    repeats = [k.strip() for k in duplicate_keys(doc.value)] + collided
    if repeats:
        many = "s" if len(repeats) > 1 else ""
        kept = by_ref[repeats[0]].text
        run.meta.setdefault("warnings", []).insert(0, (
            f"{len(repeats):,} duplicate id{many}; the last of each was kept (e.g. {shown(repeats[0])}: {shown(kept, 40)})"
        ))
    nbest = nbest_path(doc.path)
    if nbest is not None and nbest.is_file():
        _attach_nbest(run, nbest)
    odds = null_odds_path(doc.path)
    if odds is not None and odds.is_file():
        _attach_null_odds(run, odds)
    return run


def _value_text(value: Any) -> str | None:
    """A prediction as text: a number as written, or the text of a `[text, null]` pair (some
    submission writers store `[answer, null]` or `[answer, score]`: the text is the answer)."""
    if _is_pair(value) and value[0] is not None:
        return str(value[0])
    return number_text(value)


def _key(raw_key: str) -> str:
    return f"key {shown(raw_key)}"


def _attach_null_odds(run: Run, path: Path) -> None:
    def attach(prediction: Prediction, value: Any) -> None:
        odds = _float(path, value, "null odds", _key(prediction.ref))
        if odds is None:
            raise FormatError(str(path), f"null odds are {type_name(value)}, expected a number", _key(prediction.ref))
        prediction.meta["null_odds"] = odds

    missing = _attach_by_id(run, path, "null-odds", "number", attach)
    run.meta["null_odds"] = {"file": path.name, "without_null_odds": missing}  # beside the run: no machine path


def _attach_nbest(run: Run, path: Path) -> None:
    def attach(prediction: Prediction, entries: Any) -> None:
        prediction.candidates = _candidates(path, prediction.ref, entries)

    missing = _attach_by_id(run, path, "n-best", "candidates", attach)
    run.meta["nbest"] = {"file": path.name, "without_candidates": missing}  # beside the run: no machine path


def _attach_by_id(run: Run, path: Path, label: str, values: str, attach: Callable[[Prediction, Any], None]) -> int:
    """Hand each prediction its entry of the `label` side file `path` (an object of id → `values`,
    ids stripped), add `path` to the run's side files and return how many predictions had none."""
    table = read_document(path).value
    if not isinstance(table, dict):
        raise FormatError(str(path), f"{label} file is {type_name(table)}, expected an object of id → {values}")
    by_ref = {key.strip(): value for key, value in table.items()}
    missing = 0
    for prediction in run.predictions:
        value = by_ref.get(prediction.ref)
        if value is None:
            missing += 1
            continue
        attach(prediction, value)
    run.extra_paths.append(str(path))
    return missing


def _float(path: Path, value: Any, what: str, where: str) -> float | None:
    """A JSON number as a float, None for anything else; one too large for a float is an error."""
    if not _is_number(value):
        return None
    try:
        return float(value)
    except OverflowError:
        raise FormatError(str(path), f"{what} is a number too large to read", where) from None


def _candidates(path: Path, ref: str, entries: Any) -> list[Candidate]:
    where = _key(ref)
    if not isinstance(entries, list):
        raise FormatError(str(path), f"candidates are {type_name(entries)}, expected a list", where)
    out: list[Candidate] = []
    for entry in entries:
        if not isinstance(entry, dict) or "text" not in entry:
            raise FormatError(str(path), "candidate is not an object with 'text'", where)
        text = number_text(entry["text"])
        if text is None:
            raise FormatError(str(path), f"candidate text is {type_name(entry['text'])}", where)
        start, end = (_float(path, entry.get(k), k, where) for k in ("start_logit", "end_logit"))
        score = start + end if start is not None and end is not None else None
        out.append(Candidate(text=text, probability=_float(path, entry.get("probability"), "probability", where), score=score))
    return out
