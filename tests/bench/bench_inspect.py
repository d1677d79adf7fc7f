"""Benchmark: Inspect `.eval` logs (Zstandard members, as inspect_ai writes them) of 1k-20k samples
against the same predictions as plain JSONL, the floor a log cannot beat.

    python tests/bench/bench_inspect.py [--samples 1000 2000 4000 8000 20000] [--keep DIR]

Each file is read by `read_source` in a fresh process (wall time and peak RSS of that process), and
loaded with its dataset by `qa-inspect load` (wall time and peak RSS of the load's process tree,
`bench_scale.measure`). Prints one row per size: log and JSONL times, their ratio, peak memory,
and both loads with the log's load as a ratio to the JSONL run's. Targets: 20,000 samples load in
under 10 s; 200,000 under 2 minutes and 1.5 GB; each within 2× the JSONL run's load (the archive
is opened once: reopening it per member made 8k samples take 106 s, quadratic).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import CLI, measure  # noqa: E402
from tests.tools.make_inspect_logs import write_set  # noqa: E402

_READ = """
import json, sys, time
from qa_inspect.core.formats import read_source
t = time.perf_counter()
run = read_source(sys.argv[1])
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"seconds": time.perf_counter() - t, "predictions": len(run.predictions), "rss_mb": peak / 1024}))
"""
# Peak RSS of the reading process from /proc (VmHWM starts afresh at exec; ru_maxrss would carry
# over this process's own peak, which holds the generated files).


def read_once(path: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _READ, str(path)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def load_once(folder: Path, db: Path) -> dict[str, float]:
    """`qa-inspect load` of the folder: wall seconds and peak RSS (MB) of its process tree."""
    got = measure([*CLI, "load", str(folder), "--db", str(db)])
    if got.get("rc"):
        sys.exit(f"the load of {folder} failed")
    return got


def bench(root: Path, sizes: list[int]) -> None:
    print(f"{'samples':>8} {'log s':>7} {'jsonl s':>8} {'ratio':>6} {'log MB':>7} {'jsonl MB':>8} {'load log s':>10}"
          f" {'load jsonl s':>12} {'ratio':>6} {'load log MB':>11} {'load jsonl MB':>13}")
    for n in sizes:
        log, pred, data = write_set(root / f"set-{n}", n)
        got_log, got_jsonl = read_once(log), read_once(pred)
        assert got_log["predictions"] == got_jsonl["predictions"] == n
        loads = []
        for keep in (log, pred):
            folder = root / f"folder-{n}-{keep.suffix[1:]}"
            folder.mkdir()
            (folder / data.name).symlink_to(data)
            (folder / keep.name).symlink_to(keep)
            loads.append(load_once(folder, folder / "qa.db"))
        ratio = got_log["seconds"] / max(got_jsonl["seconds"], 1e-6)
        load_ratio = loads[0]["wall"] / max(loads[1]["wall"], 1e-6)
        print(f"{n:>8} {got_log['seconds']:>7.2f} {got_jsonl['seconds']:>8.2f} {ratio:>6.1f} {got_log['rss_mb']:>7.0f}"
              f" {got_jsonl['rss_mb']:>8.0f} {loads[0]['wall']:>10.2f} {loads[1]['wall']:>12.2f} {load_ratio:>6.2f}"
              f" {loads[0]['tree']:>11.0f} {loads[1]['tree']:>13.0f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 20000])
    parser.add_argument("--keep", type=Path, help="write the files here (default: a temporary folder)")
    args = parser.parse_args()
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        bench(args.keep, args.samples)
        return
    with tempfile.TemporaryDirectory() as tmp:
        bench(Path(tmp), args.samples)


if __name__ == "__main__":
    main()
