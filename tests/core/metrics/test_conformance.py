"""Every row of the official scorers' answers must be reproduced (all mismatches reported)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from qa_inspect.core.metrics import cdqa, cmrc

TOL = 1e-6


def _rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_cmrc2018_official(conformance_dir: Path) -> None:
    rows = _rows(conformance_dir / "cmrc2018_official.jsonl")
    assert len(rows) > 1000
    bad = []
    for row in rows:
        got = cmrc.score(row["prediction"], row["golds"])
        if got.em != row["em"] or abs(got.f1 - row["f1"]) > TOL:
            bad.append(f"{row['id']}: pred={row['prediction']!r} golds={row['golds']!r} "
                       f"want em={row['em']} f1={row['f1']} got em={got.em} f1={got.f1:.6f}")
        if cmrc.exact_match(row["prediction"], row["golds"]) != got.em:
            bad.append(f"{row['id']}: exact_match() disagrees with score()")
        if abs(cmrc.f1(row["prediction"], row["golds"]) - got.f1) > 0:
            bad.append(f"{row['id']}: f1() disagrees with score()")
    assert not bad, f"{len(bad)} of {len(rows)} rows differ:\n" + "\n".join(bad)


def test_cdqa_f1_recall(conformance_dir: Path) -> None:
    rows = _rows(conformance_dir / "cdqa_f1_recall.jsonl")
    assert len(rows) > 600
    bad = []
    for n, row in enumerate(rows, 1):
        got = cdqa.score(row["prediction"], row["golds"])
        want = row["f1_recall"]
        ok = got.refused == row["refused"] and (
            (want is None and got.f1_recall is None)
            or (want is not None and got.f1_recall is not None and abs(got.f1_recall - want) <= TOL)
        )
        if not ok:
            bad.append(f"line {n}: pred={row['prediction']!r} golds={row['golds']!r} "
                       f"want refused={row['refused']} f1_recall={want} "
                       f"got refused={got.refused} f1_recall={got.f1_recall}")
    assert not bad, f"{len(bad)} of {len(rows)} rows differ:\n" + "\n".join(bad)
