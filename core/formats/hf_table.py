"""Hugging Face `datasets` tables: Parquet from the hub, Arrow from `save_to_disk` and the cache.

Columns as the hub stores SQuAD and its kin: `id`, `title`, `context`, `question`, `answers` (a
struct `{text: list[str], answer_start: list[int]}`, or a list of `{text, answer_start}`
structs); any table whose columns make a dataset by `_records.record_role` (golds in `answers`,
or `answer`/`target` beside `question`, no prediction column) is read the same way, row by row,
as `jsonl_dataset` reads records. Golds are located in the context as the SQuAD reader does; a
row without gold text is unanswerable (SQuAD v2 on the hub has no `is_impossible` column).

Layouts:
- Shards `<base>-00000-of-00003.<ext>` (hub Parquet, large `save_to_disk` folders) are one
  dataset: the first shard reads them all, the others are its side files.
- A `save_to_disk` folder holds `data-*.arrow` beside `dataset_info.json` and `state.json`; a
  `DatasetDict` adds `dataset_dict.json` and one such folder per split. The JSON files are side
  files (skipped with a reason, not read as data); the split comes from `state.json`'s `_split`,
  else the folder name, and the dataset is named by its folder (`squad_v2/validation`), since
  `data-00000-of-00001` says nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, NamedTuple

from qa_inspect.core.errors import FormatError
from qa_inspect.core.keys import SPLIT_WORDS
from qa_inspect.core.model import Dataset, Item

from ._common import Keys, SpanStats, build_dataset, family_of
from ._records import record_item, record_role
from .tables import Table
from .textio import Document, read_document

__all__ = [
    "FORMAT",
    "KIND",
    "PRIORITY",
    "SAVE_TO_DISK_FILES",
    "Shard",
    "read",
    "shard_of",
    "side_file_owners",
    "side_file_reason",
    "skip_reason",
    "sniff",
    "table_name",
]

FORMAT = "hf-table"
KIND: Literal["dataset"] = "dataset"
PRIORITY = 30

SAVE_TO_DISK_FILES = ("dataset_info.json", "state.json")
"""`save_to_disk`'s JSON beside its `data-*.arrow` files."""
_DICT_INDEX = "dataset_dict.json"
_TABLE_SUFFIXES = (".parquet", ".arrow")
_SHARD = re.compile(r"^(?P<base>.*?)(?P<n>\d{5})-of-(?P<total>\d{5})$")


class Shard(NamedTuple):
    base: str  # the stem before the shard number, separator included ("data-")
    n: int
    total: int


def shard_of(path: Path) -> Shard | None:
    """`data-00001-of-00003.arrow` → Shard("data-", 1, 3); None for other names."""
    match = _SHARD.match(path.stem) if path.suffix.lower() in _TABLE_SUFFIXES else None
    if match is None:
        return None
    return Shard(match.group("base"), int(match.group("n")), int(match.group("total")))


def _shard_path(path: Path, shard: Shard, n: int) -> Path:
    return path.with_name(f"{shard.base}{n:05d}-of-{shard.total:05d}{path.suffix}")


def _arrow_data(folder: Path) -> Path | None:
    """The first `data-*.arrow` file of a `save_to_disk` folder, or None."""
    return next(iter(sorted(folder.glob("data-*.arrow"))), None)


def side_file_reason(path: Path) -> str | None:
    """Later shards (when the first is beside them) and `save_to_disk`'s JSON files."""
    shard = shard_of(path)
    if shard is not None and shard.n > 0:
        first = _shard_path(path, shard, 0)
        if first.is_file():
            return f"shard {shard.n + 1} of {shard.total} of {first.name}, read with it"
    if path.name in SAVE_TO_DISK_FILES:
        data = _arrow_data(path.parent)
        if data is not None:
            return f"Hugging Face save_to_disk metadata ({path.name}) of {data.name}"
    if path.name == _DICT_INDEX and any(_arrow_data(d) for d in path.parent.iterdir() if d.is_dir()):
        return "Hugging Face save_to_disk DatasetDict index (its splits are the folders beside it)"
    return None


def side_file_owners(path: Path) -> list[Path]:
    """The first shard reads the others; `state.json` gives the split of the folder's data."""
    shard = shard_of(path)
    if shard is not None and shard.n > 0:
        first = _shard_path(path, shard, 0)
        return [first] if first.is_file() else []
    if path.name == "state.json":
        data = _arrow_data(path.parent)
        return [data] if data is not None else []
    return []


