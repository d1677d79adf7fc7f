"""Journal files benchmark (a script, not a test): what sharing annotations through the runs folder costs.

    python tests/bench/bench_journal_files.py [--entries 100000] [--authors 3]

On a copy of `sample_runs/` loaded into its own `.qa-inspect/qa.db`, prints: a re-load of the
unchanged folder (the journal step included); one mark (its journal line appended and fsync'd);
a first load that merges `--entries` verify entries from `--authors` teammates' files (a
teammate's `git pull`); the re-load after it (nothing new: no file opened); one appended line
merged; a rebuild from the files after deleting `qa.db`; and agreement (`agree`) over them.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from qa_inspect.core import flags as F
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import agreement_report
from qa_inspect.core.store import open_db

from bench_tui import timed  # the script's own folder is sys.path[0]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs"


def teammates(runs: Path, entries: int, authors: int) -> None:
    """`entries` verify entries over the loaded golds, spread over `authors` files (each gold judged by all)."""
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    golds = conn.execute("SELECT d.name, i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id"
                         " JOIN datasets d ON d.id = i.dataset_id").fetchall()
    conn.close()
    folder = runs / ".qa-inspect" / "journal"
    folder.mkdir(parents=True, exist_ok=True)
    for a in range(authors):
        with (folder / f"mate{a}.jsonl").open("w", encoding="utf-8") as fh:
            for i in range(a, entries, authors):
                ds, key, text = golds[i % len(golds)]
                fh.write(json.dumps({"kind": "journal", "uid": f"{a:04x}{i:028x}", "ts": "2024-01-01T00:00:00.000Z",
                                     "author": f"mate{a}", "action": "verify" if (i // 7) % 3 else "mark",
                                     "dataset": ds, "item_key": key, "gold_text": text}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--authors", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        shutil.copytree(SAMPLE, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
        load_runs(runs)
        print(f"re-load, unchanged folder:          {timed(lambda: load_runs(runs), 5) * 1000:8.1f} ms")
        conn = open_db(runs / ".qa-inspect" / "qa.db").conn
        ref = F.resolve_item(conn, "DEV_4_QUERY_0")
        print(f"one mark (+ journal line, fsync):   "
              f"{timed(lambda: F.mark(conn, ref.dataset, ref.key, ref.scored_texts()[0], author='me'), 5) * 1000:8.1f} ms")
        teammates(runs, args.entries, args.authors)
        print(f"merge {args.entries:,} entries from {args.authors} files: {timed(lambda: load_runs(runs), 1):8.2f} s")
        print(f"re-load after it:                   {timed(lambda: load_runs(runs), 5) * 1000:8.1f} ms")
        with (runs / ".qa-inspect" / "journal" / "mate0.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({"uid": "f" * 32, "action": "verify", "author": "mate0", "dataset": ref.dataset,
                                 "item_key": ref.key, "gold_text": ref.scored_texts()[0]}) + "\n")
        print(f"one appended line merged:           {timed(lambda: load_runs(runs), 1) * 1000:8.1f} ms")
        t0 = time.perf_counter()
        report = agreement_report(conn, "stale", resamples=1000)
        print(f"agree over {len(report.units):,} golds (1,000 resamples): {time.perf_counter() - t0:8.2f} s")
        conn.close()
        for p in (runs / ".qa-inspect").glob("qa.db*"):
            p.unlink()
        print(f"rebuild from the files (no qa.db):  {timed(lambda: load_runs(runs), 1):8.2f} s")


if __name__ == "__main__":
    main()
