"""What each run was: its settings (model, prompt, shots, retrieval, engine, any key), from three places.

Papers report grids of runs, so a table needs to know which axis a run sits on. Settings come from,
later sources winning:

1. the framework's own record, as the reader kept it in `runs.meta["settings"]` (lm-eval config,
   Inspect eval spec, OpenCompass config, CDQA `cdqa_eval.py` file names and `.metrics` arguments);
   CDQA task folders such as `cfreshqa_fast_google` give the tag (fast/slow/never-changing) and the
   search engine (`none` when the folder names none: closed-book);
2. a file-name pattern from the manifest (`[settings] pattern = "{model}_{prompt}_{shots}shot.jsonl"`,
   or a list): `{key}` matches one path part up to the next literal text, `*` anything; tried on the
   run's path relative to the runs folder when the pattern has a `/`, else on the file name;
3. the run's own `[[run]] settings = {prompt = "cot", shots = 3}` in the manifest.

Key names are normalised so frameworks agree (`prompt_type` → `prompt`, `ntrain`/`num_fewshot` →
`shots`, `k` → `results`); values are text (numbers as written, `3` not `3.0`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from .name_pattern import match_pattern

__all__ = [
    "CDQA_TAGS",
    "RunSettings",
    "folder_run_settings",
    "normalise_settings",
    "pattern_settings",
    "run_settings",
    "stored_run_settings",
    "task_settings",
]

ALIASES: dict[str, str] = {
    "prompt_type": "prompt",
    "ntrain": "shots",
    "num_fewshot": "shots",
    "n_shot": "shots",
    "fewshot": "shots",
    "k": "results",
    "search_engine": "engine",
}
"""Framework key → the one name tables use."""

DROPPED = frozenset({"time", "model_path", "out_dir", "write_metrics", "is_openai", "max_tokens"})
"""Framework keys that say how a file was written, not what was run."""

CDQA_TAGS = {"fast": "fast-changing", "slow": "slow-changing", "never": "never-changing"}
"""A CDQA task folder's change word → the dataset's tag."""

_TASK = re.compile(r"^c?freshqa_(?P<tag>fast|slow|never)(?:_(?P<engine>[A-Za-z0-9-]+))?$")


@dataclass(frozen=True, slots=True)
class RunSettings:
    """One run and what it was: `settings` maps a normalised key to its text value."""

    run: str
    dataset: str | None
    settings: Mapping[str, str] = field(default_factory=dict)
    sources: Mapping[str, str] = field(default_factory=dict)
    """Key → where its value came from: `framework`, `task folder`, `file name`, `manifest`, `model`."""

    def get(self, key: str) -> str | None:
        return self.run if key == "run" else self.settings.get(key)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def normalise_settings(raw: Mapping[str, Any]) -> dict[str, str]:
    """Framework keys under the names tables use, values as text; write-only keys dropped."""
    out: dict[str, str] = {}
    for key, value in raw.items():
        if key in DROPPED or value is None or isinstance(value, (dict, list)):
            continue
        out[ALIASES.get(key, key)] = _text(value)
    return out


def task_settings(task: str) -> dict[str, str]:
    """`cfreshqa_fast_google` → tag `fast-changing`, engine `google`; other names give nothing."""
    match = _TASK.match(task)
    if match is None:
        return {}
    return {"tag": CDQA_TAGS[match.group("tag")], "engine": match.group("engine") or "none"}


def pattern_settings(path: str, patterns: Sequence[str]) -> dict[str, str] | None:
    """Settings from the first pattern the run's path (relative, '/'-separated) matches, or None
    (matched in linear time: `name_pattern`)."""
    posix = PurePosixPath(path)
    for pattern in patterns:
        target = path if "/" in pattern else posix.name
        found = match_pattern(pattern, target)
        if found is not None:
            return {ALIASES.get(k, k): v for k, v in found.items()}
    return None


def run_settings(
    run: str,
    dataset: str | None,
    path: str,
    model: str | None,
    meta: Mapping[str, Any] | None,
    *,
    patterns: Sequence[str] = (),
    declared: Mapping[str, Any] | None = None,
) -> RunSettings:
    """One run's settings from its framework record, its path and the manifest (see the module)."""
    settings: dict[str, str] = {}
    sources: dict[str, str] = {}

    def put(values: Mapping[str, str], source: str) -> None:
        settings.update(values)
        sources.update(dict.fromkeys(values, source))

    if model:
        put({"model": model}, "model")
    framework = (meta or {}).get("settings")
    if isinstance(framework, Mapping):
        put(normalise_settings(framework), "framework")
        task = framework.get("task")
        if isinstance(task, str):
            put(task_settings(task), "task folder")
    found = pattern_settings(path, patterns)
    if found:
        put(found, "file name")
    if declared:
        put(normalise_settings(declared), "manifest")
    return RunSettings(run, dataset, settings, sources)


def stored_run_settings(
    conn: sqlite3.Connection,
    *,
    patterns: Sequence[str] = (),
    declared: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[RunSettings]:
    """Every linked run's settings; `declared` maps a run's path (relative, as stored) to its
    `[[run]] settings`."""
    rows = conn.execute(
        "SELECT r.name, d.name, r.path, r.model, r.meta FROM runs r JOIN datasets d ON d.id = r.dataset_id"
        " ORDER BY r.name"
    ).fetchall()
    out = []
    for name, dataset, path, model, meta in rows:
        try:
            decoded = json.loads(meta) if meta else {}
        except ValueError:
            decoded = {}
        out.append(run_settings(
            name, dataset, path, model, decoded if isinstance(decoded, dict) else {},
            patterns=patterns, declared=(declared or {}).get(path),
        ))
    return out


def folder_run_settings(conn: sqlite3.Connection, runs_dir: Path | None) -> list[RunSettings]:
    """`stored_run_settings` with the runs folder's manifest (its `[settings] pattern` and
    `[[run]] settings`), as every table and filter of runs by setting reads them. A manifest the
    last load rejected adds nothing (that load reported it)."""
    from qa_inspect.core.errors import QAInspectError
    from qa_inspect.core.load import load_manifest

    manifest = None
    if runs_dir is not None:
        try:
            manifest = load_manifest(runs_dir)
        except QAInspectError:
            manifest = None
    if manifest is None:
        return stored_run_settings(conn)
    return stored_run_settings(conn, patterns=manifest.patterns, declared=manifest.declared_settings())
