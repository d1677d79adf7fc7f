"""Benchmark: qa_inspect.core.metrics.cmrc against the plain official algorithm (baseline_cmrc).

    python tests/bench/bench_score.py [DEV_JSON] [--runs N]

Generates N deterministic prediction maps for CMRC 2018 dev (exact golds, random context spans,
truncated/extended golds, English answers, punctuation noise, missing ids), scores them with both
implementations in one process, asserts identical per-item EM/F1 and totals, and prints timings.
Skips with a message when the data file is absent.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import baseline_cmrc  # noqa: E402

from qa_inspect.core.metrics import cmrc  # noqa: E402
from qa_inspect.core.metrics.segment import cache_clear  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "data" / "cmrc2018_dev.json"
ENGLISH = ["the answer is", "in 1998", "New York City", "it's not known", "U.S. Open", "cannot say",
           "about 3.5 million", "ACL 2024", "\"quoted\" text", "Dr. Smith's house", "C++ and Python"]

Question = tuple[str, list[str], str]  # id, golds, context


def load(path: Path) -> list[Question]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(qa["id"].strip(), [a["text"] for a in qa["answers"]], para["context"])
            for art in data["data"] for para in art["paragraphs"] for qa in para["qas"]]


def make_predictions(questions: list[Question], seed: int) -> dict[str, str]:
    """A mix of typical span errors; about 3 % of ids are left out (SKIP)."""
    rnd = random.Random(seed)
    preds: dict[str, str] = {}
    for qid, golds, context in questions:
        r = rnd.random()
        gold = rnd.choice(golds) if golds else ""
        at = context.find(gold) if gold else -1
        if r < 0.03:
            continue
        if r < 0.35:
            text = gold
        elif r < 0.55:
            start = rnd.randrange(max(1, len(context) - 2))
            text = context[start : start + rnd.randint(1, 40)]
        elif r < 0.68:
            text = gold[: max(1, len(gold) - rnd.randint(1, 4))]
        elif r < 0.80 and at >= 0:
            text = context[max(0, at - rnd.randint(0, 6)) : at + len(gold) + rnd.randint(1, 12)]
        elif r < 0.90:
            text = f"{rnd.choice(ENGLISH)} {gold}" if rnd.random() < 0.5 else rnd.choice(ENGLISH)
        else:
            text = rnd.choice(["", " ", "《", "“"]) + gold + rnd.choice(["。", "，", "…", "!", " "])
        preds[qid] = text
    return preds


def run_fast(questions: list[Question], preds: dict[str, str]) -> tuple[list, dict]:
    scores = [cmrc.score(preds[q], golds) if q in preds else None for q, golds, _ in questions]
    return scores, cmrc.aggregate(scores, len(questions))


def run_baseline(questions: list[Question], preds: dict[str, str]) -> tuple[list, dict]:
    per = [(baseline_cmrc.calc_em_score(g, preds[q]), baseline_cmrc.calc_f1_score(g, preds[q]))
           if q in preds else None for q, g, _ in questions]
    return per, baseline_cmrc.evaluate([(q, g) for q, g, _ in questions], preds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT))
    ap.add_argument("--runs", type=int, default=5, help="prediction maps to score (default 5)")
    args = ap.parse_args()
    path = Path(args.dataset)
    if not path.is_file():
        print(f"skipped: dataset not found: {path}")
        return 0
    print(f"machine: {platform.platform()} | {platform.processor() or platform.machine()} | "
          f"cpus={os.cpu_count()} | python {platform.python_version()}")
    questions = load(path)
    runs = [make_predictions(questions, seed) for seed in range(args.runs)]
    n_preds = sum(len(p) for p in runs)
    n_pairs = sum(len(g) for p in runs for q, g, _ in questions if q in p)
    print(f"data: {path.name}, {len(questions)} questions x {args.runs} runs = {n_preds} predictions, "
          f"{n_pairs} prediction-gold pairs")
    baseline_cmrc.mixed_segmentation("warm up nltk")  # import costs are not measured
    cmrc.score("warm up", ["nltk"])

    t0 = time.perf_counter()
    base = [run_baseline(questions, p) for p in runs]
    t_base = time.perf_counter() - t0

    cache_clear()
    t0 = time.perf_counter()
    first = run_fast(questions, runs[0])
    t_cold_one = time.perf_counter() - t0
    cache_clear()
    t0 = time.perf_counter()
    fast = [run_fast(questions, p) for p in runs]
    t_fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    [run_fast(questions, p) for p in runs]
    t_warm = time.perf_counter() - t0

    bad = 0
    for (b_per, b_tot), (f_per, f_tot) in zip(base, fast):
        for b, f in zip(b_per, f_per):
            if (b is None) != (f is None) or (b is not None and (b[0] != f.em or b[1] != f.f1)):
                bad += 1
        want = {"em": float(b_tot["EM"]), "f1": float(b_tot["F1"]), "average": float(b_tot["AVERAGE"]),
                "total": b_tot["TOTAL"], "skip": b_tot["SKIP"]}
        assert f_tot == want, (f_tot, want)
    assert bad == 0, f"{bad} items differ between baseline and fast scorer"
    assert first[1] == fast[0][1]
    print("agreement: every item identical (EM equal, F1 bit-for-bit), totals identical")
    for k, (_, tot) in enumerate(fast[:3]):
        print(f"  run {k}: {json.dumps(tot)}")

    per = lambda t, n: f"{t:.2f} s ({1e6 * t / n:.1f} µs/prediction)"  # noqa: E731
    print(f"baseline (official algorithm, no caches): {per(t_base, n_preds)}")
    print(f"fast, all runs, caches empty at start:    {per(t_fast, n_preds)}  "
          f"speed-up {t_base / t_fast:.1f}x")
    n0 = len(runs[0])
    print(f"fast, one run, caches empty (cold):       {per(t_cold_one, n0)}  "
          f"speed-up {t_base / n_preds * n0 / t_cold_one:.1f}x")
    print(f"fast, re-scoring, all cache hits (warm):  {per(t_warm, n_preds)}  "
          f"speed-up {t_base / t_warm:.1f}x")
    print(f"estimate for 320k predictions (cold rate): {320_000 * t_cold_one / n0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
