"""`qa-inspect stale queue` over runs that sampled each question: the consensus reason counts the
agreeing runs' samples, read from the store (`completions`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import invoke
from tests.sampled_runs import ANSWERS, sampled_runs


def test_the_queue_reason_counts_samples_from_the_store(tmp_path: Path) -> None:
    runs = sampled_runs(tmp_path)
    data = runs / "qa.jsonl"
    rows = [json.loads(line) | {"tag": "fast-changing"} for line in data.read_text(encoding="utf-8").splitlines()]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")  # a dataset the queue covers
    res = invoke("stale", "queue", str(runs), "--json")
    assert res.exit_code == 0, res.output
    entry = next(e for e in json.loads(res.stdout)["queue"] if e["item_key"] == "Q3")
    agreeing = sum(a == "a tree" for a in ANSWERS["Q3"]) * 3  # the same samples in each of the three runs
    total = len(ANSWERS["Q3"]) * 3
    assert (entry["consensus"]["samples"], entry["consensus"]["sample_total"]) == (agreeing, total)
    assert f"{agreeing} of {total} samples of 3 runs, 3 of 3 runs answer a tree" in entry["reasons"]
