"""Source-format readers and the one entry point that picks among them: `read_source`.

Adding a format = adding one module here. A reader module (any module of this package whose name
does not start with `_` and that defines `FORMAT`) exposes:

- `FORMAT: str` — the name stored with the dataset/run (`"squad"`, `"prediction-map"`, ...);
- `KIND: "dataset" | "run"`;
- `PRIORITY: int` — sniff order, lower first: specific shapes (10) before generic ones (20–40);
- `sniff(doc: Document) -> bool` — claim a file by its parsed shape (never by its name);
- `read(doc: Document, hints: Mapping) -> Dataset | Run` — raise `FormatError` naming the record;
- optionally `skip_reason(doc) -> str | None` — recognise look-alikes that are not QA data, and
  `side_file_reason(path) -> str | None` — skip a side file before it is even parsed.

A file is decoded and parsed once (`textio.read_document`); every reader sniffs the same
`Document`. A file no reader claims is a `Skip` with a reason, never an error; a file a reader
claims and then cannot read is a `FormatError`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from ..errors import FormatError
from ..model import Dataset, Run
from .textio import Document, read_document, type_name

Kind = Literal["dataset", "run"]
CANDIDATE_SUFFIXES = frozenset({".json", ".jsonl", ".ndjson"})


@dataclass(frozen=True, slots=True)
class Skip:
    """A file that is not QA data (or not of the requested kind), with the reason shown to users."""

    path: Path
    reason: str


@cache
def readers() -> tuple[ModuleType, ...]:
    """Reader modules of this package, by (PRIORITY, FORMAT)."""
    found: list[ModuleType] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "FORMAT") and hasattr(module, "sniff") and hasattr(module, "read"):
            found.append(module)
    return tuple(sorted(found, key=lambda m: (m.PRIORITY, m.FORMAT)))


def formats() -> dict[str, Kind]:
    """FORMAT → KIND of every reader (for `--format` choices and docs)."""
    return {m.FORMAT: m.KIND for m in readers()}


def read_source(
    path: Path, *, as_kind: Kind | None = None, hints: Mapping[str, Any] | None = None
) -> Dataset | Run | Skip:
    """Read one file as whatever it is (or as `as_kind` only).

    `hints` (all optional, usually from the manifest): `name` (dataset/run name; default the file
    stem), `split` (dataset split when ids do not say), `model` (run model), `family` (dataset
    scoring family), `format` (a FORMAT name: skip sniffing and use that reader).
    """
    path = Path(path)
    hints = dict(hints or {})
    if path.suffix.lower() not in CANDIDATE_SUFFIXES:
        return Skip(path, "not a JSON/JSONL file")
    forced = hints.pop("format", None)
    if forced is not None:
        chosen = [m for m in readers() if m.FORMAT == forced]
        if not chosen:
            raise FormatError(str(path), f"unknown format {forced!r} (known: {', '.join(sorted(formats()))})")
        doc = read_document(path)
        if not chosen[0].sniff(doc):
            raise FormatError(str(path), f"not {forced} data: {describe_shape(doc)}")
        return _read(chosen[0], doc, hints)
    for module in readers():
        side = getattr(module, "side_file_reason", None)
        reason = side(path) if side is not None else None
        if reason is not None:
            return Skip(path, reason)
    doc = read_document(path)
    for module in readers():
        probe = getattr(module, "skip_reason", None)
        reason = probe(doc) if probe is not None else None
        if reason is not None:
            return Skip(path, reason)
        if module.sniff(doc):
            if as_kind is not None and module.KIND != as_kind:
                return Skip(path, f"a {module.KIND} ({module.FORMAT}), not a {as_kind}")
            return _read(module, doc, hints)
    return Skip(path, f"not QA data: {describe_shape(doc)}")


def _read(module: ModuleType, doc: Document, hints: Mapping[str, Any]) -> Dataset | Run:
    """Run a reader; a shape it did not foresee still ends as a one-line FormatError."""
    try:
        return module.read(doc, hints)
    except FormatError:
        raise
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        raise FormatError(str(doc.path), f"cannot read as {module.FORMAT}: {type(exc).__name__}: {exc}") from exc


def describe_shape(doc: Document) -> str:
    """A short description of a parsed file's shape for skip reasons."""
    if doc.lines is not None:
        first = doc.lines[0][1] if doc.lines else None
        return f"JSONL of {type_name(first)} records" + _keys(first)
    value = doc.value
    if isinstance(value, list):
        if not value:
            return "an empty JSON list"
        return f"a JSON list of {type_name(value[0]).split(' ', 1)[-1]}s" + _keys(value[0])
    if isinstance(value, dict):
        if not value:
            return "an empty JSON object"
        return "a JSON object" + _keys(value)
    return f"a single JSON {type_name(value).split(' ', 1)[-1]}"


def _keys(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    keys = list(value)[:5]
    more = ", ..." if len(value) > 5 else ""
    return f" with keys {', '.join(repr(k) for k in keys)}{more}"


__all__ = ["CANDIDATE_SUFFIXES", "Document", "Kind", "Skip", "formats", "read_source", "readers"]
