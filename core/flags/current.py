"""The golds flagged stale now (`current_flags`, `flags_for_item`), read from the journal's state.

A flag is *open* while a scored (not superseded) gold of its item still has the flagged text,
*resolved* when the dataset is loaded but the text is gone (or only left as a superseded original
answer: the release rewrote it), and *orphaned* when no dataset of that name is loaded.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

from qa_inspect.core.store import sqlite_connection

from .journal import Target
from .state import _derive, _effective_entries, _GoldState, _stale, _states
from .targets import _gold_rows

__all__ = ["Flag", "Proposal", "current_flags", "flags_for_item"]


@dataclass(slots=True)
class Proposal:
    """One open mark on a stale gold: who said it is stale, why, and what it should say now."""

    uid: str
    author: str
    ts: str
    reason: str | None
    proposed: str | None
    evidence: str | None


@dataclass(slots=True)
class Flag:
    """A gold currently flagged stale. The first eight fields are the deciding (latest) mark."""

    dataset: str
    item_key: str
    gold_text: str
    reason: str | None
    proposed: str | None
    evidence: str | None
    author: str
    ts: str
    uid: str = ""
    status: str = "open"
    """`open` (gold still in the data), `resolved` (text gone or superseded), `orphaned` (no such dataset loaded)."""
    gold_idxs: tuple[int, ...] = ()
    """0-based positions of the flagged text among the item's scored golds (empty unless open)."""
    question: str | None = None
    tags: dict[str, str | None] = field(default_factory=dict)
    """The item's `tag` (CDQA: fast/slow/never-changing), `answer_type` and `split`."""
    proposals: list[Proposal] = field(default_factory=list)
    """Every open proposal, oldest first (the deciding one last); see `conflict`."""

    @property
    def target(self) -> Target:
        return Target(self.dataset, self.item_key, self.gold_text)

    @property
    def conflict(self) -> bool:
        """More than one distinct proposed answer is open for this gold."""
        return len({p.proposed for p in self.proposals if p.proposed}) > 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "item_key": self.item_key, "question": self.question,
            "gold_text": self.gold_text, "gold_idxs": list(self.gold_idxs), "status": self.status,
            "reason": self.reason, "proposed": self.proposed, "evidence": self.evidence,
            "author": self.author, "ts": self.ts, "uid": self.uid, "tags": self.tags,
            "conflict": self.conflict,
            "proposals": [
                {"uid": p.uid, "author": p.author, "ts": p.ts, "reason": p.reason, "proposed": p.proposed,
                 "evidence": p.evidence}
                for p in self.proposals
            ],
        }


def _flag(conn: sqlite3.Connection, target: Target, state: _GoldState, cache: dict[tuple[str, str], Any]) -> Flag:
    key = (target.dataset, target.item_key)
    if key not in cache:
        cache[key] = _gold_rows(conn, *key)
    loaded, item, golds = cache[key]
    idxs = tuple(idx for idx, text, sup in golds if text == target.gold_text and not sup)
    status = "open" if idxs else ("resolved" if loaded else "orphaned")
    d = state.deciding
    return Flag(
        dataset=target.dataset, item_key=target.item_key, gold_text=target.gold_text, reason=d.reason,
        proposed=d.proposed, evidence=d.evidence, author=d.author, ts=d.ts, uid=d.uid, status=status,
        gold_idxs=idxs, question=item[1] if item else None,
        tags={"tag": item[2], "answer_type": item[3], "split": item[4]} if item else {},
        proposals=[Proposal(p.uid, p.author, p.ts, p.reason, p.proposed, p.evidence) for p in state.proposals],
    )


def current_flags(conn: Any, dataset: str | None = None, *, include_resolved: bool = True) -> list[Flag]:
    """Golds flagged stale now (open, resolved and orphaned unless `include_resolved=False`),
    in the order they were flagged."""
    raw = sqlite_connection(conn)
    cache: dict[tuple[str, str], Any] = {}
    flags = [_flag(raw, t, s, cache) for t, s in _states(raw, dataset=dataset).items() if _stale(s)]
    if not include_resolved:
        flags = [f for f in flags if f.status == "open"]
    return sorted(flags, key=lambda f: (min(p.ts for p in f.proposals) if f.proposals else f.ts, f.dataset, f.item_key, f.gold_text))


def flags_for_item(conn: Any, dataset: str, item_key: str) -> list[Flag]:
    """The item's flagged golds (including resolved ones whose text is gone), by gold position."""
    raw = sqlite_connection(conn)
    entries = _effective_entries(raw, "a.dataset = ? AND a.item_key = ?", (dataset, item_key))
    cache: dict[tuple[str, str], Any] = {}
    flags = [_flag(raw, t, s, cache) for t, s in _derive(entries).items() if _stale(s)]
    return sorted(flags, key=lambda f: (f.gold_idxs[0] if f.gold_idxs else 1 << 30, f.gold_text))
