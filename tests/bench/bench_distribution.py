"""Distribution benchmark (a script, not a test): score histograms and the A-vs-B grid at 100k items.

    python tests/bench/bench_distribution.py [--items 100000] [--runs 10] [--db PATH] [--rebuild] [--rounds 5]

Uses the synthetic database of `bench_tui.py` (built on first use) and prints, median / worst of
the rounds: `core.query.histogram` of one run over every item and over its errors (EM 0), with
run B beside it, `score_grid` of A vs B, the count of one grid cell (what the browser opened on a
cell counts first), and the headless app's `D` in a compare browser until the view shows its numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _bench_tui():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_tui", HERE / "bench_tui.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(fn: Callable[[], object], rounds: int) -> tuple[float, float]:
    """(median, worst) seconds of `rounds` calls."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), max(times)


def core_figures(db: Path, rounds: int) -> dict[str, tuple[float, float]]:
    from qa_inspect.core.query import Filter, count, grid_cell, histogram, score_grid
    from qa_inspect.core.store import open_db

    conn = open_db(db).conn
    f = Filter(run="run-05")
    pair = f.with_(compare="run-06")
    return {
        "histogram, every item": timed(lambda: histogram(conn, f), rounds),
        "histogram, EM 0 items": timed(lambda: histogram(conn, f.with_(em=0)), rounds),
        "histogram of run B beside A": timed(lambda: histogram(conn, pair, "b"), rounds),
        "score grid A × B": timed(lambda: score_grid(conn, pair), rounds),
        "count of one grid cell": timed(lambda: count(conn, grid_cell(pair, "50–99", "100")), rounds),
    }


async def screen_figure(db: Path, rounds: int) -> tuple[float, float]:
    from qa_inspect.core.query import Filter
    from qa_inspect.tui.app import QAInspectApp
    from qa_inspect.tui.screens import DistributionScreen

    app = QAInspectApp(db_path=db, runs_dir=db.parent, remember=False)
    times = []
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause(0.5)
        for _ in range(rounds):
            screen = DistributionScreen(Filter(run="run-05", compare="run-06"))
            t0 = time.perf_counter()
            app.push_screen(screen)
            while screen.loaded_generation != screen.generation or screen.grid is None:
                await pilot.pause(0.002)
            await pilot.pause()
            times.append(time.perf_counter() - t0)
            app.pop_screen()
            await pilot.pause(0.05)
    return statistics.median(times), max(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "qa-inspect-bench-tui.db")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the database even if it exists")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    bench_tui = _bench_tui()
    if args.rebuild or not args.db.exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(HERE / "bench_tui.py"), "--build-only", "--db", str(args.db),
                        "--items", str(args.items), "--runs", str(args.runs)], check=True)
        print(f"built {args.items:,} items × {args.runs} runs in {time.perf_counter() - t0:.1f} s → {args.db}")
    print(f"machine: {bench_tui.machine()}")
    print(f"database: {args.items:,} items × {args.runs} runs, {args.db.stat().st_size / 1e6:.0f} MB")
    for name, (median, worst) in core_figures(args.db, args.rounds).items():
        print(f"{name + ':':32} {median * 1000:7.0f} ms median, {worst * 1000:7.0f} ms worst")
    median, worst = asyncio.run(screen_figure(args.db, args.rounds))
    print(f"{'D → view filled (headless app):':32} {median * 1000:7.0f} ms median, {worst * 1000:7.0f} ms worst")


if __name__ == "__main__":
    main()
