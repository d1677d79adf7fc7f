"""Stale flags out of and into the database: a patch (JSONL), the journal (JSONL), the dataset itself.

- **Patch** (`export_patch`): one JSON line per open proposal on a flagged gold — normally one line
  per flagged gold; a gold with conflicting proposals gets one line each (`"conflict": true`).
  Fields: `kind` ("stale-flag"), `dataset`, `item_key`, `question`, `old_answer`, `gold_index`
  (0-based position in the dataset's answer list, null once resolved), `proposed_answer`,
  `reason`, `evidence`, `author`, `time`, `tags` ({tag, answer_type, split}), `uid` (of the
  journal entry), `status` (open/resolved/orphaned), `conflict`.
- **Journal** (`export_journal`): every journal entry, one JSON line each (`kind` "journal",
  `uid`, `ts`, `author`, `action`, `dataset`, `item_key`, `gold_text`, `reason`, `proposed`,
  `evidence`, `ref_uid` (the entry an undo cancels), `meta`). It carries unmarks and undos, which
  a patch cannot.
- **Dataset** (`export_dataset`): the dataset's own source file with the proposals applied.
  CDQA v1: `p-改写答案` = the proposal and `分类1` = `p修改` (a flag without a proposal changes
  nothing and is reported). SQuAD-style, CMRC original and JSONL datasets: every answer with the
  stale text is replaced by the proposal (`answer_start` located in the context, the occurrence
  nearest the old start, -1 when absent) or removed when there is no proposal. Everything else is
  written back as it was read: key order, number literals (`39764.0`), indentation and separators,
  `\\u` escaping, BOM and encoding; JSONL lines that do not change are copied verbatim. Where a
  gold has several proposals, the latest one is applied and the conflict is reported.
- **Import** (`import_file`): a patch, a journal export, or another qa-inspect database file.
  Entries keep their uid, so importing the same file twice adds nothing; imported marks supersede
  nothing, so another annotator's different proposal is kept beside yours (a conflict). Undo
  references travel as uids. The whole file is one transaction: a bad line adds nothing and names
  the line.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .errors import FormatError, QAInspectError
from .flags import (
    BusyCallback,
    Entry,
    Flag,
    FlagError,
    Target,
    _insert,
    _raw,
    _write,
    current_flags,
    journal,
    normalise_ts,
)
from .formats.textio import JSONFloat, loads

__all__ = [
    "DatasetExport",
    "ImportResult",
    "dump_json",
    "export_dataset",
    "export_journal",
    "export_patch",
    "import_file",
    "patch_records",
]

PATCH_KIND = "stale-flag"
JOURNAL_KIND = "journal"
DATASET_FORMATS = ("cdqa-v1", "squad", "cmrc-original", "jsonl-dataset")


# ---------------------------------------------------------------------------------------------
# Patch and journal


def patch_records(conn: Any, dataset: str | None = None, *, include_resolved: bool = True) -> list[dict[str, Any]]:
    """The patch as dicts (what `export_patch` writes, one per line)."""
    out: list[dict[str, Any]] = []
    for f in current_flags(conn, dataset, include_resolved=include_resolved):
        proposals = f.proposals or []
        for p in proposals or [None]:
            out.append({
                "kind": PATCH_KIND,
                "dataset": f.dataset,
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
    return out


def export_patch(conn: Any, out: TextIO, dataset: str | None = None, *, include_resolved: bool = True) -> int:
    """Write the patch JSONL to `out`; returns the number of lines."""
    records = patch_records(conn, dataset, include_resolved=include_resolved)
    for rec in records:
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return len(records)


def journal_records(conn: Any, dataset: str | None = None) -> list[dict[str, Any]]:
    raw = _raw(conn)
    uids = dict(raw.execute("SELECT id, uid FROM annotations"))
    out = []
    for e in journal(raw, dataset=dataset):
        out.append({
            "kind": JOURNAL_KIND, "uid": e.uid, "ts": e.ts, "author": e.author, "action": e.action,
            "dataset": e.dataset, "item_key": e.item_key, "gold_text": e.gold_text, "reason": e.reason,
            "proposed": e.proposed, "evidence": e.evidence,
            "ref_uid": uids.get(e.ref) if e.ref is not None else e.meta.get("ref_uid"),
            "meta": e.meta,
        })
    return out


def export_journal(conn: Any, out: TextIO, dataset: str | None = None) -> int:
    """Write every journal entry (oldest first) as JSONL; returns the number of lines."""
    records = journal_records(conn, dataset)
    for rec in records:
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return len(records)


# ---------------------------------------------------------------------------------------------
# Import


@dataclass(slots=True)
class ImportResult:
    path: str
    kind: str
    """"patch", "journal", "database" (or "empty")."""
    added: int = 0
    duplicates: int = 0
    conflicts: list[Flag] = field(default_factory=list)
    """Flags touched by the import that now have more than one proposal."""

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "kind": self.kind, "added": self.added, "duplicates": self.duplicates,
                "conflicts": [f.to_dict() for f in self.conflicts]}


@dataclass(slots=True)
class _Incoming:
    uid: str
    ts: str
    author: str
    action: str
    target: Target
    reason: str | None
    proposed: str | None
    evidence: str | None
    ref_uid: str | None
    meta: dict[str, Any]


def _text(path: Path, rec: dict[str, Any], name: str, where: str, *, required: bool = False) -> str | None:
    value = rec.get(name)
    if value is None:
        if required:
            raise FormatError(str(path), f"no {name!r}", where)
        return None
    if not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and name in ("old_answer", "gold_text", "proposed_answer", "proposed"):
            return value.literal if isinstance(value, JSONFloat) else str(value)
        raise FormatError(str(path), f"{name!r} is not text", where)
    return value


def _ts(path: Path, value: Any, where: str, name: str = "time") -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FormatError(str(path), f"{name!r} is not an ISO date-time", where)
    try:
        return normalise_ts(value)
    except ValueError:
        raise FormatError(str(path), f"{name!r} is not an ISO date-time: {value!r}", where) from None


def _parse_line(path: Path, rec: Any, where: str, now: str) -> _Incoming:
    if not isinstance(rec, dict):
        raise FormatError(str(path), "not a JSON object", where)
    if "action" in rec:  # a journal entry
        action = rec.get("action")
        if action not in ("mark", "unmark", "undo"):
            raise FormatError(str(path), f"unknown action {action!r}", where)
        uid = _text(path, rec, "uid", where, required=True) or ""
        meta = rec.get("meta") or {}
        if not isinstance(meta, dict):
            raise FormatError(str(path), "'meta' is not an object", where)
        return _Incoming(
            uid=uid, ts=_ts(path, rec.get("ts"), where, "ts") or now, author=_text(path, rec, "author", where) or "unknown",
            action=action,
            target=Target(_text(path, rec, "dataset", where, required=True) or "",
                          _text(path, rec, "item_key", where, required=True) or "",
                          _text(path, rec, "gold_text", where, required=True) or ""),
            reason=_text(path, rec, "reason", where), proposed=_text(path, rec, "proposed", where),
            evidence=_text(path, rec, "evidence", where), ref_uid=_text(path, rec, "ref_uid", where), meta=dict(meta),
        )
    if "old_answer" in rec:  # a patch line
        target = Target(_text(path, rec, "dataset", where, required=True) or "",
                        _text(path, rec, "item_key", where, required=True) or "",
                        _text(path, rec, "old_answer", where, required=True) or "")
        proposed = _text(path, rec, "proposed_answer", where)
        reason, evidence = _text(path, rec, "reason", where), _text(path, rec, "evidence", where)
        author = _text(path, rec, "author", where) or "unknown"
        ts = _ts(path, rec.get("time"), where)
        uid = _text(path, rec, "uid", where)
        if not uid:  # a hand-written patch: a uid from the content, so a second import adds nothing
            basis = json.dumps([target.dataset, target.item_key, target.gold_text, proposed, reason, evidence, author, ts],
                               ensure_ascii=False)
            uid = hashlib.sha256(basis.encode()).hexdigest()[:32]
        return _Incoming(uid=uid, ts=ts or now, author=author, action="mark", target=target, reason=reason,
                         proposed=proposed, evidence=evidence, ref_uid=None, meta={})
    raise FormatError(str(path), "neither a patch line ('old_answer') nor a journal entry ('action')", where)


def _read_import(path: Path, now: str) -> tuple[str, list[_Incoming]]:
    try:
        head = path.read_bytes()[:16]
    except OSError as exc:
        raise FormatError(str(path), f"cannot read ({exc.strerror or exc})") from None
    if head.startswith(b"SQLite format 3\x00"):
        return "database", _read_database(path, now)
    from .formats.textio import read_text

    if not path.read_bytes().strip():
        return "empty", []  # an export with nothing in it
    text, _ = read_text(path)
    out: list[_Incoming] = []
    kinds: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            rec = loads(line)
        except json.JSONDecodeError as exc:
            raise FormatError(str(path), f"invalid JSON: {exc.msg} at column {exc.colno}", where) from None
        out.append(_parse_line(path, rec, where, now))
        kinds.add("journal" if isinstance(rec, dict) and "action" in rec else "patch")
    return ("+".join(sorted(kinds)) or "empty"), out


def _read_database(path: Path, now: str) -> list[_Incoming]:
    try:
        src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise FormatError(str(path), f"cannot open database ({exc})") from None
    try:
        rows = src.execute(
            "SELECT a.uid, a.ts, a.author, a.action, a.dataset, a.item_key, a.gold_text, a.reason, a.proposed,"
            " a.evidence, r.uid, a.meta, a.id FROM annotations a LEFT JOIN annotations r ON r.id = a.ref ORDER BY a.id"
        ).fetchall()
    except sqlite3.Error as exc:
        raise FormatError(str(path), f"not a qa-inspect database ({exc})") from None
    finally:
        src.close()
    out = []
    for uid, ts, author, action, ds, key, gold, reason, proposed, evidence, ref_uid, meta, rowid in rows:
        try:
            decoded = json.loads(meta) if meta else {}
        except ValueError:
            decoded = {}
        if not uid:  # written before uids existed and never migrated: derive one from the row
            uid = hashlib.sha256(f"{path.resolve()}#{rowid}#{ts}".encode()).hexdigest()[:32]
        out.append(_Incoming(uid, ts or now, author, action, Target(ds, key, gold), reason, proposed, evidence,
                             ref_uid or (decoded.get("ref_uid") if isinstance(decoded, dict) else None),
                             decoded if isinstance(decoded, dict) else {}))
    return out


def import_file(conn: Any, path: Path, *, on_busy: BusyCallback | None = None) -> ImportResult:
    """Merge a patch, a journal export or another database's journal; one transaction."""
    from .flags import _now

    path = Path(path)
    kind, incoming = _read_import(path, _now())
    raw = _raw(conn)
    result = ImportResult(str(path), kind)

    def work(c: sqlite3.Connection) -> list[Entry]:
        added: list[Entry] = []
        local: dict[str, int] = {}
        for inc in incoming:
            if inc.uid in local or c.execute("SELECT 1 FROM annotations WHERE uid = ?", (inc.uid,)).fetchone():
                result.duplicates += 1
                continue
            ref = None
            if inc.ref_uid:
                ref = local.get(inc.ref_uid)
                if ref is None:
                    row = c.execute("SELECT id FROM annotations WHERE uid = ?", (inc.ref_uid,)).fetchone()
                    ref = row[0] if row else None
            meta = {**inc.meta, "imported_from": inc.meta.get("imported_from") or path.name}
            if inc.ref_uid:
                meta["ref_uid"] = inc.ref_uid
            e = _insert(c, inc.action, inc.target, inc.author, reason=inc.reason, proposed=inc.proposed,
                        evidence=inc.evidence, ref=ref, meta=meta, uid=inc.uid, ts=inc.ts)
            local[inc.uid] = e.id
            added.append(e)
        return added

    added = _write(raw, work, on_busy) if incoming else []
    result.added = len(added)
    touched = {e.target for e in added}
    if touched:
        datasets = {t.dataset for t in touched}
        result.conflicts = [
            f for ds in sorted(datasets) for f in current_flags(raw, ds) if f.conflict and f.target in touched
        ]
    return result


