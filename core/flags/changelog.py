"""Release notes: the patch as a Markdown changelog for the dataset's release page.

One row per proposal on a flagged gold (as the patch has one line each): item, question, old
gold → proposed gold, reason, evidence, who and when; a table per dataset and item tag (CDQA:
fast/slow/never-changing), tags in that order, then any other, then untagged. Pure over
`current_flags`; the Markdown table writer is passed in (`core.query.markdown_table`, the one
Markdown-cell rule), since `core.flags` sits below `core.query`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .aliases import Alias
from .current import Flag, Proposal

__all__ = ["ALIAS_COLUMNS", "CHANGELOG_COLUMNS", "changelog"]

CHANGELOG_COLUMNS = ("item", "question", "old gold", "proposed gold", "reason", "evidence", "by", "when", "status")
ALIAS_COLUMNS = ("item", "question", "accepted answer", "from run", "note", "by", "when", "status")
TableWriter = Callable[[Sequence[object], Iterable[Sequence[object]]], str]

_TAG_ORDER = ("fast-changing", "slow-changing", "never-changing")
_UNTAGGED = "untagged"


def _tag_rank(tag: str) -> tuple[int, str]:
    if tag in _TAG_ORDER:
        return _TAG_ORDER.index(tag), tag
    return (len(_TAG_ORDER) + (tag == _UNTAGGED), tag)


def _rows(flags: Sequence[Flag]) -> list[tuple[object, ...]]:
    """One row per proposal (a flag without any: one row of its deciding mark)."""
    rows: list[tuple[object, ...]] = []
    for f in flags:
        proposals: list[Proposal] | list[None] = f.proposals or [None]
        for p in proposals:
            proposed = p.proposed if p else f.proposed
            ts = (p.ts if p else f.ts)[:16].replace("T", " ")
            status = f.status + (", conflicting proposals" if f.conflict else "")
            rows.append((f.item_key, f.question, f.gold_text, proposed or "(none: drop the answer)",
                         p.reason if p else f.reason, p.evidence if p else f.evidence,
                         p.author if p else f.author, ts, status))
    return rows


def _alias_part(aliases: Sequence[Alias], table: TableWriter) -> list[str]:
    """Per dataset, the answers accepted as extra golds (`ALIAS_COLUMNS`); nothing when there are none."""
    if not aliases:
        return []
    parts = ["", "## Accepted aliases (extra gold answers)", ""]
    for dataset in sorted({a.dataset for a in aliases}):
        rows = [(a.item_key, a.question, a.text, a.run, a.note, a.author, a.ts[:16].replace("T", " "), a.status)
                for a in aliases if a.dataset == dataset]
        parts += [f"### {' '.join(dataset.split())} ({len(rows)})", "", table(ALIAS_COLUMNS, rows)]
    return parts


def changelog(
    flags: Sequence[Flag], table: TableWriter, *, title: str = "Changelog", aliases: Sequence[Alias] = (),
) -> str:
    """Markdown: a heading, one line of counts, then per dataset and tag a table (`CHANGELOG_COLUMNS`),
    and last the accepted aliases (`aliases`, from `alias_list`) per dataset (`ALIAS_COLUMNS`)."""
    parts = [f"# {title}", ""]
    if not flags:
        return "\n".join(parts + ["No stale golds are flagged.", *_alias_part(aliases, table), ""])
    items = len({(f.dataset, f.item_key) for f in flags})
    parts += [f"{len(flags)} stale gold{'s' if len(flags) != 1 else ''} on {items} item{'s' if items != 1 else ''}"
              f" with the answers annotators propose instead.", ""]
    groups: dict[str, dict[str, list[Flag]]] = {}
    for f in flags:
        tag = f.tags.get("tag") or _UNTAGGED
        groups.setdefault(f.dataset, {}).setdefault(tag, []).append(f)
    for dataset in sorted(groups):
        parts += [f"## {' '.join(dataset.split())}", ""]
        for tag in sorted(groups[dataset], key=_tag_rank):
            group = groups[dataset][tag]
            parts += [f"### {tag} ({len(group)})", "", table(CHANGELOG_COLUMNS, _rows(group))]
    return "\n".join(parts + _alias_part(aliases, table))
