"""Benchmark: the biggest leaderboard — 100 runs × 20,000 CMRC-style questions — loaded, shown on
the overview, ranked with every pair tested, and tabled, each against a floor from the same run.

    python tests/bench/bench_leaderboard.py [--runs 100] [--questions 20000] [--resamples 10000] [--keep DIR]
                                            [--load-rounds 3] [--load-only]
    python tests/bench/bench_leaderboard.py --synthetic 1000000

The folder: CMRC 2018 dev replicated to `--questions` questions (`bench_scale.write_dataset`), and
`--runs` HF-style runs whose answers are drawn afresh per run and question
(`bench_load.make_prediction`; run r answers a further r/4 % of the questions exactly, so the runs
differ in skill and some pairs are significant). Each figure is a whole fresh process
(`bench_scale.measure`: wall time, peak RSS of the largest process and of the process tree):

- floor "parse + insert": read the files and `executemany` their rows into the schema
  (`bench_scale.FLOOR_INSERT`); then `qa-inspect load` (target < 120 s, < 2.5 GB, ≤ 1.5× floor),
  both `--load-rounds` times in turn, with the median ratio;
- floor "aggregate": one SQL pass averaging EM and F1 per run over the predictions; then
  `core.report.overview` from the stored cache and the app's overview painted with every run
  (target < 1.5 s), and `qa-inspect table` over the runs (target < 3 s: per-run sums from the
  overview's stored rows) for every cell kind the docs name, with the human estimate, by split too,
  and with intervals (`--ci`: one shared resampling per dataset), and with `--old-table` the
  item-frame path it replaced;
- floor "arrays + one resampling": every run's per-item arrays read (`dataset_items`) and one
  bootstrap count matrix drawn (what any bootstrap of the dataset costs once); then
  `qa-inspect leaderboard` at `--resamples` with every pair tested (target < 30 s, < 1 GB);
  and, for reference, the old pair-by-pair engine timed on 20 pairs and scaled to all pairs;
- the facet panel's counts of one run: first, shown again (kept), and after selecting a value.

`--synthetic N` instead times what the overview computes in the background for a dataset with two
runs: six intervals and one pair on N generated items (by passage of 4), shared engine against the
old one interval or pair at a time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_load import make_prediction
from bench_scale import CLI, FLOOR_INSERT, fresh_db, measure, write_dataset

DEFAULT_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "cmrc2018_dev.json"


def build_folder(dev: Path, root: Path, questions: int, runs: int) -> dict[str, int]:
    """The replicated dataset and `runs` runs, answers drawn per run and question."""
    data = json.loads(dev.read_text(encoding="utf-8"))
    preds: list[dict[str, str]] = [{} for _ in range(runs)]

    def visit(qa: dict, context: str, copy: int) -> None:
        gold = qa["answers"][0]
        for r in range(runs):
            rng = random.Random(f"{r}/{qa['id']}")
            if rng.random() < r / 400:
                text: str | None = str(gold["text"])
            else:
                text = make_prediction(rng, context, str(gold["text"]), int(gold.get("answer_start", -1)))
            if text is not None:
                preds[r][qa["id"]] = text

    written, _ = write_dataset(data, root / "cmrc2018_dev.json", questions, visit)
    for r, p in enumerate(preds):
        (root / f"model-{r:03d}").mkdir()
        (root / f"model-{r:03d}" / "eval_predictions.json").write_text(json.dumps(p, ensure_ascii=False) + "\n",
                                                                        encoding="utf-8")
    return {"questions": written, "predictions": sum(len(p) for p in preds)}


FLOOR_AGGREGATE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1])
rows = conn.execute("SELECT run_id, AVG(COALESCE(em, 0)), AVG(COALESCE(f1, 0)), COUNT(*)"
                    " FROM predictions GROUP BY run_id").fetchall()
assert rows
"""

