"""Benchmark: `m` on the runs overview (stale golds excluded ↔ all golds) in the headless app.

    python tests/bench/bench_stale_mode.py [--toggles 8] [--every 20] [--keep DIR]
    python tests/bench/bench_stale_mode.py --db COPY.db [--golds 300]   # e.g. a 1M database

The folder: CMRC 2018 dev with its two real runs, and CDQA v1 (4,558 items), from `../shared/data`;
after the load, the first gold of every `--every`-th item is flagged stale (`core.flags.bulk_mark`).
Then the app opens on the overview and `m` is pressed `--toggles` times; each figure is from the
key press until the overview's full pass (with slices) is on screen again. The first switch to
"excluded" re-scores (nothing is kept yet); the others should re-score nothing. Also timed alone:
`overview_excluding_stale` and `stale_counts` on a miss and on a hit. Target: `m` < 300 ms.

`--db`: a loaded database instead (a copy you may write: the first gold of `--golds` items spread
over its items is flagged, unless some gold is flagged already), e.g. the 1M database of
`bench_scale.py --keep` or `bench_tui.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def build(root: Path, every: int) -> int:
    """The folder, loaded, with every `every`-th item's first gold flagged stale."""
    from qa_inspect.core.flags import Target, bulk_mark
    from qa_inspect.core.load import load_runs
    from qa_inspect.core.store import open_db

    (root / "cmrc").mkdir(parents=True)
    (root / "cdqa").mkdir()
    shutil.copy(DATA / "cmrc2018_dev.json", root / "cmrc")
    for run in sorted((DATA / "runs").glob("cmrc2018_dev_*.json")):
        shutil.copy(run, root / "cmrc")
    shutil.copy(DATA / "CDQA_v1.json", root / "cdqa")
    summary = load_runs(root)
    if summary.errors:
        sys.exit(f"load failed: {summary.errors[:3]}")
    conn = open_db(root / ".qa-inspect" / "qa.db").conn
    rows = conn.execute(
        "SELECT d.name, i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id"
        " JOIN datasets d ON d.id = i.dataset_id WHERE g.idx = 0 AND i.id % ? = 0", (every,)
    ).fetchall()
    bulk_mark(conn, [Target(*r) for r in rows], author="bench", check=False)
    conn.close()
    return len(rows)


def flag_spread(db: Path, golds: int) -> int:
    """The first gold of `golds` items spread evenly over the database's items, flagged stale
    (nothing when a flag exists: a re-run measures the same flags)."""
    from qa_inspect.core.flags import Target, bulk_mark
    from qa_inspect.core.store import open_db

    conn = open_db(db).conn
    try:
        if conn.execute("SELECT COUNT(*) FROM annotations").fetchone()[0]:
            return 0
        n = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
        rows = conn.execute(
            "SELECT d.name, i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id"
            " JOIN datasets d ON d.id = i.dataset_id WHERE g.idx = 0 AND i.id % ? = 0 LIMIT ?",
            (max(n // golds, 1), golds)).fetchall()
        bulk_mark(conn, [Target(*r) for r in rows], author="bench", check=False)
        return len(rows)
    finally:
        conn.close()


def core_times(db: Path) -> dict[str, float]:
    """`overview_excluding_stale` and `stale_counts`, a miss (nothing kept) then a hit."""
    from qa_inspect.core.report import overview, overview_excluding_stale, stale_counts
    from qa_inspect.core.store import open_db

    conn = open_db(db).conn
    out = {}
    base = overview(conn)
    for label in ("miss", "hit"):
        t0 = time.perf_counter()
        overview_excluding_stale(conn, base)
        out[f"excluded overview, {label}"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        stale_counts(conn)
        out[f"stale counts, {label}"] = time.perf_counter() - t0
    conn.close()
    return out


async def _until(cond: Any, limit: float = 120.0) -> None:
    t0 = time.perf_counter()
    while not cond():
        await asyncio.sleep(0.002)
        if time.perf_counter() - t0 > limit:
            raise TimeoutError("the overview never completed")


async def toggles(db: Path, root: Path, n: int) -> list[tuple[bool, float]]:
    """(excluded after the press, seconds until the full overview is on screen) per press of `m`."""
    from qa_inspect.tui.app import QAInspectApp
    from textual.worker import WorkerState

    app = QAInspectApp(db_path=db, runs_dir=root, remember=False)
    out = []
    async with app.run_test(size=(160, 50)) as pilot:
        await _until(lambda: bool(app.screen.query(".runs-table")) and getattr(app.screen, "complete", False))
        t0 = time.perf_counter()
        # the overview's intervals and the other mode's numbers (their own workers) finish first:
        # at a million items the intervals resample for seconds and would be timed with each `m`
        await _until(lambda: not any(w.state in (WorkerState.PENDING, WorkerState.RUNNING) for w in app.workers), 600)
        print(f"overview settled (intervals, warm-up) {time.perf_counter() - t0:.1f} s after it was complete")
        await asyncio.sleep(0.5)
        for _ in range(n):
            screen = app.screen
            screen.complete = False
            t0 = time.perf_counter()
            await pilot.press("m")
            await _until(lambda screen=screen: screen.complete)
            out.append((bool(app.exclude_stale), time.perf_counter() - t0))
            await asyncio.sleep(0.3)
        app.exit()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--toggles", type=int, default=8)
    ap.add_argument("--every", type=int, default=20, help="flag the first gold of every N-th item")
    ap.add_argument("--keep", type=Path, default=None, help="build (or reuse) the loaded folder here")
    ap.add_argument("--db", type=Path, default=None, help="a loaded database (a copy: flags are written to it)")
    ap.add_argument("--golds", type=int, default=300, help="with --db: golds to flag, spread over the items")
    args = ap.parse_args()
    if args.db is not None:
        print(f"{platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        print(f"flagged {flag_spread(args.db, args.golds)} golds")
        report(args.db, args.db.parent, args.toggles)
        return
    if not (DATA / "CDQA_v1.json").is_file():
        sys.exit(f"no shared data at {DATA}")
    load = os.getloadavg()
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},"
          f" load average {load[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "runs"
        db = root / ".qa-inspect" / "qa.db"
        if not db.exists():
            print(f"flagged {build(root, args.every)} golds")
        report(db, root, args.toggles)


def report(db: Path, root: Path, n: int) -> None:
    """The core functions' times, then `n` presses of `m` in the app, printed."""
    for label, seconds in core_times(db).items():
        print(f"{label:<32} {seconds * 1000:8.1f} ms")
    presses = asyncio.run(toggles(db, root, n))
    for k, (excluded, seconds) in enumerate(presses):
        print(f"m #{k + 1} → {'excluded' if excluded else 'all golds':<9} {seconds * 1000:8.0f} ms")
    later = [s for _, s in presses[1:]]
    print(f"first {presses[0][1] * 1000:.0f} ms; later median {statistics.median(later) * 1000:.0f} ms,"
          f" worst {max(later) * 1000:.0f} ms   (target < 300 ms); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
