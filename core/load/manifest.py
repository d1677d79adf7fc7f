"""The optional manifest `RUNS_DIR/qa-inspect.toml`: what the user declares about a runs folder.

Optional `RUNS_DIR/qa-inspect.toml`; without it everything is guessed from shapes
and names. Paths are relative to RUNS_DIR (absolute paths work too)::

    ignore = ["scratch/*", "*.tmp.json"]   # fnmatch globs over relative paths ('*' crosses '/')

    [[dataset]]
    path = "data/cmrc2018_dev.json"        # required
    name = "cmrc-dev"                      # default: the file stem
    split = "dev"                          # for items whose id does not name a split
    family = "cmrc"                        # cmrc | squad | cdqa (default: guessed by the reader)
    format = "squad"                       # a reader FORMAT: skip sniffing
    scorer = "squad-v2"                    # default: by what the data is (see core.metrics.registry)
    dynamic = true                         # its answers can go stale: in the review queue (CDQA-style
                                           # change tags say so without it)

    [[run]]
    path = "bert/eval_predictions.json"    # required
    name = "bert-base"                     # default: see run_display_name
    model = "bert-base-chinese"
    dataset = "cmrc-dev"                   # link to this dataset instead of guessing; a list
                                           # (["dev-1", "dev-2"]) for a dataset split into files:
                                           # one run per file, each with the predictions of its items
    format = "prediction-map"
    id_suffix = "-high-conf"               # stripped from prediction ids before linking (also id_prefix)
    date = "2024-05-01"                    # when the run was made (default: its file time); newer runs
                                           # weigh more in the review queue's consensus
    settings = {prompt = "cot", shots = 3}  # what the run was, for tables (core.report.run_settings)

    [settings]
    pattern = "{model}_{prompt}_{shots}shot.jsonl"  # or a list: run settings read from file names

    [[link]]                               # link many runs at once
    runs = "llm/*.jsonl"
    dataset = "cdqa"

    [labels]                               # the project's error labels (core.labels; default set otherwise)
    set = ["gold-wrong", "paraphrase", "tokenisation"]

    [limits]                               # what one file may cost (core.formats.limits; docs/limits.md)
    max_file_bytes = "8 GiB"
    [team]                                 # who reviews what (core.review.assign; docs/guide/team.md)
    annotators = ["ana", "bo", "cy"]
    overlap = 2

A file listed under `[[dataset]]` is read as a dataset only, under `[[run]]` as a run only. An
explicit `dataset =` beats a `[[link]]` glob, which beats guessing by coverage (`link_run`).
A bad manifest is an error naming the file and the key (e.g. `[[run]] #2, path`).
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

from qa_inspect.core.errors import FormatError, unknown_name
from qa_inspect.core.store import MANIFEST_NAME
from qa_inspect.core.formats import DEFAULT_LIMITS, Limits, decode, formats, parse_limits, too_big
from qa_inspect.core.metrics import SCORERS

__all__ = ["MANIFEST_NAME", "Manifest", "ManifestEntry", "load_manifest"]


_KEYS: dict[str, frozenset[str]] = {
    "dataset": frozenset({"path", "name", "split", "family", "format", "scorer", "dynamic"}),
    "run": frozenset({"path", "name", "model", "dataset", "format", "id_prefix", "id_suffix", "date", "settings"}),
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
    also: tuple[str, ...] = ()
    """`[[run]] dataset = ["D1", "D2", …]`: the datasets after the first (`dataset`), for a dataset
    split into several files."""
    format: str | None = None
    scorer: str | None = None
    """The dataset's scorer, chosen by the user (`[[dataset]] scorer =`)."""
    id_prefix: str | None = None
    id_suffix: str | None = None
    """Stripped from a run's prediction ids before linking (`…-high-conf` ids of a dev set)."""
    date: str | None = None
    """When the run was made (`[[run]] date = "2024-05-01"`, ISO), for weighting newer runs."""
    settings: Mapping[str, Any] | None = None
    """`[[run]] settings = {...}`: what the run was (prompt, shots …), as declared."""
    dynamic: bool = False
    """`[[dataset]] dynamic = true`: its answers can go stale (the review queue covers it)."""

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
    patterns: tuple[str, ...] = ()
    """`[settings] pattern`: file-name patterns run settings are read from, tried in order."""

    def declared_settings(self) -> dict[str, Mapping[str, Any]]:
        """Run path relative to the root (posix, as the store keeps it) → its `[[run]] settings`."""
        return {self._rel(e.path): e.settings for e in self.runs if e.settings}
    labels: tuple[str, ...] | None = None
    """`[labels] set`: the project's error labels (None: the default set of `core.labels`)."""
    limits: Limits = DEFAULT_LIMITS
    """`[limits]`: what one file, member, record or pattern may cost (`core.formats.limits`)."""
    team: Mapping[str, Any] | None = None
    """`[team]` as written (annotators, overlap), checked by `core.review.team_settings`."""

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

    def run_dates(self) -> dict[str, date]:
        """Run path relative to the root (posix) → its `[[run]] date`, for the runs that give one."""
        return {self._rel(e.path): date.fromisoformat(e.date) for e in self.runs if e.date}

    def dynamic_datasets(self) -> frozenset[str]:
        """Names and paths (relative, posix) of the `[[dataset]]`s declared `dynamic = true`."""
        return frozenset(x for e in self.datasets if e.dynamic for x in (e.name, self._rel(e.path)) if x)

    def ignores(self, path: Path) -> bool:
        rel = self._rel(path)
        return any(fnmatch.fnmatch(rel, pattern) for pattern in self.ignore)

    def datasets_for(self, run_path: Path) -> tuple[str, ...]:
        """Every dataset a run is declared to go with: its `dataset = [...]` list, else the one of
        `dataset_for` (none: empty)."""
        entry = self.entry_for(run_path)
        if entry is not None and entry.kind == "run" and entry.dataset is not None and entry.also:
            return (entry.dataset, *entry.also)
        one = self.dataset_for(run_path)
        return () if one is None else (one,)

    def dataset_for(self, run_path: Path) -> str | None:
        """The dataset a run is declared to go with: its own `dataset =`, else the first `[[link]]`."""
        rel = self._rel(run_path)
        if rel in self.links:
            return self.links[rel]
        return next((name for pattern, name in self.link_globs if fnmatch.fnmatch(rel, pattern)), None)