FLOOR_ARRAYS = """
import sqlite3, sys
import numpy as np
from qa_inspect.core import stats
from qa_inspect.core.report.run_stats import dataset_items
conn = sqlite3.connect(sys.argv[1])
name = conn.execute("SELECT name FROM datasets").fetchone()[0]
data = dataset_items(conn, name)
units = len(np.unique(data.contexts))
for block in stats.count_blocks(units, int(sys.argv[2]), stats.rng_for(1)):
    pass
"""

OVERVIEW = """
import asyncio, json, sys, time
from pathlib import Path
t0 = time.perf_counter()
from qa_inspect.core.report import overview
from qa_inspect.core.store import open_db
conn = open_db(Path(sys.argv[1])).conn
ov = overview(conn, slices=False)
core_s = time.perf_counter() - t0
conn.close()
from qa_inspect.tui.app import QAInspectApp

async def main() -> float:
    t1 = time.perf_counter()
    app = QAInspectApp(db_path=Path(sys.argv[1]), runs_dir=Path(sys.argv[1]).parent, remember=False)
    async with app.run_test(size=(160, 50)) as pilot:
        while not app.screen.query(".runs-table"):
            await asyncio.sleep(0.001)
        await asyncio.sleep(1 / 60)
        painted = time.perf_counter() - t1
        rows = sum(t.row_count for t in app.screen.query(".runs-table"))
        app.exit()
    return painted, rows

painted, rows = asyncio.run(main())
print(json.dumps({"core_s": core_s, "app_s": painted, "rows": rows}))
"""

FACETS = """
import json, sys, time
from pathlib import Path
from qa_inspect.core.query import Filter, clear, facet_table, facet_tables
from qa_inspect.core.store import open_db
conn = open_db(Path(sys.argv[1])).conn
name = conn.execute("SELECT name FROM datasets").fetchone()[0]
f = Filter(dataset=name, run=conn.execute("SELECT name FROM runs ORDER BY name").fetchone()[0])
t0 = time.perf_counter(); tables = facet_tables(conn, f); first = time.perf_counter() - t0
t0 = time.perf_counter(); facet_tables(conn, f); again = time.perf_counter() - t0
t = next(t for t in tables if len(t.rows) > 1 and t.rows[0].filter is not None)
g = t.rows[0].filter
t0 = time.perf_counter(); facet_tables(conn, g); facet_table(conn, clear(g, t.name), t.name)
print(json.dumps({"first": first, "again": again, "select": time.perf_counter() - t0}))
"""

OLD_TABLE = """
import sqlite3, sys
from pathlib import Path
from qa_inspect.core.report import TableSpec, folder_run_settings, frame_table
conn = sqlite3.connect(sys.argv[1])
frame_table(conn, TableSpec(), folder_run_settings(conn, Path(sys.argv[2])))
"""

PAIRWISE = """
import json, sqlite3, sys, time
from itertools import combinations
from qa_inspect.core.report import StatOptions
from qa_inspect.core.report.run_stats import dataset_items, metric_values
from qa_inspect.core.report.significance import clusters_for, paired_test, resampling_unit
conn = sqlite3.connect(sys.argv[1])
name = conn.execute("SELECT name FROM datasets").fetchone()[0]
data = dataset_items(conn, name)
options = StatOptions(resamples=int(sys.argv[2]))
clusters = clusters_for(resampling_unit("auto", data.contexts), data.contexts, data.item_ids)
pairs = list(combinations(sorted(data.runs), 2))
t0 = time.perf_counter()
for a, b in pairs[:20]:
    va, _ = metric_values(data, data.runs[a], "f1")
    vb, _ = metric_values(data, data.runs[b], "f1")
    paired_test(va, vb, clusters, options, (a, b), (name, "pair", "f1"))
print(json.dumps({"per_pair": (time.perf_counter() - t0) / 20, "pairs": len(pairs)}))
"""


