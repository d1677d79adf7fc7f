"""Labels benchmark (a script, not a test): what error labels cost the facet panel and writes, at 100k items.

    python tests/bench/bench_labels.py [--items 100000] [--labels 5000] [--db PATH]

Uses a copy of the synthetic database of `bench_tui.py` (built on first use) and prints, for run
A's facet pass (`facet_tables`, the panel's one query) with and without the `label` facet: before
any label, and after `--labels` items got one or two labels (one bulk `add_labels` each, timed);
then `current_labels` of the run and one undo of the last bulk action.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from bench_tui import DB, machine, timed, work_copy  # the script's own folder is sys.path[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--labels", type=int, default=5_000)
    ap.add_argument("--db", type=Path, default=DB)
    args = ap.parse_args()
    from qa_inspect.core import flags
    from qa_inspect.core import labels as L
    from qa_inspect.core.query import FACETS, Filter, facet_tables

    work, conn = work_copy(args.db, args.items, "labels.db")
    run = conn.execute("SELECT name FROM runs ORDER BY name LIMIT 1").fetchone()[0]
    f = Filter(run=run)
    without = [n for n in FACETS if n != "label"]
    print(f"machine: {machine()}")
    print(f"database: {conn.execute('SELECT COUNT(*) FROM items').fetchone()[0]:,} items; run A {run}")
    print(f"facet pass, no labels:        {timed(lambda: facet_tables(conn, f, without)) * 1000:7.0f} ms without"
          f" the label facet, {timed(lambda: facet_tables(conn, f)) * 1000:7.0f} ms with it")
    keys = [r[0] for r in conn.execute("SELECT key FROM items ORDER BY id LIMIT ?", (args.labels,))]
    t0 = time.perf_counter()
    L.add_labels(conn, run, keys, ["paraphrase"], author="bench")
    L.add_labels(conn, run, keys[::2], ["gold-wrong"], author="bench")
    write = time.perf_counter() - t0
    n = len(keys) + len(keys[::2])
    print(f"bulk add_labels:              {write * 1000:7.0f} ms for {n:,} labels on {len(keys):,} items (2 actions)")
    print(f"facet pass, {len(keys):,} labelled:  {timed(lambda: facet_tables(conn, f, without)) * 1000:7.0f} ms without"
          f" the label facet, {timed(lambda: facet_tables(conn, f)) * 1000:7.0f} ms with it")
    print(f"current_labels of the run:    {timed(lambda: L.current_labels(conn, run=run)) * 1000:7.0f} ms ({n:,} labels)")
    t0 = time.perf_counter()
    flags.undo(conn, "bench")
    print(f"undo of a bulk action:        {(time.perf_counter() - t0) * 1000:7.0f} ms ({len(keys[::2]):,} entries)")
    conn.close()
    shutil.rmtree(work.parent)


if __name__ == "__main__":
    main()
