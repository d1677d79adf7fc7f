"""Source-format readers and the one entry point that picks among them: `read_source`.

May import: `core.errors`, `core.model`, `core.keys` (never the store, the runs folder or a manifest).

Adding a format = adding one module here. A reader module (any module of this package whose name
does not start with `_` and that defines `FORMAT`) exposes:

- `FORMAT: str` — the name stored with the dataset/run (`"squad"`, `"prediction-map"`, ...);
- `KIND: "dataset" | "run"`;
- `PRIORITY: int` — sniff order, lower first: specific shapes (10) before generic ones (20–40);
- `sniff(doc: Document) -> bool` — claim a file by its parsed shape (never by its name);
- `read(doc: Document, hints: Mapping) -> Dataset | Run` — raise `FormatError` naming the record;
- optionally `skip_reason(doc) -> str | None` — recognise look-alikes that are not QA data, and
  `side_file_reason(path) -> str | None` — skip a side file before it is even parsed;
- optionally `claims_name(path) -> bool` — the file name says this format (lm-eval
  `samples_*.jsonl`, CDQA `*.prediction`): such readers are tried first, still by `sniff`;
- optionally `side_file_owners(path) -> list[Path]` — the run files that read this side file, so
  the loader reloads them when it appears, changes or goes; and `display_name(path) -> str | None`
  — a run name from the framework's own folder layout (see `core.discover.run_display_name`).

Recognition order is magic bytes, then name, then shape: a Git LFS pointer is an error saying
so, a zip archive is opened as such by `read_document` (only archive readers claim it), Parquet
and Arrow files are opened as tables (`Document.table`, only table readers claim them, by their
columns), as are `.csv` files; readers whose `claims_name` accepts the path are tried before the
others, and every reader still checks the parsed shape.

A file is decoded and parsed once (`textio.read_document`); every reader sniffs the same
`Document`. A file no reader claims is a `Skip` with a reason, never an error; a file a reader
claims and then cannot read is a `FormatError`. A file read with something the user should know
(ids given twice, a side file that could not be used) puts one line per such thing in
`Run.meta["warnings"]`; the loader shows them as the run's warnings.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from functools import cache
from operator import attrgetter
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, NamedTuple, overload

from qa_inspect.core.errors import FormatError, unknown_name
from qa_inspect.core.model import Dataset, Run

from ._repeats import Repeat, find_repeats, repeat_warning
from .limits import DEFAULTS as DEFAULT_LIMITS
from .limits import Limits, parse_limits, too_big, use_limits
from .limits import active as active_limits
from .limits import from_env as limits_from_env
from ._stream import STREAM_MIN_BYTES, DatasetStream, NotStreamable, open_stream
from .prompts import normalise_text
from .judge_verdicts import (
    VERDICT_WORDS,
    Verdict,
    VerdictFile,
    claims_verdicts,
    read_verdict_document,
    verdict_of,
)
from .verdict_sources import framework_verdicts, read_verdicts
from .tables import Table
from .textio import (
    Document,
    JSONFloat,
    decode,
    loads,
    number_text,
    parse,
    read_document,
    read_text,
    sha256_file,
    shown,
    surrogate_note,
    type_name,
)

Kind = Literal["dataset", "run"]
CANDIDATE_SUFFIXES = frozenset(
    {".json", ".jsonl", ".ndjson", ".eval", ".prediction", ".parquet", ".arrow", ".csv"}
)
"""Files worth opening: JSON/JSONL, Inspect AI `.eval` logs (zip), CDQA evaluation `.prediction`
files, Parquet and Arrow tables (Hugging Face hub downloads, `save_to_disk`), CSV tables."""


class Skip(NamedTuple):
    """A file that is not QA data (or not of the requested kind), with the reason shown to users.

    A NamedTuple so callers can write `for path, reason in skipped`.
    """

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


@overload
def read_source(path: Path, *, as_kind: Kind, hints: Mapping[str, Any] | None = None) -> Dataset | Run | Skip: ...
@overload
def read_source(
    path: Path, *, as_kind: None = None, hints: Mapping[str, Any] | None = None
) -> Dataset | Run | Skip | VerdictFile: ...
def read_source(
    path: Path,
    *,
    as_kind: Kind | None = None,
    hints: Mapping[str, Any] | None = None,
) -> Dataset | Run | Skip | VerdictFile:
    """Read one file as whatever it is (or as `as_kind` only): a judge-verdicts JSONL file
    (`judge_verdicts`) is a `VerdictFile` (a Skip when a kind is asked for).

    `hints` (all optional): `name` (dataset/run name; default the file stem), `split` (dataset
    split when ids do not say), `model` (run model), `family` (dataset scoring family), `format`
    (a FORMAT name: skip sniffing and use that reader), `run_name` (a name applied to runs only,
    e.g. one derived from the folder layout). Readers know nothing of runs folders or manifests:
    `core.load` turns those into hints.
    """
    path = Path(path)
    hints = dict(hints or {})
    if path.suffix.lower() not in CANDIDATE_SUFFIXES:
        return Skip(path, "not a JSON/JSONL file")
    forced = hints.pop("format", None)
    if forced is not None:
        chosen = [m for m in readers() if m.FORMAT == forced]
        if not chosen:
            raise FormatError(str(path), unknown_name("format", forced, sorted(formats())))
        doc = read_document(path)
        if not chosen[0].sniff(doc):
            raise FormatError(str(path), f"not {forced} data: {describe_shape(doc)}")
        return _read(chosen[0], doc, hints)
    reason = side_reason(path)
    if reason is not None:
        return Skip(path, reason)
    doc = read_document(path)
    if claims_verdicts(doc):  # judge verdicts: neither a dataset nor a run
        return Skip(path, f"judge verdicts, not a {as_kind}") if as_kind else read_verdict_document(doc)
    for module in _by_name_first(path):
        probe = getattr(module, "skip_reason", None)
        reason = probe(doc) if probe is not None else None
        if reason is not None:
            return Skip(path, reason)
        if module.sniff(doc):
            if as_kind is not None and module.KIND != as_kind:
                return Skip(path, f"a {module.KIND} ({module.FORMAT}), not a {as_kind}")
            return _read(module, doc, hints)
    return Skip(path, f"not QA data: {describe_shape(doc)}")


def stream_dataset(
    path: Path, hints: Mapping[str, Any] | None = None, *, min_bytes: int | None = None
) -> DatasetStream | None:
    """A big SQuAD-style file (`min_bytes`: default `STREAM_MIN_BYTES`) to read article by article
    (`DatasetStream`), when `read_source` would read it with the SQuAD reader; None: read it with
    `read_source`."""
    return open_stream(Path(path), hints or {}, _by_name_first(Path(path)), min_bytes)


def _by_name_first(path: Path) -> list[ModuleType]:
    """All readers, those whose `claims_name` accepts `path` first (each group by PRIORITY)."""
    named = [m for m in readers() if getattr(m, "claims_name", None) is not None and m.claims_name(path)]
    return named + [m for m in readers() if m not in named]


def side_reason(path: Path) -> str | None:
    """Why `path` is a side file read with some run (decided from names only), or None."""
    for module in readers():
        side = getattr(module, "side_file_reason", None)
        reason = side(path) if side is not None else None
        if reason is not None:
            return reason
    return None


def side_owners(path: Path) -> list[Path]:
    """Run files that read `path` as a side file (existing files only; empty when none)."""
    owners: list[Path] = []
    for module in readers():
        hook = getattr(module, "side_file_owners", None)
        for owner in hook(Path(path)) if hook is not None else ():
            if owner not in owners:
                owners.append(owner)
    return owners


def display_name(path: Path) -> str | None:
    """A run name a reader derives from the framework's own file layout, or None."""
    for module in readers():
        hook = getattr(module, "display_name", None)
        name = hook(Path(path)) if hook is not None else None
        if name:
            return name
    return None


