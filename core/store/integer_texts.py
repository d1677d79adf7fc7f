"""Columns read as comma-joined texts of integers: SQLite builds each text in C (`group_concat`)
and numpy parses it in C, so a million rows cost no Python object each (a row of Python objects
cost more than reading it). The facet frames and the comparison's arrays are read this way.

Scores (0…1, F1 and the like) travel as integers too: times `SCORE_SCALE` a score of at least
2⁻¹⁰ is an integer that SQLite and numpy hold exactly (its last bit is then worth 2⁻⁶² or more),
so it comes back bit for bit. A score the integer does not hold (tiny, negative, above 2) is
listed by its key instead, for the caller to read again as a float.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["SCORE_SCALE", "integer_texts", "parse_integers", "scaled_score_sql", "scores_from_integers"]

SCORE_SCALE = 1 << 62
"""What a score is multiplied by to travel as an integer (see the module docstring)."""


def scaled_score_sql(column: str, key: str) -> tuple[str, str]:
    """A score column's SQL for the texts read: its scaled integer (NULL → −1), and the `key` of
    a row whose score the integer does not hold exactly (NULL otherwise, which `group_concat`
    skips: only those few are listed)."""
    scaled = f"{column} * {SCORE_SCALE}"
    return (f"COALESCE(CAST({scaled} AS INTEGER), -1)",
            f"CASE WHEN {column} < 0 OR CAST({scaled} AS INTEGER) != {scaled} THEN {key} END")


def parse_integers(text: str | None) -> np.ndarray:
    """A `group_concat` of integers as int64 (None: no rows)."""
    import numpy as np  # with the first read, not with the app

    return np.fromstring(text, dtype=np.int64, sep=",") if text else np.zeros(0, dtype=np.int64)


def integer_texts(conn: Any, exprs: Sequence[str], rest: str, params: Sequence[Any]) -> list[np.ndarray]:
    """Every expression over the rows of `rest` (FROM … WHERE …) as int64 arrays, in one pass:
    expressions never NULL stay aligned (the texts follow one scan); one NULL but for a few rows
    lists those few."""
    texts = conn.execute(f"SELECT {', '.join(f'group_concat({e})' for e in exprs)} {rest}", params).fetchone()
    return [parse_integers(t) for t in texts]


_NAME = re.compile(r"(?:\w+\.)?\w+")
"""A table or column name that may enter the SQL of `scores_from_integers` (the callers' fixed ones)."""


def scores_from_integers(conn: Any, table: str, column: str, run: int, raw: np.ndarray, listed: np.ndarray,
                         keys: np.ndarray) -> np.ndarray:
    """A score column as floats from its two texts (`scaled_score_sql`): the scaled integers
    (−1: NULL → NaN), then the scores the integers could not hold, read again as floats from
    `column` of `table` for run `run` by their items (`listed`) and put back where their item
    stands in `keys` (the item ids of `raw`, ascending)."""
    import numpy as np  # with the first read, not with the app

    if not (_NAME.fullmatch(table) and _NAME.fullmatch(column)):  # a schema may name the table (`temp.`)
        raise ValueError(f"{table}.{column}")
    out = np.where(raw < 0, np.nan, raw / SCORE_SCALE)
    ids = sorted(set(listed.tolist()))
    for start in range(0, len(ids), 500):  # within SQLite's parameter limit
        part = ids[start:start + 500]
        rows = conn.execute(f"SELECT item_id, {column} FROM {table} WHERE run_id = ? AND item_id IN"
                            f" ({', '.join('?' * len(part))})", [run, *part]).fetchall()
        if rows:
            items = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            out[np.searchsorted(keys, items)] = np.fromiter((r[1] for r in rows), dtype=np.float64, count=len(rows))
    return out
