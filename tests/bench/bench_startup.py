"""Benchmark: start-up and `score` as whole processes, each against a floor measured in the same run.

    python tests/bench/bench_startup.py [--dev PATH] [--copies 31] [--rounds 5] [--keep DIR] [--repeat]

Prints, medians of `--rounds` interleaved rounds (wall time; CPU time; peak RSS of the process):
- `qa-inspect --help` against the floor: a process that parses CMRC 2018 dev with `json.load`;
- a re-load of an unchanged runs folder (`qa-inspect load DIR`; the dev set replicated `--copies`
  times with ids suffixed per copy, two generated runs), after one untimed first load;
- `qa-inspect score` on CMRC dev and on the replicated set (one prediction map each), against the
  floor: a process that parses the dataset and the predictions with `json.load` and walks every
  question and answer.
Targets: `--help` within 1.5× its floor, re-load under 0.4 s, `score` (100k) within 2×
its floor. Skips with a message when the dev set is absent.

Answers: by default (`--vary`) every question of every copy gets its own draw (one generator over
the whole replicated set), so copies share an answer only where the draw repeats one (the gold
itself, mostly); `--repeat` gives every copy the first copy's answers, as `bench_scale.py` does by
default (`score`, like `load`, scores each distinct answer/golds pair once). The count of distinct
pairs is printed with the files.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "cmrc2018_dev.json"

FLOOR_PARSE = "import json, sys; json.load(open(sys.argv[1], encoding='utf-8'))"
FLOOR_WALK = """
import json, sys
data = json.load(open(sys.argv[1], encoding="utf-8"))
preds = json.load(open(sys.argv[2], encoding="utf-8"))
n = 0
for article in data["data"]:
    for para in article["paragraphs"]:
        for qa in para["qas"]:
            p = preds.get(qa["id"])
            n += len([a["text"] for a in qa["answers"]]) + (p is not None)
"""


def replicate(dev: dict, copies: int) -> dict:
    """The dev set `copies` times over, ids (question and article) suffixed with the copy number."""
    articles = []
    for c in range(copies):
        for art in dev["data"]:
            paras = [{**p, "qas": [{**qa, "id": f"{qa['id']}-{c}"} for qa in p["qas"]]} for p in art["paragraphs"]]
            articles.append({**art, "id": f"{art.get('id', '')}-{c}", "paragraphs": paras})
    return {"version": dev.get("version", ""), "data": articles}


def questions(data: dict) -> list[tuple[str, list[str], str]]:
    return [(qa["id"], [str(a["text"]) for a in qa["answers"]], para["context"])
            for art in data["data"] for para in art["paragraphs"] for qa in para["qas"]]


def write_json(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")


def paths(dev_path: Path, root: Path) -> dict[str, Path]:
    return {"dev": dev_path, "dev_preds": root / "dev_predictions.json", "big": root / "runs" / "dataset.json",
            "big_preds": root / "runs" / "bert-a" / "eval_predictions.json",
            "big_preds_b": root / "runs" / "bert-b" / "eval_predictions.json", "runs": root / "runs"}


def build(dev_path: Path, root: Path, copies: int, repeat: bool = False) -> str:
    """Write the files the measurements read (reused when present); the replicated set's size and
    its distinct (answer, golds) pairs. Run in a child process: peak RSS survives exec on Linux, so
    the measuring process stays small."""
    files = paths(dev_path, root)
    count = root / "questions.txt"
    if all(p.exists() for p in files.values()) and count.exists():
        return count.read_text()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_score import make_predictions  # typical span errors, some English, some ids left out

    dev = json.loads(dev_path.read_text(encoding="utf-8"))
    write_json(files["dev_preds"], make_predictions(questions(dev), 0))
    big = replicate(dev, copies)
    write_json(files["big"], big)
    qs = questions(big)
    runs = []
    for seed, name in enumerate(("big_preds", "big_preds_b")):
        preds = repeated(make_predictions(questions(dev), seed), copies) if repeat else make_predictions(qs, seed)
        write_json(files[name], preds)
        runs.append(preds)
    distinct = len({(runs[0][q], tuple(golds)) for q, golds, _ in qs if q in runs[0]})
    count.write_text(f"{len(qs)} {distinct}")
    return count.read_text()


def repeated(preds: dict[str, str], copies: int) -> dict[str, str]:
    """The first copy's answers for every copy (ids suffixed as `replicate` does)."""
    return {f"{qid}-{c}": text for c in range(copies) for qid, text in preds.items()}


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor()
    return next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("model name")), "")


def cli() -> list[str]:
    """The console script next to this interpreter, else the same entry point through `-m`."""
    script = Path(sys.executable).with_name("qa-inspect")
    return [str(script)] if script.exists() else [sys.executable, "-m", "qa_inspect.tui.cli"]


