"""Stale flags out as a new release: the dataset's own source file with the proposals applied.

CDQA v1: `p-改写答案` = the proposal and `分类1` = `p修改` (a flag without a proposal changes
nothing and is reported). SQuAD-style, CMRC original and JSONL datasets: every answer with the
stale text is replaced by the proposal (`answer_start` located in the context, the occurrence
nearest the old start, -1 when absent) or removed when there is no proposal. Everything else is
written back as it was read: key order, number literals (`39764.0`), indentation and separators,
`\\u` escaping, BOM and encoding; JSONL lines that do not change are copied verbatim. Where a
gold has several proposals, the latest one is applied and the conflict is reported.

Accepted aliases (`core.flags.aliases`) are written as extra golds of their item, after its own
answers (SQuAD-style: `{"text", "answer_start"}` located in the context; lists of plain answers: the
text). CDQA v1 records hold one answer: their aliases are reported as not applied.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import QAInspectError, UnknownNameError
from qa_inspect.core.formats import (
    number_text,
    parse,
    read_source,
    read_text,
    sha256_file,
)
from qa_inspect.core.model import Dataset
from qa_inspect.core.store import known_names, sqlite_connection

from .aliases import current_aliases
from .current import Flag, current_flags
from .journal import FlagError
from .json_layout import JsonStyle, dump_json

__all__ = ["DATASET_FORMATS", "DatasetExport", "export_dataset"]


DATASET_FORMATS = ("cdqa-v1", "squad", "cmrc-original", "jsonl-dataset")


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
    aliases_added: int = 0
    """Accepted aliases written as extra golds."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset, "format": self.format, "source": self.source, "output": self.output,
            "replaced": self.replaced, "removed": self.removed, "not_applied": self.not_applied,
            "conflicts": self.conflicts, "emptied": self.emptied, "aliases_added": self.aliases_added,
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
    if isinstance(value, dict):
        value = value.get("text")
    return number_text(value)


def _apply_span(record: dict[str, Any], context: str | None, changes: dict[str, str | None], report: DatasetExport, key: str) -> set[str]:
    """Replace/remove stale answers in `record["answers"]`; returns the stale texts found."""
    answers = record.get("answers")
    found: set[str] = set()
    if isinstance(answers, dict) and isinstance(answers.get("text"), list):  # HF columns
        texts, given = answers["text"], answers.get("answer_start")
        starts: list[Any] | None = given if isinstance(given, list) and len(given) == len(texts) else None
        new_texts: list[Any] = []
        new_starts: list[int | None] = []
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
                new_starts.append(_locate(context, new, starts[i] if starts is not None else None))
            else:
                new_texts.append(t)
                new_starts.append(starts[i] if starts is not None else None)
        answers["text"] = new_texts
        if starts is not None:
            answers["answer_start"] = new_starts
        if not new_texts:
            report.emptied.append(key)
        return found
    single = not isinstance(answers, list)
    items = list(answers) if isinstance(answers, list) else [answers]
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


def _add_aliases(record: dict[str, Any], context: str | None, texts: tuple[str, ...], report: DatasetExport, key: str) -> None:
    """Append the item's accepted aliases to `record["answers"]` as extra golds, in the answers' own shape."""
    answers = record.get("answers")
    if isinstance(answers, dict) and isinstance(answers.get("text"), list):  # HF columns
        have = {_answer_text(t) for t in answers["text"]}
        starts = answers.get("answer_start")
        for text in (t for t in texts if t not in have):
            answers["text"].append(text)
            if isinstance(starts, list):
                starts.append(_locate(context, text, None))
            report.aliases_added += 1
        return
    if answers is None or answers == [] or isinstance(answers, (dict, str)) and not _answer_text(answers):
        for text in texts:
            report.not_applied.append({"item_key": key, "alias": text, "why": "the record has no answer list to extend"})
        return
    items = list(answers) if isinstance(answers, list) else [answers]
    have = {_answer_text(a) for a in items}
    spans = any(isinstance(a, dict) for a in items)
    for text in (t for t in texts if t not in have):
        items.append({"text": text, "answer_start": _locate(context, text, None)} if spans else text)
        report.aliases_added += 1
    record["answers"] = items


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
    raw = sqlite_connection(conn)
    row = raw.execute(
        "SELECT d.path, d.format, f.sha256 FROM datasets d LEFT JOIN files f ON f.path = d.path WHERE d.name = ?",
        (dataset,),
    ).fetchone()
    if row is None:
        raise UnknownNameError("dataset", dataset, known_names(raw, "dataset"))
    rel, fmt, sha = row
    if fmt not in DATASET_FORMATS:
        raise FlagError(f"{rel}: cannot write {fmt} datasets back (supported: {', '.join(DATASET_FORMATS)})")
    source = (Path(runs_dir) / rel).resolve()
    if not source.is_file():
        raise FlagError(f"{rel}: source file of dataset {dataset!r} is gone; reload the runs folder")
    out_path = Path(out_path)
    if out_path.resolve() == source:
        raise FlagError(f"{out_path}: that is the source file itself; write the new release elsewhere")
    if sha and sha256_file(source) != sha:
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
    aliases = current_aliases(raw, dataset)
    changed_lines: dict[int, JsonStyle] = {}
    whole_style = None if doc.is_jsonl else JsonStyle.detect(text, doc.value)
    src_lines = text.split("\n") if doc.is_jsonl else []
    for index, (item, (record, context)) in enumerate(zip(parsed.items, records, strict=True)):
        changes, extra = by_item.pop(item.key, None), aliases.pop(item.key, ())
        if not changes and not extra:
            continue
        if doc.lines is not None:  # JSONL
            number, value = doc.lines[index]
            changed_lines[index] = JsonStyle.detect(src_lines[number - 1].rstrip("\r"), value)
        if extra:
            _apply_aliases(fmt, record, context, extra, report, item.key)
        if not changes:
            continue
        if fmt == "cdqa-v1":
            _apply_cdqa(record, item, changes, report)
        else:
            found = _apply_span(record, context, changes, report, item.key)
            for text in set(changes) - found:
                report.not_applied.append({"item_key": item.key, "old_answer": text, "why": "answer not found in the record"})
    for key, changes in by_item.items():
        for text in changes:
            report.not_applied.append({"item_key": key, "old_answer": text, "why": "item not found in the source file"})
    for key, texts in aliases.items():
        report.not_applied += [{"item_key": key, "alias": t, "why": "item not found in the source file"} for t in texts]

    if doc.is_jsonl:
        out_text = _jsonl_text(text, doc, changed_lines)
    else:
        assert whole_style is not None
        out_text = dump_json(doc.value, whole_style) + ("\n" if whole_style.newline_at_end else "")
    _write_file(out_path, (b"\xef\xbb\xbf" if bom else b"") + out_text.encode(encoding))
    return report


def _write_file(out_path: Path, payload: bytes) -> None:
    """Write through a temporary file, so a failed write leaves no half release behind."""
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(out_path.name + ".tmp")
    try:
        tmp.write_bytes(payload)
        os.replace(tmp, out_path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise QAInspectError(f"{out_path}: cannot write ({exc.strerror or exc})") from None


def _apply_aliases(fmt: str, record: dict[str, Any], context: str | None, texts: tuple[str, ...],
                   report: DatasetExport, key: str) -> None:
    """Aliases are applied before the proposals: a stale gold an alias repeats is then rewritten alike."""
    if fmt == "cdqa-v1":
        report.not_applied += [{"item_key": key, "alias": t, "why": "CDQA v1 records hold one answer; alias not written"}
                               for t in texts]
    else:
        _add_aliases(record, context, texts, report, key)


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
