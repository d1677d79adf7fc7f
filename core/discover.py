"""What is in a runs folder: which files to read, what the user declared, which run goes with which dataset.

Manifest — optional `RUNS_DIR/qa-inspect.toml`; without it everything is guessed from shapes
and names. Paths are relative to RUNS_DIR (absolute paths work too)::

    ignore = ["scratch/*", "*.tmp.json"]   # fnmatch globs over relative paths ('*' crosses '/')

    [[dataset]]
    path = "data/cmrc2018_dev.json"        # required
    name = "cmrc-dev"                      # default: the file stem
    split = "dev"                          # for items whose id does not name a split
    family = "cmrc"                        # cmrc | squad | cdqa (default: guessed by the reader)
    format = "squad"                       # a reader FORMAT: skip sniffing

    [[run]]
    path = "bert/eval_predictions.json"    # required
    name = "bert-base"                     # default: see run_display_name
    model = "bert-base-chinese"
    dataset = "cmrc-dev"                   # link to this dataset instead of guessing
    format = "prediction-map"

    [[link]]                               # link many runs at once
    runs = "llm/*.jsonl"
    dataset = "cdqa"

A file listed under `[[dataset]]` is read as a dataset only, under `[[run]]` as a run only. An
explicit `dataset =` beats a `[[link]]` glob, which beats guessing by coverage (`link_run`).
A bad manifest is an error naming the file and the key (e.g. `[[run]] #2, path`).
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Iterable, Mapping, Set as AbstractSet
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .errors import FormatError
from .formats import CANDIDATE_SUFFIXES, Skip, display_name, formats, side_reason
from .formats._prompt import normalise_text
from .keys import normalise_question, question_key
from .model import Dataset, Prediction, Run

MANIFEST_NAME = "qa-inspect.toml"
STATE_DIR = ".qa-inspect"
GENERIC_STEMS = frozenset(
    {"predictions", "eval_predictions", "predict_predictions", "test_predictions", "generated_predictions"}
)
"""Stems that say nothing about the run (HF / LLaMA-Factory output names): the folder names it."""


# --------------------------------------------------------------------------------------- walking


@dataclass(slots=True)
class WalkResult:
    """Files to try (sorted by relative path) and files passed over, each with a reason."""

    files: list[Path] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    """`Skip` is a NamedTuple: `for path, reason in result.skipped` works."""


def walk(runs_dir: Path, manifest: Manifest | None = None) -> WalkResult:
    """Candidate files under `runs_dir`, recursively; hidden entries and `.qa-inspect/` are not
    looked at (not even listed as skipped: they are ours or the user's private files)."""
    runs_dir = Path(runs_dir)
    result = WalkResult()
    found: list[tuple[str, Path]] = []
    for folder, dirs, files in os.walk(runs_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != STATE_DIR]
        for name in files:
            if not name.startswith("."):
                path = Path(folder) / name
                found.append((path.relative_to(runs_dir).as_posix(), path))
    for rel, path in sorted(found):
        if rel == MANIFEST_NAME:
            result.skipped.append(Skip(path, "qa-inspect manifest"))
        elif manifest is not None and manifest.ignores(path):
            result.skipped.append(Skip(path, f"ignored by {MANIFEST_NAME}"))
        elif path.suffix.lower() in CANDIDATE_SUFFIXES:
            result.files.append(path)
        else:
            # A framework's own side outputs (configs, metrics, logs) say what they are.
            result.skipped.append(Skip(path, side_reason(path) or "not a JSON/JSONL file"))
    return result


# -------------------------------------------------------------------------------------- manifest

_KEYS: dict[str, frozenset[str]] = {
    "dataset": frozenset({"path", "name", "split", "family", "format"}),
    "run": frozenset({"path", "name", "model", "dataset", "format"}),
    "link": frozenset({"runs", "dataset"}),
}
_FAMILIES = ("cmrc", "squad", "cdqa")


@dataclass(frozen=True, slots=True)
class ManifestEntry:
    """One `[[dataset]]` or `[[run]]` table; `path` is resolved against the runs folder."""

    kind: Literal["dataset", "run"]
    path: Path
    name: str | None = None
    split: str | None = None
    family: str | None = None
    model: str | None = None
    dataset: str | None = None
    format: str | None = None

    def hints(self) -> dict[str, Any]:
        """The `hints` for `core.formats.read_source`."""
        pairs = {"name": self.name, "split": self.split, "family": self.family, "model": self.model}
        pairs["format"] = self.format
        return {k: v for k, v in pairs.items() if v is not None}


@dataclass(frozen=True, slots=True)
class Manifest:
    path: Path
    root: Path
    datasets: tuple[ManifestEntry, ...] = ()
    runs: tuple[ManifestEntry, ...] = ()
    links: Mapping[str, str] = field(default_factory=dict)
    """Run path relative to the root (posix) → dataset name, from `[[run]] dataset =`."""
    link_globs: tuple[tuple[str, str], ...] = ()
    """`[[link]]` tables: (glob over run paths relative to the root, dataset name), in file order."""
    ignore: tuple[str, ...] = ()

    @staticmethod
    def _rel_to(root: Path, path: Path) -> str:
        try:
            return Path(path).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            return Path(path).resolve().as_posix()

    def _rel(self, path: Path) -> str:
        return self._rel_to(self.root, path)

    def entry_for(self, path: Path) -> ManifestEntry | None:
        target = Path(path).resolve()
        return next((e for e in (*self.datasets, *self.runs) if e.path.resolve() == target), None)

    def ignores(self, path: Path) -> bool:
        rel = self._rel(path)
        return any(fnmatch.fnmatch(rel, pattern) for pattern in self.ignore)

    def dataset_for(self, run_path: Path) -> str | None:
        """The dataset a run is declared to go with: its own `dataset =`, else the first `[[link]]`."""
        rel = self._rel(run_path)
        if rel in self.links:
            return self.links[rel]
        return next((name for pattern, name in self.link_globs if fnmatch.fnmatch(rel, pattern)), None)


def load_manifest(runs_dir: Path) -> Manifest | None:
    """`RUNS_DIR/qa-inspect.toml` validated, or None when there is none."""
    root = Path(runs_dir)
    path = root / MANIFEST_NAME
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(str(path), f"cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(str(path), f"invalid TOML: {exc}") from None
    for key in data:
        if key not in ("dataset", "run", "link", "ignore"):
            raise FormatError(str(path), "unknown key (expected dataset, run, link, ignore)", key)
    ignore = data.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(g, str) for g in ignore):
        raise FormatError(str(path), "expected a list of glob strings", "ignore")
    tables = {kind: _tables(path, data, kind) for kind in _KEYS}
    entries = {
        kind: tuple(_entry(path, root, kind, i, t) for i, t in enumerate(tables[kind], 1))
        for kind in ("dataset", "run")
    }
    seen_paths: dict[Path, str] = {}
    seen_names: set[str] = set()
    for kind in ("dataset", "run"):
        for i, entry in enumerate(entries[kind], 1):
            where = f"[[{kind}]] #{i}"
            target = entry.path.resolve()
            if target in seen_paths:
                raise FormatError(str(path), f"same file as {seen_paths[target]}", f"{where}, path")
            seen_paths[target] = where
            if kind == "dataset" and entry.name is not None:
                if entry.name in seen_names:
                    raise FormatError(str(path), f"dataset name {entry.name!r} used twice", f"{where}, name")
                seen_names.add(entry.name)
    links = []
    for i, table in enumerate(tables["link"], 1):
        runs, dataset = (_text(path, table, key, f"[[link]] #{i}", required=True) for key in ("runs", "dataset"))
        links.append((str(runs), str(dataset)))
    explicit = {Manifest._rel_to(root, e.path): e.dataset for e in entries["run"] if e.dataset}
    return Manifest(path, root, entries["dataset"], entries["run"], explicit, tuple(links), tuple(ignore))


def _tables(path: Path, data: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    tables = data.get(kind, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise FormatError(str(path), f"expected [[{kind}]] tables", kind)
    for i, table in enumerate(tables, 1):
        for key in table:
            if key not in _KEYS[kind]:
                allowed = ", ".join(sorted(_KEYS[kind]))
                raise FormatError(str(path), f"unknown key (expected {allowed})", f"[[{kind}]] #{i}, {key}")
    return tables


def _text(path: Path, table: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = table.get(key)
    if value is None:
        if required:
            raise FormatError(str(path), "missing (required)", f"{where}, {key}")
        return None
    if not isinstance(value, str) or not value.strip():
        raise FormatError(str(path), "expected a non-empty string", f"{where}, {key}")
    return value.strip()


def _entry(path: Path, root: Path, kind: Literal["dataset", "run"], index: int, table: dict[str, Any]) -> ManifestEntry:
    where = f"[[{kind}]] #{index}"
    values = {key: _text(path, table, key, where, required=key == "path") for key in _KEYS[kind]}
    target = root / str(values.pop("path"))
    if not target.is_file():
        raise FormatError(str(path), f"no such file: {target}", f"{where}, path")
    if values.get("family") is not None and values["family"] not in _FAMILIES:
        raise FormatError(str(path), f"unknown family (expected {', '.join(_FAMILIES)})", f"{where}, family")
    known = formats()
    if values.get("format") is not None and known.get(values["format"]) != kind:
        choices = ", ".join(sorted(f for f, k in known.items() if k == kind))
        raise FormatError(str(path), f"unknown {kind} format (expected {choices})", f"{where}, format")
    return ManifestEntry(kind=kind, path=target, **values)


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


# --------------------------------------------------------------------------------------- linking


@dataclass(frozen=True, slots=True)
class DatasetIndex:
    """What a run is matched against: item keys and normalised-question keys, as plain sets, so
    the store can build one from its rows (`key`, `question_key(question)`) without re-reading.

    `question_keys` should hold `question_key` of every shown question, of every original
    question (CDQA rewrites), and the `q:` item keys themselves (they are question keys).
    """

    ids: AbstractSet[str]
    question_keys: AbstractSet[str]

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str | None, str | None]]) -> DatasetIndex:
        """From `(item key, question, original question or None)` rows."""
        ids: set[str] = set()
        qkeys: set[str] = set()
        for key, question, original in rows:
            ids.add(key)
            if key.startswith("q:"):
                qkeys.add(key.split("#", 1)[0])
            qkeys.update(question_key(text) for text in (question, original) if text)
        return cls(frozenset(ids), frozenset(qkeys))

    @classmethod
    def from_dataset(cls, dataset: Dataset) -> DatasetIndex:
        return cls.from_rows(
            (item.key, item.question, item.meta.get("original_question")) for item in dataset.items
        )

    def __len__(self) -> int:
        return len(self.ids)

    def match(self, prediction: Prediction) -> str | None:
        """What a prediction matched by (its id, or the key of its question), None if nothing.

        An id that names no item falls back to the record's question (`meta["question"]`), so
        an LLM run with its own numbering still links by text.
        """
        if prediction.ref_kind == "id":
            if prediction.ref in self.ids:
                return prediction.ref
            question = prediction.meta.get("question")
            if not isinstance(question, str):
                return None
            key = question_key(question)
        else:
            key = question_key(prediction.ref)
        return key if key in self.question_keys else None


@dataclass(frozen=True, slots=True)
class LinkResult:
    dataset: str | None
    matched: int
    """Predictions that name an item of `dataset`."""
    unmatched: list[str]
    """Refs of the run's predictions that name no item of `dataset` (all refs when None)."""
    coverage: float
    """Share of the dataset's items the run answers (distinct matches / items, 0.0–1.0)."""
    reason: str


def link_run(run: Run, indexes: Mapping[str, DatasetIndex], *, prefer: str | None = None) -> LinkResult:
    """The dataset this run answers: `prefer` (from the manifest) when given, else the one with
    the most matched predictions, then the highest coverage, then the first name in sorted order."""
    total = len(run.predictions)

    def measure(name: str) -> LinkResult:
        index = indexes[name]
        hits = [index.match(p) for p in run.predictions]
        unmatched = [p.ref for p, hit in zip(run.predictions, hits) if hit is None]
        distinct = len({hit for hit in hits if hit is not None})
        coverage = min(1.0, distinct / len(index)) if len(index) else 0.0
        return LinkResult(name, total - len(unmatched), unmatched, coverage, "")

    everything = [p.ref for p in run.predictions]
    if prefer is not None:
        if prefer not in indexes:
            known = ", ".join(sorted(indexes)) or "none loaded"
            reason = f"{MANIFEST_NAME} names dataset {prefer!r}, which is not loaded (loaded: {known})"
            return LinkResult(None, 0, everything, 0.0, reason)
        named = measure(prefer)
        return replace(named, reason=f"named in {MANIFEST_NAME}; {_summary(named, total)}")
    results = sorted((measure(name) for name in indexes), key=lambda r: (-r.matched, -r.coverage, r.dataset))
    if not results or results[0].matched == 0:
        tried = ", ".join(sorted(indexes)) or "no datasets loaded"
        return LinkResult(None, 0, everything, 0.0, f"no prediction matches any dataset by id or question (tried: {tried})")
    best = results[0]
    reason = f"best match by {_kinds(run)}; {_summary(best, total)}"
    ties = [r.dataset for r in results[1:] if (r.matched, r.coverage) == (best.matched, best.coverage)]
    if ties:
        reason += f"; tie with {', '.join(repr(t) for t in ties)}: first in sorted order chosen"
    return replace(best, reason=reason)


def _kinds(run: Run) -> str:
    kinds = sorted({p.ref_kind for p in run.predictions})
    return " and ".join("question text" if k == "question" else k for k in kinds) or "id"


def _summary(result: LinkResult, total: int) -> str:
    return f"{result.matched}/{total} predictions matched, covering {result.coverage:.1%} of {result.dataset!r}"


# ------------------------------------------------------------------------- fallback matching
# LLM frameworks log prompts, and OpenCompass logs row positions, where a reader could not say
# which item a prediction answers. The loader uses these two, on one dataset's rows, for the
# predictions that match nothing by id or question.

MIN_QUESTION_CHARS = 4
"""Shorter questions are not searched inside prompts (too likely to occur by accident)."""


def match_in_prompts(
    predictions: Iterable[Prediction], questions: Iterable[str]
) -> dict[int, str]:
    """For predictions with `meta["prompt"]`: index → the dataset question found inside the
    prompt (normalised the way `question_key` does). Of several, the one that starts last wins
    (few-shot examples come before the question asked), then the longest."""
    width = MIN_QUESTION_CHARS
    buckets: dict[str, list[tuple[str, str]]] = {}
    seen: set[str] = set()
    for question in questions:
        norm = normalise_text(normalise_question(question))
        if len(norm) >= width and norm not in seen:
            seen.add(norm)
            buckets.setdefault(norm[:width], []).append((norm, question))
    for bucket in buckets.values():
        bucket.sort(key=lambda pair: -len(pair[0]))
    found: dict[int, str] = {}
    if not buckets:
        return found
    for index, prediction in enumerate(predictions):
        prompt = prediction.meta.get("prompt")
        if not isinstance(prompt, str):
            continue
        text = normalise_text(prompt)
        # Scan from the end: the first start that begins a question is the last one.
        for at in range(len(text) - width, -1, -1):
            bucket = buckets.get(text[at : at + width])
            hit = next((q for norm, q in bucket if text.startswith(norm, at)), None) if bucket else None
            if hit is not None:
                found[index] = hit
                break
    return found


@dataclass(slots=True)
class PositionMatch:
    keys: dict[int, str] = field(default_factory=dict)
    """Prediction index → item key, for positions whose gold agrees (or that carry no gold)."""
    checked: int = 0
    """Positions whose gold was compared and agreed."""
    unchecked: int = 0
    """Positions taken without a gold to compare."""
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    """`{position, gold, dataset_golds}` where the file's gold is not the item's."""
    beyond: int = 0
    """Positions past the dataset's last item."""


def match_by_position(
    predictions: Iterable[Prediction], ordered: list[tuple[str, list[str]]]
) -> PositionMatch:
    """For predictions with `meta["position"]` (0-based row in the framework's copy of the
    dataset): the item at that position of `ordered` (`(key, gold texts)` in dataset order), kept
    when the file's `meta["gold"]` (a text or a list; OpenCompass de-duplicates answers) is among
    the item's golds, after NFKC and stripping; a mismatch is reported, never linked."""
    result = PositionMatch()
    for index, prediction in enumerate(predictions):
        position = prediction.meta.get("position")
        if not isinstance(position, int) or isinstance(position, bool) or position < 0:
            continue
        if position >= len(ordered):
            result.beyond += 1
            continue
        key, golds = ordered[position]
        gold = prediction.meta.get("gold")
        texts = [gold] if isinstance(gold, (str, int, float)) and not isinstance(gold, bool) else gold
        if not isinstance(texts, list) or not texts:
            result.keys[index] = key
            result.unchecked += 1
            continue
        have = {normalise_text(g) for g in golds}
        if all(normalise_text(str(t)) in have for t in texts):
            result.keys[index] = key
            result.checked += 1
        else:
            result.mismatches.append({"position": position, "gold": texts, "dataset_golds": golds})
    return result