def _read(module: ModuleType, doc: Document, hints: Mapping[str, Any]) -> Dataset | Run:
    """Run a reader; a shape it did not foresee (or a number too large to convert) still ends as
    a one-line FormatError."""
    hints = dict(hints)
    run_name = hints.pop("run_name", None)
    try:
        result = module.read(doc, hints)
        if run_name is not None and isinstance(result, Run):
            result.name = run_name
        if isinstance(result, Run):
            _check_sizes(doc, result)
        if doc.archive is not None and doc.archive.mended:
            doc.notes.append(surrogate_note(doc.archive.mended))
        said = result.meta.setdefault("warnings", [])
        said.extend(n for n in doc.notes if n not in said)  # readers that add them (`_common`) already did
        if not said:
            del result.meta["warnings"]
        return result
    except FormatError:
        raise
    except RecursionError:
        raise FormatError(str(doc.path), f"cannot read as {module.FORMAT}: nested too deeply") from None
    except (KeyError, TypeError, AttributeError, ValueError, IndexError, ArithmeticError) as exc:
        text = " ".join(str(exc).split())[:200]
        raise FormatError(str(doc.path), f"cannot read as {module.FORMAT}: {type(exc).__name__}: {text}") from exc


_TEXT = attrgetter("text")


def _check_sizes(doc: Document, run: Run) -> None:
    """No prediction longer than `max_record_bytes` (a 100 MB answer would cost gigabytes to score):
    one check for every reader."""
    limits = active_limits()
    cap = limits.max_record_bytes
    if max(map(len, map(_TEXT, run.predictions)), default=0) * 4 <= cap:  # at C speed: none can be over
        return
    for p in run.predictions:
        if len(p.text) * 4 > cap and len(p.text.encode("utf-8", "surrogatepass")) > cap:
            size = len(p.text.encode("utf-8", "surrogatepass"))
            record = doc.where(p.line) if p.line is not None else f"prediction for {shown(p.ref)}"
            raise FormatError(str(doc.path), too_big(limits, "max_record_bytes", size, "prediction"), record)


