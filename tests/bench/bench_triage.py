"""Triage benchmark (a script, not a test): compare screen, facet panel and export at 100k items.

    python tests/bench/bench_triage.py [--items 100000] [--runs 10] [--db PATH] [--rebuild]

Uses the synthetic database of `bench_tui.py` (built on first use) and a headless app; prints:

- compare screen: `c` → the diff on screen (core.diff on 100k items runs in a worker),
- filter changes with the facet panel shown: the item table's median / worst (it must not wait for
  the facet counts) and the time until the panel shows the new filter's counts,
- export of the run's items to CSV (`e`, in a worker) until the notification,
- peak memory of the process.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _bench_tui():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_tui", HERE / "bench_tui.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def wait(pilot, done, timeout: float = 60.0) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    while not done():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("benchmark step did not finish")
        await pilot.pause(0.002)
    return time.perf_counter() - t0


async def measure(db: Path, out_dir: Path, rounds: int) -> dict[str, object]:
    from qa_inspect.core.query import Filter
    from qa_inspect.tui.app import QAInspectApp
    from qa_inspect.tui.dialogs import ExportDialog
    from qa_inspect.tui.screens import BrowserScreen, CompareScreen
    from qa_inspect.tui.widgets import FacetPanel, ItemTable

    app = QAInspectApp(db_path=db, runs_dir=out_dir)
    res: dict[str, object] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        await wait(pilot, lambda: bool(app.screen.query(".runs-table")))
        app.open_run("run-05")
        await wait(pilot, lambda: isinstance(app.screen, BrowserScreen) and app.screen.total is not None
                   and bool(app.screen.query_one(ItemTable).win_rows))
        browser = app.screen
        assert isinstance(browser, BrowserScreen)

        # compare screen: B already chosen, so c goes straight to the diff
        browser.set_filter(browser.filter.with_(compare="run-09"))
        await wait(pilot, lambda: browser.count_generation == browser.generation)
        t0 = time.perf_counter()
        await pilot.press("c")
        await wait(pilot, lambda: isinstance(app.screen, CompareScreen) and app.screen.diff is not None)
        compare = app.screen
        assert isinstance(compare, CompareScreen)
        res["compare_s"] = time.perf_counter() - t0
        res["compare_common"] = compare.diff.common if compare.diff else 0
        await wait(pilot, lambda: compare.stats_generation == compare.generation, timeout=300)
        res["compare_stats_s"] = time.perf_counter() - t0  # intervals and p filled in by their worker
        res["compare_tests"] = len(compare.significance.tests) if compare.significance else 0
        await pilot.press("escape")
        await wait(pilot, lambda: app.screen is browser)

        # facet panel shown: the table's filter changes must not wait for the counts
        browser.set_filter(Filter(dataset="synthetic", run="run-05"))
        await wait(pilot, lambda: browser.count_generation == browser.generation)
        panel = browser.query_one(FacetPanel)
        t0 = time.perf_counter()
        await pilot.press("ctrl+f")
        await wait(pilot, lambda: panel.loaded_generation == panel.generation and panel.tables != [])
        res["facets_first_s"] = time.perf_counter() - t0
        base = Filter(dataset="synthetic", run="run-05")
        changes = [base.with_(em=0), base.with_(splits=("challenge",)), base.with_(tags=("fast-changing",), em=0),
                   base.with_(facets=(("gold_len", "3-5"),)), base.with_(search="的一是"), base]
        table_times: list[float] = []
        facet_times: list[float] = []
        for _ in range(rounds):
            for f in changes:
                t0 = time.perf_counter()
                browser.set_filter(f)
                gen = browser.generation
                await wait(pilot, lambda: browser.window_generation == gen and browser.count_generation == gen)
                table_times.append(time.perf_counter() - t0)
                await wait(pilot, lambda: panel.shown_filter == browser.filter and not panel._dirty
                           and panel.loaded_generation == panel.generation)
                facet_times.append(time.perf_counter() - t0)
        res["table_median_ms"] = 1000 * statistics.median(table_times)
        res["table_worst_ms"] = 1000 * max(table_times)
        res["facets_median_s"] = statistics.median(facet_times)
        res["facets_worst_s"] = max(facet_times)

        # export every item of the run to CSV
        await pilot.press("ctrl+f")
        browser.query_one(ItemTable).focus()
        seen = len(app._notifications)
        t0 = time.perf_counter()
        await pilot.press("e")
        await wait(pilot, lambda: isinstance(app.screen, ExportDialog))
        await pilot.press("enter")
        await wait(pilot, lambda: any("Exported" in str(n.title) for n in list(app._notifications)[seen:]),
                   timeout=300)
        res["export_s"] = time.perf_counter() - t0
        res["export_rows"] = browser.total
    res["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "qa-inspect-bench-tui.db")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "qa-inspect-bench-triage", help="runs folder (exports)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the database even if it exists")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    bench_tui = _bench_tui()
    if args.rebuild or not args.db.exists():
        subprocess.run([sys.executable, str(HERE / "bench_tui.py"), "--build-only", "--db", str(args.db),
                        "--items", str(args.items), "--runs", str(args.runs)], check=True)
    args.out.mkdir(parents=True, exist_ok=True)
    res = asyncio.run(measure(args.db, args.out, args.rounds))
    print(f"machine: {bench_tui.machine()}")
    print(f"database: {args.db} ({args.db.stat().st_size / 1e6:.0f} MB)")
    print(f"compare screen (c → diff shown):       {res['compare_s']:6.2f} s   ({res['compare_common']:,} common items)")
    print(f"  … intervals and p-values filled in:   {res['compare_stats_s']:6.2f} s   ({res['compare_tests']} tests)")
    print(f"facet panel, first counts (ctrl+f):    {res['facets_first_s']:6.2f} s")
    print(f"filter change with the panel shown:    {res['table_median_ms']:6.0f} ms median, "
          f"{res['table_worst_ms']:.0f} ms worst (item table)")
    print(f"  … facet counts of the new filter:    {res['facets_median_s']:6.2f} s median, "
          f"{res['facets_worst_s']:.2f} s worst (debounce included)")
    print(f"export to CSV (e):                     {res['export_s']:6.2f} s   ({res['export_rows']:,} rows)")
    print(f"peak memory (maxrss):                  {res['peak_rss_mb']:6.0f} MB")


if __name__ == "__main__":
    main()
