"""Benchmark: `qa-inspect load` of CMRC 2018 dev replicated to 100k or 1M questions with two runs,
against floors measured on the same files in the same run.

    python tests/bench/bench_scale.py [--questions 100000] [--rounds 3] [--vary] [--keep DIR]
    python tests/bench/bench_scale.py --questions 1000000 --rounds 1 --kill-after 20 --kill-after 60
    python tests/bench/bench_scale.py --questions 1000000 --rounds 0 --keep DIR --change 30

The folder: the dev set copied until it holds `--questions` questions (every id, paragraph and
article id suffixed `_c<copy>`), plus two HF-style runs (`bert-base/eval_predictions.json`,
`roberta-wwm/eval_predictions.json`, written as `run_qa.py` writes them). A model answers a copied
question as it answered the original, so by default each copy repeats the run's answers; `--vary`
draws every copy's answers afresh (the worst case for scoring: few repeated answer/gold pairs).

Each figure is a whole process (wall time; peak RSS of the largest process from
`getrusage(RUSAGE_CHILDREN)`, and of the process tree sampled from /proc, which counts a worker
pool), median of `--rounds` interleaved rounds (the machine may be shared), and is printed as a
ratio to the floors:
- parse: read and `json.loads` the three files (stdlib; orjson too when installed, for reference);
- parse + insert: the same, then contexts, items, golds and predictions inserted with
  `executemany` into a fresh database of the project's schema (ids assigned up front, no scoring,
  no full-text index, one transaction).
Then `load` into a fresh database, and `load` again of the unchanged folder.
`--kill-after S` also kills a load with SIGKILL after S seconds, loads again and checks the
database holds what a clean load stores. `--change S` re-loads a changed version of the dataset
(about 1% of golds changed, 0.1% of questions removed, 0.1% added; written beside the folder as
`<folder>-changed`, the runs linked) over a clean load of the original: time, peak RSS and the
largest WAL, against a clean load of the changed folder; then kills the same re-load after S s,
loads again and checks the database equals the clean load's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_load import make_prediction  # noqa: E402  (the load benchmark's generator: one definition)

DEFAULT_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "cmrc2018_dev.json"
RUNS = ("bert-base", "roberta-wwm")
_SCRIPT = Path(sys.executable).with_name("qa-inspect")
CLI = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-c", "from qa_inspect.tui.cli import main; main()"]
"""The installed `qa-inspect` command, as a user runs it."""


# --- the folder --------------------------------------------------------------------------------

def _copy_article(article: dict, copy: int, budget: int) -> tuple[dict, int]:
    """The article with every id suffixed for `copy`, holding at most `budget` questions."""
    suffix = f"_c{copy}"
    paragraphs = []
    taken = 0
    for para in article["paragraphs"]:
        if taken >= budget:
            break
        qas = [dict(qa, id=qa["id"] + suffix) for qa in para["qas"][: budget - taken]]
        taken += len(qas)
        paragraphs.append(dict(para, id=para["id"] + suffix, qas=qas))
    return dict(article, id=article["id"] + suffix, paragraphs=paragraphs), taken


def write_dataset(data: dict, path: Path, questions: int, visit=None, change: bool = False) -> tuple[int, int]:
    """Write the replicated dataset (streamed, article by article); `visit(qa, context, copy)` sees
    every question; `change`: the `--change` version (see `_changed`). Returns (questions, copies)."""
    written = copy = 0
    with path.open("w", encoding="utf-8") as fh:
        fh.write('{"version": "v1.0", "data": [')
        first = True
        while written < questions:
            for article in data["data"]:
                if written >= questions:
                    break
                art, taken = _copy_article(article, copy, questions - written)
                written += taken
                fh.write(("" if first else ", ") + json.dumps(_changed(art) if change else art, ensure_ascii=False))
                first = False
                for para in art["paragraphs"] if visit else ():
                    for qa in para["qas"]:
                        visit(qa, para["context"], copy)
            copy += 1
        fh.write("]}\n")
    return written, copy


def _changed(article: dict) -> dict:
    """The `--change` version of an article: of every 1,000 questions (by a hash of the id) 10 get
    other golds, 1 is removed and 1 gains a new sibling question."""
    paragraphs = []
    for para in article["paragraphs"]:
        qas = []
        for qa in para["qas"]:
            n = zlib.crc32(qa["id"].encode()) % 1000
            if n == 3:
                continue
            if n < 10 and n != 5:
                qa = dict(qa, answers=[dict(a, text=str(a["text"]) + "之") for a in qa["answers"]])
            qas.append(qa)
            if n == 5:
                qas.append(dict(qa, id=qa["id"] + "_new", question=qa["question"] + "（新）"))
        paragraphs.append(dict(para, qas=qas))
    return dict(article, paragraphs=paragraphs)


def build_folder(dev: Path, root: Path, questions: int, vary: bool) -> dict[str, int]:
    """Write the replicated dataset and the two runs."""
    data = json.loads(dev.read_text(encoding="utf-8"))
    base = [(qa["id"], para["context"], qa["answers"][0])
            for art in data["data"] for para in art["paragraphs"] for qa in para["qas"]]
    answers = {run: _answers(base, seed=r) for r, run in enumerate(RUNS)}
    preds: dict[str, dict[str, str]] = {run: {} for run in RUNS}
    written, copy = write_dataset(data, root / "cmrc2018_dev.json", questions,
                                  lambda qa, context, copy: _predict(preds, answers, qa, context, copy, vary))
    for run in RUNS:
        (root / run).mkdir()
        # HF run_qa.py: json.dumps(predictions, indent=4) (ASCII-escaped) + "\n"
        (root / run / "eval_predictions.json").write_text(json.dumps(preds[run], indent=4) + "\n", encoding="utf-8")
    return {"questions": written, "copies": copy, **{run: len(p) for run, p in preds.items()}}


def _answers(base: list[tuple[str, str, dict]], seed: int) -> dict[str, str | None]:
    rng = random.Random(seed)
    return {qid: make_prediction(rng, ctx, str(a["text"]), int(a.get("answer_start", -1))) for qid, ctx, a in base}


def _predict(preds: dict[str, dict[str, str]], answers: dict[str, dict[str, str | None]], qa: dict,
             context: str, copy: int, vary: bool) -> None:
    base_id = qa["id"].rsplit("_c", 1)[0]
    for r, run in enumerate(RUNS):
        if vary:
            rng = random.Random(f"{run}/{qa['id']}")
            gold = qa["answers"][0]
            text = make_prediction(rng, context, str(gold["text"]), int(gold.get("answer_start", -1)))
        else:
            text = answers[run][base_id]
        if text is not None:
            preds[run][qa["id"]] = text


# --- measuring a whole process -----------------------------------------------------------------

def _tree_rss_kb(pid: int) -> int:
    """RSS of a process and its descendants (kB), read from /proc; 0 once it is gone."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                total += next((int(line.split()[1]) for line in fh if line.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            continue
    return total