def sniff(doc: Document) -> bool:
    """A Parquet or Arrow table whose columns make a dataset and include `question`."""
    table = doc.table
    if table is None or table.kind == "csv":
        return False
    return "question" in table.columns and record_role(table.columns) == "dataset"


def skip_reason(doc: Document) -> str | None:
    """A dataset table without rows is a shell with nothing to read (as SQuAD's empty `data`);
    not said of a first shard, whose rows may all be in the others."""
    if sniff(doc) and not _table(doc).rows() and shard_of(doc.path) is None:
        return f"no questions (a {_table(doc).label} without rows)"
    return None


def read(doc: Document, hints: Mapping[str, Any]) -> Dataset:
    """Items in row order over all shards; `Item.line` is the row (within its shard)."""
    table = _table(doc)
    hints = _with_layout(doc.path, hints)
    stats = SpanStats()
    keys = Keys(doc)
    unanswerable = "is_impossible" not in table.columns
    items: list[Item] = []
    shards = _shards(doc)
    for shard in shards:
        for number, row in _table(shard).rows():
            items.append(record_item(shard, number, row, stats, keys, hints, empty_is_impossible=unanswerable))
    meta: dict[str, Any] = {"spans": stats.as_dict(), "table": table.label}
    if len(shards) > 1:
        meta["shards"] = len(shards)
    family = hints.get("family") or family_of(item.question for item in items)
    return build_dataset(doc, hints, FORMAT, family, items, keys, meta)


def _table(doc: Document) -> Table:
    if doc.table is None:
        raise FormatError(str(doc.path), "not a Parquet or Arrow table")
    return doc.table


def _shards(doc: Document) -> list[Document]:
    """`doc` and, when it is the first shard, the others in order (each must be there)."""
    shard = shard_of(doc.path)
    if shard is None or shard.n != 0 or shard.total <= 1:
        return [doc]
    docs = [doc]
    for n in range(1, shard.total):
        path = _shard_path(doc.path, shard, n)
        if not path.is_file():
            raise FormatError(str(doc.path), f"shard {path.name} is missing ({shard.total} shards expected)")
        other = read_document(path)
        if other.table is None or other.table.columns != _table(doc).columns:
            raise FormatError(str(path), f"shard does not have the columns of {doc.path.name}")
        docs.append(other)
    return docs


# -------------------------------------------------------------------------------- names and splits


def _with_layout(path: Path, hints: Mapping[str, Any]) -> dict[str, Any]:
    """Hints with the dataset's name and split from the folder layout, where the hints say none."""
    out = dict(hints)
    if not out.get("name"):
        out["name"] = table_name(path)
    if not out.get("split"):
        split = _folder_split(path)
        if split is not None:
            out["split"] = split
    return out


def table_name(path: Path) -> str:
    """The stem; for a shard, the stem without its number, and a bare `data` or split word takes
    its folder's name (`squad_v2/data-00000-of-00001.arrow` → squad_v2, `squad_v2/validation/
    data-...` → squad_v2/validation, `plain_text/validation-00000-of-00001.parquet` →
    plain_text/validation)."""
    shard = shard_of(path)
    if shard is None:
        return path.stem
    base = shard.base.rstrip("-_.")
    parent = path.parent
    if base in ("", "data"):
        base, parent = parent.name, parent.parent
    if base.lower() in SPLIT_WORDS and parent.name:
        return f"{parent.name}/{base}"
    return base or path.stem


def _folder_split(path: Path) -> str | None:
    """`save_to_disk` data: `state.json`'s `_split` (`validation` → dev), else a split-named
    folder (a DatasetDict's); None for other files."""
    if shard_of(path) is None or not path.name.startswith("data-"):
        return None
    state = path.parent / "state.json"
    try:
        split = json.loads(state.read_text(encoding="utf-8")).get("_split") if state.is_file() else None
    except (OSError, ValueError, AttributeError):
        split = None  # unreadable state: the folder name may still say
    if isinstance(split, str) and split.strip():
        return SPLIT_WORDS.get(split.strip().lower(), split.strip().lower())
    return SPLIT_WORDS.get(path.parent.name.lower())
