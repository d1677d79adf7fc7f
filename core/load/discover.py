"""What is in a runs folder: which files to read, and how each is read (kind and hints from the
manifest, run names from the folder layout). Which run goes with which dataset is `core.load.matching`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from qa_inspect.core.formats import (
    CANDIDATE_SUFFIXES,
    Kind,
    Skip,
    display_name,
    read_source,
    side_reason,
)
from qa_inspect.core.model import Dataset, Run

from .manifest import MANIFEST_NAME, Manifest

if TYPE_CHECKING:
    from qa_inspect.core.formats import VerdictFile

__all__ = [
    "GENERIC_STEMS",
    "STATE_DIR",
    "Problem",
    "WalkResult",
    "read_in_folder",
    "run_display_name",
    "shown_path",
    "strip_id_affixes",
    "walk",
]

STATE_DIR = ".qa-inspect"
GENERIC_STEMS = frozenset(
    {"predictions", "eval_predictions", "predict_predictions", "test_predictions", "generated_predictions"}
)
"""Stems that say nothing about the run (HF / LLaMA-Factory output names): the folder names it."""


class Problem(NamedTuple):
    """A path the walk could not take as it is, and the one line saying so (naming it)."""

    path: Path
    message: str


@dataclass(slots=True)
class WalkResult:
    """Files to try (sorted by relative path) and files passed over, each with a reason."""

    files: list[Path] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    """`Skip` is a NamedTuple: `for path, reason in result.skipped` works."""
    errors: list[Problem] = field(default_factory=list)
    """Folders that cannot be listed (their files are unknown, not gone), names that are not text."""
    warnings: list[Problem] = field(default_factory=list)
    """Links to folders that are not followed, folders named like data files that hold none."""


def walk(runs_dir: Path, manifest: Manifest | None = None) -> WalkResult:
    """Candidate files under `runs_dir`, recursively; hidden entries and `.qa-inspect/` are not
    looked at (not even listed as skipped: they are ours or the user's private files). Links to
    folders are not followed (a link loop could never end): one that leads out of the runs folder
    or is named like a data file is a warning, as a folder named like a data file holding none."""
    runs_dir = Path(runs_dir)
    result = WalkResult()
    found: list[tuple[str, Path]] = []
    unreadable: list[OSError] = []
    named_like_files: list[Path] = []
    for folder, dirs, files in os.walk(runs_dir, onerror=unreadable.append):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != STATE_DIR]
        for name in dirs:
            path = Path(folder) / name
            if path.is_symlink():
                _linked_folder(runs_dir, path, result)
            elif path.suffix.lower() in CANDIDATE_SUFFIXES:
                named_like_files.append(path)
        for name in files:
            if not name.startswith("."):
                path = Path(folder) / name
                found.append((path.relative_to(runs_dir).as_posix(), path))
    for exc in unreadable:
        path = Path(exc.filename)
        why = f"cannot read the folder ({exc.strerror or exc}); nothing in it was looked at"
        result.errors.append(Problem(path, f"{shown_path(runs_dir, path)}/: {why}"))
    for path in named_like_files:
        rel = path.relative_to(runs_dir).as_posix() + "/"
        if not any(r.startswith(rel) for r, _ in found):
            result.warnings.append(Problem(path, f"{shown_path(runs_dir, path)}/: a folder named like a data file, with no data in it"))
    _sort(runs_dir, found, manifest, result)
    return result


def _linked_folder(runs_dir: Path, path: Path, result: WalkResult) -> None:
    """Warn about a link to a folder that leads outside the runs folder or looks like a data file."""
    try:
        outside = not path.resolve().is_relative_to(runs_dir.resolve())
    except (OSError, RuntimeError):
        outside = True
    if outside or path.suffix.lower() in CANDIDATE_SUFFIXES:
        where = "outside the runs folder" if outside else "named like a data file"
        result.warnings.append(
            Problem(path, f"{shown_path(runs_dir, path)}: a link to a folder {where}, not followed (link its files instead)")
        )


def _sort(runs_dir: Path, found: list[tuple[str, Path]], manifest: Manifest | None, result: WalkResult) -> None:
    """Each found file to the files to read, the skipped (with why) or the errors (odd names)."""
    for rel, path in sorted(found):
        problem = _name_problem(rel)
        if problem is not None:
            result.errors.append(Problem(path, f"{shown_path(runs_dir, path)}: {problem}; rename it"))
        elif rel == MANIFEST_NAME:
            result.skipped.append(Skip(path, "qa-inspect manifest"))
        elif manifest is not None and manifest.ignores(path):
            result.skipped.append(Skip(path, f"ignored by {MANIFEST_NAME}"))
        elif path.suffix.lower() in CANDIDATE_SUFFIXES:
            result.files.append(path)
        else:
            # A framework's own side outputs (configs, metrics, logs) say what they are.
            result.skipped.append(Skip(path, side_reason(path) or "not a JSON/JSONL file"))


def _name_problem(rel: str) -> str | None:
    """Why a name cannot be stored or shown as one line: undecodable bytes, a line break."""
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "the file name is not valid UTF-8 (undecodable bytes shown as \ufffd)"
    if "\n" in rel or "\r" in rel:
        return "the file name holds a line break (shown as \\n)"
    return None


def shown_path(runs_dir: Path, path: Path) -> str:
    """`path` relative to the runs folder as one line of text: undecodable bytes as U+FFFD,
    line breaks as `\\n` / `\\r`."""
    try:
        rel = path.relative_to(runs_dir).as_posix()
    except ValueError:
        rel = str(path)
    text = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return text.replace("\n", "\\n").replace("\r", "\\r")


def run_display_name(path: Path, runs_dir: Path, manifest: Manifest | None = None) -> str:
    """Manifest name, else a name from the framework's layout (lm-eval `<model>/<task>`,
    OpenCompass `<model>/<dataset>`, CDQA `<task>/<model>--<prompt>--<n>shots`: see the readers'
    `display_name`), else the file stem; generic output names (`eval_predictions.json`) take the
    parent folder's name instead (HF writes one output folder per model), with `/predict` or
    `/test` added for non-eval outputs so one folder's eval and predict files stay apart.
    Two folders of the same name (`a/seed1`, `b/seed1`) are left for the store to tell apart."""
    path = Path(path)
    if manifest is not None:
        entry = manifest.entry_for(path)
        if entry is not None and entry.name:
            return entry.name
    framework = display_name(path)
    if framework:
        return framework
    stem = path.stem
    if stem not in GENERIC_STEMS or path.parent.resolve() == Path(runs_dir).resolve():
        return stem
    prefix = stem[: -len("predictions")].rstrip("_")
    folder = path.parent.name
    return f"{folder}/{prefix}" if prefix in ("predict", "test") else folder


def read_in_folder(
    path: Path, runs_dir: Path | None = None, manifest: Manifest | None = None, *, hints: Mapping[str, Any] | None = None
) -> Dataset | Run | Skip | VerdictFile:
    """Read one file of a runs folder: the manifest's entry for it supplies the kind, the hints and
    a dataset's scorer, and a run is named by `run_display_name`. Explicit `hints` win over both."""
    kind: Kind | None = None
    merged: dict[str, Any] = {}
    entry = manifest.entry_for(path) if manifest is not None else None
    if entry is not None:
        kind = entry.kind
        merged.update(entry.hints())
    merged.update(hints or {})
    if "name" not in merged and runs_dir is not None:
        merged["run_name"] = run_display_name(path, runs_dir, manifest)
    src = read_source(path, as_kind=kind, hints=merged)
    if isinstance(src, Dataset) and entry is not None and entry.scorer:
        src.scorer = entry.scorer
    if isinstance(src, Run) and entry is not None and (entry.id_prefix or entry.id_suffix):
        strip_id_affixes(src, entry.id_prefix or "", entry.id_suffix or "")
    return src


def strip_id_affixes(run: Run, prefix: str, suffix: str) -> None:
    """Take a declared prefix/suffix off every prediction id that has it (the original is kept
    in `meta["original_id"]`), so `…-high-conf` ids link to the dataset's own."""
    for p in run.predictions:
        if p.ref_kind != "id":
            continue
        ref = p.ref
        if prefix and ref.startswith(prefix):
            ref = ref[len(prefix):]
        if suffix and ref.endswith(suffix):
            ref = ref[: -len(suffix)]
        if ref != p.ref:
            p.meta.setdefault("original_id", p.ref)
            p.ref = ref
