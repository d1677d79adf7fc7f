"""The judge-verdict test folder (`from tests.judge_data import ...`): the mini CMRC dataset, the
real inspect_ai log with model-graded verdicts (`tests/tools/make_judge_log.py`) and a plain
verdicts JSONL file, copied into a fresh runs folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "frameworks"
DATASET = FIXTURES / "runs" / "data" / "cmrc_mini_dev.json"
JUDGE_LOG = FIXTURES / "judge" / "cmrc-mini-judged.eval"
RUN = "cmrc-mini-judged"
"""The run the log is (its file stem)."""
JSONL_VERDICTS: list[dict[str, Any]] = [
    {"run": RUN, "id": "MINI_DEV_0_QUERY_0", "judge": "gpt-judge", "verdict": "correct", "rationale": "north"},
    {"run": RUN, "id": "MINI_DEV_0_QUERY_1", "judge": "gpt-judge", "verdict": "correct", "rationale": "a crane"},
    {"run": RUN, "question": "林远担任示例交响乐团首席指挥多少年？", "judge": "gpt-judge", "verdict": 0},
    {"run": RUN, "id": "MINI_DEV_1_QUERY_1", "judge": "gpt-judge", "verdict": 0.5},
]


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def judge_folder(tmp_path: Path, *, jsonl: bool = True) -> Path:
    """runs/ with the dataset, the judged Inspect log and (optionally) `gpt.verdicts.jsonl`."""
    runs = tmp_path / "runs"
    runs.mkdir()
    shutil.copy(DATASET, runs / DATASET.name)
    shutil.copy(JUDGE_LOG, runs / JUDGE_LOG.name)
    if jsonl:
        write_jsonl(runs / "gpt.verdicts.jsonl", JSONL_VERDICTS)
    return runs
