"""TUI benchmark (a script, not a test): 100k items × 10 runs (or a loaded database), headless.

    python tests/bench/bench_tui.py [--items 100000] [--runs 10] [--db PATH] [--rebuild]
    python tests/bench/bench_tui.py --db COPY/.qa-inspect/qa.db [--dataset D --run A --compare B]

With `--db` naming a database `qa-inspect load` wrote (use a copy: the app may migrate it), the
dataset and runs are those given, else the dataset with the most runs and its first two runs.

Builds a synthetic database straight into the real schema (executemany; in a child process, so
the build does not count towards the app's memory), then drives `QAInspectApp` with
`app.run_test` and prints:

- launch: app start (imports included) → overview painted → run opened at once (as a user does:
  the slices pass, if the overview has not stored them yet, is interrupted) → first item table
  (rows shown; the count and metrics follow from a worker, "counting…" meanwhile), and when the
  count arrived,
- median and worst time of a filter change (set the filter → rows shown; count shown beside it),
  over wrong-only, sorts, error categories, stale, and (with run B) disagreement and Δ,
- PgDn in the item table and n / p in the detail view (median and worst of 20 each; from the key
  event posted, as a terminal's driver posts it, to the cursor on its new row; for PgDn also to
  the next frame written, which shows the new page),
- peak memory of the app process (ru_maxrss), and resident memory after each phase.

Targets: launch → usable table < 1.5 s; filter change < 150 ms median and
< 400 ms worst; PgDn, n and p < 100 ms; peak < 400 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CJK = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质"
SPLITS = ("dev", "test", "challenge")
TAGS = ("fast-changing", "slow-changing", "never-changing")
SAMPLERS = ("greedy", "beam", "top-p")
CATEGORIES = ("boundary-long", "boundary-short", "wrong-span-same-sentence", "wrong-span-other-sentence", "empty")
TYPES = ("person", "place", "organisation", "number", "date", "event", "work", "other")


def _text(rng: random.Random, lo: int, hi: int) -> str:
    return "".join(rng.choice(CJK) for _ in range(rng.randint(lo, hi)))


def build(path: Path, n_items: int, n_runs: int, seed: int = 7) -> None:
    """Write a dataset of `n_items` items (3 golds each) and `n_runs` scored runs."""
    from qa_inspect.core.store import index_meta_keys, open_db

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
            meta = f'{{"latency": {rng.random() * 4:.3f}, "sampler": "{rng.choice(SAMPLERS)}"}}' if r == 1 else None
            preds.append((pid, r, i, _text(rng, 2, 10), i, "cmrc2018-official", em, f1, rng.randrange(3),
                          "exact" if em else rng.choice(CATEGORIES), meta))
        conn.executemany(
            "INSERT INTO predictions (id, run_id, item_id, text, source_line, scorer, em, f1, best_gold,"
            " error_category, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", preds)
        conn.executemany("INSERT INTO predictions_fts (rowid, text) VALUES (?, ?)", [(p[0], p[3]) for p in preds])
    conn.execute("COMMIT")
    index_meta_keys(conn)  # as a load does: the `meta` keys' sort indexes
    conn.execute("ANALYZE")
    _label(conn, n_items, rng)
    conn.close()


def _label(conn: sqlite3.Connection, n_items: int, rng: random.Random) -> None:
    """Hand labels on 1% of run-01's items (the label column and `label = …` expressions)."""
    from qa_inspect.core.labels import add_labels

    keys = [f"SYN_{i}_QUERY" for i in rng.sample(range(1, n_items + 1), max(1, n_items // 100))]
    add_labels(conn, "run-01", keys[::2], ["format"], author="bench")
    add_labels(conn, "run-01", keys[1::2], ["paraphrase"], author="bench")


def discover(db: Path, dataset: str | None, run: str | None, compare: str | None) -> tuple[str, str, str | None]:
    """The dataset and two runs to browse: those given, else the first dataset with the most runs
    and its first two runs (by id), as `qa-inspect load` wrote them."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if dataset is None:
            row = conn.execute(
                "SELECT d.name FROM datasets d LEFT JOIN runs r ON r.dataset_id = d.id"
                " GROUP BY d.id ORDER BY COUNT(r.id) DESC, d.id LIMIT 1").fetchone()
            if row is None:
                sys.exit(f"{db}: no dataset in this database")
            dataset = row[0]
        runs = [r[0] for r in conn.execute(
            "SELECT r.name FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE d.name = ? ORDER BY r.id",
            (dataset,))]
    finally:
        conn.close()
    if run is None:
        if not runs:
            sys.exit(f"{db}: dataset {dataset} has no run")
        run = runs[0]
    if compare is None:
        compare = next((r for r in runs if r != run), None)
    return dataset, run, compare


FRAME = 1 / 60
"""One frame: rows set in the table are painted by the next screen update."""


def _key(app: Any, key: str) -> None:
    """Send a key as the terminal driver does, then return at once. Not `pilot.press`: it waits
    until the whole process is idle (no thread using CPU, up to 1 s, twice), so a worker busy
    elsewhere (the overview's intervals, resampling a million items after the overview was left)
    was timed as 2 s of PgDn while the table had moved in a few ms."""
    from textual import events

    app.post_message(events.Key(key, key if len(key) == 1 else None))


def _count_frames(app: Any) -> list[int]:
    """A counter of the frames the app writes to its (headless) terminal, bumped as each is written."""
    frames = [0]
    display = app._display

    def counted(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        frames[0] += 1

    app._display = counted
    return frames


def _rss() -> tuple[float, float]:
    """(current, peak) resident memory of this process in MB, from /proc (Linux), else (0, maxrss)."""
    try:
        status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
        return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        return 0.0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _until(cond: Any, poll: float = 0.001) -> None:
    # asyncio.sleep, not pilot.pause: pause forces a repaint on every poll, which a real terminal
    # session never does (Textual repaints on its own timer).
    while not cond():
        await asyncio.sleep(poll)


def _changes(base: Any, compare: str | None) -> list[Any]:
    """The filter changes a user makes: wrong-only, sorts, facets (error category), stale,
    disagreement and Δ (with a compare run), back to the run alone."""
    changes = [
        base.with_(em=0), base.with_(em=1), base.with_(splits=("challenge",)),
        base.with_(tags=("fast-changing",), em=0), base.with_(answer_types=("person", "date")),
        base.with_(f1_min=0.2, f1_max=0.8), base.with_(search="的一是"),
        base.with_(sort="f1"), base.with_(sort="f1", descending=True), base.with_(sort="f1", descending=True, em=0),
        base.with_(sort="em", em=0), base.with_(sort="prediction"),
        base.with_(facets=(("error_category", "boundary-long"),)), base.with_(facets=(("error_category", "empty"),)),
        base.with_(facets=(("error_category", "no prediction"),)),
        base.with_(stale=False), base.with_(stale=True), base.with_(sort="stale", descending=True),
    ]
    if compare:
        changes += [
            base.with_(compare=compare), base.with_(compare=compare, only_disagree=True),
            base.with_(compare=compare, sort="delta", descending=True),
            base.with_(compare=compare, sort="delta"),
            base.with_(compare=compare, only_disagree=True, sort="delta", descending=True),
            base.with_(compare=compare, em=0, sort="delta", descending=True),
        ]
    return [*changes, base]


COLUMN_LAYOUT = ("key", "label", "error_category", "meta:latency", "question", "prediction", "em", "f1")
"""The columns shown while the registry columns are measured (`k`: labels, category, a meta key)."""


def _column_changes(base: Any, compare: str | None) -> list[Any]:
    """Sorts and filters on the registry columns (`core.query.columns`): label, error category, an
    item feature, a meta key, run B's answer and score, and expressions over them."""
    other = [base.with_(sort=f"answer:{compare}"), base.with_(sort=f"score:{compare}", descending=True),
             base.with_(sort=f"answer:{compare}", descending=True)] if compare else []
    return [
        base.with_(sort="label", descending=True), base.with_(sort="error_category"),
        base.with_(sort="error_category", descending=True, em=0), base.with_(sort="question_type"),
        base.with_(sort="gold_count"), base.with_(sort="meta:latency", descending=True),
        base.with_(sort="meta:sampler"), *other,
        base.with_(expression='label = "format"'), base.with_(expression='category = "boundary-long"'),
        base.with_(expression="meta:latency > 3.5"), base.with_(expression='meta:sampler = "beam"'),
        base.with_(expression='f1 < 0.5 and category != "empty" and label != "format"'),
        base.with_(expression='category = "boundary-long"', sort="meta:latency"),
        base,
    ]


async def _timed(screen: Any, changes: list[Any], rounds: int) -> tuple[list[float], list[float]]:
    """Rows shown and count shown after each filter change, `rounds` passes."""
    rows_t: list[float] = []
    count_t: list[float] = []
    for _ in range(rounds):
        for f in changes:
            t0 = time.perf_counter()
            screen.set_filter(f)
            gen = screen.generation
            await _until(lambda: screen.window_generation == gen)
            rows_t.append(time.perf_counter() - t0)
            await _until(lambda: screen.count_generation == gen)
            count_t.append(time.perf_counter() - t0)
    return rows_t, count_t


def _per_change(rows_t: list[float], count_t: list[float], changes: list[Any]) -> list[tuple[float, float, float, str]]:
    """Per change, in ms: rows shown and count shown (medians of the rounds), the worst round's rows."""
    n = len(changes)
    return [(1000 * statistics.median(rows_t[i::n]), 1000 * statistics.median(count_t[i::n]), 1000 * max(rows_t[i::n]),
             _short(changes[i])) for i in range(n)]


def frequencies(db: Path, dataset: str, run: str) -> list[tuple[str, float]]:
    """Time of one frequency table (`core.query.frequency`) per column over the run's items."""
    from qa_inspect.core.query import Filter, frequency

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    out = []
    for column in ("prediction", "error_category", "label", "meta:sampler", "gold_count"):
        t0 = time.perf_counter()
        frequency(conn, Filter(dataset=dataset, run=run), column)
        out.append((column, time.perf_counter() - t0))
    conn.close()
    return out


async def measure(db: Path, rounds: int, dataset: str, run: str, compare: str | None) -> dict[str, Any]:
    t_start = time.perf_counter()
    from qa_inspect.core.query import Filter
    from qa_inspect.tui.app import QAInspectApp
    from qa_inspect.tui.screens import BrowserScreen, DetailScreen
    from qa_inspect.tui.widgets import ItemTable

    app = QAInspectApp(db_path=db, runs_dir=db.parent, remember=False)  # the overview, not the last session
    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 50)) as pilot:
        await _until(lambda: bool(app.screen.query(".runs-table")))
        await asyncio.sleep(FRAME)
        out["overview_s"] = time.perf_counter() - t_start
        ov = app.screen
        out["overview_complete"] = getattr(ov, "complete", True)  # slices shown too (stored), or still grouping
        out["rss_overview"] = _rss()

        # A user opens a run as soon as the runs show (the slices pass, if running, is interrupted).
        t0 = time.perf_counter()
        app.open_run(run)
        await _until(lambda: isinstance(app.screen, BrowserScreen) and bool(app.screen.query(ItemTable))
                     and bool(app.screen.query_one(ItemTable).win_rows))
        await asyncio.sleep(FRAME)  # painted on the next frame (pilot.pause would wait for the count's CPU)
        out["first_table_s"] = time.perf_counter() - t0
        out["launch_s"] = time.perf_counter() - t_start
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        await _until(lambda: screen.total is not None, 0.005)
        out["first_count_s"] = time.perf_counter() - t0
        out["rss_table"] = _rss()

        base = Filter(dataset=dataset, run=run)
        changes = _changes(base, compare)
        rows_t, count_t = await _timed(screen, changes, rounds)
        out["_per_change"] = _per_change(rows_t, count_t, changes)
        out["filter_median_ms"] = 1000 * statistics.median(rows_t)
        out["filter_worst_ms"] = 1000 * max(rows_t)
        out["count_median_ms"] = 1000 * statistics.median(count_t)
        out["count_worst_ms"] = 1000 * max(count_t)

        from qa_inspect.core.query import ColumnLayout

        app.column_layouts[dataset] = ColumnLayout(order=COLUMN_LAYOUT)
        col_changes = _column_changes(base, compare)
        rows_c, count_c = await _timed(screen, col_changes, rounds)
        out["_per_column_change"] = _per_change(rows_c, count_c, col_changes)
        out["columns_median_ms"], out["columns_worst_ms"] = 1000 * statistics.median(rows_c), 1000 * max(rows_c)
        app.column_layouts.pop(dataset)

        table = screen.query_one(ItemTable)
        table.focus()
        out["rss_filters"] = _rss()
        pg: list[float] = []
        painted: list[float] = []
        frames = _count_frames(app)
        for _ in range(20):  # PgDn: the cursor on its new row (a new window fetched when past the edge)
            before = table.absolute_cursor
            t0 = time.perf_counter()
            _key(app, "pagedown")
            await _until(lambda: table.absolute_cursor != before and table._target is None)
            pg.append(time.perf_counter() - t0)
            seen = frames[0]
            await _until(lambda: frames[0] > seen)  # the next frame written shows it
            painted.append(time.perf_counter() - t0)
            await asyncio.sleep(0.05)  # a person reads between keys: no frame still owed to the last one
        out["pgdn_median_ms"], out["pgdn_worst_ms"] = 1000 * statistics.median(pg), 1000 * max(pg)
        out["pgdn_paint_median_ms"], out["pgdn_paint_worst_ms"] = 1000 * statistics.median(painted), 1000 * max(painted)

        # n/p in the detail view, from 10 rows before the window's end: steps cross into SQL walks
        table.move_cursor(row=max(0, len(table.win_rows) - 10))
        await pilot.pause()
        table.action_select_cursor()
        await _until(lambda: isinstance(app.screen, DetailScreen) and app.screen.detail is not None)
        detail = app.screen
        assert isinstance(detail, DetailScreen)
        for key, name in (("n", "next"), ("p", "prev")):
            steps: list[float] = []
            for _ in range(20):
                before = detail.detail.item_id if detail.detail else None
                t0 = time.perf_counter()
                _key(app, key)
                await _until(lambda: detail.detail is not None and detail.detail.item_id != before)
                steps.append(time.perf_counter() - t0)
            out[f"{name}_median_ms"], out[f"{name}_worst_ms"] = 1000 * statistics.median(steps), 1000 * max(steps)
        await pilot.press("escape")
        await pilot.pause()

        # paging to the end: windows only, never all rows
        t0 = time.perf_counter()
        table.action_last()
        await _until(lambda: table.absolute_cursor == (screen.total or 1) - 1)
        out["jump_to_end_ms"] = 1000 * (time.perf_counter() - t0)
        out["rows_in_widget"] = table.row_count
        out["rss_paging"] = _rss()
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _short(f: object) -> str:
    """The non-default fields of a filter, for the report."""
    from qa_inspect.core.query import Filter

    default = Filter()
    parts = [f"{k}={getattr(f, k)!r}" for k in Filter.__dataclass_fields__ if getattr(f, k) != getattr(default, k)]
    return ", ".join(p for p in parts if not p.startswith(("dataset=", "run=")))  or "(run only)"


DB = Path(tempfile.gettempdir()) / "qa-inspect-bench-tui.db"
"""Where the synthetic database is built (and found again) unless `--db` names another."""


def timed(fn: Callable[[], object], rounds: int = 3) -> float:
    """Median seconds of `rounds` calls of `fn` (the benches that import this module share it)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def work_copy(db: Path, items: int, name: str) -> tuple[Path, sqlite3.Connection]:
    """A copy of the synthetic database `db` (built first with `items` items if missing, in a child
    process) as `name` in a new temporary folder, opened: (its path, the connection). The caller
    closes the connection and removes the folder."""
    from qa_inspect.core.store import open_db

    if not db.exists():
        subprocess.run([sys.executable, str(Path(__file__)), "--build-only", "--db", str(db),
                        "--items", str(items)], check=True)
    work = Path(tempfile.mkdtemp()) / name
    shutil.copy(db, work)
    return work, open_db(work).conn


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
    ap.add_argument("--db", type=Path, default=DB,
                    help="database to browse: built here if missing (or --rebuild), else used as it is"
                         " (a copy of one `qa-inspect load` wrote: the app may migrate it)")
    ap.add_argument("--dataset", help="dataset to browse (default: the one with the most runs)")
    ap.add_argument("--run", help="run A (default: the dataset's first run)")
    ap.add_argument("--compare", help="run B (default: the dataset's next run)")
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
    dataset, run, compare = discover(args.db, args.dataset, args.run, args.compare)
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    n_items = conn.execute("SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = ?",
                           (dataset,)).fetchone()[0]
    n_runs = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    conn.close()
    load_before = os.getloadavg()
    cpu0 = time.process_time()
    res = asyncio.run(measure(args.db, args.rounds, dataset, run, compare))
    cpu = time.process_time() - cpu0
    print(f"machine: {machine()}")
    print(f"load average before / after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}; CPU time of the run {cpu:.1f} s")
    print(f"database: {n_items:,} items of {dataset} × {n_runs} runs, {args.db.stat().st_size / 1e6:.0f} MB;"
          f" run A {run}, run B {compare}")
    print(f"overview painted:        {res['overview_s'] * 1000:8.0f} ms   (slices "
          f"{'shown (stored)' if res['overview_complete'] else 'still grouping in the background'})")
    print(f"open run → first table:  {res['first_table_s'] * 1000:8.0f} ms   (count and metrics at"
          f" {res['first_count_s'] * 1000:.0f} ms)")
    print(f"launch → usable table:   {res['launch_s'] * 1000:8.0f} ms   (target < 1500 ms)")
    print(f"filter change, median:   {res['filter_median_ms']:8.0f} ms   (target < 150 ms; rows shown)")
    print(f"filter change, worst:    {res['filter_worst_ms']:8.0f} ms   (target < 400 ms)")
    print(f"count + metrics, median: {res['count_median_ms']:8.0f} ms   (worst {res['count_worst_ms']:.0f} ms;"
          " a worker, 'counting…' meanwhile)")
    print(f"PgDn, median / worst:    {res['pgdn_median_ms']:8.0f} / {res['pgdn_worst_ms']:.0f} ms   (target < 100 ms;"
          f" painted: {res['pgdn_paint_median_ms']:.0f} / {res['pgdn_paint_worst_ms']:.0f} ms)")
    print(f"n, median / worst:       {res['next_median_ms']:8.0f} / {res['next_worst_ms']:.0f} ms   (target < 100 ms)")
    print(f"p, median / worst:       {res['prev_median_ms']:8.0f} / {res['prev_worst_ms']:.0f} ms   (target < 100 ms)")
    print(f"jump to last row:        {res['jump_to_end_ms']:8.0f} ms   ({res['rows_in_widget']:.0f} rows in the widget)")
    print(f"peak memory (maxrss):    {res['peak_rss_mb']:8.0f} MB   (target < 400 MB)")
    print("memory (MB, now / peak so far): " + "; ".join(
        f"{label} {res[k][0]:.0f} / {res[k][1]:.0f}" for k, label in (
            ("rss_overview", "overview painted"), ("rss_table", "first table counted"),
            ("rss_filters", "after the filter changes"), ("rss_paging", "after PgDn, n, p, End"))))
    print("per filter change (median of the rounds): rows shown / count shown; worst round's rows shown")
    for rows_ms, count_ms, worst_ms, f in res["_per_change"]:
        print(f"  {rows_ms:6.0f} / {count_ms:6.0f} ms; {worst_ms:6.0f} ms  {f}")
    print(f"registry columns shown ({', '.join(COLUMN_LAYOUT[1:4])}): sort / filter change, median"
          f" {res['columns_median_ms']:.0f} ms, worst {res['columns_worst_ms']:.0f} ms; rows shown / count shown")
    for rows_ms, count_ms, worst_ms, f in res["_per_column_change"]:
        print(f"  {rows_ms:6.0f} / {count_ms:6.0f} ms; {worst_ms:6.0f} ms  {f}")
    print("frequency table (core.query.frequency, run A's items): " + "; ".join(
        f"{column} {1000 * s:.0f} ms" for column, s in frequencies(args.db, dataset, run)))


if __name__ == "__main__":
    main()
