"""Benchmark: runs that sample every question many times, loaded against a parse + insert floor.

    python tests/bench/bench_samples.py [--runs 10] [--items 20000] [--samples 16] [--keep DIR]

With `--keep DIR` the files stay in DIR, and a later call with the same DIR (and sizes) reads
them again instead of writing them anew (the databases are always rebuilt).

Writes a JSONL dataset of `--items` questions and `--runs` plain sampled-record runs (`{"id",
"sample", "prediction"}`, `--samples` a question: 10 × 20,000 × 16 = 3.2M completions by
default; answers drawn per item from the gold, a variant of it and two wrong answers, so items
are flaky, stable right and stable wrong). Then, each in a fresh process:

- the floor: every run file parsed line by line with `json.loads` and its rows inserted with
  `executemany` into a table of the `completions` shape plus one row per item (what any loader
  must at least do);
- `qa-inspect load` of the folder (every sample scored, aggregates computed, completions stored).

Prints wall time, CPU time and peak RSS of each, and the ratio. Targets: under 3 minutes and
2.5 GB, within 2× the floor.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_FLOOR = """
import json, resource, sqlite3, sys, time
from pathlib import Path
t = time.perf_counter()
conn = sqlite3.connect(sys.argv[1])
conn.execute("PRAGMA journal_mode = WAL")
conn.execute("CREATE TABLE p (id INTEGER PRIMARY KEY, run INTEGER, item TEXT, text TEXT)")
conn.execute("CREATE TABLE c (prediction_id INTEGER, sample INTEGER, text TEXT, em INTEGER, f1 REAL,"
             " PRIMARY KEY (prediction_id, sample)) WITHOUT ROWID")
pid = 0
for run, path in enumerate(sorted(Path(sys.argv[2]).glob("run-*.jsonl"))):
    ids, rows, items = {}, [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            p = ids.get(r["id"])
            if p is None:
                pid += 1
                p = ids[r["id"]] = pid
                items.append((p, run, r["id"], r["prediction"]))
            rows.append((p, r["sample"], r["prediction"], 0, 0.0))
    with conn:
        conn.executemany("INSERT INTO p VALUES (?, ?, ?, ?)", items)
        conn.executemany("INSERT INTO c VALUES (?, ?, ?, ?, ?)", rows)
print(json.dumps({"seconds": time.perf_counter() - t,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_folder(root: Path, runs: int, items: int, samples: int, seed: int = 20180) -> Path:
    """The dataset and the runs (see the module docstring); deterministic for a seed."""
    rng = random.Random(seed)
    folder = root / "runs"
    folder.mkdir(parents=True)
    golds = [f"answer {n} of the set" for n in range(items)]
    with (folder / "data.jsonl").open("w", encoding="utf-8") as f:
        for n, gold in enumerate(golds):
            f.write(json.dumps({"id": f"q{n}", "question": f"What is question {n}?", "answers": [gold]}) + "\n")
    for run in range(runs):
        with (folder / f"run-{run:02d}.jsonl").open("w", encoding="utf-8") as f:
            for n, gold in enumerate(golds):
                choices = [gold, gold.upper() + ".", f"wrong {n % 97}", f"other {rng.randrange(50)}"]
                p_right = rng.choice((0.0, 0.3, 0.7, 1.0))
                for s in range(1, samples + 1):
                    answer = choices[rng.randrange(2)] if rng.random() < p_right else choices[2 + rng.randrange(2)]
                    f.write(json.dumps({"id": f"q{n}", "sample": s, "prediction": answer}) + "\n")
    return folder


_SIZES = "sizes.json"
"""Beside a kept folder: the sizes it was written for."""


def _kept(root: Path, runs: int, items: int, samples: int) -> Path | None:
    """The folder a previous `--keep` run wrote into `root` for these sizes; None when there is none."""
    folder, sizes = root / "runs", root / _SIZES
    if not folder.is_dir() or not sizes.is_file():
        return None
    if json.loads(sizes.read_text()) != [runs, items, samples]:
        raise SystemExit(f"{root} holds a folder of other sizes ({sizes.read_text()}): give another --keep")
    return folder


def _timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the children, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return time.perf_counter() - t, cpu, out.stdout


def bench(root: Path, runs: int, items: int, samples: int) -> None:
    t = time.perf_counter()
    folder = _kept(root, runs, items, samples)
    written = folder is None
    if folder is None:
        folder = write_folder(root, runs, items, samples)
        (root / _SIZES).write_text(json.dumps([runs, items, samples]))
    for old in ("floor.db", "qa.db"):
        for path in root.glob(old + "*"):
            path.unlink()
    shutil.rmtree(folder / ".qa-inspect", ignore_errors=True)
    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) / 1e6
    print(f"{runs} runs × {items:,} items × {samples} samples = {runs * items * samples:,} completions,"
          f" {size:.0f} MB " + (f"written in {time.perf_counter() - t:.1f} s" if written else "kept from before"),
          flush=True)
    floor_wall, floor_cpu, out = _timed([sys.executable, "-c", _FLOOR, str(root / "floor.db"), str(folder)])
    floor_rss = json.loads(out)["rss_mb"]
    print(f"floor (json.loads + executemany): {floor_wall:.1f} s, {floor_cpu:.1f} s CPU, {floor_rss:.0f} MB", flush=True)
    db = root / "qa.db"
    load_wall, load_cpu, _ = _timed([sys.executable, "-m", "qa_inspect.tui.cli", "load", str(folder), "--db", str(db)])
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest process so far
    import sqlite3

    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0]
        flaky = conn.execute("SELECT COUNT(*) FROM predictions WHERE flaky = 1").fetchone()[0]
    assert stored == runs * items * samples, stored
    print(f"qa-inspect load: {load_wall:.1f} s = {load_wall / floor_wall:.2f}× the floor, {load_cpu:.1f} s CPU ="
          f" {load_cpu / floor_cpu:.2f}× the floor's (both processes: the second scores half the samples),"
          f" peak RSS {peak:.0f} MB (largest process of the benchmark), database {db.stat().st_size / 1e6:.0f} MB,"
          f" {stored:,} completions, {flaky:,} flaky items", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--keep", type=Path, help="write the files here (default: a temporary folder)")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        bench(args.keep, args.runs, args.items, args.samples)
        return
    with tempfile.TemporaryDirectory() as tmp:
        bench(Path(tmp), args.runs, args.items, args.samples)


if __name__ == "__main__":
    main()
