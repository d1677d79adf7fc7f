"""TUI benchmark (a script, not a test): 100k items × 10 runs, in a headless app.

    python tests/bench/bench_tui.py [--items 100000] [--runs 10] [--db PATH] [--rebuild]

Builds a synthetic database straight into the real schema (executemany; in a child process, so
the build does not count towards the app's memory), then drives `QAInspectApp` with
`app.run_test` and prints:

- time from opening a run to the first painted item table (count, metrics and first window),
- median and worst time of a filter change (set the filter → count, metrics and rows updated),
- peak memory of the app process (ru_maxrss).

Targets (issue 4): first table < 1 s, filter change < 150 ms median, peak < 400 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CJK = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质"
SPLITS = ("dev", "test", "challenge")
TAGS = ("fast-changing", "slow-changing", "never-changing")
TYPES = ("person", "place", "organisation", "number", "date", "event", "work", "other")


def _text(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choice(CJK) for _ in range(rng.randint(lo, hi)))


def build(path: Path, n_items: int, n_runs: int, seed: int = 7) -> None:
    """Write a dataset of `n_items` items (3 golds each) and `n_runs` scored runs."""
    from qa_inspect.core.store import open_db

    if path.exists():
        path.unlink()
    conn = open_db(path).conn
    rng = random.Random(seed)
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO datasets (id, name, path, format, family, scorer, item_count, gold_count)"
        " VALUES (1, 'synthetic', 'synthetic.json', 'squad', 'cmrc', 'cmrc2018-official', ?, ?)",
        (n_items, 3 * n_items),
    )
    contexts = [(c + 1, 1, f"ctx{c}", None, _text(rng, 300, 600)) for c in range(n_items // 4 + 1)]
    conn.executemany("INSERT INTO contexts (id, dataset_id, context_key, title, text) VALUES (?, ?, ?, ?, ?)", contexts)
    items, golds, fts = [], [], []
    for i in range(1, n_items + 1):
        q = _text(rng, 10, 40) + "？"
        items.append((i, 1, f"SYN_{i}_QUERY", f"q{i}", q, i // 4 + 1, rng.choice(SPLITS), rng.choice(TAGS),
                      rng.choice(TYPES), i, rng.random(), rng.random()))
        gs = [_text(rng, 2, 8) for _ in range(3)]
        golds += [(i, k, g, 0, 0, len(g)) for k, g in enumerate(gs)]
        fts.append((i, q, "\n".join(gs)))
    conn.executemany(
        "INSERT INTO items (id, dataset_id, key, qkey, question, context_id, split, tag, answer_type,"
        " source_line, human_em, human_f1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", items)
    conn.executemany(
        "INSERT INTO golds (item_id, idx, text, answer_start, span_start, span_end) VALUES (?, ?, ?, ?, ?, ?)", golds)
    conn.executemany("INSERT INTO items_fts (rowid, question, golds) VALUES (?, ?, ?)", fts)
    del items, golds, fts
    for r in range(1, n_runs + 1):
        conn.execute(
            "INSERT INTO runs (id, name, path, format, dataset_id, scorer, prediction_count)"
            " VALUES (?, ?, ?, 'prediction-map', 1, 'cmrc2018-official', ?)",
            (r, f"run-{r:02d}", f"runs/run-{r:02d}.json", n_items),
        )
        quality = 0.4 + 0.05 * r
        preds = []
        for i in range(1, n_items + 1):
            pid = (r - 1) * n_items + i
            em = int(rng.random() < quality)
            f1 = 1.0 if em else round(rng.random(), 4)
            preds.append((pid, r, i, _text(rng, 2, 10), i, "cmrc2018-official", em, f1, rng.randrange(3)))
        conn.executemany(
            "INSERT INTO predictions (id, run_id, item_id, text, source_line, scorer, em, f1, best_gold)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", preds)
        conn.executemany("INSERT INTO predictions_fts (rowid, text) VALUES (?, ?)", [(p[0], p[3]) for p in preds])
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()


async def measure(db: Path, rounds: int) -> dict[str, float]:
    from qa_inspect.core.query import Filter
    from qa_inspect.tui.app import QAInspectApp
    from qa_inspect.tui.screens import BrowserScreen
    from qa_inspect.tui.widgets import ItemTable

    app = QAInspectApp(db_path=db, runs_dir=Path("synthetic"))
    out: dict[str, float] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        t0 = time.perf_counter()
        while not app.screen.query(".runs-table"):
            await pilot.pause(0.005)
        await pilot.pause()
        out["overview_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        app.open_run("run-05")
        while not (isinstance(app.screen, BrowserScreen) and app.screen.query(ItemTable)
                   and app.screen.query_one(ItemTable).win_rows and app.screen.total is not None):
            await pilot.pause(0.002)
        await pilot.pause()
        out["first_table_s"] = time.perf_counter() - t0
        screen = app.screen
        assert isinstance(screen, BrowserScreen)

        base = Filter(dataset="synthetic", run="run-05")
        changes = [
            base.with_(em=0), base.with_(em=1), base.with_(splits=("challenge",)),
            base.with_(tags=("fast-changing",), em=0), base.with_(answer_types=("person", "date")),
            base.with_(f1_min=0.2, f1_max=0.8), base.with_(search="的一是"), base.with_(sort="f1"),
            base.with_(sort="f1", descending=True, em=0), base.with_(stale=False),
            base.with_(compare="run-09"), base.with_(compare="run-09", only_disagree=True),
            base.with_(compare="run-09", only_disagree=True, sort="delta", descending=True), base,
        ]
        times: list[float] = []
        for _ in range(rounds):
            for f in changes:
                t0 = time.perf_counter()
                screen.set_filter(f)
                gen = screen.generation
                while screen.window_generation != gen or screen.count_generation != gen:
                    # asyncio.sleep, not pilot.pause: pause forces a repaint on every poll, which a
                    # real terminal session never does (Textual repaints on its own timer).
                    await asyncio.sleep(0.001)
                times.append(time.perf_counter() - t0)
        per = {str(i): statistics.median(times[i::len(changes)]) for i in range(len(changes))}
        out["_per_change"] = [(1000 * per[str(i)], _short(changes[i])) for i in range(len(changes))]  # type: ignore[assignment]
        out["filter_median_ms"] = 1000 * statistics.median(times)
        out["filter_worst_ms"] = 1000 * max(times)

        # paging to the end and back: windows only, never all rows
        table = screen.query_one(ItemTable)
        t0 = time.perf_counter()
        table.action_last()
        while table.absolute_cursor != (screen.total or 1) - 1:
            await pilot.pause(0.001)
        out["jump_to_end_ms"] = 1000 * (time.perf_counter() - t0)
        out["rows_in_widget"] = table.row_count
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _short(f: object) -> str:
    """The non-default fields of a filter, for the report."""
    from qa_inspect.core.query import Filter

    default = Filter()
    parts = [f"{k}={getattr(f, k)!r}" for k in Filter.__dataclass_fields__ if getattr(f, k) != getattr(default, k)]
    return ", ".join(p for p in parts if not p.startswith(("dataset=", "run=")))  or "(run only)"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, {platform.system()}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--db", type=Path, default=Path(tempfile.gettempdir()) / "qa-inspect-bench-tui.db")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the database even if it exists")
    ap.add_argument("--rounds", type=int, default=3, help="passes over the list of filter changes")
    ap.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build_only:
        build(args.db, args.items, args.runs)
        return
    if args.rebuild or not args.db.exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--build-only", "--db", str(args.db), "--items", str(args.items),
                        "--runs", str(args.runs)], check=True)
        print(f"built {args.items:,} items × {args.runs} runs in {time.perf_counter() - t0:.1f} s → {args.db}")
    res = asyncio.run(measure(args.db, args.rounds))
    print(f"machine: {machine()}")
    print(f"database: {args.items:,} items × {args.runs} runs, {args.db.stat().st_size / 1e6:.0f} MB")
    print(f"overview painted:        {res['overview_s'] * 1000:8.0f} ms")
    print(f"first item table:        {res['first_table_s'] * 1000:8.0f} ms   (target < 1000 ms)")
    print(f"filter change, median:   {res['filter_median_ms']:8.0f} ms   (target < 150 ms)")
    print(f"filter change, worst:    {res['filter_worst_ms']:8.0f} ms")
    print(f"jump to last row:        {res['jump_to_end_ms']:8.0f} ms   ({res['rows_in_widget']:.0f} rows in the widget)")
    print(f"peak memory (maxrss):    {res['peak_rss_mb']:8.0f} MB   (target < 400 MB)")
    print("per filter change (median of the rounds):")
    for ms, f in res["_per_change"]:  # type: ignore[union-attr]
        print(f"  {ms:6.0f} ms  {f}")


if __name__ == "__main__":
    main()