# ---------------------------------------------------------------------------------------------
# JSON written back in the file's own layout


@dataclass(slots=True)
class JsonStyle:
    indent: str | None = None
    item_sep: str = ", "
    key_sep: str = ": "
    ensure_ascii: bool = False
    newline_at_end: bool = False

    @classmethod
    def detect(cls, text: str, value: Any = None) -> JsonStyle:
        """The layout `text` was written with; given its parsed `value`, the candidate that
        reproduces `text` exactly wins (else the best guess)."""
        body = text.rstrip("\r\n")
        base = cls(newline_at_end=text != body, ensure_ascii=text.isascii() and "\\u" in text)
        lines = body.split("\n")
        candidates: list[JsonStyle] = []
        if len(lines) > 1:
            second = lines[1]
            indent = second[: len(second) - len(second.lstrip(" \t"))]
            candidates += [cls(indent, ",", ": ", base.ensure_ascii, base.newline_at_end),
                           cls(indent, ", ", ": ", base.ensure_ascii, base.newline_at_end)]
        else:
            for item_sep, key_sep in ((", ", ": "), (",", ":"), (",", ": "), (", ", ":")):
                candidates.append(cls(None, item_sep, key_sep, base.ensure_ascii, base.newline_at_end))
        if value is not None:
            for style in candidates:
                if dump_json(value, style) == body:
                    return style
        return candidates[0]