def _inside(target: Path, root: Path) -> bool:
    """Whether `target` lies in `root` once `..` and symlinks are resolved."""
    try:
        target.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def load_manifest(runs_dir: Path) -> Manifest | None:
    """`RUNS_DIR/qa-inspect.toml` validated, or None when there is none."""
    root = Path(runs_dir)
    path = root / MANIFEST_NAME
    if not os.path.lexists(path):
        return None
    data = _parse(path)
    for key in data:
        if key not in ("dataset", "run", "link", "ignore", "settings", "labels", "limits", "team"):
            raise FormatError(str(path), "unknown key (expected dataset, run, link, ignore, settings, labels, limits, team)",
                              key)
    limits = _limits(path, data.get("limits", {}))
    ignore = data.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(g, str) for g in ignore):
        raise FormatError(str(path), "expected a list of glob strings", "ignore")
    for i, glob in enumerate(ignore):
        _bounded(path, glob, limits, f"ignore[{i}]")
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
        _bounded(path, str(runs), limits, f"[[link]] #{i}, runs")
        links.append((str(runs), str(dataset)))
    explicit = {Manifest._rel_to(root, e.path): e.dataset for e in entries["run"] if e.dataset}
    return Manifest(path, root, entries["dataset"], entries["run"], explicit, tuple(links), tuple(ignore),
                    _patterns(path, data.get("settings", {}), limits), _labels(path, data), limits, team=_team(path, data))


def _team(path: Path, data: dict[str, Any]) -> Mapping[str, Any] | None:
    """`[team]`, a table (its keys are checked where they are used: `core.review.team_settings`)."""
    table = data.get("team")
    if table is not None and not isinstance(table, dict):
        raise FormatError(str(path), "expected a [team] table", "team")
    return table


def _limits(path: Path, table: Any) -> Limits:
    """`[limits] max_file_bytes = "8 GiB"` …: the defaults with what the table raises or lowers."""
    if not isinstance(table, dict):
        raise FormatError(str(path), "expected a [limits] table", "limits")
    try:
        return parse_limits(table)
    except ValueError as exc:
        key, _, message = str(exc).removeprefix("[limits] ").partition(": ")
        raise FormatError(str(path), message or str(exc), f"[limits], {key}") from None


def _bounded(path: Path, pattern: str, limits: Limits, where: str) -> None:
    """A user pattern no longer than `max_pattern_chars` (matching time grows with its length)."""
    if len(pattern) > limits.max_pattern_chars:
        message = too_big(limits, "max_pattern_chars", len(pattern), "pattern (characters)")
        raise FormatError(str(path), message, where)


def _patterns(path: Path, table: Any, limits: Limits) -> tuple[str, ...]:
    """`[settings] pattern = "…"` or a list of them."""
    if not isinstance(table, dict):
        raise FormatError(str(path), "expected a [settings] table", "settings")
    for key in table:
        if key != "pattern":
            raise FormatError(str(path), "unknown key (expected pattern)", f"[settings], {key}")
    value = table.get("pattern", [])
    patterns = [value] if isinstance(value, str) else value
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p.strip() for p in patterns):
        raise FormatError(str(path), "expected a pattern string or a list of them", "[settings], pattern")
    for i, pattern in enumerate(patterns):
        _bounded(path, pattern, limits, "[settings], pattern" + (f"[{i}]" if len(patterns) > 1 else ""))
    return tuple(p.strip() for p in patterns)


def _declared(path: Path, table: dict[str, Any], where: str) -> dict[str, Any] | None:
    """`[[run]] settings = {key = value}`: plain values only (text, numbers, true/false)."""
    value = table.get("settings")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise FormatError(str(path), "expected a table such as {prompt = \"cot\", shots = 3}", f"{where}, settings")
    for key, item in value.items():
        if not isinstance(item, (str, int, float, bool)):
            raise FormatError(str(path), "expected text, a number or true/false", f"{where}, settings.{key}")
    return dict(value)


