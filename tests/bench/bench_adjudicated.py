"""Adjudicated numbers benchmark (a script, not a test): what accepted aliases cost, at 100k items.

    python tests/bench/bench_adjudicated.py [--items 100000] [--aliases 5000] [--db PATH]

Uses a copy of the synthetic database of `bench_tui.py` (built on first use). Accepts `--aliases`
answers of run A as aliases (journal entries written in one transaction, as an import would), then
times `current_aliases`, `adjudicated_scores` of one run, `adjudicated_summary` of every run and,
for scale, the official `report` overall; then one `add_alias` through the public function.
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
    ap.add_argument("--aliases", type=int, default=5_000)
    ap.add_argument("--db", type=Path, default=DB)
    args = ap.parse_args()
    from qa_inspect.core import flags as F
    from qa_inspect.core.report import adjudicated_scores, adjudicated_summary, report
    from qa_inspect.core.store import write_transaction

    work, conn = work_copy(args.db, args.items, "aliases.db")
    run, dataset = conn.execute(
        "SELECT r.name, d.name FROM runs r JOIN datasets d ON d.id = r.dataset_id ORDER BY r.name LIMIT 1").fetchone()
    answers = conn.execute(
        "SELECT i.key, p.text FROM predictions p JOIN items i ON i.id = p.item_id JOIN runs r ON r.id = p.run_id"
        " WHERE r.name = ? AND p.em = 0 AND trim(p.text) != '' ORDER BY i.id LIMIT ?", (run, args.aliases)).fetchall()
    print(f"machine: {machine()}")
    print(f"database: {conn.execute('SELECT COUNT(*) FROM items').fetchone()[0]:,} items; run A {run}")
    t0 = time.perf_counter()
    write_transaction(conn, lambda c: [F.insert_entry(c, "alias", F.Target(dataset, key, text), "bench",
                                                      columns={"run": run}) for key, text in answers])
    print(f"{len(answers):,} alias entries written:  {(time.perf_counter() - t0) * 1000:7.0f} ms (one transaction)")
    print(f"current_aliases:               {timed(lambda: F.current_aliases(conn, dataset)) * 1000:7.0f} ms")
    print(f"adjudicated_scores (one run):  {timed(lambda: adjudicated_scores(conn, run)) * 1000:7.0f} ms")
    print(f"adjudicated_summary (all):     {timed(lambda: adjudicated_summary(conn), 1) * 1000:7.0f} ms")
    print(f"official report, overall:      {timed(lambda: report(conn, []), 1) * 1000:7.0f} ms (for scale)")
    key = conn.execute("SELECT key FROM items ORDER BY id DESC LIMIT 1").fetchone()[0]
    t0 = time.perf_counter()
    F.add_alias(conn, dataset, key, "bench alias", author="bench")
    print(f"one add_alias:                 {(time.perf_counter() - t0) * 1000:7.0f} ms")
    conn.close()
    shutil.rmtree(work.parent)


if __name__ == "__main__":
    main()