def dump_json(value: Any, style: JsonStyle, level: int = 0) -> str:
    """Like `json.dumps` with the style's options, but JSON numbers keep their literal text."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        parts = [json.dumps(str(k), ensure_ascii=style.ensure_ascii) + style.key_sep + dump_json(v, style, level + 1)
                 for k, v in value.items()]
        return _wrap("{", "}", parts, style, level)
    if isinstance(value, list):
        if not value:
            return "[]"
        return _wrap("[", "]", [dump_json(v, style, level + 1) for v in value], style, level)
    if isinstance(value, JSONFloat):
        return value.literal
    return json.dumps(value, ensure_ascii=style.ensure_ascii)


def _wrap(open_: str, close: str, parts: list[str], style: JsonStyle, level: int) -> str:
    if style.indent is None:
        return open_ + style.item_sep.join(parts) + close
    inner = "\n" + style.indent * (level + 1)
    return open_ + inner + (style.item_sep + inner).join(parts) + "\n" + style.indent * level + close


# ---------------------------------------------------------------------------------------------
# Dataset export


@dataclass(slots=True)
class DatasetExport:
    dataset: str
    format: str
    source: str
    output: str
    replaced: int = 0
    """Answers replaced by a proposal (CDQA: rewrites set)."""
    removed: int = 0
    """Answers removed (stale without a proposal; SQuAD-style formats)."""
    not_applied: list[dict[str, str]] = field(default_factory=list)
    """Flags left as they are, with why (CDQA flag without a proposal, gold not found)."""
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    """Golds with several proposals: which one was applied."""
    emptied: list[str] = field(default_factory=list)
    """Items left with no answer."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "format": self.format, "source": self.source, "output": self.output,
            "replaced": self.replaced, "removed": self.removed, "not_applied": self.not_applied,
            "conflicts": self.conflicts, "emptied": self.emptied,
        }


