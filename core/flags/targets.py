"""Finding what to flag: an item by key or question text, and its golds as `Target`s.

Only scored golds can be flagged: one superseded by the dataset's own rewrite no longer counts.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from qa_inspect.core.keys import question_key
from qa_inspect.core.store import require_dataset, sqlite_connection

from .journal import FlagError, Target

__all__ = ["ItemRef", "item_by_id", "resolve_item", "targets_for_item", "targets_for_items", "targets_of"]


def _golds(conn: sqlite3.Connection, item_id: int) -> list[tuple[int, str, int]]:
    """(idx, text, superseded) of the item's golds, in dataset order."""
    return conn.execute("SELECT idx, text, superseded FROM golds WHERE item_id = ? ORDER BY idx", (item_id,)).fetchall()


def _gold_rows(conn: sqlite3.Connection, dataset: str, item_key: str) -> tuple[bool, Any, list[tuple[int, str, int]]]:
    """(dataset loaded?, item row (question, tag, answer_type, split) or None, [(idx, text, superseded)])."""
    ds = conn.execute("SELECT id FROM datasets WHERE name = ?", (dataset,)).fetchone()
    if ds is None:
        return False, None, []
    item = conn.execute(
        "SELECT id, question, tag, answer_type, split FROM items WHERE dataset_id = ? AND key = ?", (ds[0], item_key)
    ).fetchone()
    if item is None:
        return True, None, []
    return True, item, _golds(conn, item[0])


@dataclass(slots=True)
class ItemRef:
    """An item found by `resolve_item`, with its golds: enough to name the targets to flag."""

    dataset: str
    key: str
    item_id: int
    question: str
    golds: list[tuple[int, str, bool]]
    """(idx, text, superseded) in dataset order."""

    def scored_texts(self) -> list[str]:
        """Distinct texts of the golds that count (superseded ones left out), in order."""
        seen: list[str] = []
        for _, text, sup in self.golds:
            if not sup and text not in seen:
                seen.append(text)
        return seen


def _item_ref(conn: sqlite3.Connection, item_id: int) -> ItemRef:
    row = conn.execute(
        "SELECT d.name, i.key, i.id, i.question FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE i.id = ?",
        (item_id,),
    ).fetchone()
    golds = [(idx, text, bool(sup)) for idx, text, sup in _golds(conn, item_id)]
    return ItemRef(row[0], row[1], row[2], row[3], golds)


def item_by_id(conn: Any, item_id: int) -> ItemRef | None:
    """The item with this database id and its golds, or None when it is gone (reloaded away)."""
    raw = sqlite_connection(conn)
    if raw.execute("SELECT 1 FROM items WHERE id = ?", (item_id,)).fetchone() is None:
        return None
    return _item_ref(raw, item_id)


def resolve_item(conn: Any, ident: str, dataset: str | None = None) -> ItemRef:
    """The item named by `ident`: its key, else its question text (original or shown).

    Raises UnknownNameError for an unknown dataset, FlagError for no such item or an ambiguous name.
    """
    raw = sqlite_connection(conn)
    if dataset is not None:
        require_dataset(raw, dataset)
    scope = " AND d.name = ?" if dataset is not None else ""
    extra = [dataset] if dataset is not None else []
    base = "SELECT i.id, d.name, i.key FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE "
    text = ident.strip()
    attempts: list[tuple[str, list[Any]]] = [("i.key = ?", [text])]
    if text:
        qk = question_key(text)
        attempts += [("i.key = ?", [qk]), ("i.qkey = ?", [qk])]
    for cond, params in attempts:
        rows = raw.execute(base + cond + scope + " ORDER BY d.name, i.id", [*params, *extra]).fetchall()
        if len(rows) == 1:
            return _item_ref(raw, rows[0][0])
        if len(rows) > 1:
            where = sorted({r[1] for r in rows})
            if len(where) > 1:
                raise FlagError(f"item {ident!r} is in several datasets ({', '.join(where)}); choose one with --dataset")
            raise FlagError(f"{ident!r} matches {len(rows)} items ({', '.join(r[2] for r in rows[:5])}); give the item key")
    if text:  # a repeated question: the base key has `#2`, `#3`, ... siblings
        rows = raw.execute(base + "i.key LIKE ?" + scope, [question_key(text) + "#%", *extra]).fetchall()
        if rows:
            keys = [question_key(text)] + [r[2] for r in rows]
            raise FlagError(f"{ident!r} is a repeated question ({', '.join(keys[:5])}); give the item key")
    scope_note = f" in dataset {dataset!r}" if dataset else ""
    raise FlagError(f"no item {ident!r}{scope_note} (give an item key or, for items without ids, the question text)")


