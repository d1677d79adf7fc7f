"""Benchmark: load a generated runs folder of 100 runs × CMRC dev (≈320k predictions), scoring included.

    python tests/bench/bench_load.py [--runs 100] [--dev PATH] [--keep DIR]

Builds the folder in a temporary directory (the dev set is symlinked, predictions generated with a
fixed seed: exact golds, boundary errors, random context spans, missing ids), then runs the real
`load_runs` in a fresh process and prints wall time and peak memory (max RSS), then a second,
unchanged load. Targets: first load < 15 s and < 500 MB on a 2-core machine; second load < 1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "cmrc2018_dev.json"


def make_prediction(rng: random.Random, context: str, gold: str, start: int) -> str | None:
    """A plausible span-extraction answer: mostly right, often off at the edges, sometimes elsewhere."""
    roll = rng.random()
    if roll < 0.03:
        return None
    if roll < 0.55 or start < 0:
        return gold
    if roll < 0.85:
        a = max(0, start + rng.randint(-4, 3))
        b = min(len(context), start + len(gold) + rng.randint(-3, 5))
        return context[a:b] if b > a else gold
    a = rng.randrange(0, max(1, len(context) - 10))
    return context[a : a + rng.randint(2, 25)]


def build_folder(dev: Path, root: Path, runs: int) -> int:
    data = json.loads(dev.read_text(encoding="utf-8"))
    questions = [
        (qa["id"], para["context"], qa["answers"][0])
        for article in data["data"]
        for para in article["paragraphs"]
        for qa in para["qas"]
    ]
    (root / "cmrc2018_dev.json").symlink_to(dev)
    total = 0
    for r in range(runs):
        rng = random.Random(r)
        preds: dict[str, str] = {}
        for qid, context, ans in questions:
            p = make_prediction(rng, context, str(ans["text"]), int(ans.get("answer_start", -1)))
            if p is not None:
                preds[qid] = p
        total += len(preds)
        folder = root / f"model-{r:03d}"
        folder.mkdir()
        (folder / "eval_predictions.json").write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    return total


CHILD = """
import resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from qa_inspect.core.load import load_runs
s = load_runs(Path(sys.argv[1]), Path(sys.argv[2]))
dt = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{dt:.2f} {rss:.0f} {len(s.runs)} {sum(r.predictions for r in s.runs)} {len(s.errors)} {int(s.changed)}")
"""


def timed_load(folder: Path, db: Path) -> tuple[float, float, int, int, int, bool]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(folder), str(db)], capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr)
    dt, rss, runs, preds, errors, changed = out.stdout.split()
    return float(dt), float(rss), int(runs), int(preds), int(errors), changed == "1"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    ap.add_argument("--keep", type=Path, default=None, help="build the folder here and keep it")
    args = ap.parse_args()
    if not args.dev.is_file():
        print(f"skipped: {args.dev} not found (CMRC 2018 dev set, SQuAD-style)")
        return
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {platform.system()} {platform.release()}")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "runs"
        root.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        total = build_folder(args.dev.resolve(), root, args.runs)
        print(f"generated {args.runs} runs, {total:,} predictions in {time.perf_counter() - t0:.1f} s")
        db = Path(tmp) / "qa.db"
        dt, rss, runs, preds, errors, _ = timed_load(root, db)
        print(f"first load:  {dt:6.2f} s  peak RSS {rss:5.0f} MB  ({runs} runs, {preds:,} predictions, {errors} errors)"
              f"  [target < 15 s, < 500 MB]")
        dt2, rss2, *_rest, changed = timed_load(root, db)
        print(f"second load: {dt2:6.2f} s  peak RSS {rss2:5.0f} MB  (changed: {changed})  [target < 1 s]")
        print(f"database: {db.stat().st_size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