def measure(cmd: list[str], kill_after: float | None = None, wal: Path | None = None) -> dict[str, float]:
    """Run `cmd` in a fresh wrapper process: wall seconds, peak RSS (MB) of its largest process
    and of its process tree, exit code; the largest size of the WAL file `wal` (MB) when given."""
    spec = {"cmd": cmd, "kill_after": kill_after, "wal": str(wal) if wal else None}
    wrapper = [sys.executable, __file__, "--measure-child", json.dumps(spec)]
    out = subprocess.run(wrapper, capture_output=True, text=True, check=False)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        sys.exit(f"measurement failed: {out.stderr[-2000:]}")


def _measure_child(spec: str) -> None:
    args = json.loads(spec)
    peak = wal = 0
    t0 = time.perf_counter()
    proc = subprocess.Popen(args["cmd"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, wal
        while not done.is_set():
            peak = max(peak, _tree_rss_kb(proc.pid))
            if args.get("wal"):
                try:
                    wal = max(wal, os.stat(args["wal"]).st_size)
                except OSError:
                    pass
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        _, err = proc.communicate(timeout=args["kill_after"])
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    largest = usage.ru_maxrss / 1024
    print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": largest,
                      "tree": max(peak / 1024, largest), "rc": proc.returncode, "wal_mb": wal / 1e6,
                      "err": err.decode("utf-8", "replace")[-500:]}))


