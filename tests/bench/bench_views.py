"""Views at scale (a script, not a test): n/p and positions, facet counts, a new filter's count and
the compare screen's statistics, each printed beside its target.

    python tests/bench/bench_views.py [--items 1000000] [--db PATH] [--compare] [--facets-only]
    python tests/bench/bench_views.py --compare-app COPY.db RUN_A RUN_B

Works on a copy of the synthetic database of `bench_tui.py` (built there first if missing: 2 runs
of `--items` items) or of `--db`. Figures (median of the anchors or filters, in ms):

- n / p: `core.query.neighbour` ±1 from anchors spread over the filter, per sort; beside it the
  window-function ranking it replaced (`LEAD … OVER (ORDER BY …)`, one anchor: the floor of the
  old way) and the ratio. Target < 100 ms.
- position: `core.query.position` (a count of the rows before the item; the detail shows the item
  first and the position when counted, so it is not on the n/p path). No target.
- jump-to-item: `core.query.rows_around` (the browser's window around an item by keyset each side,
  shown before its position is counted) from the same anchors. Target < 100 ms.
- a new filter's count: `core.query.metrics_ab` (count and metrics) by the SQL pass (no frame),
  then in a new process with the run's frame stored (`core.query.facet_frame`; the first count
  reads it). Target < 300 ms.
- facets: the first panel of a run without a stored frame (its rows read, then stored) and in a
  new process with it stored (target < 1 s); every run's frame stored at once (`warm_frames`, what
  `qa-inspect load` adds after a load that changed something) as a share of the 1M load
  (`--load-seconds`); every facet of a new filter from the frame (target < 1 s); beside it one
  pass over the filter's items evaluating every facet (`pass_counts`, before). `--facets-only`:
  these and the counts alone (no n/p steps).
- `--compare`: as the compare screen runs it (the comparison's arrays read once, `comparison_arrays`;
  the counts from them, `diff_runs(…, arrays=…)`, beside `ahead_tests`, every slice's test at the
  screen's resample count; then `diff_significance` picks the diff's rows), time, CPU time and peak
  memory of a child process, after the passages sharing a text are stored (as the first comparison
  stores them). Target < 5 s and 500 MB.
  `--compare-app`: the same in the app (the compare screen pushed over the overview, both workers
  as the screen starts them): times to the counts and to the statistics on screen, peak memory.

`m` on the overview is measured by `bench_stale_mode.py` (real data).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tui import DB, discover, machine, work_copy  # noqa: E402


def _ms(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return 1000 * (time.perf_counter() - t0)


def _ranked_neighbour(conn: sqlite3.Connection, f: Any, item_id: int, step: int) -> Any:
    """The old way: every row of the filter ranked by a window function."""
    from qa_inspect.core.query.sql import build, order_clause

    sql, params = build(conn, f)
    order_params: list[Any] = []
    order = order_clause(f, order_params)
    fn = "LEAD" if step >= 0 else "LAG"
    return conn.execute(f"SELECT nid FROM (SELECT i.id AS id, {fn}(i.id, {abs(step)}) OVER (ORDER BY {order}) AS nid"
                        f" {sql}) WHERE id = ?", [*order_params, *params, item_id]).fetchone()


def steps(conn: sqlite3.Connection, base: Any, compare: str | None) -> None:
    from qa_inspect.core.query import build_delta_order, neighbour, page_ids, position, rows_around

    sorts = [base, base.with_(sort="f1", descending=True), base.with_(em=0), base.with_(sort="f1", em=0),
             base.with_(sort="split"), base.with_(sort="question")]
    if compare:
        delta = base.with_(compare=compare, sort="delta", descending=True)
        built = build_delta_order(conn, delta)
        sorts.append(delta)
        print(f"  (Δ order of the pair stored: {built})")
    print("n / p (target < 100 ms; ranked = the window function it replaced); jump-to-item median / worst"
          " (`rows_around`, target < 100 ms):")
    for f in sorts:
        anchors = [ids[0] for k in range(1, 10) if (ids := page_ids(conn, f, k * 90_000, 1))]
        times = [_ms(lambda a=a, s=s: neighbour(conn, f, a, s)) for a in anchors for s in (1, -1)]
        ranked = _ms(lambda: _ranked_neighbour(conn, f, anchors[len(anchors) // 2], 1))
        pos = statistics.median(_ms(lambda a=a: position(conn, f, a)) for a in anchors[::3])
        jumps = [_ms(lambda a=a: rows_around(conn, f, a, 60, 59)) for a in anchors]
        print(f"  {_short(f):<40} n/p median {statistics.median(times):7.1f}, worst {max(times):7.1f} ms;"
              f" ranked {ranked:7.0f} ms (×{ranked / max(statistics.median(times), 0.1):.0f}, n/p taken as ≥ 0.1 ms);"
              f" position {pos:6.0f} ms; jump {statistics.median(jumps):6.1f} / {max(jumps):6.1f} ms")


def _forget_frames() -> None:
    """Drop what this process keeps (frames, facet tables, journal facets' items): the next read
    is a new process's, from the stored frame if there is one."""
    import importlib

    importlib.import_module("qa_inspect.core.query.facet_frame")._FRAMES.clear()
    importlib.import_module("qa_inspect.core.query.count_frame")._LIVE.clear()
    importlib.import_module("qa_inspect.core.query.facets")._KEPT.clear()


def facets_and_counts(conn: sqlite3.Connection, base: Any, load_s: float) -> None:
    from qa_inspect.core.query import facet_tables, metrics_ab, warm_frames
    from qa_inspect.core.query.facets import facet_defs, pass_counts

    filters = [base.with_(em=0), base.with_(splits=("challenge",)), base.with_(tags=("fast-changing",), em=0),
               base.with_(f1_min=0.2, f1_max=0.8), base.with_(facets=(("error_category", "empty"),)),
               base.with_(answer_types=("person", "date")), base.with_(em=1, splits=("dev",))]
    stored = conn.execute("SELECT COUNT(DISTINCT run_id) FROM frame_columns").fetchone()[0]
    conn.execute("DELETE FROM frame_columns")
    _forget_frames()
    counts = [_ms(lambda f=f: metrics_ab(conn, f)) for f in filters]
    print(f"new filter's count + metrics, SQL pass (no frame): median {statistics.median(counts):6.0f},"
          f" worst {max(counts):6.0f} ms")
    cpu0 = time.process_time()
    unstored = _ms(lambda: facet_tables(conn, base))
    print(f"first facet panel of the run, no stored frame (rows read, frame stored): {unstored:8.0f} ms"
          f" ({time.process_time() - cpu0:.2f} s CPU: on a shared machine wall time is mostly waiting for a core)")
    conn.execute("DELETE FROM frame_columns")
    _forget_frames()
    t0, cpu0 = time.perf_counter(), time.process_time()
    runs = warm_frames(conn)
    warm, warm_cpu = time.perf_counter() - t0, time.process_time() - cpu0
    print(f"every run's frame stored at once (`warm_frames`, as `qa-inspect load` does after a change;"
          f" the copy held {stored} stored parts): {runs} runs {warm:.1f} s ({warm_cpu:.1f} s CPU)"
          f" = {100 * warm / load_s:.1f}% of a {load_s:.1f} s load")
    _forget_frames()
    counts = [_ms(lambda f=f: metrics_ab(conn, f)) for f in filters]
    print(f"new filter's count + metrics in a new process (stored frame): first {counts[0]:6.0f} ms (frame read),"
          f" median {statistics.median(counts):6.0f}, worst {max(counts):6.0f} ms   (target < 300 ms)")
    _forget_frames()
    first = _ms(lambda: facet_tables(conn, base))
    print(f"first facet panel of the run in a new process (stored frame): {first:8.0f} ms   (target < 1000 ms)")
    panel = [_ms(lambda f=f: facet_tables(conn, f)) for f in filters]
    print(f"facet counts, new filter: median {statistics.median(panel):6.0f}, worst {max(panel):6.0f} ms"
          "   (target < 1000 ms)")
    old = _ms(lambda: pass_counts(conn, filters[0], facet_defs(conn, filters[0])))
    print(f"  one pass per filter (before): {old:6.0f} ms for {_short(filters[0])} (×{old / panel[0]:.1f})")


def compare_child(db: Path, run: str, other: str) -> None:
    """In a child: the compare screen's workers as it runs them: one thread reads the comparison's
    arrays (`comparison_arrays`), hands them to the counts (`diff_runs(…, arrays=…)`, on the main
    thread) and tests every slice (`ahead_tests`), then the diff's rows are picked
    (`diff_significance(…, ahead=…)`); prints JSON with each step's time. `serial`: the counts
    from SQL, then the statistics with no tests ahead (the way before), when QA_BENCH_SERIAL is set."""
    import threading

    from qa_inspect.core import report
    from qa_inspect.tui.screens.compare import stats_resamples

    def connect() -> sqlite3.Connection:
        return sqlite3.connect(f"file:{db}?mode=ro", uri=True, check_same_thread=False)

    conn, side = connect(), connect()
    serial = bool(os.environ.get("QA_BENCH_SERIAL"))
    ahead: dict[str, Any] = {"tests": None}
    arrays_in = threading.Event()
    t0, c0 = time.perf_counter(), time.thread_time()

    def beside() -> None:
        c1 = time.thread_time()
        try:
            held = [report.comparison_arrays(side, run, other)]
            ahead.update(arrays=held[0], arrays_s=time.perf_counter() - t0, arrays_cpu_s=time.thread_time() - c1)
        finally:
            arrays_in.set()
        ahead["tests"] = report.ahead_tests(side, run, other, lambda n: report.StatOptions(resamples=stats_resamples(n)),
                                            arrays=held.pop())
        ahead.update(ahead_cpu_s=time.thread_time() - c1, ahead_s=time.perf_counter() - t0)

    worker = threading.Thread(target=beside)
    if not serial:
        worker.start()
        arrays_in.wait()
    diff = report.diff_runs(conn, run, other, top=20, arrays=ahead.pop("arrays", None))
    counts, counts_cpu = time.perf_counter() - t0, time.thread_time() - c0
    resamples = stats_resamples(diff.common)
    if not serial:
        worker.join()
    sig = report.diff_significance(conn, diff, report.StatOptions(resamples=resamples), ahead=ahead["tests"])
    assert sig is not None
    tests = ahead.pop("tests")
    print(json.dumps({"counts_s": counts, "total_s": time.perf_counter() - t0, "resamples": resamples,
                      "ahead_used": tests is not None and sig.tests == tests.tests.for_slices(
                          [(s.dimension, s.value, s.metric) for s in diff.slices], {}).tests,
                      "cpu_s": time.process_time(), "counts_cpu_s": counts_cpu, **ahead, "load": os.getloadavg()[0],
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def compare_app(db: Path, run: str, other: str) -> None:
    """In a child: the app on `db`, the compare screen pushed from the overview as `c` pushes it;
    times to the counts and to the intervals and p-values on screen, peak memory, the resident size
    when `c` is pressed (the overview's, under the screen), the process's CPU time (the app's start
    included) and the load average; prints JSON."""
    import asyncio

    from bench_tui import _rss, _until

    async def go() -> dict[str, Any]:
        from qa_inspect.tui.app import QAInspectApp
        from qa_inspect.tui.screens import CompareScreen

        app = QAInspectApp(db_path=db, runs_dir=db.parent, remember=False)
        async with app.run_test(size=(160, 50)) as pilot:
            await _until(lambda: bool(app.screen.query(".runs-table")))
            await pilot.pause()
            base = _rss()[0]  # the overview's, under the screen
            t0 = time.perf_counter()
            screen = CompareScreen(run, other)
            app.push_screen(screen)
            await _until(lambda: screen.loaded_generation == screen.generation, 0.005)
            counts = time.perf_counter() - t0
            await _until(lambda: screen.stats_generation == screen.generation, 0.005)
            total = time.perf_counter() - t0
            assert screen.significance is not None
            return {"counts_s": counts, "total_s": total, "peak_mb": _rss()[1], "before_mb": base,
                    "rows": len(screen.significance.tests), "cpu_s": time.process_time(), "load": os.getloadavg()[0]}

    print(json.dumps(asyncio.run(go())))


def _short(f: Any) -> str:
    from qa_inspect.core.query import Filter

    default = Filter()
    parts = [f"{k}={getattr(f, k)!r}" for k in Filter.__dataclass_fields__
             if getattr(f, k) != getattr(default, k) and k not in ("dataset", "run")]
    return ", ".join(parts) or "(run only)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--db", type=Path, default=None, help="a database to copy (default: bench_tui's synthetic one)")
    ap.add_argument("--load-seconds", type=float, default=76.7,
                    help="the 1M load's time the warm-up is a share of (docs/performance.md, bench_scale.py)")
    ap.add_argument("--compare", action="store_true", help="also time the compare screen's statistics (minutes)")
    ap.add_argument("--facets-only", action="store_true", help="the facet panel and the counts alone (no n/p steps)")
    ap.add_argument("--compare-child", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--compare-app", nargs=3, metavar=("DB", "RUN_A", "RUN_B"),
                    help="time the compare screen in the app on DB (a copy you may write: the app migrates it)")
    args = ap.parse_args()
    if args.compare_child:
        compare_child(Path(args.compare_child[0]), *args.compare_child[1:])
        return
    if args.compare_app:
        compare_app(Path(args.compare_app[0]), *args.compare_app[1:])
        return
    source = args.db or DB.with_name(f"qa-inspect-bench-views-{args.items}.db")
    if args.db is None and not source.exists():
        subprocess.run([sys.executable, str(Path(__file__).with_name("bench_tui.py")), "--build-only", "--db",
                        str(source), "--items", str(args.items), "--runs", "2"], check=True)
    work, conn = work_copy(source, args.items, "views.db")
    try:
        from qa_inspect.core.query import Filter

        dataset, run, other = discover(work, None, None, None)
        n = conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
        print(f"machine: {machine()}; load average {os.getloadavg()[0]:.2f}")
        print(f"database: {n:,} items, runs {run} and {other}")
        base = Filter(dataset=dataset, run=run)
        if not args.facets_only:
            steps(conn, base, other)
        facets_and_counts(conn, base, args.load_seconds)
        if args.compare and other:
            from qa_inspect.core.store import passage_firsts

            t0 = time.perf_counter()
            passage_firsts(conn, conn.execute("SELECT dataset_id FROM runs WHERE name = ?", (run,)).fetchone()[0])
            print(f"passages sharing a text stored (`store.passage_firsts`, once per loaded data):"
                  f" {time.perf_counter() - t0:.1f} s")
            out = subprocess.run([sys.executable, __file__, "--compare-child", str(work), run, other],
                                 check=True, capture_output=True, text=True).stdout
            res = json.loads(out.strip().splitlines()[-1])
            print(f"compare screen: counts {res['counts_s']:.1f} s, intervals and p-values at {res['resamples']}"
                  f" resamples {res['total_s']:.1f} s (CPU {res['cpu_s']:.1f} s), peak {res['peak_mb']:.0f} MB"
                  "   (target < 5 s, 500 MB)")
        print(f"load average after: {os.getloadavg()[0]:.2f}")
    finally:
        conn.close()
        shutil.rmtree(work.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
