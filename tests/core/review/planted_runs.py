"""A runs folder over real CDQA v1 (and a static CMRC dev set beside it) with known things planted
in generated runs: what the review queue must rank first, and what it must not.

`make_planted_runs` copies the datasets into `root/runs` and writes `runs` JSONL runs that ask
each CDQA question as the dataset shows it. Chosen with `seed` among items whose question is
unique and whose scored gold is a single text:

- `new`: fast-changing items where every run gives one new answer (替代答案N号): a gold gone stale;
- `cut`: items where every run gives the same leading part of the gold (a truncated span, cut
  between Chinese characters: 郝 for 郝鹏), a gold that is fine;
- `replaced`: items whose gold the dataset rewrote (`p-改写答案`), every run giving the original
  answer, now a superseded gold: runs behind the dataset, not a stale gold.

Every other item gets its gold from every run. The CMRC dataset gets two prediction maps that
agree on one wrong answer for its first `cmrc_wrong` questions: a static extractive dev set
cannot go stale, however much runs disagree with it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qa_inspect.core.metrics.textnorm import has_cjk

MTIME = 1_700_000_000  # all runs made at once: equal weights


@dataclass
class Planted:
    """The folder and the questions (as the runs ask them) of each planted kind; `replaced`
    maps a question to the original answer the runs give."""

    folder: Path
    new: set[str] = field(default_factory=set)
    cut: dict[str, str] = field(default_factory=dict)
    replaced: dict[str, str] = field(default_factory=dict)
    cmrc_ids: set[str] = field(default_factory=set)


def _rows(records: list[dict[str, Any]]) -> list[tuple[str, str, str, str]]:
    """(question shown, scored gold, original answer, change tag label) per CDQA v1 record."""
    from qa_inspect.core.formats.cdqa import split_qa

    out = []
    for r in records:
        question, answer = split_qa(r["qa"]) or ("", "")
        a = r["annotation"]
        out.append((str(a.get("p-改写问题") or question).strip(), str(a.get("p-改写答案") or answer).strip(),
                    answer.strip(), str(a.get("知识动态性分类", ""))))
    return out


def _cut(gold: str) -> str | None:
    """The gold's leading part cut between two Chinese characters (about half of it), or None."""
    for n in range(max(1, len(gold) // 2), len(gold) - 1):
        if has_cjk(gold[n - 1]) and has_cjk(gold[n]) and "/" not in gold:
            return gold[:n]
    return None


def make_planted_runs(cdqa: Path, cmrc: Path, root: Path, *, new: int = 25, cut: int = 20, replaced: int = 10,
                      runs: int = 3, cmrc_wrong: int = 200, seed: int = 7) -> Planted:
    """Write the folder under `root` (see the module docstring); returns what was planted."""
    rng = random.Random(seed)
    folder = root / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    records = json.loads(cdqa.read_text(encoding="utf-8-sig"))
    shutil.copyfile(cdqa, folder / "CDQA_v1.json")
    shutil.copyfile(cmrc, folder / "cmrc2018_dev.json")
    rows = _rows(records)
    counts: dict[str, int] = {}
    for q, *_ in rows:
        counts[q] = counts.get(q, 0) + 1
    usable = [k for k, (q, gold, _, _) in enumerate(rows) if counts[q] == 1 and gold]
    rewritten = [k for k in usable if rows[k][2] and rows[k][2] != rows[k][1]]
    picked_replaced = set(rng.sample(rewritten, replaced))
    fast = [k for k in usable if rows[k][3] == "快速变化" and k not in picked_replaced]
    picked_new = set(rng.sample(fast, new))
    cuttable = [k for k in usable if k not in picked_new | picked_replaced and _cut(rows[k][1])]
    picked_cut = set(rng.sample(cuttable, cut))
    planted = Planted(folder)
    answers: dict[int, str] = {}
    for k in picked_new:
        answers[k] = f"替代答案{k}号"
        planted.new.add(rows[k][0])
    for k in picked_cut:
        answers[k] = _cut(rows[k][1]) or ""
        planted.cut[rows[k][0]] = answers[k]
    for k in picked_replaced:
        answers[k] = rows[k][2]
        planted.replaced[rows[k][0]] = rows[k][2]
    for r in range(runs):
        lines = [json.dumps({"question": q, "prediction": answers.get(k, gold)}, ensure_ascii=False)
                 for k, (q, gold, _, _) in enumerate(rows) if counts[q] == 1]
        path = folder / f"model-{r + 1}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (MTIME, MTIME))
    _cmrc_runs(cmrc, folder, cmrc_wrong, planted)
    return planted


def _cmrc_runs(cmrc: Path, folder: Path, wrong: int, planted: Planted) -> None:
    """Two CMRC prediction maps: one shared wrong answer for the first `wrong` questions, the
    first gold for the rest."""
    data = json.loads(cmrc.read_text(encoding="utf-8"))
    predictions: dict[str, str] = {}
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                wrong_one = len(predictions) < wrong
                predictions[qa["id"]] = "同一个错误答案" if wrong_one else qa["answers"][0]["text"]
                if wrong_one:
                    planted.cmrc_ids.add(qa["id"])
    for name in ("cmrc-a", "cmrc-b"):
        path = folder / name / "eval_predictions.json"
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(predictions, ensure_ascii=False), encoding="utf-8")
        os.utime(path, (MTIME, MTIME))