SYNTHETIC = """
import json, resource, sys, time
import numpy as np
from qa_inspect.core import stats
engine, n, resamples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(2018)

def f1_like():
    pred, gold = rng.integers(1, 12, n), rng.integers(1, 12, n)
    return 2 * np.minimum(pred, gold) * (rng.random(n) < 0.75) * rng.integers(0, 2, n) / (pred + gold) * 100

f1 = [f1_like() for _ in range(3)]  # the human estimate and two runs, as the overview has
values = np.array(f1 + [(v == 100) * 100.0 for v in f1])
passages = np.arange(n) // 4
t0 = time.perf_counter()
if engine == "shared":
    stats.shared_tests(values, np.ones_like(values, bool), [(1, 2)], passages, resamples=resamples,
                       rng=stats.rng_for(1, "bench"))
else:
    for k, row in enumerate(values):
        stats.bootstrap_mean(row, passages, resamples=resamples, rng=stats.rng_for(1, str(k)))
    stats.paired_bootstrap(values[1], values[2], passages, resamples=resamples, rng=stats.rng_for(1, "pair"))
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"s": time.perf_counter() - t0, "rss": rss}))
"""


def synthetic(items: int, resamples: int) -> None:
    """The overview's intervals at `items` items (6 intervals + 1 pair, by passage of 4)."""
    for engine in ("shared", "pairwise"):
        r = _child_json(SYNTHETIC, engine, str(items), str(resamples))
        print(f"{'6 intervals + 1 pair, ' + engine:<34} {r['s']:8.2f} s   {r['rss']:7.0f} MB"
              f"   ({items:,} items by passage, {resamples:,} resamples)")


def _child_json(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"child failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _row(label: str, m: dict[str, float], floor: dict[str, float] | None = None, target: str = "") -> None:
    ratio = f" = {m['wall'] / floor['wall']:.2f}× floor" if floor else ""
    cpu = f" (CPU {m['cpu']:.1f} s" + (f" = {m['cpu'] / floor['cpu']:.2f}×)" if floor and floor["cpu"] else ")")
    print(f"{label:<34} {m['wall']:8.2f} s{ratio:<18}{cpu:<24} {m['rss']:7.0f} MB largest,"
          f" {m['tree']:7.0f} MB tree   {target}")
    if m.get("rc"):
        print(f"   exit {m['rc']}: {m.get('err', '')}")


def machine() -> str:
    load = os.getloadavg()
    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"load average {load[0]:.1f} / {load[1]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--questions", type=int, default=20_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    ap.add_argument("--keep", type=Path, default=None, help="build (or reuse) the folder here")
    ap.add_argument("--db", type=Path, default=None,
                    help="a database of that folder loaded already: skip the load and its floor")
    ap.add_argument("--load-rounds", type=int, default=3, metavar="N",
                    help="time the floor and the load N times in turn and give the median ratio (default 3)")
    ap.add_argument("--load-only", action="store_true", help="stop after the load")
    ap.add_argument("--old-table", action="store_true",
                    help="also time the table from item frames (`frame_table`, what `table` did before its sums)")
    ap.add_argument("--table-ci", action="store_true",
                    help="accepted for old command lines: `table --ci` is always timed now (seconds, not minutes)")
    ap.add_argument("--synthetic", type=int, default=None, metavar="N",
                    help="only time the overview's intervals (2 runs + human) on N generated items, both engines")
    args = ap.parse_args()
    if args.synthetic:
        print(machine())
        synthetic(args.synthetic, args.resamples)
        return
    if not args.dev.is_file():
        sys.exit(f"no CMRC dev set at {args.dev} (pass --dev)")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "runs"
        if not (root / "cmrc2018_dev.json").exists():
            root.mkdir(parents=True, exist_ok=True)
            print("built:", build_folder(args.dev, root, args.questions, args.runs))
        print(machine())
        db = args.db or Path(tmp) / "qa.db"
        if args.db is None:
            load(root, Path(tmp), db, args.load_rounds)
        if args.load_only:
            return
        views(root, db, args.old_table)
        statistics_(root, db, args.resamples)


def load(root: Path, work: Path, db: Path, rounds: int = 1) -> None:
    """The floor and the load, `rounds` times in turn (each load into a fresh database, the last
    one kept for the views), and the median of their ratios: on a machine whose speed swings by a
    tenth from one minute to the next, one pair of figures decides little."""
    files = [str(root / "cmrc2018_dev.json"), *map(str, sorted(root.glob("model-*/eval_predictions.json")))]
    floor_db = work / "floor.db"
    ratios = []
    for _ in range(rounds):
        floor = measure([sys.executable, "-c", FLOOR_INSERT, str(floor_db), *files])
        fresh_db(floor_db)
        _row("floor: parse + insert", floor)
        fresh_db(db)
        loaded = measure([*CLI, "load", str(root), "--db", str(db)])
        _row("qa-inspect load", loaded, floor, "< 120 s, < 2.5 GB, ≤ 1.5×")
        ratios.append(loaded["wall"] / floor["wall"])
    if rounds > 1:
        each = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"{f'load / floor, median of {rounds}':<34} {statistics.median(ratios):8.2f}×   ({each})   ≤ 1.5×")