ENV = dict(os.environ)


def run(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MB) of one process; its output is
    discarded, a failure stops here."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    ap.add_argument("--copies", type=int, default=31, help="replicas of the dev set (31 ≈ 100k questions)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="build the files here and keep them (reused if present)")
    answers = ap.add_mutually_exclusive_group()
    answers.add_argument("--vary", action="store_true", help="every copy's answers drawn afresh (the default)")
    answers.add_argument("--repeat", action="store_true", help="every copy repeats the first copy's answers "
                         "(in DIR/repeat with --keep)")
    ap.add_argument("--no-bytecode-cache", action="store_true",
                    help="keep PYTHONDONTWRITEBYTECODE as set (every start compiles the package's modules)")
    ap.add_argument("--build-into", type=Path, default=None, help=argparse.SUPPRESS)  # the child that builds
    args = ap.parse_args()
    if args.build_into:
        print(build(args.dev.resolve(), args.build_into, args.copies, args.repeat))
        return
    if not args.dev.is_file():
        print(f"skipped: {args.dev} not found (CMRC 2018 dev set, SQuAD-style)")
        return
    print(f"machine: {platform.machine()} {cpu_model()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {platform.system()} {platform.release()}")
    if not args.no_bytecode_cache:  # as an installed package runs: its modules' bytecode cached
        ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    cached = "PYTHONDONTWRITEBYTECODE" not in ENV
    print(f"bytecode: {'cached (as installed; warmed by one untimed run of each command)' if cached else 'not cached'}")
    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    try:
        root = args.keep / "repeat" if args.keep and args.repeat else args.keep or Path(tmp)
        built = subprocess.run([sys.executable, __file__, "--dev", str(args.dev), "--copies", str(args.copies),
                                "--build-into", str(root), *(["--repeat"] if args.repeat else [])],
                               capture_output=True, text=True, check=True)
        n_big, *distinct = (int(n) for n in built.stdout.split())
        files = paths(args.dev.resolve(), root)
        py, qa = [sys.executable, "-c"], cli()
        first, _, _ = run([*qa, "load", str(files["runs"])])
        print(f"files: CMRC dev ({files['dev'].stat().st_size / 1e6:.1f} MB), replicated ×{args.copies} = "
              f"{n_big:,} questions ({files['big'].stat().st_size / 1e6:.0f} MB); first load of it + 2 runs "
              f"{first:.1f} s (untimed below)")
        print(f"answers: {'each copy repeats the first' if args.repeat else 'drawn afresh for every copy'}"
              + (f", {distinct[0]:,} distinct answer/golds pairs in the run scored" if distinct else ""))
        print(f"load average at start: {os.getloadavg()[0]:.2f}")
        cases = {
            "floor: json.load of CMRC dev": [*py, FLOOR_PARSE, str(files["dev"])],
            "qa-inspect --help": [*qa, "--help"],
            "re-load of the unchanged folder": [*qa, "load", str(files["runs"])],
            "floor: parse + walk, CMRC dev": [*py, FLOOR_WALK, str(files["dev"]), str(files["dev_preds"])],
            "qa-inspect score, CMRC dev": [*qa, "score", str(files["dev"]), str(files["dev_preds"]), "--json"],
            f"floor: parse + walk, {n_big // 1000}k": [*py, FLOOR_WALK, str(files["big"]), str(files["big_preds"])],
            f"qa-inspect score, {n_big // 1000}k": [*qa, "score", str(files["big"]), str(files["big_preds"]), "--json"],
        }
        for name in list(cases)[1:5]:  # warm-up (bytecode, file cache); the 100k score imports as the 3k one
            run(cases[name])
        results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in cases}
        for _ in range(args.rounds):  # interleaved, so a busy moment hits every case alike
            for name, argv in cases.items():
                results[name].append(run(argv))
        med = {name: (statistics.median(w for w, _, _ in r), statistics.median(c for _, c, _ in r),
                      max(m for _, _, m in r)) for name, r in results.items()}
        names = list(cases)
        floors = {names[1]: names[0], names[2]: None, names[4]: names[3], names[6]: names[5]}
        targets = {names[1]: "≤ 1.5×", names[2]: "< 0.4 s", names[6]: "≤ 2×"}
        print(f"\nmedian of {args.rounds} (wall; CPU; peak RSS), load average at end {os.getloadavg()[0]:.2f}:")
        for name in names:
            wall, cpu, rss = med[name]
            floor = floors.get(name)
            ratio = f"  {wall / med[floor][0]:4.2f}× its floor (CPU {cpu / med[floor][1]:4.2f}×)" if floor else ""
            target = f"  [target {targets[name]}]" if name in targets else ""
            print(f"  {name:<34} {wall:6.3f} s  {cpu:6.3f} s  {rss:5.0f} MB{ratio}{target}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
