"""Stale flags out as JSONL: the patch (current proposals) and the journal (every entry).

- **Patch** (`export_patch`): one JSON line per open proposal on a flagged gold — normally one line
  per flagged gold; a gold with conflicting proposals gets one line each (`"conflict": true`).
  Fields: `kind` ("stale-flag"), `dataset`, `dataset_fingerprint` (of the dataset's item keys
  and questions: an import binds to the dataset with that content, whatever its name), `item_key`, `question`, `old_answer`, `gold_index`
  (0-based position in the dataset's answer list, null once resolved), `proposed_answer`,
  `reason`, `evidence`, `author`, `time`, `tags` ({tag, answer_type, split}), `uid` (of the
  journal entry), `status` (open/resolved/orphaned), `conflict`.
  After the flags, one line per accepted alias (`kind` "accepted-alias"; `core.flags.aliases`):
  `dataset`, `dataset_fingerprint`, `item_key`, `question`, `alias` (an extra gold answer of the
  item), `run` (whose answer it was), `note`, `author`, `time`, `uid`, `status` (open/orphaned).
- **Journal** (`export_journal`): every journal entry, one JSON line each (`kind` "journal",
  `uid`, `ts`, `author`, `action`, `dataset`, `dataset_fingerprint`, `item_key`, `gold_text`, `reason`, `proposed`,
  `evidence`, `ref_uid` (the entry an undo cancels), `meta`; `run` on alias entries). It carries
  unmarks and undos, which a patch cannot.

Both read back with `core.stale_import.import_file`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qa_inspect.core.visible import json_line
from qa_inspect.core.store import sqlite_connection

from .aliases import ALIAS_ACTIONS, ALIAS_KIND, alias_list
from .current import Proposal, current_flags
from .journal import journal

if TYPE_CHECKING:
    from _typeshed import SupportsWrite  # anything with write(str): a file, the CLI's stdout filter

__all__ = [
    "JOURNAL_KIND", "PATCH_KIND", "alias_records", "export_aliases", "export_journal", "export_patch", "journal_records",
    "patch_records",
]


PATCH_KIND = "stale-flag"
JOURNAL_KIND = "journal"


def patch_records(conn: Any, dataset: str | None = None, *, include_resolved: bool = True) -> list[dict[str, Any]]:
    """The patch as dicts (what `export_patch` writes, one per line)."""
    out: list[dict[str, Any]] = []
    fingerprints = dict(sqlite_connection(conn).execute("SELECT uid, dataset_fp FROM annotations"))
    for f in current_flags(conn, dataset, include_resolved=include_resolved):
        proposals: list[Proposal] | list[None] = f.proposals or [None]  # no proposal: one line of the flag
        for p in proposals:
            out.append({
                "kind": PATCH_KIND,
                "dataset": f.dataset,
                "dataset_fingerprint": fingerprints.get(p.uid if p else f.uid),
                "item_key": f.item_key,
                "question": f.question,
                "old_answer": f.gold_text,
                "gold_index": f.gold_idxs[0] if f.gold_idxs else None,
                "proposed_answer": p.proposed if p else f.proposed,
                "reason": p.reason if p else f.reason,
                "evidence": p.evidence if p else f.evidence,
                "author": p.author if p else f.author,
                "time": p.ts if p else f.ts,
                "tags": f.tags,
                "uid": p.uid if p else f.uid,
                "status": f.status,
                "conflict": f.conflict,
            })
    for a in alias_list(conn, dataset):
        if include_resolved or a.status == "open":
            out.append({
                "kind": ALIAS_KIND, "dataset": a.dataset, "dataset_fingerprint": fingerprints.get(a.uid),
                "item_key": a.item_key, "question": a.question, "alias": a.text, "run": a.run, "note": a.note,
                "author": a.author, "time": a.ts, "uid": a.uid, "status": a.status,
            })
    return out


def _write_jsonl(out: SupportsWrite[str], records: list[dict[str, Any]]) -> int:
    """One JSON object per line, non-ASCII kept as is; returns the number of lines."""
    for rec in records:
        out.write(json_line(rec))  # C1 and bidi controls escaped: the same value, safe to view
    return len(records)


def export_patch(conn: Any, out: SupportsWrite[str], dataset: str | None = None, *, include_resolved: bool = True) -> int:
    """Write the patch JSONL to `out`; returns the number of lines."""
    return _write_jsonl(out, patch_records(conn, dataset, include_resolved=include_resolved))


def journal_records(conn: Any, dataset: str | None = None) -> list[dict[str, Any]]:
    """The journal as dicts (what `export_journal` writes); undo references as uids, which travel."""
    raw = sqlite_connection(conn)
    uids = dict(raw.execute("SELECT id, uid FROM annotations"))
    fingerprints = dict(raw.execute("SELECT id, dataset_fp FROM annotations"))
    out = []
    for e in journal(raw, dataset=dataset):
        out.append({
            "kind": JOURNAL_KIND, "uid": e.uid, "ts": e.ts, "author": e.author, "action": e.action,
            "dataset": e.dataset, "dataset_fingerprint": fingerprints.get(e.id), "item_key": e.item_key,
            "gold_text": e.gold_text, "reason": e.reason, "proposed": e.proposed, "evidence": e.evidence,
            "ref_uid": uids.get(e.ref) if e.ref is not None else e.meta.get("ref_uid"),
            "meta": e.meta,
            **({"run": e.run} if e.run is not None else {}),
        })
    return out


def export_journal(conn: Any, out: SupportsWrite[str], dataset: str | None = None) -> int:
    """Write every journal entry (oldest first) as JSONL; returns the number of lines."""
    return _write_jsonl(out, journal_records(conn, dataset))


def alias_records(conn: Any, dataset: str | None = None) -> list[dict[str, Any]]:
    """The alias part of the journal (`alias`, `unalias` and the undos that cancel them), as
    `journal_records` writes it: what `alias export` shares and `import_file` reads back."""
    return [r for r in journal_records(conn, dataset)
            if r["action"] in ALIAS_ACTIONS or r["meta"].get("undoes") in ALIAS_ACTIONS]


def export_aliases(conn: Any, out: SupportsWrite[str], dataset: str | None = None) -> int:
    """Write the alias entries of the journal (oldest first) as JSONL; returns the number of lines."""
    return _write_jsonl(out, alias_records(conn, dataset))