def _choice(f: Flag) -> str | None:
    """The proposal to apply: the latest non-empty one (the deciding mark's when it has one)."""
    for p in sorted(f.proposals, key=lambda p: p.ts, reverse=True):
        if p.proposed:
            return p.proposed
    return f.proposed


def _locate(context: str | None, text: str, old_start: Any) -> int:
    if not context:
        return -1
    start = old_start if isinstance(old_start, int) and not isinstance(old_start, bool) and old_start >= 0 else 0
    best, found = -1, context.find(text)
    while found != -1:
        if best == -1 or abs(found - start) < abs(best - start):
            best = found
        if found > start:
            break
        found = context.find(text, found + 1)
    return best


def _answer_text(value: Any) -> str | None:
    from .formats.textio import number_text

    if isinstance(value, dict):
        value = value.get("text")
    return number_text(value)


def _apply_span(record: dict[str, Any], context: str | None, changes: dict[str, str | None], report: DatasetExport, key: str) -> set[str]:
    """Replace/remove stale answers in `record["answers"]`; returns the stale texts found."""
    answers = record.get("answers")
    found: set[str] = set()
    if isinstance(answers, dict) and isinstance(answers.get("text"), list):  # HF columns
        texts, starts = answers["text"], answers.get("answer_start")
        has_starts = isinstance(starts, list) and len(starts) == len(texts)
        new_texts, new_starts = [], []
        for i, t in enumerate(texts):
            text = _answer_text(t)
            if text in changes:
                found.add(text)
                new = changes[text]
                if new is None:
                    report.removed += 1
                    continue
                report.replaced += 1
                new_texts.append(new)
                new_starts.append(_locate(context, new, starts[i] if has_starts else None))
            else:
                new_texts.append(t)
                new_starts.append(starts[i] if has_starts else None)
        answers["text"] = new_texts
        if has_starts:
            answers["answer_start"] = new_starts
        if not new_texts:
            report.emptied.append(key)
        return found
    single = not isinstance(answers, list)
    items = [answers] if single else list(answers)
    out: list[Any] = []
    for a in items:
        text = _answer_text(a)
        if text is None or text not in changes:
            out.append(a)
            continue
        found.add(text)
        new = changes[text]
        if new is None:
            report.removed += 1
            continue
        report.replaced += 1
        if isinstance(a, dict):
            b = dict(a)
            b["text"] = new
            if "answer_start" in a or context is not None:
                b["answer_start"] = _locate(context, new, a.get("answer_start"))
            out.append(b)
        else:
            out.append(new)
    if single:
        if out:
            record["answers"] = out[0]
        else:
            record["answers"] = []
            report.emptied.append(key)
    else:
        record["answers"] = out
        if not out and items:
            report.emptied.append(key)
    return found