# --- the floors --------------------------------------------------------------------------------

FLOOR_PARSE = """
import json, sys
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as fh:
        json.loads(fh.read())
"""

FLOOR_ORJSON = """
import orjson, sys
for path in sys.argv[1:]:
    with open(path, "rb") as fh:
        orjson.loads(fh.read())
"""

FLOOR_INSERT = """
import json, sys
from pathlib import Path
from qa_inspect.core.store import open_db
conn = open_db(Path(sys.argv[1])).conn
data = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
contexts, items, golds, ids = [], [], [], {}
for article in data["data"]:
    for para in article["paragraphs"]:
        contexts.append((len(contexts) + 1, 1, para["id"], article.get("title"), para["context"]))
        for qa in para["qas"]:
            item_id = len(items) + 1
            ids[qa["id"]] = item_id
            items.append((item_id, 1, qa["id"], qa["id"], qa["question"], len(contexts), len(items) + 1))
            golds.extend((item_id, n, a["text"], a["answer_start"]) for n, a in enumerate(qa["answers"]))
del data
conn.execute("BEGIN IMMEDIATE")
conn.execute("INSERT INTO datasets (id, name, path, format, family, scorer) VALUES (1, 'd', 'd', 'squad', 'cmrc', 'x')")
conn.executemany("INSERT INTO contexts (id, dataset_id, context_key, title, text) VALUES (?, ?, ?, ?, ?)", contexts)
del contexts
conn.executemany("INSERT INTO items (id, dataset_id, key, qkey, question, context_id, source_line)"
                 " VALUES (?, ?, ?, ?, ?, ?, ?)", items)
del items
conn.executemany("INSERT INTO golds (item_id, idx, text, answer_start) VALUES (?, ?, ?, ?)", golds)
del golds
for run_id, path in enumerate(sys.argv[3:], start=1):
    preds = json.loads(Path(path).read_text(encoding="utf-8"))
    conn.execute("INSERT INTO runs (id, name, path, format, dataset_id) VALUES (?, ?, ?, 'map', 1)",
                 (run_id, path, path))
    conn.executemany("INSERT INTO predictions (run_id, item_id, text) VALUES (?, ?, ?)",
                     [(run_id, ids[k], v) for k, v in preds.items() if k in ids])
    del preds
conn.execute("COMMIT")
"""


def _files(root: Path) -> list[Path]:
    return [root / "cmrc2018_dev.json", *(root / run / "eval_predictions.json" for run in RUNS)]