def _labels(path: Path, data: dict[str, Any]) -> tuple[str, ...] | None:
    """`[labels] set = [...]`: non-empty names without commas, tabs or newlines."""
    table = data.get("labels")
    if table is None:
        return None
    if not isinstance(table, dict) or set(table) - {"set"}:
        raise FormatError(str(path), "expected a table with one key, set = [label names]", "labels")
    names = table.get("set", [])
    if not isinstance(names, list) or not all(
            isinstance(n, str) and n.strip() and not any(c in n for c in ",\t\n\r") for n in names):
        raise FormatError(str(path), "expected a list of label names (no commas, tabs or newlines)", "labels, set")
    return tuple(dict.fromkeys(n.strip() for n in names))


def _parse(path: Path) -> dict[str, Any]:
    """The manifest's TOML; whatever it holds instead (a folder, a link loop, UTF-16, nesting or
    numbers past the parser's limits) is one FormatError."""
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise FormatError(str(path), "a folder, not a manifest file") from None
    except OSError as exc:
        raise FormatError(str(path), f"cannot read ({exc.strerror or exc})") from None
    text = decode(path, raw, gb18030=False)[0] if raw.removeprefix(b"\xef\xbb\xbf").strip() else ""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise FormatError(str(path), "nested deeper than the TOML reader follows") from None
    except tomllib.TOMLDecodeError as exc:
        raise FormatError(str(path), f"invalid TOML: {exc}") from None
    except ValueError as exc:  # Python's own limit on integer digits
        limit = "a number longer than 4,300 digits" if "digits" in str(exc) else str(exc)
        raise FormatError(str(path), f"invalid TOML: {limit}") from None


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


def _flag(path: Path, table: dict[str, Any], key: str, where: str) -> bool:
    """A true/false key (absent: false)."""
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise FormatError(str(path), "expected true or false", f"{where}, {key}")
    return value


def _text(path: Path, table: dict[str, Any], key: str, where: str, *, required: bool = False) -> str | None:
    value = table.get(key)
    if value is None:
        if required:
            raise FormatError(str(path), "missing (required)", f"{where}, {key}")
        return None
    if not isinstance(value, str) or not value.strip():
        raise FormatError(str(path), "expected a non-empty string", f"{where}, {key}")
    return value.strip()


def _names(path: Path, value: list[Any], where: str) -> list[str]:
    """A `dataset = [...]` list: non-empty names, none twice, at least one."""
    if not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise FormatError(str(path), "expected a dataset name or a non-empty list of them", where)
    names = [v.strip() for v in value]
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise FormatError(str(path), f"dataset {twice!r} named twice", where)
    return names


def _entry(path: Path, root: Path, kind: Literal["dataset", "run"], index: int, table: dict[str, Any]) -> ManifestEntry:
    where = f"[[{kind}]] #{index}"
    if isinstance(table.get("date"), date):  # an unquoted TOML date
        table = {**table, "date": table["date"].isoformat()}
    also: tuple[str, ...] = ()
    if kind == "run" and isinstance(table.get("dataset"), list):
        first, *rest = _names(path, table["dataset"], f"{where}, dataset")
        table, also = {**table, "dataset": first}, tuple(rest)
    values: dict[str, Any] = {
        key: _text(path, table, key, where, required=key == "path")
        for key in _KEYS[kind] if key not in ("settings", "dynamic")
    }
    if also:
        values["also"] = also
    if kind == "run":
        values["settings"] = _declared(path, table, where)
    else:
        values["dynamic"] = _flag(path, table, "dynamic", where)
    target = root / str(values.pop("path"))
    if not _inside(target, root):
        raise FormatError(str(path), f"{target} is outside the runs folder (paths are relative to it)", f"{where}, path")
    if not target.is_file():
        what = "a folder, not a file" if target.is_dir() else "no such file"
        raise FormatError(str(path), f"{what}: {target}", f"{where}, path")
    if values.get("family") is not None and values["family"] not in _FAMILIES:
        raise FormatError(str(path), unknown_name("family", str(values["family"]), _FAMILIES), f"{where}, family")
    if values.get("scorer") is not None and values["scorer"] not in SCORERS:
        raise FormatError(str(path), unknown_name("scorer", str(values["scorer"]), SCORERS), f"{where}, scorer")
    if values.get("date") is not None:
        try:
            date.fromisoformat(str(values["date"]))
        except ValueError:
            raise FormatError(str(path), "expected a date like \"2024-05-01\"", f"{where}, date") from None
    known = formats()
    if values.get("format") is not None and known.get(values["format"]) != kind:
        choices = sorted(f for f, k in known.items() if k == kind)
        raise FormatError(str(path), unknown_name(f"{kind} format", str(values["format"]), choices), f"{where}, format")
    return ManifestEntry(kind=kind, path=target, **values)


