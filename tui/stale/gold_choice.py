"""Which gold `s` and `S` act on in the item detail: chosen with `g` / `G` / 1–9, else the
best-scoring gold. Plain functions of the item and the current choice; the detail screen keeps
the choice in a reactive and redraws when it changes."""

from __future__ import annotations

from qa_inspect.core.query import GoldInfo, ItemDetail

from ..widgets import group_golds


def gold_groups(detail: ItemDetail | None) -> list[list[GoldInfo]]:
    """The scored golds, identical ones grouped (a group is chosen by its first gold)."""
    if detail is None:
        return []
    return [g for g in group_golds(detail.golds) if not g[0].superseded]


def next_gold(detail: ItemDetail | None, chosen: int | None, step: int) -> int | None:
    """The gold `step` groups after (or before) `chosen`; the first (last) when none is chosen."""
    groups = gold_groups(detail)
    if not groups:
        return chosen
    current = next((k for k, g in enumerate(groups) if chosen in [x.idx for x in g]), None)
    k = (0 if step > 0 else len(groups) - 1) if current is None else (current + step) % len(groups)
    return groups[k][0].idx


def gold_by_number(detail: ItemDetail, n: int) -> int | str | None:
    """The gold shown as number `n + 1` (its group's first); a warning for a superseded gold;
    None when there is no such gold."""
    golds = detail.golds
    if n >= len(golds):
        return None
    if golds[n].superseded:
        return f"Gold {n + 1} is superseded by the dataset's rewrite: it is not scored and cannot be flagged."
    group = next((g for g in gold_groups(detail) if any(x.idx == n for x in g)), None)
    return group[0].idx if group else n


def target_gold(detail: ItemDetail | None, chosen: int | None) -> int | None:
    """The chosen gold, else the best-scoring one, else the first scored gold."""
    if chosen is not None:
        return chosen
    p = detail.prediction if detail is not None else None
    best = next((m.gold_idx for m in p.per_gold if m.best), None) if p is not None else None
    if best is not None:
        return best
    groups = gold_groups(detail)
    return groups[0][0].idx if groups else None


__all__ = ["gold_by_number", "gold_groups", "next_gold", "target_gold"]