def fresh_db(db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def _has_orjson() -> bool:
    return subprocess.run([sys.executable, "-c", "import orjson"], capture_output=True, check=False).returncode == 0


def one_round(root: Path, work: Path, orjson: bool) -> dict[str, dict[str, float]]:
    files = [str(p) for p in _files(root)]
    db = work / "qa.db"
    out: dict[str, dict[str, float]] = {"parse": measure([sys.executable, "-c", FLOOR_PARSE, *files])}
    if orjson:
        out["orjson parse"] = measure([sys.executable, "-c", FLOOR_ORJSON, *files])
    floor_db = work / "floor.db"
    fresh_db(floor_db)
    out["parse + insert"] = measure([sys.executable, "-c", FLOOR_INSERT, str(floor_db), *files])
    fresh_db(floor_db)
    fresh_db(db)
    out["load"] = measure([*CLI, "load", str(root), "--db", str(db)])
    out["load"]["db_mb"] = db.stat().st_size / 1e6
    out["re-load, unchanged"] = measure([*CLI, "load", str(root), "--db", str(db)])
    return out


# --- kill -9 and resume ------------------------------------------------------------------------

def _db_fingerprint(db: Path) -> dict[str, object]:
    """What a load stores, without row ids or times: counts and order-free sums per table."""
    conn = sqlite3.connect(db)
    q = conn.execute
    out = {
        "items": q("SELECT COUNT(*), SUM(LENGTH(question)), ROUND(SUM(human_f1), 6), ROUND(SUM(human_em), 6) FROM items").fetchone(),
        "golds": q("SELECT COUNT(*), SUM(LENGTH(text)) FROM golds").fetchone(),
        "contexts": q("SELECT COUNT(*), SUM(LENGTH(text)) FROM contexts").fetchone(),
        "predictions": q("SELECT r.name, COUNT(*), SUM(p.em), ROUND(SUM(p.f1), 6) FROM predictions p"
                         " JOIN runs r ON r.id = p.run_id GROUP BY r.name ORDER BY r.name").fetchall(),
        "runs": q("SELECT name, prediction_count, unmatched_count FROM runs ORDER BY name").fetchall(),
        "files": q("SELECT path, kind, sha256 FROM files ORDER BY path").fetchall(),
        "fts": q("SELECT (SELECT COUNT(*) FROM items_fts), (SELECT COUNT(*) FROM predictions_fts)").fetchone(),
    }
    conn.close()
    return out


def kill_and_resume(root: Path, work: Path, after: float) -> None:
    db = work / "killed.db"
    clean = work / "qa.db"
    fresh_db(db)
    killed = measure([*CLI, "load", str(root), "--db", str(db)], kill_after=after)
    state = "killed" if killed["rc"] == -signal.SIGKILL else f"finished first (exit {killed['rc']})"
    conn = sqlite3.connect(db)
    stored = conn.execute("SELECT path, kind, COALESCE(substr(note, 1, 7), 'stored') FROM files ORDER BY path").fetchall()
    conn.close()
    print(f"kill -9 after {after:.0f} s: {state}; the files table then (path, kind, stored or loading): {stored}")
    again = measure([*CLI, "load", str(root), "--db", str(db)])
    same = _db_fingerprint(db) == _db_fingerprint(clean)
    print(f"next load: {again['wall']:.1f} s, exit {again['rc']}; database equals a clean load's: {same}")
    if not same:
        print(json.dumps({"killed+resumed": _db_fingerprint(db), "clean": _db_fingerprint(clean)}, default=str))


# --- a changed dataset ---------------------------------------------------------------------------

def changed_folder(dev: Path, root: Path, questions: int) -> Path:
    """`root` beside itself with the `--change` version of the dataset (the runs linked, not copied)."""
    other = root.with_name(root.name + "-changed")
    if not (other / "cmrc2018_dev.json").is_file():
        shutil.rmtree(other, ignore_errors=True)
        for run in RUNS:
            (other / run).mkdir(parents=True)
            os.link(root / run / "eval_predictions.json", other / run / "eval_predictions.json")
        data = json.loads(dev.read_text(encoding="utf-8"))
        write_dataset(data, other / "cmrc2018_dev.json", questions, change=True)
    return other


def _copy_db(src: Path, dest: Path) -> None:
    fresh_db(dest)
    shutil.copyfile(src, dest)


def change_and_resume(dev: Path, root: Path, work: Path, questions: int, kill_after: float,
                      base: Path | None = None) -> None:
    """Re-load with about 1% of golds changed, 0.1% of items removed and 0.1% added, over the clean
    load of the original (`work/qa.db`): time, peak RSS, largest WAL; then the same re-load killed
    after `kill_after` s and resumed, compared with a clean load of the changed folder."""
    other = changed_folder(dev, root, questions)
    base = base or work / "qa.db"
    if not base.is_file():
        first = measure([*CLI, "load", str(root), "--db", str(base)])
        print(f"load of the original: {first['wall']:.1f} s, exit {first['rc']}")
    clean = work / "changed-clean.db"
    fresh_db(clean)
    fresh = measure([*CLI, "load", str(other), "--db", str(clean)], wal=Path(f"{clean}-wal"))
    db = work / "changed.db"
    _copy_db(base, db)
    again = measure([*CLI, "load", str(other), "--db", str(db)], wal=Path(f"{db}-wal"))
    for name, m in (("clean load of the changed folder", fresh), ("re-load of the changed dataset", again)):
        print(f"{name:34} {m['wall']:7.1f} s, cpu {m['cpu']:6.1f} s, peak {m['rss']:5.0f} MB, tree {m['tree']:5.0f} MB,"
              f" largest WAL {m['wal_mb']:6.0f} MB, exit {m['rc']}")
    print(f"re-load equals a clean load of the changed folder: {_db_fingerprint(db) == _db_fingerprint(clean)}")
    _copy_db(base, db)
    killed = measure([*CLI, "load", str(other), "--db", str(db)], kill_after=kill_after, wal=Path(f"{db}-wal"))
    conn = sqlite3.connect(db)
    staged = conn.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'staged_items'").fetchone()[0]
    staged = conn.execute("SELECT COUNT(*) FROM staged_items").fetchone()[0] if staged else 0
    conn.close()
    state = "killed" if killed["rc"] == -signal.SIGKILL else f"finished first (exit {killed['rc']})"
    print(f"re-load killed after {kill_after:.0f} s: {state}, {staged:,} items staged; largest WAL {killed['wal_mb']:.0f} MB")
    resumed = measure([*CLI, "load", str(other), "--db", str(db)], wal=Path(f"{db}-wal"))
    same = _db_fingerprint(db) == _db_fingerprint(clean)
    print(f"next load: {resumed['wall']:.1f} s, exit {resumed['rc']}, largest WAL {resumed['wal_mb']:.0f} MB;"
          f" database equals a clean load of the changed folder: {same}")
    if not same:
        print(json.dumps({"resumed": _db_fingerprint(db), "clean": _db_fingerprint(clean)}, default=str))


# --- main ----------------------------------------------------------------------------------------

def _report(rounds: list[dict[str, dict[str, float]]]) -> None:
    names = list(rounds[0])
    med = {n: {k: statistics.median(r[n][k] for r in rounds) for k in ("wall", "cpu", "rss", "tree")} for n in names}
    parse, insert = med["parse"]["wall"], med["parse + insert"]["wall"]
    print(f"{'':22} {'wall s':>8} {'× parse':>8} {'× p+ins':>8} {'cpu s':>8} {'peak MB':>8} {'tree MB':>8}"
          f"   (median of {len(rounds)}; cpu: user + system of every process)")
    for n in names:
        m = med[n]
        print(f"{n:22} {m['wall']:8.2f} {m['wall'] / parse:8.2f} {m['wall'] / insert:8.2f} {m['cpu']:8.2f}"
              f" {m['rss']:8.0f} {m['tree']:8.0f}")
    walls = {n: [round(r[n]["wall"], 2) for r in rounds] for n in names}
    print(f"all rounds: {walls}")
    print(f"database after load: {statistics.median(r['load']['db_mb'] for r in rounds):.0f} MB")
    errs = {r["load"]["err"] for r in rounds if r["load"]["rc"]}
    if errs:
        print(f"load exited non-zero: {errs}")


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--measure-child":
        _measure_child(sys.argv[2])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--questions", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--vary", action="store_true", help="draw every copy's answers afresh")
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    ap.add_argument("--keep", type=Path, default=None, help="build (or reuse) the folder here")
    ap.add_argument("--change", type=float, default=None, metavar="S",
                    help="also: re-load a changed version of the dataset, then the same killed after S s and resumed")
    ap.add_argument("--base", type=Path, default=None,
                    help="with --change: a clean load of the folder to start from (read only; else one is made)")
    ap.add_argument("--kill-after", type=float, action="append", default=[],
                    help="also: kill -9 a load after S s, then resume (may be given more than once)")
    args = ap.parse_args()
    if not args.dev.is_file():
        print(f"skipped: {args.dev} not found (CMRC 2018 dev set, SQuAD-style)")
        return
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, {platform.system()} {platform.release()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        root = args.keep or work / "runs"
        if not (root / "cmrc2018_dev.json").is_file():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            t0 = time.perf_counter()
            made = build_folder(args.dev.resolve(), root, args.questions, args.vary)
            print(f"generated {made} in {time.perf_counter() - t0:.1f} s")
        size = sum(p.stat().st_size for p in _files(root)) / 1e6
        print(f"folder: {root.name}, input {size:.0f} MB ({', '.join(f'{p.stat().st_size / 1e6:.0f}' for p in _files(root))})")
        orjson = _has_orjson()
        rounds = [one_round(root, work, orjson) for _ in range(args.rounds)]
        if rounds:
            _report(rounds)
        for after in args.kill_after:
            kill_and_resume(root, work, after)
        if args.change is not None:
            change_and_resume(args.dev.resolve(), root, work, args.questions, args.change, args.base)


if __name__ == "__main__":
    main()
