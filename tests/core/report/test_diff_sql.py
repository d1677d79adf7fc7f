"""`diff_runs` (SQL aggregates, `core.report.diff_sql`, its one engine) equals a plain per-item
computation over the common items (`common_frame`, the arrays the statistics resample) on the
sample databases: every count, slice, category and change; means summed in another order agree
to 1e-9, and `to_dict` (what `diff --json` prints) writes them rounded to `JSON_PLACES`.

CMRC's sample has one split on every item (a slice read from the index, no items joined); CDQA's
has tags and answer types (grouped by them); `within` filters, thresholds and `top` are drawn by
hypothesis, so both ways to the largest changes (enough full swings, or the ORDER BY pass) run.
"""

from __future__ import annotations

import math
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.query import Filter
from qa_inspect.core.metrics import uses_f1_recall
from qa_inspect.core.query import DIMENSIONS
from qa_inspect.core.report import RunDiff, diff_runs
from qa_inspect.core.report.diff import JSON_PLACES, common_frame
from qa_inspect.core.store import open_db, require_run

SETTINGS = settings(max_examples=int(os.environ.get("QA_DIFF_EXAMPLES", "40")), deadline=None)
PAIRS = [
    ("bert-base-chinese", "roberta-wwm-large"), ("roberta-wwm-large", "bidaf-baseline"),
    ("bidaf-baseline", "bert-base-chinese"), ("glm-6b", "qwen-7b-chat"), ("qwen-7b-chat", "glm-6b"),
]
DATASETS = {"bert-base-chinese": "cmrc2018_dev_sample", "roberta-wwm-large": "cmrc2018_dev_sample",
            "bidaf-baseline": "cmrc2018_dev_sample", "glm-6b": "cdqa_sample", "qwen-7b-chat": "cdqa_sample"}


@pytest.fixture(scope="module")
def conn(loaded_db: Path) -> Iterator[sqlite3.Connection]:
    c = open_db(loaded_db).conn
    yield c
    c.close()


def _right(row: dict[str, Any], side: str, t: float | None) -> bool:
    """`query.right_sql` on one item: EM 1, or (threshold) not refused and F1 / F1-recall ≥ t."""
    if t is None:
        return (row[f"em_{side}"] or 0) == 1
    score = _first(row[f"f1_{side}"], row[f"f1_recall_{side}"])
    return not row[f"refused_{side}"] and score >= t


def _first(*values: float | None) -> float:
    return next((v for v in values if v is not None), 0.0)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) * 100 if values else None


def _slices(rows: list[dict[str, Any]], cdqa: bool) -> list[dict[str, Any]]:
    blocks = [("overall", {"all": rows})] if rows else []
    for dim in DIMENSIONS:
        if any(r[dim] is not None for r in rows):
            by: dict[str, list[dict[str, Any]]] = {}
            for r in rows:
                by.setdefault(r[dim] if r[dim] is not None else "—", []).append(r)
            blocks.append((dim, dict(sorted(by.items()))))
    out = []
    for dim, values in blocks:
        for value, members in values.items():
            n = len(members)
            if cdqa:
                ans = {s: [r for r in members if not r[f"refused_{s}"]] for s in "ab"}
                metrics = {
                    "f1_recall": tuple(_mean([r[f"f1_recall_{s}"] or 0.0 for r in ans[s]]) for s in "ab")
                    + (len(ans["a"]), len(ans["b"])),
                    "answer_rate": (len(ans["a"]) / n * 100, len(ans["b"]) / n * 100, n, n),
                }
            else:
                metrics = {m: tuple(_mean([r[f"{m}_{s}"] or 0 for r in members]) for s in "ab") + (n, n)
                           for m in ("em", "f1")}
            for m, (a, b, n_a, n_b) in metrics.items():
                out.append({"dimension": dim, "value": value, "metric": m, "items": n, "a": a, "b": b,
                            "delta": None if a is None or b is None else b - a, "n_a": n_a, "n_b": n_b})
    return out