TABLE_CELLS = ("em,f1", "f1_recall (answer_rate)", "items,predicted,answered,errors", "pass@1,maj,consistency")
"""The cell kinds the docs name, beside the default F1 (`docs/guide/paper-tables.md`)."""


def views(root: Path, db: Path, old_table: bool = False) -> None:
    agg = measure([sys.executable, "-c", FLOOR_AGGREGATE, str(db)])
    _row("floor: aggregate per run (SQL)", agg)
    shots = [_child_json(OVERVIEW, str(db)) for _ in range(3)]
    core_s = statistics.median(v["core_s"] for v in shots)
    app_s = statistics.median(v["app_s"] for v in shots)
    print(f"{'overview (core, from the cache)':<34} {core_s:8.2f} s = {core_s / agg['wall']:.2f}× floor")
    print(f"{'overview painted in the app':<34} {app_s:8.2f} s = {app_s / agg['wall']:.2f}× floor"
          f"   ({int(shots[0]['rows'])} rows; median of 3)   < 1.5 s")
    _row("qa-inspect table", measure([*CLI, "table", str(root), "--db", str(db)]), agg, "< 3 s")
    for cells in TABLE_CELLS:
        _row(f"table --cell {cells}"[:34], measure([*CLI, "table", str(root), "--db", str(db), "--cell", cells]), agg, "< 3 s")
    _row("qa-inspect table --human", measure([*CLI, "table", str(root), "--db", str(db), "--human"]), agg, "< 3 s")
    _row("qa-inspect table --cols split", measure([*CLI, "table", str(root), "--db", str(db), "--cols", "split"]), agg,
         "< 3 s once the overview's slices are stored")
    for cells in ("f1", "em,f1"):
        _row(f"table --cell {cells} --ci", measure([*CLI, "table", str(root), "--db", str(db), "--cell", cells, "--ci"]),
             agg, "< 3 s (one resampling of the passages, 10,000)")
    if old_table:
        _row("table, item frames (the old path)", measure([sys.executable, "-c", OLD_TABLE, str(db), str(root)]), agg)
    fx = _child_json(FACETS, str(db))
    print(f"{'facet panel of one run':<34} {fx['first'] * 1000:8.0f} ms first; shown again {fx['again'] * 1000:.0f} ms;"
          f" a value selected {fx['select'] * 1000:.0f} ms (new filter counted, the facet without it kept)")


def statistics_(root: Path, db: Path, resamples: int) -> None:
    arrays = measure([sys.executable, "-c", FLOOR_ARRAYS, str(db), str(resamples)])
    _row("floor: arrays + one resampling", arrays)
    board = measure([*CLI, "leaderboard", str(root), "--db", str(db), "--resamples", str(resamples), "--json"])
    _row("qa-inspect leaderboard (all pairs)", board, arrays, "< 30 s, < 1 GB")
    old = _child_json(PAIRWISE, str(db), str(resamples))
    print(f"{'old pair-by-pair engine':<34} {old['per_pair'] * 1000:8.1f} ms a pair × {int(old['pairs'])} pairs"
          f" ≈ {old['per_pair'] * old['pairs']:.0f} s")


if __name__ == "__main__":
    main()
