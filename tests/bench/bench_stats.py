"""Statistics benchmark (a script, not a test): paired resampling over many common items.

    python tests/bench/bench_stats.py [--items 100000] [--resamples 10000]

Each case runs in a fresh process (data generated first, not timed) and prints wall time and peak
memory (max RSS of that process, numpy and the data included). Target: 10,000 paired
resamples over 100,000 common items in < 2 s and < 300 MB on a 2-core machine.

Cases: Δ EM and Δ F1 with CMRC-like scores (F1 = 2·overlap / (len_pred + len_gold) with short
answers), by item and clustered by passage (4 questions a passage); approximate randomisation of
Δ F1; a whole `pair_significance` (overall + 12 slices, EM and F1, as `qa-inspect diff` computes);
and the worst case for the engine: continuous scores where every item's Δ is distinct.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import textwrap

CASES = {
    "em": "Δ EM, by item",
    "f1": "Δ F1, by item",
    "em_passage": "Δ EM, by passage",
    "f1_passage": "Δ F1, by passage",
    "f1_randomisation": "Δ F1, by item, p by approximate randomisation",
    "diff": "pair_significance: overall + 12 slices × EM, F1, by passage",
    "continuous": "worst case: every Δ distinct (continuous scores), by item",
}

_CHILD = textwrap.dedent("""
    import resource, sys, time
    import numpy as np
    case, n, resamples = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    from qa_inspect.core import stats
    rng = np.random.default_rng(2018)

    def f1_like(base=None):
        pred, gold = rng.integers(1, 12, n), rng.integers(1, 12, n)
        overlap = np.minimum(pred, gold) * (rng.random(n) < 0.75) * rng.integers(0, 2, n)
        score = 2 * overlap / (pred + gold)
        if base is None:
            return score
        return np.where(rng.random(n) < 0.3, score, base)  # B changes 30% of A's answers

    f1_a = f1_like(); f1_b = f1_like(f1_a)
    em_a, em_b = (f1_a == 1).astype(float), (f1_b == 1).astype(float)
    passages = np.arange(n) // 4
    if case == "continuous":
        f1_a, f1_b = rng.random(n), rng.random(n)
    if case == "diff":
        import polars as pl
        from qa_inspect.core.report import StatOptions, pair_significance
        tags = np.array([f"t{i}" for i in range(12)])[rng.integers(0, 12, n)]
        frame = pl.DataFrame({
            "item_id": np.arange(n), "context_id": passages, "tag": tags, "split": ["dev"] * n,
            "answer_type": [None] * n, "answerable": [None] * n,
            "em_a": em_a.astype(int), "f1_a": f1_a, "refused_a": [False] * n, "f1_recall_a": [None] * n,
            "em_b": em_b.astype(int), "f1_b": f1_b, "refused_b": [False] * n, "f1_recall_b": [None] * n,
        }, schema_overrides={"f1_recall_a": pl.Float64, "f1_recall_b": pl.Float64, "answer_type": pl.String,
                             "answerable": pl.String})
        slices = [("overall", "all", m) for m in ("em", "f1")] + [("tag", f"t{i}", m) for i in range(12) for m in ("em", "f1")]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    if case == "diff":
        out = pair_significance(frame, slices, discordant={}, options=StatOptions(resamples=resamples))
        note = f"{len(out.tests)} tests, {out.units:,} passages"
    else:
        a, b = (em_a, em_b) if case.startswith("em") else (f1_a, f1_b)
        clusters = passages if case.endswith("passage") else None
        t = stats.paired_bootstrap(a, b, clusters, resamples=resamples, rng=stats.rng_for(1),
                                   randomisation=case == "f1_randomisation")
        note = f"Δ {t.delta * 100:+.2f} [{t.low * 100:+.2f}, {t.high * 100:+.2f}] p {t.p:.4f}, {len(np.unique(b - a))} distinct Δ"
    dt = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{dt:.3f} {rss:.0f} {rss0:.0f} {note}")
""")


def run(case: str, items: int, resamples: int) -> tuple[float, float, float, str]:
    proc = subprocess.run([sys.executable, "-c", _CHILD, case, str(items), str(resamples)],
                          capture_output=True, text=True, check=True)
    dt, rss, rss0, note = proc.stdout.strip().split(" ", 3)
    return float(dt), float(rss), float(rss0), note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--case", choices=list(CASES), action="append", help="only these cases (repeatable)")
    args = parser.parse_args()
    print(f"machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, {platform.system()} {platform.release()}; load {os.getloadavg()[0]:.2f}")
    print(f"{args.resamples:,} paired resamples over {args.items:,} common items  [target < 2 s, < 300 MB]")
    for case in args.case or list(CASES):
        dt, rss, rss0, note = run(case, args.items, args.resamples)
        print(f"  {CASES[case]:<62} {dt:6.2f} s  peak RSS {rss:4.0f} MB (before: {rss0:.0f})  {note}")


if __name__ == "__main__":
    main()