def _per_item(conn: sqlite3.Connection, a: str, b: str, *, threshold: float = 0.5, top: int = 20,
              within: Filter | None = None) -> dict[str, Any]:
    """The diff's numbers computed item by item in Python from the common items."""
    ra, rb = require_run(conn, a), require_run(conn, b)
    assert ra.dataset_id is not None
    rows = list(common_frame(conn, ra.id, rb.id, ra.dataset_id, within).iter_rows(named=True))
    has_em = any(r["em_a"] is not None for r in rows) and any(r["em_b"] is not None for r in rows)
    if not rows:  # no common item: the scorer decides
        has_em = not uses_f1_recall(ra.scorer, ra.family)
    cuts: list[float | None] = [None, threshold] if has_em else [threshold]
    outcomes = []
    for t in cuts:
        cells = [(_right(r, "a", t), _right(r, "b", t)) for r in rows]
        outcomes.append({"fixed": sum(not x and y for x, y in cells), "broken": sum(x and not y for x, y in cells),
                         "both_wrong": sum(not x and not y for x, y in cells), "both_right": sum(x and y for x, y in cells)})
    fixed: dict[str, int] = {}
    broken: dict[str, int] = {}
    for r in rows:
        x, y = _right(r, "a", cuts[0]), _right(r, "b", cuts[0])
        if y and not x:
            fixed[r["category_a"] or "—"] = fixed.get(r["category_a"] or "—", 0) + 1
        if x and not y:
            broken[r["category_b"] or "—"] = broken.get(r["category_b"] or "—", 0) + 1
    scored = [(0.0 if r["refused_b"] else _first(r["f1_b"], r["f1_recall_b"]))
              - (0.0 if r["refused_a"] else _first(r["f1_a"], r["f1_recall_a"])) for r in rows]
    moved = sorted(((abs(d), r["item_id"], r["key"], d) for d, r in zip(scored, rows) if abs(d) > 1e-12),
                   key=lambda m: (-m[0], m[1]))[:top]
    return {"common": len(rows), "outcomes": outcomes, "slices": _slices(rows, not has_em),
            "categories": {c: (fixed.get(c, 0), broken.get(c, 0)) for c in {*fixed, *broken}},
            "changes": [(key, d) for _, _, key, d in moved]}


def _as_computed(d: RunDiff) -> dict[str, Any]:
    """The same numbers read off `diff_runs`' result."""
    return {"common": d.common,
            "outcomes": [{k: getattr(o, k) for k in ("fixed", "broken", "both_wrong", "both_right")} for o in d.outcomes],
            "slices": [asdict(s) for s in d.slices],
            "categories": {c.category: (c.fixed, c.broken) for c in d.categories},
            "changes": [(c.key, c.delta) for c in d.changes]}


def _same(fast: Any, slow: Any, where: str = "") -> None:
    if isinstance(slow, float) and isinstance(fast, float):
        assert math.isclose(fast, slow, rel_tol=1e-9, abs_tol=1e-9), f"{where}: {fast} != {slow}"
    elif isinstance(slow, dict):
        assert isinstance(fast, dict) and fast.keys() == slow.keys(), where
        for k in slow:
            _same(fast[k], slow[k], f"{where}.{k}")
    elif isinstance(slow, list):
        assert isinstance(fast, list) and len(fast) == len(slow), f"{where}: {len(fast)} != {len(slow)}"
        for k, (x, y) in enumerate(zip(fast, slow, strict=True)):
            _same(x, y, f"{where}[{k}]")
    else:
        assert fast == slow and type(fast) is type(slow), f"{where}: {fast!r} != {slow!r}"


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_diff_equals_the_per_item_numbers(conn: sqlite3.Connection, a: str, b: str) -> None:
    for top in (0, 1, 20, 500):
        _same(_as_computed(diff_runs(conn, a, b, top=top)), _per_item(conn, a, b, top=top))


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_json_writes_means_rounded(conn: sqlite3.Connection, a: str, b: str) -> None:
    d = diff_runs(conn, a, b)
    written = d.to_dict()["slices"]
    assert len(written) == len(d.slices) > 0
    for row, s in zip(written, d.slices, strict=True):
        for k in ("a", "b"):
            assert row[k] == (None if getattr(s, k) is None else round(getattr(s, k), JSON_PLACES))
        if row["a"] is not None and row["b"] is not None:
            assert row["delta"] == round(row["b"] - row["a"], JSON_PLACES)


_WITHIN = st.one_of(
    st.none(),
    st.builds(lambda em: Filter(em=em), st.sampled_from([0, 1])),
    st.builds(lambda t: Filter(tags=(t,)), st.sampled_from(["fast-changing", "never-changing", "slow-changing"])),
    st.builds(lambda t: Filter(answer_types=(t,)), st.sampled_from(["person", "work", "other"])),
    st.builds(lambda lo: Filter(f1_min=lo), st.floats(0.0, 1.0)),
    st.builds(lambda c: Filter(facets=(("error_category", c),)),
              st.sampled_from(["exact", "refused", "wrong", "boundary-long", "partial"])),
)


@SETTINGS
@given(st.sampled_from(PAIRS), st.floats(0.0, 1.0), st.integers(0, 60), _WITHIN)
def test_diff_equals_the_per_item_numbers_anywhere(
    conn: sqlite3.Connection, pair: tuple[str, str], threshold: float, top: int, within: Filter | None,
) -> None:
    a, b = pair
    if within is not None:
        within = within.with_(dataset=DATASETS[a], run=a)
    fast = diff_runs(conn, a, b, threshold=threshold, top=top, within=within)
    _same(_as_computed(fast), _per_item(conn, a, b, threshold=threshold, top=top, within=within))
