"""A plain sampled run stored alike whichever way its records are read: the JSONL lines the
scanner reads in place (`json_values.loads_lines`) or one by one (a space after each value),
later samples read by their shape or each record read whole (an `official: false` on each).
Every prediction column and every completion row compared, keyed by (run, item, sample)."""

from __future__ import annotations

import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.store import open_db

ITEMS = 40
SAMPLES = 6


def _folder(root: Path, record: Callable[[dict[str, object]], str]) -> Path:
    """A dataset and two sampled runs (items flaky, right and wrong, answers repeating, a float
    literal and a colon among them), each record written by `record`."""
    rng = random.Random(7)
    runs = root / "runs"
    runs.mkdir(parents=True)
    golds = [f"answer {n}: the set" for n in range(ITEMS)]
    with (runs / "data.jsonl").open("w", encoding="utf-8") as f:
        for n, gold in enumerate(golds):
            f.write(json.dumps({"id": f"q{n}", "question": f"What is {n}?", "answers": [gold]}) + "\n")
    for run in range(2):
        with (runs / f"run-{run}.jsonl").open("w", encoding="utf-8") as f:
            for n, gold in enumerate(golds):
                choices = [gold, gold.upper() + ".", f"wrong {n % 7}", f"other {rng.randrange(5)}", "12:30"]
                order = list(range(1, SAMPLES + 1))
                if n % 5 == 0:
                    rng.shuffle(order)  # samples out of order: the lowest is still the official one
                for s in order:
                    f.write(record({"id": f"q{n}", "sample": s, "prediction": rng.choice(choices)}) + "\n")
    return runs


def _rows(runs: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]], list[str]]:
    summary = load_runs(runs)
    assert not summary.errors, summary.errors
    conn: sqlite3.Connection = open_db(runs / ".qa-inspect" / "qa.db").conn
    skip = {"id", "run_id", "item_id"}
    columns = [r[1] for r in conn.execute("PRAGMA table_info(predictions)") if r[1] not in skip]
    predictions = conn.execute(
        f"SELECT r.name, i.key, {', '.join('p.' + c for c in columns)} FROM predictions p"
        " JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id ORDER BY 1, 2").fetchall()
    completions = conn.execute(
        "SELECT r.name, i.key, c.sample, c.text, c.em, c.f1, c.refused, c.f1_recall FROM completions c"
        " JOIN predictions p ON p.id = c.prediction_id JOIN runs r ON r.id = p.run_id"
        " JOIN items i ON i.id = p.item_id ORDER BY 1, 2, 3").fetchall()
    conn.close()
    return predictions, completions, ["run", "item", *columns]


@pytest.mark.parametrize("record", [
    lambda r: json.dumps(r) + " ",  # each line read by `loads`, not in place
    lambda r: json.dumps({**r, "official": False}),  # each record read whole
], ids=["per-line", "whole-records"])
def test_sampled_run_stored_alike_on_every_read_path(tmp_path: Path, record: Callable[[dict[str, object]], str]) -> None:
    fast = _rows(_folder(tmp_path / "fast", json.dumps))
    other = _rows(_folder(tmp_path / "other", record))
    assert len(fast[0]) == 2 * ITEMS and len(fast[1]) == 2 * ITEMS * SAMPLES
    assert other == fast
    flaky = [row for row in fast[0] if row[fast[2].index("flaky")] == 1]
    assert flaky and len(flaky) < len(fast[0])  # the comparison covers flaky and steady items
