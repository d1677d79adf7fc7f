"""Two releases of a dataset side by side: which items pair up and whose golds changed.

Items pair by item key (`core.keys`: the dataset's own id, else the question hash), and an item
whose key found nothing pairs by its question (shown or original) with a new item that is still
unpaired: a release that renumbers ids keeps its items. Golds are compared as the set of scored
texts (superseded originals never count; order and repeats change no score: every scorer takes
the best gold). `gold_changed_keys` is the browser's "items whose gold changed" filter: the keys
of a stored dataset's items whose golds a new file changes (`Filter.keys`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.formats import Skip, read_source
from qa_inspect.core.keys import question_key
from qa_inspect.core.model import Dataset, Gold, Item
from qa_inspect.core.store import known_names, require_dataset, sqlite_connection

__all__ = [
    "ItemPair",
    "ReleaseKeys",
    "closest_dataset",
    "gold_changed_keys",
    "gold_set",
    "pair_items",
    "read_release",
    "stored_items",
]


def gold_set(item: Item) -> frozenset[str]:
    """The texts a prediction on `item` is scored against (none for an unanswerable item)."""
    if item.is_impossible:
        return frozenset()
    return frozenset(g.text for g in item.golds if not g.superseded)


@dataclass(frozen=True, slots=True)
class ItemPair:
    """One item of either release: both sides when it is in both, else the side that has it."""

    old: Item | None
    new: Item | None
    by: str = ""
    """How the sides paired: `key`, `question` (the key changed), or empty (added or removed)."""

    @property
    def golds_changed(self) -> bool:
        return self.old is not None and self.new is not None and gold_set(self.old) != gold_set(self.new)

    @property
    def key(self) -> str:
        """The item's key in the old release (the new one for an added item)."""
        item = self.old if self.old is not None else self.new
        assert item is not None
        return item.key


def _question_keys(item: Item) -> Iterable[str]:
    for text in (item.question, item.meta.get("original_question")):
        if isinstance(text, str) and text.strip():
            yield question_key(text)


def pair_items(old: Sequence[Item], new: Sequence[Item]) -> list[ItemPair]:
    """Every item of both releases once: pairs in old order, then the added items in new order."""
    new_by_key = {it.key: it for it in new}
    taken: set[str] = set()
    pairs: list[ItemPair | None] = []
    unpaired: list[tuple[int, Item]] = []
    for it in old:
        found = new_by_key.get(it.key)
        if found is not None and found.key not in taken:
            taken.add(found.key)
            pairs.append(ItemPair(it, found, "key"))
        else:
            unpaired.append((len(pairs), it))
            pairs.append(None)
    by_question: dict[str, Item] = {}
    for it in new:
        if it.key not in taken:
            for qk in _question_keys(it):
                by_question.setdefault(qk, it)
    for at, it in unpaired:
        match = next((c for qk in _question_keys(it) if (c := by_question.get(qk)) is not None and c.key not in taken), None)
        if match is not None:
            taken.add(match.key)
        pairs[at] = ItemPair(it, match, "question" if match is not None else "")
    done = [p for p in pairs if p is not None]
    return done + [ItemPair(None, it) for it in new if it.key not in taken]


def read_release(path: Path) -> Dataset:
    """A dataset file of any supported format; a missing or unreadable file is one clear line."""
    path = Path(path)
    if not path.is_file():
        raise QAInspectError(f"{path}: no such file")
    got = read_source(path, as_kind="dataset")
    if isinstance(got, Skip):
        raise QAInspectError(f"{path}: not a dataset ({got.reason})")
    assert isinstance(got, Dataset)
    return got


def stored_items(conn: Any, dataset: str) -> list[Item]:
    """A loaded dataset's items as the database holds them (key, question, scored and superseded golds)."""
    raw = sqlite_connection(conn)
    require_dataset(raw, dataset)
    items: dict[int, Item] = {}
    for iid, key, question, original, impossible in raw.execute(
        "SELECT i.id, i.key, i.question, json_extract(i.meta, '$.original_question'), i.is_impossible"
        " FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY i.id", (dataset,)
    ):
        meta = {"original_question": original} if original else {}
        items[iid] = Item(key, question, [], is_impossible=bool(impossible), meta=meta)
    for iid, text, superseded in raw.execute(
        "SELECT g.item_id, g.text, g.superseded FROM golds g JOIN items i ON i.id = g.item_id"
        " JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ? ORDER BY g.item_id, g.idx", (dataset,)
    ):
        items[iid].golds.append(Gold(text, superseded=bool(superseded)))
    return list(items.values())


@dataclass(frozen=True, slots=True)
class ReleaseKeys:
    """The stored items whose golds a new release changes."""

    dataset: str
    path: str
    keys: tuple[str, ...]
    """Keys (of the stored dataset) of items in both releases whose scored golds differ."""


def closest_dataset(conn: Any, new: Dataset) -> str:
    """The loaded dataset the new file is a release of: the one sharing the most item keys."""
    raw = sqlite_connection(conn)
    keys = json.dumps([it.key for it in new.items])
    rows = raw.execute(
        "SELECT d.name, COUNT(i.id) AS n FROM datasets d JOIN items i ON i.dataset_id = d.id"
        " WHERE i.key IN (SELECT value FROM json_each(?)) GROUP BY d.id ORDER BY n DESC, d.name LIMIT 1", (keys,)
    ).fetchone()
    if rows is None:
        shown = ", ".join(known_names(raw, "dataset")) or "none loaded"
        raise QAInspectError(f"{new.path}: no loaded dataset shares an item with it (loaded: {shown})")
    return str(rows[0])


def gold_changed_keys(conn: Any, new_path: Path, dataset: str | None = None) -> ReleaseKeys:
    """Keys of `dataset`'s items (default: the loaded dataset sharing most keys with the file)
    whose golds the release in `new_path` changes; for `Filter(keys=...)`."""
    new = read_release(new_path)
    name = dataset or closest_dataset(conn, new)
    pairs = pair_items(stored_items(conn, name), new.items)
    return ReleaseKeys(name, str(new_path), tuple(p.key for p in pairs if p.golds_changed))