def targets_for_item(
    conn: Any, dataset: str, item_key: str, *, gold_idx: int | None = None, gold_text: str | None = None
) -> list[Target]:
    """Targets of one item: the gold at `gold_idx` (0-based), the gold with `gold_text`, or (neither)
    every distinct scored gold text. Raises FlagError when the gold is not there."""
    raw = sqlite_connection(conn)
    ref = resolve_item(raw, item_key, dataset)
    return targets_of(ref, gold_idx, gold_text)


def targets_of(ref: ItemRef, gold_idx: int | None = None, gold_text: str | None = None) -> list[Target]:
    """`targets_for_item` for an item already resolved (`resolve_item`)."""
    if gold_idx is not None:
        if not 0 <= gold_idx < len(ref.golds):
            n = len(ref.golds)
            raise FlagError(f"item {ref.key} has {n} gold answer{'s' if n != 1 else ''}; gold {gold_idx + 1} is out of range")
        idx, text, sup = ref.golds[gold_idx]
        if sup:
            raise FlagError(f"gold {idx + 1} of item {ref.key} ({text!r}) is already superseded by the dataset's rewrite")
        return [Target(ref.dataset, ref.key, text)]
    if gold_text is not None:
        texts = ref.scored_texts()
        if gold_text in texts:
            return [Target(ref.dataset, ref.key, gold_text)]
        stripped = [t for t in texts if t.strip() == gold_text.strip()]
        if len(stripped) == 1:
            return [Target(ref.dataset, ref.key, stripped[0])]
        shown = ", ".join(repr(t) for t in texts) or "none"
        raise FlagError(f"answer {gold_text!r} is not among the golds of item {ref.key} ({shown})")
    texts = ref.scored_texts()
    if not texts:
        raise FlagError(f"item {ref.key} has no scored gold answer to flag")
    return [Target(ref.dataset, ref.key, t) for t in texts]


def targets_for_items(conn: Any, item_ids: Iterable[int], *, gold_idx: int | None = None) -> list[Target]:
    """Targets for a selection of item rows (ids from `core.query` pages): every distinct scored gold
    text of each item (or only the gold at `gold_idx` where the item has one). Items without a
    scored gold are skipped."""
    raw = sqlite_connection(conn)
    out: list[Target] = []
    seen: set[Target] = set()
    ids = list(dict.fromkeys(int(i) for i in item_ids))
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        rows = raw.execute(
            "SELECT d.name, i.key, g.idx, g.text FROM golds g JOIN items i ON i.id = g.item_id"
            " JOIN datasets d ON d.id = i.dataset_id"
            f" WHERE g.item_id IN ({', '.join('?' * len(chunk))}) AND g.superseded = 0 ORDER BY i.id, g.idx",
            chunk,
        ).fetchall()
        for ds, key, idx, text in rows:
            if gold_idx is not None and idx != gold_idx:
                continue
            t = Target(ds, key, text)
            if t not in seen:
                seen.add(t)
                out.append(t)
    return out


def _check_target(conn: sqlite3.Connection, t: Target) -> None:
    """FlagError unless `t` names a scored gold that is loaded (checked before anything is written)."""
    loaded, item, golds = _gold_rows(conn, t.dataset, t.item_key)
    if not loaded:
        raise FlagError(f"no dataset named {t.dataset!r}")
    if item is None:
        raise FlagError(f"no item {t.item_key!r} in dataset {t.dataset!r}")
    texts = [text for _, text, sup in golds if not sup]
    if t.gold_text not in texts:
        if any(text == t.gold_text for _, text, _ in golds):
            raise FlagError(f"gold {t.gold_text!r} of item {t.item_key} is already superseded by the dataset's rewrite")
        raise FlagError(f"{t.gold_text!r} is not among the golds of item {t.item_key}")