def describe_shape(doc: Document) -> str:
    """A short description of a parsed file's shape for skip reasons."""
    if doc.table is not None:
        return _table_shape(doc.table)
    if doc.archive is not None:
        names = doc.archive.names
        shown = ", ".join(repr(n) for n in names[:5]) + (", ..." if len(names) > 5 else "")
        return f"a zip archive with members {shown}" if names else "an empty zip archive"
    if doc.lines is not None:
        first = doc.lines[0][1] if doc.lines else None
        return f"JSONL of {_bare(first)} records" + _keys(first)
    value = doc.value
    if isinstance(value, list):
        if not value:
            return "an empty JSON list"
        return f"a JSON list of {_bare(value[0])}s" + _keys(value[0])
    if isinstance(value, dict):
        if not value:
            return "an empty JSON object"
        return "a JSON object" + _keys(value)
    return f"a single JSON {_bare(value)}"


def _table_shape(table: Table) -> str:
    if table.problem is not None:
        return f"a CSV file that cannot be read as a table ({table.problem})"
    if not table.columns:
        return f"a {table.label} without columns"
    shown = ", ".join(repr(c) for c in table.columns[:6]) + (", ..." if len(table.columns) > 6 else "")
    return f"a {table.label} with columns {shown}"


def _bare(value: Any) -> str:
    return type_name(value).split(" ", 1)[-1]


def _keys(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    keys = list(value)[:5]
    more = ", ..." if len(value) > 5 else ""
    return f" with keys {', '.join(repr(k) for k in keys)}{more}"


__all__ = [
    "DEFAULT_LIMITS",
    "Limits",
    "active_limits",
    "limits_from_env",
    "parse_limits",
    "too_big",
    "use_limits",
    "read_text",
    "read_document",
    "decode",
    "parse",
    "number_text",
    "loads",
    "JSONFloat",
    "CANDIDATE_SUFFIXES",
    "STREAM_MIN_BYTES",
    "DatasetStream",
    "Document",
    "NotStreamable",
    "Kind",
    "Skip",
    "describe_shape",
    "display_name",
    "formats",
    "normalise_text",
    "read_source",
    "readers",
    "sha256_file",
    "side_owners",
    "side_reason",
    "stream_dataset",
    "Repeat",
    "find_repeats",
    "repeat_warning",
    "VERDICT_WORDS",
    "Verdict",
    "VerdictFile",
    "framework_verdicts",
    "read_verdicts",
    "verdict_of",
]
