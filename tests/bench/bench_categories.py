"""Benchmark: error categories and question features over generated runs × CMRC dev.

    python tests/bench/bench_categories.py [--runs 10] [--dev PATH]

What ingest would add per prediction (`error_category`, given the score ingest already has) and
per item (`question_features`). Predictions come from the same generator as `bench_load.py`
(exact golds, boundary errors, random passage spans, missing ids; fixed seeds). Prints the
machine, wall and CPU time (CPU: the machine is shared) per prediction and per item, and the
projection to the load benchmark's 312,282 predictions. Gold spans are given as the store keeps
them (located by the dataset reader), predictions come scored, as ingest has them. The load
target is < 15 s for the whole load, scoring included.
"""

from __future__ import annotations

import argparse
import collections
import platform
import random
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_load import make_prediction  # noqa: E402  (the load benchmark's generator: one definition)

from qa_inspect.core.formats import read_source
from qa_inspect.core.metrics import (
    CMRC_OFFICIAL, ScoreRow, category_and_relation, error_category, question_features, score_prediction,
)

DEFAULT_DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "cmrc2018_dev.json"
LOAD_BENCH_PREDICTIONS = 312_282


def items(dev: Path) -> list[tuple[str, str, list[str], int, list[tuple[int, int] | None]]]:
    """(passage, question, golds, first answer_start, located gold spans) as the reader gives them."""
    out = []
    for it in read_source(dev).items:
        spans = [(g.span_start, g.span_end) if g.span_start is not None and g.span_end is not None else None
                 for g in it.golds]
        start = it.golds[0].answer_start if it.golds and it.golds[0].answer_start is not None else -1
        out.append((it.context or "", it.question, [g.text for g in it.golds], start, spans))
    return out


def generated(qs: list[tuple[str, str, list[str], int, list[tuple[int, int] | None]]], seeds: range) -> list[
        tuple[str, list[str], str, list[tuple[int, int] | None], ScoreRow]]:
    """A run's predictions per seed over the dev items, scored as ingest has them."""
    work = []
    for r in seeds:
        rng = random.Random(r)
        for context, _q, golds, start, spans in qs:
            p = make_prediction(rng, context, golds[0], start)
            if p is not None:
                work.append((p, golds, context, spans, score_prediction(CMRC_OFFICIAL, p, golds)))
    return work


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    args = ap.parse_args()
    if not args.dev.exists():
        sys.exit(f"CMRC dev set not found: {args.dev}")
    qs = items(args.dev)
    work, stored = generated(qs, range(args.runs)), generated(qs, range(1000, 1000 + args.runs))
    t0, c0 = time.perf_counter(), time.process_time()
    counts = collections.Counter(
        error_category(p, golds, ctx, CMRC_OFFICIAL, gold_spans=spans, score=row).code
        for p, golds, ctx, spans, row in work
    )
    dt_cat, cpu_cat = time.perf_counter() - t0, time.process_time() - c0
    c0 = time.process_time()  # other predictions (seeds), so that no cache holds them yet
    for p, golds, ctx, spans, row in stored:
        category_and_relation(p, golds, ctx, CMRC_OFFICIAL, gold_spans=spans, score=row)[0].code
    cpu_stored = time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    for context, question, golds, _start, spans in qs:
        question_features(question, golds, context, gold_spans=spans)
    dt_feat, cpu_feat = time.perf_counter() - t0, time.process_time() - c0
    per_pred = cpu_cat / len(work)
    print(f"{platform.machine()} {platform.processor() or ''}, {platform.system()}, Python "
          f"{platform.python_version()}, SQLite {sqlite3.sqlite_version}")
    print(f"error_category: {len(work)} predictions ({args.runs} runs) in {dt_cat:.2f} s wall, {cpu_cat:.2f} s CPU"
          f" = {per_pred * 1e6:.1f} µs CPU each → {per_pred * LOAD_BENCH_PREDICTIONS:.1f} s CPU for the load "
          f"benchmark's {LOAD_BENCH_PREDICTIONS:,}")
    print(f"category_and_relation, the code and relation a load stores (no reason written): "
          f"{len(stored)} predictions, {cpu_stored / len(stored) * 1e6:.1f} µs CPU each")
    print(f"question_features: {len(qs)} items in {dt_feat:.2f} s wall, {cpu_feat:.2f} s CPU = "
          f"{cpu_feat / len(qs) * 1e6:.0f} µs CPU each")
    print("categories:", ", ".join(f"{k} {v}" for k, v in counts.most_common()))


if __name__ == "__main__":
    main()
