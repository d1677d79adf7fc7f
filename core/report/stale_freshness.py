"""How fresh a dataset's golds are: the share verified within 30/90/365 days, and open stale flags,
per tag and per answer type (a gold is verified by a `verify` journal entry: `core.review`).

Counted over the scored golds (superseded original answers are not counted) of each loaded
dataset; a gold flagged stale now (`STALE_GOLDS_SQL`) counts under "stale open" whatever its
verification dates say.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from qa_inspect.core.flags import Target
from qa_inspect.core.review import last_verified, ts_date
from qa_inspect.core.store import STALE_GOLDS_SQL, sqlite_connection

__all__ = ["FRESHNESS_WINDOWS", "FreshnessRow", "freshness", "freshness_overview"]

FRESHNESS_WINDOWS = (30, 90, 365)

_GOLDS_SQL = f"""
SELECT d.name, i.key, g.text, i.tag, i.answer_type, g.id IN (SELECT gold_id FROM ({STALE_GOLDS_SQL}))
FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d ON d.id = i.dataset_id
WHERE g.superseded = 0 {{where}} ORDER BY d.name, i.id, g.idx
"""


@dataclass(slots=True)
class FreshnessRow:
    """One dataset × (all | one tag | one answer type): golds, how many verified within each window."""

    dataset: str
    dimension: str
    """"all", "tag" or "answer_type"."""
    value: str | None
    golds: int = 0
    verified_within: dict[int, int] = field(default_factory=lambda: dict.fromkeys(FRESHNESS_WINDOWS, 0))
    never_verified: int = 0
    stale_open: int = 0

    def share(self, days: int) -> float | None:
        """Share of the golds verified within `days` (None for no golds)."""
        return self.verified_within[days] / self.golds if self.golds else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dataset": self.dataset, "dimension": self.dimension, "value": self.value,
                               "golds": self.golds}
        for days in FRESHNESS_WINDOWS:
            out[f"verified_{days}d"] = self.verified_within[days]
            share = self.share(days)
            out[f"share_{days}d"] = None if share is None else round(share, 4)
        out.update(never_verified=self.never_verified, stale_open=self.stale_open)
        return out


def freshness(conn: Any, dataset: str | None = None, *, today: date | None = None) -> list[FreshnessRow]:
    """Per dataset: one "all" row, then one row per tag and per answer type (in that order)."""
    raw = sqlite_connection(conn)
    today = today or datetime.now(timezone.utc).date()
    verified = {t: ts_date(ts) for t, ts in last_verified(raw, dataset).items()}
    rows: dict[tuple[str, str, str | None], FreshnessRow] = {}
    sql = _GOLDS_SQL.format(where="AND d.name = ?" if dataset else "")
    for name, key, gold, tag, answer_type, stale in raw.execute(sql, [dataset] if dataset else []):
        seen = verified.get(Target(name, key, gold))
        age = None if seen is None else (today - seen).days
        for dim, value in (("all", None), ("tag", tag), ("answer_type", answer_type)):
            row = rows.setdefault((name, dim, value), FreshnessRow(name, dim, value))
            row.golds += 1
            row.stale_open += bool(stale)
            row.never_verified += seen is None
            for days in FRESHNESS_WINDOWS:
                row.verified_within[days] += age is not None and age <= days
    order = {"all": 0, "tag": 1, "answer_type": 2}
    return sorted(rows.values(), key=lambda r: (r.dataset, order[r.dimension], r.value or ""))


def freshness_overview(conn: Any, *, today: date | None = None) -> dict[str, FreshnessRow]:
    """Dataset → its "all" row, for the datasets that have any `verify` entry (the overview's line;
    nothing to say, and nothing computed, before anyone verified a gold)."""
    raw = sqlite_connection(conn)
    names = [r[0] for r in raw.execute("SELECT DISTINCT dataset FROM annotations WHERE action = 'verify'")]
    out: dict[str, FreshnessRow] = {}
    for name in names:
        if raw.execute("SELECT 1 FROM datasets WHERE name = ?", (name,)).fetchone():
            out[name] = next(r for r in freshness(raw, name, today=today) if r.dimension == "all")
    return out