def _records(fmt: str, value: Any, doc: Any) -> Iterator[tuple[dict[str, Any], str | None]]:
    """(raw record, its context) in the order the format's reader yields items."""
    if fmt == "squad":
        for article in value["data"]:
            for para in article["paragraphs"]:
                for qa in para["qas"]:
                    yield qa, para.get("context")
    elif fmt == "cmrc-original":
        for passage in value:
            for qa in passage["qas"]:
                yield qa, passage.get("context_text")
    elif fmt == "cdqa-v1":
        for rec in value:
            yield rec, None
    else:
        for _, rec in doc.records() or []:
            yield rec, rec.get("context") if isinstance(rec.get("context"), str) else None


def export_dataset(conn: Any, runs_dir: Path, dataset: str, out_path: Path) -> DatasetExport:
    """Write `dataset`'s source file, proposals applied, to `out_path` (see the module docstring)."""
    from .formats import read_source
    from .formats.textio import parse, read_text
    from .loader import _sha256
    from .model import Dataset

    raw = _raw(conn)
    row = raw.execute(
        "SELECT d.path, d.format, f.sha256 FROM datasets d LEFT JOIN files f ON f.path = d.path WHERE d.name = ?",
        (dataset,),
    ).fetchone()
    if row is None:
        names = ", ".join(r[0] for r in raw.execute("SELECT name FROM datasets ORDER BY name")) or "none loaded"
        raise FlagError(f"no dataset named {dataset!r} (datasets: {names})")
    rel, fmt, sha = row
    if fmt not in DATASET_FORMATS:
        raise FlagError(f"{rel}: cannot write {fmt} datasets back (supported: {', '.join(DATASET_FORMATS)})")
    source = (Path(runs_dir) / rel).resolve()
    if not source.is_file():
        raise FlagError(f"{rel}: source file of dataset {dataset!r} is gone; reload the runs folder")
    out_path = Path(out_path)
    if out_path.resolve() == source:
        raise FlagError(f"{out_path}: that is the source file itself; write the new release elsewhere")
    if sha and _sha256(source) != sha:
        raise FlagError(f"{rel}: changed since it was loaded; reload the runs folder first")

    data = source.read_bytes()
    bom = data.startswith(b"\xef\xbb\xbf")
    text, encoding = read_text(source)
    doc = parse(source, text, encoding)
    parsed = read_source(source, hints={"format": fmt})
    if not isinstance(parsed, Dataset):
        raise FlagError(f"{rel}: cannot read it as {fmt} any more")
    records = list(_records(fmt, doc.value, doc))
    if len(records) != len(parsed.items):
        raise FlagError(f"{rel}: {len(records)} records but {len(parsed.items)} items; cannot map flags to records")

    report = DatasetExport(dataset, fmt, rel, str(out_path))
    flags = [f for f in current_flags(raw, dataset) if f.status == "open"]
    by_item: dict[str, dict[str, str | None]] = {}
    for f in flags:
        choice = _choice(f)
        by_item.setdefault(f.item_key, {})[f.gold_text] = choice
        if f.conflict:
            report.conflicts.append({
                "item_key": f.item_key, "old_answer": f.gold_text, "applied": choice,
                "proposals": sorted({p.proposed for p in f.proposals if p.proposed}),
            })
    changed_lines: dict[int, JsonStyle] = {}
    whole_style = None if doc.is_jsonl else JsonStyle.detect(text, doc.value)
    src_lines = text.split("\n") if doc.is_jsonl else []
    for index, (item, (record, context)) in enumerate(zip(parsed.items, records, strict=True)):
        changes = by_item.pop(item.key, None)
        if not changes:
            continue
        if doc.is_jsonl:
            number, value = doc.lines[index]
            changed_lines[index] = JsonStyle.detect(src_lines[number - 1].rstrip("\r"), value)
        if fmt == "cdqa-v1":
            _apply_cdqa(record, item, changes, report)
        else:
            found = _apply_span(record, context, changes, report, item.key)
            for text in set(changes) - found:
                report.not_applied.append({"item_key": item.key, "old_answer": text, "why": "answer not found in the record"})
    for key, changes in by_item.items():
        for text in changes:
            report.not_applied.append({"item_key": key, "old_answer": text, "why": "item not found in the source file"})

    if doc.is_jsonl:
        out_text = _jsonl_text(text, doc, changed_lines)
    else:
        assert whole_style is not None
        out_text = dump_json(doc.value, whole_style) + ("\n" if whole_style.newline_at_end else "")
    payload = out_text.encode(encoding)
    if bom:
        payload = b"\xef\xbb\xbf" + payload
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    try:
        tmp.write_bytes(payload)
        os.replace(tmp, out_path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise QAInspectError(f"{out_path}: cannot write ({exc.strerror or exc})") from None
    return report


_NEW_A, _ACCEPT, _REWRITTEN = "p-改写答案", "分类1", "p修改"


def _apply_cdqa(record: dict[str, Any], item: Any, changes: dict[str, str | None], report: DatasetExport) -> None:
    annotation = record.setdefault("annotation", {})
    scored = [g.text for g in item.golds if not g.superseded]
    for text, new in changes.items():
        if text not in scored:
            report.not_applied.append({"item_key": item.key, "old_answer": text, "why": "answer not found in the record"})
        elif new is None:
            report.not_applied.append({"item_key": item.key, "old_answer": text,
                                       "why": "no proposed answer (CDQA records cannot drop their answer)"})
        else:
            annotation[_NEW_A] = new
            annotation[_ACCEPT] = _REWRITTEN
            report.replaced += 1


def _jsonl_text(text: str, doc: Any, changed: dict[int, JsonStyle]) -> str:
    """Unchanged lines verbatim; changed records re-serialised in their line's own layout."""
    lines = text.split("\n")
    records = doc.lines or []
    for index, style in changed.items():
        number, value = records[index]
        original = lines[number - 1]
        style.indent, style.newline_at_end = None, False
        lines[number - 1] = dump_json(value, style) + ("\r" if original.endswith("\r") else "")
    return "\n".join(lines)
