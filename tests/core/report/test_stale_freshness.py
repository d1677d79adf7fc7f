"""core.report.freshness: golds verified within 30/90/365 days and open stale flags, per tag and type."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core.report import freshness
from qa_inspect.core.store import open_db, write_transaction

from tests.core.review.make_runs import make_review_runs
from qa_inspect.core.load import load_runs

pytestmark = pytest.mark.usefixtures("no_author_env")


def test_windows_tags_and_open_flags(tmp_path: Path) -> None:
    runs = make_review_runs(tmp_path)
    load_runs(runs, tmp_path / "qa.db")
    conn = open_db(tmp_path / "qa.db").conn
    ref = {r.question: r for r in (F.resolve_item(conn, q) for q in
                                   ("《红楼梦》的作者是谁？", "澜州市最近开通运营的地铁线路是几号线？", "云帆科技最近发布的旗舰手机叫什么？"))}
    hong, metro, phone = (F.targets_of(r)[0] for r in ref.values())
    write_transaction(conn, lambda c: [
        F.insert_entry(c, "verify", hong, "ann", ts="2025-10-20T00:00:00.000Z"),   # 12 days before today
        F.insert_entry(c, "verify", metro, "ann", ts="2025-06-01T00:00:00.000Z"),  # 153 days
        F.insert_entry(c, "verify", phone, "ann", ts="2023-01-01T00:00:00.000Z"),  # years
    ])
    F.mark(conn, metro.dataset, metro.item_key, metro.gold_text, author="bob")
    rows = {(r.dimension, r.value): r for r in freshness(conn, today=date(2025, 11, 1))}
    total = rows[("all", None)]
    assert (total.golds, total.verified_within, total.never_verified, total.stale_open) == (6, {30: 1, 90: 1, 365: 2}, 3, 1)
    fast = rows[("tag", "fast-changing")]
    assert (fast.golds, fast.share(365), fast.stale_open) == (3, pytest.approx(1 / 3), 1)
    assert rows[("answer_type", "person")].share(30) == 0.5
    assert [r.dimension for r in freshness(conn, "review", today=date(2025, 11, 1))][:2] == ["all", "tag"]
    conn.close()
