"""A small CDQA-style runs folder whose review-queue ranking is known (shared by the review tests).

Items (question → gold, tag, evidence), and what the three runs answer:

0. 赣州新区 → 蓉江新区, fast, URL dated 2023-10-20: all three runs answer 章贡新区 (top: consensus);
1. 澄湖马拉松 → 吴思远, fast, undated URL: two runs answer 李明, one the gold (second);
2. 地铁线路 → 6号线, fast, URL dated 2024-05: every run refuses (refusals);
3. 云帆手机 → 云帆X10, slow, URL month 2023-09: runs agree with the gold;
4. 红楼梦作者 → 曹雪芹, never, no evidence: runs agree with the gold (last);
5. 照明公司 → 澜州城建, slow, URL 2023年10月5日 in text evidence: one run disagrees (no consensus).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

ITEMS = [
    ("赣州市的哪一个新区最近积极推进晚稻的收割工作？", "蓉江新区", "快速变化", "地名",
     "http://www.newskj.com/yw/system/2023/10/20/030637311.shtml"),
    ("最近一届澄湖国际马拉松男子组冠军是谁？", "吴思远", "快速变化", "人名", "https://baijiahao.baidu.com/s?id=1778873121820323941"),
    ("澜州市最近开通运营的地铁线路是几号线？", "6号线", "快速变化", "其他", "https://news.example.org/2024-05/metro.html"),
    ("云帆科技最近发布的旗舰手机叫什么？", "云帆X10", "中速变化", "作品", "https://www.example.com/202309/t1.html"),
    ("《红楼梦》的作者是谁？", "曹雪芹", "静态知识", "人名", ""),
    ("澜州市路灯由哪家公司维护？", "澜州城建", "中速变化", "组织机构", "据2023年10月5日澜州日报报道"),
]
ANSWERS = {
    "run-a": ["章贡新区", "李明", "抱歉，我无法确定。", "云帆X10", "曹雪芹", "澜州城建"],
    "run-b": ["答案是章贡新区。", "最近一届澄湖国际马拉松男子组冠军是李明。", "对不起，我不知道。", "云帆X10", "曹雪芹", "华光照明"],
    "run-c": ["章贡新区", "吴思远", "抱歉，无法确定", "云帆科技最近发布的旗舰手机叫云帆X10", "是曹雪芹", "澜州城建"],
}
MTIME = 1_700_000_000  # all runs made at once: equal weights


def make_review_runs(root: Path) -> Path:
    """Write the folder under `root` (dataset `review`, runs run-a/b/c); returns the runs folder."""
    runs = root / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    records = []
    for question, gold, tag, kind, evidence in ITEMS:
        annotation = {"分类1": "y可以接受", "知识动态性分类": tag, "回答类型": kind}
        if evidence:
            annotation["准确性检查"] = evidence
        records.append({"qa": f"问题: {question}\n答案: {gold}", "annotation": annotation})
    (runs / "review.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    for run, answers in ANSWERS.items():
        path = runs / f"{run}.jsonl"
        lines = [json.dumps({"question": q[0], "prediction": a}, ensure_ascii=False) for q, a in zip(ITEMS, answers)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.utime(path, (MTIME, MTIME))
    return runs


# ---------------------------------------------------------------- generated runs over real CDQA v1

REFUSAL = "抱歉，我无法确定这个问题的答案。"


def _shown(record: dict) -> tuple[str, str, str]:
    """(question a run is asked, the scored gold, the change tag label) of a CDQA v1 record."""
    from qa_inspect.core.formats.cdqa import split_qa

    question, answer = split_qa(record["qa"]) or ("", "")
    a = record["annotation"]
    return (str(a.get("p-改写问题") or question).strip(), str(a.get("p-改写答案") or answer).strip(),
            str(a.get("知识动态性分类", "")))


def make_cdqa_review_runs(cdqa: Path, root: Path, *, changed: int = 20, runs: int = 5, agree: int = 4,
                          seed: int = 19) -> tuple[Path, set[str]]:
    """A runs folder with CDQA v1 and `runs` generated runs (dated in a manifest, a month apart).

    For `changed` fast-changing items (chosen with `seed`), the `agree` newest runs answer the
    same new answer (替代答案N号) and the others the gold; every other item gets the gold from each
    run, or now and then (seeded) a refusal or a wrong answer of that run's own (no consensus).
    Returns the folder and the questions of the changed items."""
    import random

    rng = random.Random(seed)
    folder = root / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    records = json.loads(cdqa.read_text(encoding="utf-8-sig"))
    (folder / "CDQA_v1.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    rows = [_shown(r) for r in records]
    counts: dict[str, int] = {}
    for q, _, _ in rows:
        counts[q] = counts.get(q, 0) + 1
    fast = [k for k, (q, gold, tag) in enumerate(rows) if tag == "快速变化" and counts[q] == 1 and gold]
    picked = set(rng.sample(fast, changed))
    manifest = []
    for r in range(runs):
        name = f"model-{r + 1}"
        newest = r >= runs - agree
        lines = []
        for k, (q, gold, _) in enumerate(rows):
            if counts[q] > 1:
                continue
            if k in picked:
                answer = f"替代答案{k}号" if newest else gold
            else:
                roll = rng.random()
                answer = REFUSAL if roll < 0.08 else (f"{name}猜测{k}" if roll < 0.16 else gold)
            lines.append(json.dumps({"question": q, "prediction": answer}, ensure_ascii=False))
        (folder / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        manifest.append(f'[[run]]\npath = "{name}.jsonl"\ndate = "2024-0{r + 1}-01"\n')
    (folder / "qa-inspect.toml").write_text("\n".join(manifest), encoding="utf-8")
    return folder, {rows[k][0] for k in picked}
