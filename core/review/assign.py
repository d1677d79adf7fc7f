"""Who reviews what: the review queue split among a team, the same on every machine.

Rendezvous hashing: each annotator gets a score for an item, SHA-256 of the item key and the
annotator's name (never Python's `hash`, which changes per process), and the item goes to the
`overlap` annotators with the highest scores. No table to share or keep: every machine computes
the same split from the names alone, an item's annotators do not change when other items come or
go, and adding an annotator moves only the items the newcomer now ranks first for.

The item key is the dataset's name and the item's key, so every gold of an item goes to the same
annotators. The team comes from `--annotators`/`--overlap` or `[team]` in `qa-inspect.toml`.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from qa_inspect.core.errors import FormatError, QAInspectError
from qa_inspect.core.flags import FLAG_ENTRIES_SQL
from qa_inspect.core.store import author_for, sqlite_connection

from .queue import QueueEntry, ReviewQueue

if TYPE_CHECKING:
    from qa_inspect.core.load import Manifest

__all__ = ["DEFAULT_OVERLAP", "Team", "TeamProgress", "assigned_to", "item_key", "judged", "mine", "team_progress", "team_settings", "team_share"]

DEFAULT_OVERLAP = 1
"""Annotators per item when no overlap is given."""


@dataclass(frozen=True, slots=True)
class Team:
    """The annotators a queue is split among, and how many of them see each item."""

    annotators: tuple[str, ...]
    overlap: int = DEFAULT_OVERLAP

    def __post_init__(self) -> None:
        names = [a.strip() for a in self.annotators]
        if not names or any(not n for n in names):
            raise QAInspectError("a team needs at least one annotator name (none may be empty)")
        if len(set(names)) != len(names):
            dupe = next(n for n in names if names.count(n) > 1)
            raise QAInspectError(f"annotator {dupe!r} is named twice")
        if not 1 <= self.overlap <= len(names):
            raise QAInspectError(f"overlap {self.overlap}: expected 1 to {len(names)} (the number of annotators)")
        object.__setattr__(self, "annotators", tuple(names))

    def assigned(self, key: str) -> tuple[str, ...]:
        """The annotators item `key` goes to, highest-ranked first (`assigned_to`)."""
        return assigned_to(key, self.annotators, self.overlap)


def item_key(dataset: str, key: str) -> str:
    """What assignment hashes for an item: its dataset's name and its key."""
    return f"{dataset}\x1f{key}"


def _score(key: str, annotator: str) -> bytes:
    return hashlib.sha256(f"{key}\x1e{annotator}".encode()).digest()


def assigned_to(key: str, annotators: Sequence[str], overlap: int) -> tuple[str, ...]:
    """The `overlap` annotators that rank highest for `key` (rendezvous hashing; ties, which
    SHA-256 makes practically impossible, by name)."""
    ranked = sorted(annotators, key=lambda a: (_score(key, a), a), reverse=True)
    return tuple(ranked[:overlap])


def team_settings(manifest: Manifest | None) -> Team | None:
    """`[team] annotators = [...]`, `overlap = N` of the runs folder's manifest (None without one);
    FormatError naming the file and key when it is malformed."""
    table: Mapping[str, Any] | None = manifest.team if manifest is not None else None
    if not table:
        return None
    path = str(manifest.path) if manifest is not None else "qa-inspect.toml"
    for key in table:
        if key not in ("annotators", "overlap"):
            raise FormatError(path, "unknown key (expected annotators, overlap)", f"[team], {key}")
    names = table.get("annotators")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise FormatError(path, "expected a list of annotator names", "[team], annotators")
    overlap = table.get("overlap", DEFAULT_OVERLAP)
    if not isinstance(overlap, int) or isinstance(overlap, bool):
        raise FormatError(path, "expected a whole number", "[team], overlap")
    try:
        return Team(tuple(names), overlap)
    except QAInspectError as exc:
        raise FormatError(path, str(exc), "[team]") from None


@dataclass(frozen=True, slots=True)
class TeamProgress:
    """One annotator's share of the queue: golds assigned, and of those, judged (marked,
    unmarked or verified by them, not undone)."""

    annotator: str
    assigned: int
    done: int

    def to_dict(self) -> dict[str, Any]:
        return {"annotator": self.annotator, "assigned": self.assigned, "done": self.done}


_JUDGED_SQL = f"""
SELECT DISTINCT a.author, a.dataset, a.item_key, a.gold_text FROM annotations a
WHERE {FLAG_ENTRIES_SQL} AND a.action IN ('mark', 'unmark', 'verify')
  AND NOT EXISTS (SELECT 1 FROM annotations u WHERE u.action = 'undo' AND u.ref = a.id)
"""


def judged(conn: Any) -> set[tuple[str, str, str, str]]:
    """(author, dataset, item key, gold text) of every gold someone judged (and did not undo)."""
    raw: sqlite3.Connection = sqlite_connection(conn)
    return {(str(a), str(d), str(k), str(g)) for a, d, k, g in raw.execute(_JUDGED_SQL)}


def team_progress(conn: Any, team: Team, golds: Iterable[tuple[str, str, str]]) -> list[TeamProgress]:
    """Each annotator's done/assigned over `golds` (dataset, item key, gold text): the queue."""
    done_by = judged(conn)
    assigned = {a: 0 for a in team.annotators}
    done = {a: 0 for a in team.annotators}
    for dataset, key, gold in golds:
        for who in team.assigned(item_key(dataset, key)):
            assigned[who] += 1
            done[who] += (who, dataset, key, gold) in done_by
    return [TeamProgress(a, assigned[a], done[a]) for a in team.annotators]


def mine(entries: Iterable[QueueEntry], team: Team, me: str) -> list[QueueEntry]:
    """The queue entries assigned to `me` (in queue order); QAInspectError when `me` is not one of
    the team."""
    if me not in team.annotators:
        raise QAInspectError(f"{me!r} is not one of the team's annotators ({', '.join(team.annotators)})")
    return [e for e in entries if me in team.assigned(item_key(e.scored.signals.dataset, e.scored.signals.item_key))]


def team_share(conn: Any, queue: ReviewQueue, manifest: Manifest | None, *, me: str | None = None,
               limit: int | None = None) -> ReviewQueue:
    """The queue as the app and `stale queue` show it to one annotator: their share when the
    manifest names a `[team]` (`me`: default the annotator name), else the whole queue; at most
    `limit` entries. FormatError for a malformed `[team]`; QAInspectError when `me` is not in it."""
    team = team_settings(manifest)
    if team is None:
        return queue if limit is None else replace(queue, entries=queue.entries[:limit])
    return replace(queue, entries=mine(queue.entries, team, me or author_for(conn))[:limit])
