#!/usr/bin/env python
"""Regenerate every generated file under sample_runs/ (deterministically).

    python tests/tools/make_sample_runs.py [--dev PATH] [--check]

CMRC 2018 part (needs the shared dev set; skipped with a message when it is absent):
  sample_runs/cmrc2018/cmrc2018_dev_sample.json      every 22nd passage of the dev set from #4
                                                      (39 passages, 153 questions), unmodified
  sample_runs/cmrc2018/runs/roberta-wwm-large/eval_predictions.json        HF {id: text}
  sample_runs/cmrc2018/runs/roberta-wwm-large/eval_nbest_predictions.json  HF n-best, top 5
  sample_runs/cmrc2018/runs/bert-base-chinese.json    CMRC submission {id: text}
  sample_runs/cmrc2018/runs/bidaf-baseline.json       CMRC submission {id: text}
The three runs are synthetic: gold spans perturbed with seeded, realistic span-extraction errors.

CDQA-style part (self-contained: written for this project as the literals below):
  sample_runs/cdqa/cdqa_sample.json                   CDQA v1 raw format, 38 items
  sample_runs/cdqa/runs/qwen-7b-chat.jsonl            LLM-style answers keyed by question
  sample_runs/cdqa/runs/glm-6b.jsonl

--check prints EM/F1 per CMRC run and refusal rate / F1-recall per CDQA run, with the project's
scorers when they import, else with the small self-contained scorers at the end of this file.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "sample_runs"
DEFAULT_DEV = ROOT.parent / "shared" / "data" / "cmrc2018_dev.json"

SLICE_START, SLICE_STEP = 4, 22  # passages data[4::22] of the dev set


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=1)
        f.write("\n")


def write_jsonl(path: Path, rows) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


# ============================================================================ CMRC 2018 part

CLAUSE_END = "，。！？；、："
SENT_END = "。！？；"
UNITS = "年月日人米个届集号队次岁元台位家条名层座项种部分"
LATIN = re.compile(r"[A-Za-z]")

# Entity kinds, most specific first; a gold "is" a kind when one match covers most of it.
NUM_UNIT = "平方米|平方英里|平方公里|公里|公分|厘米|毫米|米|人|个|条|站|集|分钟|年|队|家|种|座|名|次|岁|线|届|万"
KINDS = [
    ("book", re.compile(r"《[^》]{1,30}》")),
    ("date", re.compile(r"(?<![\d.,])\d{1,4}年\d{1,2}月(?:\d{1,2}日)?")),
    ("year", re.compile(r"(?<![\d.,])(?:公元前)?\d{3,4}年(?!代)")),
    ("century", re.compile(r"(?<![\d.,])\d{1,2}世纪(?:\d{2}年代)?")),
    ("name_dot", re.compile(r"[\u4e00-\u9fa5A-Z]{1,6}(?:[·・][\u4e00-\u9fa5A-Z]{1,6})+")),
    ("number", re.compile(rf"(?<![\d.,])[约近]?\d[\d,.]*\s?[万亿千百]?[余多]?(?:{NUM_UNIT})")),
    ("latin", re.compile(r"[A-Za-z][A-Za-z0-9\- ]{2,30}[A-Za-z0-9]")),
]

MODELS = {
    # exact: share of questions answered with a gold span (ranked by a shared difficulty, so the
    # strong model's misses are mostly the weaker models' misses too); weights: error kinds;
    # plausible: questions forced to a same-kind wrong answer (another year, book, person, ...);
    # missing: ids left out; empty: predictions ""; casing: chance of a casing/spacing variant
    # when a Latin-script gold is missed.
    "roberta-wwm-large": dict(
        exact=0.68, missing=1, empty=0, plausible=2, casing=0.7,
        weights={"boundary": 0.34, "same_kind": 0.12, "same_sentence": 0.24, "sentence": 0.30},
    ),
    "bert-base-chinese": dict(
        exact=0.525, missing=3, empty=0, plausible=2, casing=0.6,
        weights={"boundary": 0.30, "same_kind": 0.14, "same_sentence": 0.28, "sentence": 0.28},
    ),
    "bidaf-baseline": dict(
        exact=0.385, missing=5, empty=1, plausible=3, casing=0.5,
        weights={"boundary": 0.28, "same_kind": 0.15, "same_sentence": 0.30, "sentence": 0.27},
    ),
}


def make_slice(dev: dict) -> dict:
    return {"version": dev["version"], "data": dev["data"][SLICE_START::SLICE_STEP]}


def iter_questions(ds: dict):
    for art in ds["data"]:
        for para in art["paragraphs"]:
            for qa in para["qas"]:
                yield para["context"], qa


def locate(ctx: str, answers: list[dict]) -> tuple[str, int]:
    """The gold span a reader would have predicted: (text, start) or (first gold, -1)."""
    for a in answers:
        t, s = a["text"], a["answer_start"]
        if s >= 0 and ctx[s : s + len(t)] == t:
            return t, s
    for a in answers:
        s = ctx.find(a["text"])
        if s >= 0:
            return a["text"], s
    return answers[0]["text"], -1


def sentence_bounds(ctx: str, s: int, e: int) -> tuple[int, int]:
    a = s
    while a > 0 and ctx[a - 1] not in SENT_END:
        a -= 1
    b = e
    while b < len(ctx) and ctx[b] not in SENT_END:
        b += 1
    return a, b  # ctx[b] is the sentence end mark (or b == len)


def ok(text: str | None, golds: list[str]) -> str | None:
    if text is None:
        return None
    text = text.strip()
    if not re.search(r"[0-9A-Za-z\u4e00-\u9fa5]", text) or text in golds:
        return None  # never a bare "（）" or "，"
    return text


def err_boundary(rng: random.Random, ctx: str, s: int, e: int, golds: list[str]) -> str | None:
    n = e - s
    opts: list[tuple[float, str]] = []
    if n >= 2 and ctx[e - 1] in UNITS:
        opts.append((3.0, ctx[s : e - 1]))  # 1916年 -> 1916
    if e < len(ctx) and ctx[e] in "。，":
        opts.append((1.5, ctx[s : e + 1]))  # trailing 。 (EM still 1: punctuation is removed)
    k = rng.randint(1, 4)
    if e + k <= len(ctx):
        opts.append((2.0, ctx[s : e + k]))
    if s - k >= 0:
        opts.append((2.0, ctx[s - k : e]))
    k2 = min(rng.randint(1, 4), max(0, n - 2 if n > 3 else n - 1))
    if k2 >= 1:
        opts.append((2.0, ctx[s : e - k2]))
        opts.append((1.5, ctx[s + k2 : e]))
    # through the neighbouring clause
    j = e
    while j < len(ctx) and ctx[j] not in CLAUSE_END:
        j += 1
    if j < len(ctx) and ctx[j] not in SENT_END:
        j2 = j + 1
        while j2 < len(ctx) and ctx[j2] not in CLAUSE_END:
            j2 += 1
        if j2 - s <= n + 30:
            opts.append((1.5, ctx[s:j2]))
    opts = [(w, t) for w, t in opts if ok(t, golds)]
    if not opts:
        return None
    return rng.choices([t for _, t in opts], weights=[w for w, _ in opts])[0]


def gold_kind(g: str) -> re.Pattern | None:
    for _, rx in KINDS:
        m = rx.search(g)
        if m and len(m.group()) * 2 >= len(g):
            return rx
    return None


def err_same_kind(rng: random.Random, ctx: str, s: int, e: int, golds: list[str]) -> str | None:
    rx = gold_kind(ctx[s:e])
    if rx is None:
        return None
    cands = []
    for m in rx.finditer(ctx):
        t = m.group().strip()
        if m.end() <= s or m.start() >= e:
            if ok(t, golds) and not any(t in g or g in t for g in golds):
                cands.append((abs(m.start() - s), t))
    if not cands:
        return None
    if ctx[e - 1] != "年":  # a count is not answered with a year
        cands = [c for c in cands if not c[1].endswith("年")]
        if not cands:
            return None
    same_unit = [c for c in cands if c[1][-1] == ctx[e - 1]]  # 1916年 -> 1943年, 12集 -> 6集
    cands = sorted(same_unit or cands)
    if rng.random() < 0.6:
        return cands[0][1]  # the nearest one: the plausible-looking mistake
    return rng.choice(cands)[1]


def err_same_sentence(rng: random.Random, ctx: str, s: int, e: int, golds: list[str]) -> str | None:
    a, b = sentence_bounds(ctx, s, e)
    if b - a - (e - s) < 4:  # nothing else in this sentence: use the next one
        a, b = b + 1, b + 1
        while b < len(ctx) and ctx[b] not in SENT_END:
            b += 1
        if b - a < 4:
            return None
        s = e = a
    clauses, c0 = [], a
    for i in range(a, b + 1):
        if i == b or ctx[i] in CLAUSE_END:
            if i > c0 and (i <= s or c0 >= e):
                clauses.append((c0, i))
            c0 = i + 1
    n = e - s
    if not clauses:
        return None
    c0, c1 = rng.choice(clauses)
    if n >= 8 or c1 - c0 <= n + 1:
        return ok(ctx[c0:c1], golds)
    w = max(2, n + rng.randint(-1, 1))
    st = c0 if rng.random() < 0.5 else c1 - w  # entities sit at clause edges more often than not
    return ok(ctx[st : st + w].strip("（）()“”「」《》\"'"), golds)


def err_sentence(rng: random.Random, ctx: str, s: int, e: int, golds: list[str]) -> str | None:
    """A longer span containing the gold: its clause for a short gold, else its sentence."""
    if e - s <= 6:
        a = s
        while a > 0 and ctx[a - 1] not in CLAUSE_END:
            a -= 1
        b = e
        while b < len(ctx) and ctx[b] not in CLAUSE_END:
            b += 1
        if b - a > e - s and b - a <= 30:
            return ok(ctx[a:b], golds)
    a, b = sentence_bounds(ctx, s, e)
    if b - a <= e - s + 1:  # the gold is the whole sentence: take the next one too
        b2 = b + 1
        while b2 < len(ctx) and ctx[b2] not in SENT_END:
            b2 += 1
        b = b2
    end = b + 1 if (b < len(ctx) and rng.random() < 0.4) else b
    return ok(ctx[a:end], golds)


def err_casing(rng: random.Random, g: str, golds: list[str]) -> str | None:
    opts = [g.lower(), g.upper(), g.replace(" ", ""),
            re.sub(r"([\u4e00-\u9fa5])([A-Za-z0-9])", r"\1 \2", g)]
    opts = [t for t in opts if ok(t, golds)]
    return rng.choice(opts) if opts else None


ERRORS = {
    "boundary": err_boundary,
    "same_kind": err_same_kind,
    "same_sentence": err_same_sentence,
    "sentence": err_sentence,
}


def kind_error_possible(ctx: str, qa: dict) -> bool:
    g, s = locate(ctx, qa["answers"])
    golds = [a["text"] for a in qa["answers"]]
    return s >= 0 and err_same_kind(random.Random(0), ctx, s, s + len(g), golds) is not None


def predict_one(rng: random.Random, cfg: dict, ctx: str, qa: dict, exact: bool,
                plausible: bool = False) -> tuple[str, str]:
    """(prediction, kind)"""
    golds = [a["text"] for a in qa["answers"]]
    g, s = locate(ctx, qa["answers"])
    if exact:
        others = [t for t in golds if t != g]
        if others and rng.random() < 0.25:
            return rng.choice(others), "exact:other_gold"
        return g, "exact"
    if s < 0:  # gold not in the passage: the reader can only pick something else
        kinds = ["same_sentence"]
        s = e = rng.randrange(len(ctx))
    else:
        e = s + len(g)
        if plausible and (t := err_same_kind(rng, ctx, s, e, golds)):
            return t, "same_kind"
        if LATIN.search(g) and rng.random() < cfg["casing"]:
            t = err_casing(rng, g, golds)
            if t:
                return t, "casing"
        names = list(cfg["weights"])
        first = rng.choices(names, weights=[cfg["weights"][k] for k in names])[0]
        if gold_kind(g) is not None and rng.random() < 0.5:
            first = "same_kind"  # a year for a year, a book for a book: the plausible mistake
        # a same-kind entity when there is one, else another span of the same sentence
        order = ("same_sentence", "boundary", "sentence") if first == "same_kind" else ("boundary", "sentence", "same_sentence")
        kinds = [first] + [k for k in order if k != first]
    for kind in kinds:
        t = ERRORS[kind](rng, ctx, s, e, golds)
        if t:
            return t, kind
    return g, "exact:fallback"


def make_runs(ds: dict) -> tuple[dict[str, dict[str, str]], dict[str, Counter], dict]:
    qs = list(iter_questions(ds))
    shared = random.Random("cmrc-difficulty")
    difficulty = []
    for ctx, qa in qs:
        g, _ = locate(ctx, qa["answers"])
        difficulty.append(0.75 * shared.random() + 0.25 * min(1.0, len(g) / 25))
    runs, kinds, nbest = {}, {}, {}
    for name, cfg in MODELS.items():
        rng = random.Random(name)
        d = [0.7 * x + 0.3 * rng.random() for x in difficulty]
        kinded = [i for i, (ctx, qa) in enumerate(qs) if kind_error_possible(ctx, qa)]
        forced = set(rng.sample(kinded, cfg["plausible"]))
        order = sorted((i for i in range(len(qs)) if i not in forced), key=lambda i: d[i])
        exact = set(order[: round(cfg["exact"] * len(qs))])
        missing = set(rng.sample(range(len(qs)), cfg["missing"]))
        empty = set(rng.sample(sorted(set(range(len(qs))) - missing), cfg["empty"]))
        preds: dict[str, str] = {}
        kc: Counter = Counter()
        for i, (ctx, qa) in enumerate(qs):
            text, kind = predict_one(rng, cfg, ctx, qa, i in exact, i in forced)
            if i in missing:
                kc["missing"] += 1
                continue
            if i in empty:
                text, kind = "", "empty"
            kc[kind] += 1
            preds[qa["id"]] = text
        runs[name], kinds[name] = preds, kc
        if name == "roberta-wwm-large":
            nbest = make_nbest(random.Random(name + "/nbest"), qs, preds)
    return runs, kinds, nbest


def make_nbest(rng: random.Random, qs, preds: dict[str, str]) -> dict:
    """HF `eval_nbest_predictions.json`: top 5 of 20, the prediction first, probabilities from a
    softmax over all 20 (so the five sum to at most 1)."""
    out = {}
    for ctx, qa in qs:
        qid = qa["id"]
        if qid not in preds:
            continue
        pred = preds[qid]
        golds = [a["text"] for a in qa["answers"]]
        g, gs = locate(ctx, qa["answers"])
        correct = pred in golds or pred.rstrip("。，") in golds
        cands: list[str] = []
        if not correct and gs >= 0 and rng.random() < 0.7:
            cands.append(g)
        ps, pe = ctx.find(pred), ctx.find(pred) + len(pred)
        if ps < 0 and gs >= 0:  # a casing/spacing variant: the spans around the gold instead
            ps, pe = gs, gs + len(g)
            cands.insert(0, g)
        if ps >= 0:
            for ds, de in [(0, 1), (0, -1), (-1, 0), (1, 0), (0, 2), (-2, 0), (0, -2), (2, 0), (0, 3)]:
                a, b = ps + ds, pe + de
                if 0 <= a < b <= len(ctx):
                    cands.append(ctx[a:b])
            head = 1 if cands and cands[0] == g and not correct else 0
            tail = cands[head:]
            rng.shuffle(tail)
            cands = cands[:head] + tail
        if gs >= 0:
            alt = err_same_kind(rng, ctx, gs, gs + len(g), golds) or err_same_sentence(
                rng, ctx, gs, gs + len(g), golds)
            if alt:
                cands.insert(min(len(cands), rng.randint(1, 3)), alt)
        seen, texts = {pred}, [pred]
        for t in cands:
            t = t.strip()
            if t and t not in seen:
                seen.add(t)
                texts.append(t)
            if len(texts) == 5:
                break
        while len(texts) < 5:  # filler: other short spans of the passage
            a = rng.randrange(len(ctx) - 4)
            t = ctx[a : a + rng.randint(2, 8)].strip()
            if ok(t, []) and t not in seen:
                seen.add(t)
                texts.append(t)
        p0 = rng.uniform(0.55, 0.97) if correct else rng.uniform(0.2, 0.6)
        rest = (1 - p0) * rng.uniform(0.7, 0.95)
        w = sorted((rng.random() ** 2 + 0.02 for _ in texts[1:]), reverse=True)
        ps_ = [rest * x / sum(w) for x in w] if w else []
        if ps_ and ps_[0] >= p0:
            scale = 0.9 * p0 / ps_[0]
            ps_ = [x * scale for x in ps_]
        probs = [p0] + ps_
        score0 = rng.uniform(6.0, 14.0)
        rows = []
        for t, p in zip(texts, probs):
            score = score0 + math.log(p / p0)
            start = score * rng.uniform(0.35, 0.65) + rng.uniform(-0.5, 0.5)
            rows.append({
                "text": t,
                "probability": math.floor(p * 1e6) / 1e6,
                "start_logit": round(start, 4),
                "end_logit": round(score - start, 4),
            })
        out[qid] = rows
    return out


def build_cmrc(dev_path: Path) -> dict | None:
    if not dev_path.is_file():
        print(f"skip CMRC part: {dev_path} not found (pass --dev PATH)")
        return None
    dev = json.loads(dev_path.read_text(encoding="utf-8"))
    ds = make_slice(dev)
    base = OUT / "cmrc2018"
    write_json(base / "cmrc2018_dev_sample.json", ds)
    runs, kinds, nbest = make_runs(ds)
    write_json(base / "runs" / "roberta-wwm-large" / "eval_predictions.json", runs["roberta-wwm-large"])
    write_json(base / "runs" / "roberta-wwm-large" / "eval_nbest_predictions.json", nbest)
    write_json(base / "runs" / "bert-base-chinese.json", runs["bert-base-chinese"])
    write_json(base / "runs" / "bidaf-baseline.json", runs["bidaf-baseline"])
    nq = sum(1 for _ in iter_questions(ds))
    print(f"CMRC slice: {len(ds['data'])} passages, {nq} questions")
    for name, kc in kinds.items():
        print(f"  {name}: " + ", ".join(f"{k} {v}" for k, v in sorted(kc.items())))
    return {"dataset": ds, "runs": runs}


# ============================================================================ CDQA-style part
#
# Written for this project. The news-style facts (places such as 澜州市/青禾县/澄湖, companies,
# people, films) are invented and illustrative; the static items are ordinary textbook facts.
# Fields: q, a, c1 ("y" = y可以接受, "p" = p修改), dyn ("F" 快速变化, "M" 中速变化, "S" 静态知识),
# t (回答类型), url (准确性检查; None = key absent, as in one real item), rq (p-改写问题),
# ra (p-改写答案), wrong / partial (answers the runs may give), plan: what qwen / glm do —
# C correct (the current gold), W wrong, P partial, R refusal, O the original (superseded) gold;
# rq_for: runs that key this item by its rewritten question; say: hand-written (prediction, raw).

DYN = {"F": "快速变化", "M": "中速变化", "S": "静态知识"}
C1 = {"y": "y可以接受", "p": "p修改"}
N = "https://news.example.org"
W_ = "https://www.example.com"

CDQA_ITEMS: list[dict] = [
    dict(q="澜州市最近开通运营的地铁线路是几号线？", a="6号线", c1="y", dyn="F", t="其他",
         url=f"{N}/lanzhou/2024/05/metro-line-6-opens.html", wrong="4号线", plan="CW"),
    dict(q="云帆科技最近发布的旗舰手机叫什么？", a="云帆X9", c1="p", dyn="F", t="作品（事物）",
         url=f"{W_}/tech/yunfan-x10-launch", ra="云帆X10", wrong="云帆Note 5", plan="RO"),
    dict(q="最近一届澄湖国际马拉松男子组冠军是谁？", a="基普罗蒂奇·莫伊", c1="p", dyn="F", t="人名",
         url=f"{N}/sports/chenghu-marathon-2024-results", rq="2024年澄湖国际马拉松男子组的冠军是谁？",
         partial="莫伊", plan="PR", rq_for=("qwen-7b-chat",)),
    dict(q="青禾县今年农民丰收节的主会场设在哪个镇？", a="石桥镇", c1="y", dyn="F", t="地名",
         url=f"{N}/qinghe/harvest-festival-main-venue", wrong="柳湾镇", plan="CC"),
    dict(q="最近一届星港电影节的最佳影片是哪部？", a="《远山的灯》", c1="y", dyn="F", t="作品",
         url=f"{W_}/film/xinggang-festival-awards", wrong="《海上来信》", plan="CW"),
    dict(q="最近哪家公司中标了澜州市东部新城智慧路灯项目？", a="澜州城建照明工程有限公司", c1="y",
         dyn="F", t="组织机构", url=f"{N}/lanzhou/east-new-town-smart-lighting-bid",
         partial="澜州城建", wrong="澄湖电力工程公司", plan="PR"),
    dict(q="北辰大学最近一次举办的校运动会是第几届？", a="第58届", c1="p", dyn="F", t="量词",
         url=f"{N}/beichen-univ/sports-meeting-59", ra="第59届", wrong="第60届", plan="WO"),
    dict(q="最近登顶全国票房周冠军的电影是哪部？", a="《逆风少年》", c1="p", dyn="F", t="作品",
         url=f"{W_}/boxoffice/weekly-chart", ra="《长河落日》", wrong="《星际归途》", plan="RW"),
    dict(q="澜州市最近任命的新任市长是谁？", a="周景明", c1="y", dyn="F", t="人名",
         url=f"{N}/lanzhou/government/mayor-appointment", wrong="周明远", plan="CR"),
    dict(q="最近刷新女子100米栏全国纪录的运动员是谁？", a="林晓禾", c1="p", dyn="F", t="人名",
         url=f"{N}/sports/athletics-100m-hurdles-record",
         rq="截至2024年6月，女子100米栏全国纪录由哪位运动员保持？", ra="吴思远", wrong="林小荷",
         plan="CR", rq_for=("qwen-7b-chat",)),
    dict(q="哪座城市最近获得了2027年全国青年运动会的举办权？", a="滨江市", c1="y", dyn="F", t="地名",
         url=f"{N}/sports/youth-games-2027-host", wrong="澜州市", plan="CC"),
    dict(q="东岚汽车最近推出的纯电动SUV叫什么名字？", a="东岚E7", c1="y", dyn="F", t="作品（事物）",
         url=f"{W_}/auto/donglan-e7-suv", wrong="东岚E5", plan="CW"),
    dict(q="青禾县最近举办的什么活动吸引了大量游客？", a="第三届“稻香青禾”稻田音乐节", c1="y", dyn="F",
         t="事件", url=f"{N}/qinghe/rice-field-music-festival", partial="稻田音乐节", plan="PP"),
    dict(q="澜州市最近举办的春季人才招聘会有多少家企业参加？", a="312家", c1="y", dyn="F", t="量词",
         url=f"{N}/lanzhou/spring-job-fair", wrong="300多家", plan="RR"),
    dict(q="最近获得全国青少年编程大赛团体一等奖的是哪所学校？", a="澜州市实验小学", c1="p", dyn="F",
         t="组织机构", url=f"{N}/education/youth-coding-contest", ra="澜州市第二实验小学",
         wrong="北辰大学附属中学", plan="RR"),
    dict(q="澜州市最近举办了哪项国际水上体育赛事？", a="2024澜州国际龙舟邀请赛", c1="y", dyn="F",
         t="事件", url=f"{N}/lanzhou/dragon-boat-invitational", partial="龙舟邀请赛", plan="PR"),
    dict(q="最近获得澜州市“十佳民营企业”第一名的是哪家公司？", a="东岚汽车股份有限公司", c1="y",
         dyn="F", t="组织机构", url=f"{N}/lanzhou/top-private-enterprises", partial="东岚汽车",
         plan="CP"),
    dict(q="云帆科技现任首席执行官是谁？", a="陈立恒", c1="p", dyn="M", t="人名",
         url=f"{W_}/tech/yunfan-new-ceo", ra="许嘉宁", plan="CO"),
    dict(q="澜州雄狮足球俱乐部现任主教练是谁？", a="马克·贝尔", c1="y", dyn="M", t="人名",
         url=f"{N}/sports/lanzhou-lions-head-coach", partial="贝尔", plan="CP"),
    dict(q="目前国内在建的最长跨海大桥是哪座？", a="澄海湾跨海大桥", c1="y", dyn="M", t="作品（事物）",
         url=f"{W_}/infrastructure/chenghai-bay-bridge", wrong="东岚湾大桥", plan="RR"),
    dict(q="澜州博物馆目前的镇馆之宝是什么？", a="青铜神鸟尊", c1="y", dyn="M", t="作品（事物）",
         url=f"{N}/culture/lanzhou-museum-treasures", partial="神鸟尊", wrong="金缕玉衣", plan="PW"),
    dict(q="星河航空的总部设在哪个城市？", a="滨江市", c1="p", dyn="M", t="地名",
         url=f"{W_}/aviation/xinghe-airlines-hq-move", rq="星河航空目前的总部设在哪座城市？",
         ra="澜州市", wrong="上海", plan="CW", rq_for=("qwen-7b-chat",)),
    dict(q="北辰大学现任校长是谁？", a="郑远航", c1="y", dyn="M", t="人名",
         url=f"{N}/beichen-univ/leadership", wrong="郑远", plan="CC"),
    dict(q="国内规模最大的动力电池回收企业是哪家？", a="绿循环再生科技有限公司", c1="y", dyn="M",
         t="组织机构", url=f"{W_}/energy/battery-recycling-ranking", partial="绿循环", plan="PR"),
    dict(q="澜州市目前的常住人口大约是多少？", a="约1020万人", c1="p", dyn="M", t="量词",
         url=f"{N}/lanzhou/statistics/population-2023", ra="约1046万人", wrong="约980万人", plan="WO"),
    dict(q="澄湖棋院现任院长是谁？", a="韩松", c1="y", dyn="M", t="人名", url=None, plan="RR"),
    dict(q="目前由哪家机构负责澜州国际马拉松的赛事运营？", a="澜州体育产业集团", c1="p", dyn="M",
         t="组织机构", url=f"{N}/sports/lanzhou-marathon-operator",
         rq="澜州国际马拉松目前由哪家机构负责赛事运营？", ra="澄湖赛事管理有限公司",
         wrong="澜州市体育局", plan="WR", rq_for=("glm-6b",)),
    dict(q="世界上已建成的最高建筑位于哪个城市？", a="迪拜", c1="y", dyn="M", t="地名",
         url=f"{W_}/encyclopedia/tallest-buildings", plan="CC"),
    dict(q="澜州大剧院目前累计演出场次最多的原创剧目是什么？", a="《江城往事》", c1="y", dyn="M",
         t="作品", url=f"{N}/culture/lanzhou-grand-theatre", wrong="《澜州往事》", plan="WC"),
    dict(q="云帆科技目前在手机上搭载的操作系统叫什么？", a="帆影OS", c1="y", dyn="M", t="其他",
         url=f"{W_}/tech/yunfan-fanying-os", wrong="鸿帆OS", plan="CW"),
    dict(q="珠穆朗玛峰的海拔高度是多少？", a="8848米", c1="p", dyn="S", t="量词",
         url=f"{W_}/encyclopedia/mount-everest-height", ra="8848.86米", plan="CO"),
    dict(q="《红楼梦》的作者是谁？", a="曹雪芹", c1="y", dyn="S", t="人名",
         url=f"{W_}/encyclopedia/hongloumeng", rq="古典小说《红楼梦》的作者是谁？", plan="CC",
         rq_for=("qwen-7b-chat",),
         say={"glm-6b": ("《红楼梦》的作者是曹雪芹。",
                         "《红楼梦》的作者是曹雪芹。它是中国古典四大名著之一，成书于清代。")}),
    dict(q="世界上最深的海沟是哪条？", a="马里亚纳海沟", c1="y", dyn="S", t="自然",
         url=f"{W_}/encyclopedia/mariana-trench", plan="CC"),
    dict(q="中华人民共和国是在哪一天宣告成立的？", a="1949年10月1日", c1="y", dyn="S", t="时间",
         url=f"{W_}/encyclopedia/founding-of-prc", plan="CC"),
    dict(q="《蒙娜丽莎》是哪位画家的作品？", a="列奥纳多·达·芬奇", c1="y", dyn="S", t="人名",
         url=f"{W_}/encyclopedia/mona-lisa", partial="达·芬奇", plan="PP"),
    dict(q="中国第一颗人造地球卫星叫什么名字？", a="东方红一号", c1="y", dyn="S", t="作品（事物）",
         url=f"{W_}/encyclopedia/dongfanghong-1", plan="CC"),
    dict(q="人类首次载人登月是哪一次航天任务？", a="阿波罗11号任务", c1="y", dyn="S", t="事件",
         url=f"{W_}/encyclopedia/apollo-11", wrong="阿波罗13号", plan="CW",
         say={"qwen-7b-chat": ("阿波罗11号。", "阿波罗11号。1969年7月，阿姆斯特朗和奥尔德林在月球表面行走。")}),
    dict(q="水的化学式是什么？", a="H2O", c1="y", dyn="S", t="其他",
         url=f"{W_}/encyclopedia/water", plan="CC",
         say={"glm-6b": ("H₂O", "H₂O。水分子由两个氢原子和一个氧原子构成。")}),
]

RUN_NAMES = {"Q": "qwen-7b-chat", "G": "glm-6b"}
REFUSAL_PHRASES = ("对不起", "抱歉", "无法确定", "没有提及")

# Question -> statement ("…叫什么？" -> "…叫{a}"), so runs can answer in full sentences.
WH_PATTERNS = sorted([
    ("是哪位画家的作品", "是{a}的作品"), ("由哪位运动员保持", "由{a}保持"), ("是哪一次航天任务", "是{a}"),
    ("是在哪一天", "是在{a}"), ("是几号线", "是{a}"), ("是第几届", "是{a}"), ("多少家", "{a}"),
    ("大约是多少", "{a}"), ("是多少", "是{a}"), ("叫什么名字", "叫{a}"), ("叫什么", "叫{a}"),
    ("是什么", "是{a}"), ("是谁", "是{a}"), ("是哪部", "是{a}"), ("是哪座", "是{a}"), ("是哪条", "是{a}"),
    ("是哪家公司", "是{a}"), ("是哪家", "是{a}"), ("是哪所学校", "是{a}"), ("哪座城市", "{a}"),
    ("哪个城市", "{a}"), ("哪个镇", "{a}"), ("哪家公司", "{a}"), ("哪家机构", "{a}"),
    ("哪项国际水上体育赛事", "{a}"), ("什么活动", "{a}"),
], key=lambda p: -len(p[0]))


def statement(question: str, answer: str) -> str | None:
    q = question.rstrip("？?")
    for wh, rep in WH_PATTERNS:
        if wh in q:
            return q.replace(wh, rep.format(a=answer), 1)
    return None


# (weight, template, needs): {a} answer, {s} statement (needs s), {b} another answer (needs b),
# n: only for news-style (not static) items
ANSWER_TEMPLATES = {
    "qwen-7b-chat": [
        (3, "{a}", ""),
        (2, "答案是{a}。", ""),
        (1, "我认为是{a}。", ""),
        (3, "{s}。", "s"),
        (2, "根据我掌握的信息，{s}。不过这类信息可能会随时间变化，建议以官方最新发布为准。", "sn"),
    ],
    "glm-6b": [
        (1, "{a}", ""),
        (2, "答案是{a}。", ""),
        (4, "{s}。{tail}", "s"),
        (1, "关于这个问题，答案是{a}。以上信息仅供参考，具体情况请查询相关官方网站。", ""),
        (3, "我认为是{a}，但也可能是{b}。", "b"),
    ],
}
TAILS = {
    "F": "以上信息来自近期的公开报道。",
    "M": "这一信息在近几年内较为稳定。",
    "S": "",
}
REFUSAL_TEMPLATES = {
    "qwen-7b-chat": [
        "抱歉，我的知识截止于训练数据的时间，无法提供最新信息。建议您查阅当地官方媒体的报道。",
        "我无法确定这个问题的答案，因为相关信息可能已经发生变化。建议您查询最新的新闻报道。",
        "对不起，我没有关于这个问题的可靠信息。如果您能提供更多背景，我可以尝试帮助分析。",
    ],
    "glm-6b": [
        "抱歉，作为一个语言模型，我无法获取实时新闻。",
        "您的问题中没有提及具体的时间和地点，因此我无法给出准确的回答。",
        "对不起，我没有关于这个问题的可靠信息。如果您能提供更多背景，我可以尝试帮助分析。",
        "我无法确定这个问题的答案，因为相关信息可能已经发生变化。建议您查询最新的新闻报道。",
    ],
}


def first_sentence(raw: str) -> str:
    i = raw.find("。")
    return raw if i < 0 else raw[: i + 1]


def cdqa_record(it: dict) -> dict:
    ann = {"分类1": C1[it["c1"]], "知识动态性分类": DYN[it["dyn"]]}
    if it.get("url"):
        ann["准确性检查"] = it["url"]
    ann["回答类型"] = it["t"]
    if it.get("rq"):
        ann["p-改写问题"] = it["rq"]
    if it.get("ra"):
        ann["p-改写答案"] = it["ra"]
    return {"qa": f"\ufeff问题: {it['q']}\n答案: {it['a']}", "annotation": ann}


def cdqa_run(model: str, col: int) -> list[dict]:
    rng = random.Random("cdqa/" + model)
    rows = []
    for it in CDQA_ITEMS:
        act = it["plan"][col]
        question = it["rq"] if (it.get("rq") and model in it.get("rq_for", ())) else it["q"]
        if model in it.get("say", {}):
            pred, raw = it["say"][model]
        elif act == "R":
            raw = rng.choice(REFUSAL_TEMPLATES[model])
            pred = first_sentence(raw)
        else:
            ans = {"C": it.get("ra") or it["a"], "O": it["a"], "W": it.get("wrong"),
                   "P": it.get("partial")}[act]
            assert ans, (it["q"], act)
            stmt = statement(question, ans)
            other = it.get("wrong") if act == "C" else None
            tpls = [(w, t) for w, t, needs in ANSWER_TEMPLATES[model]
                    if not (("s" in needs and not stmt) or ("b" in needs and not other)
                            or ("n" in needs and it["dyn"] == "S"))]
            tpl = rng.choices([t for _, t in tpls], weights=[w for w, _ in tpls])[0]
            raw = tpl.format(a=ans, s=stmt, b=other, tail=TAILS[it["dyn"]])
            pred = raw if tpl.startswith("我认为是{a}，但") else first_sentence(raw)
        refused = any(p in raw for p in REFUSAL_PHRASES)
        assert refused == (act == "R") == any(p in pred for p in REFUSAL_PHRASES), it["q"]
        rows.append({"question": question, "prediction": pred, "raw": raw, "model": model})
    return rows


def build_cdqa() -> dict:
    base = OUT / "cdqa"
    ds = [cdqa_record(it) for it in CDQA_ITEMS]
    write_json(base / "cdqa_sample.json", ds)
    runs = {}
    for col, model in enumerate(("qwen-7b-chat", "glm-6b")):
        runs[model] = cdqa_run(model, col)
        write_jsonl(base / "runs" / f"{model}.jsonl", runs[model])
    ann = [r["annotation"] for r in ds]
    print(f"CDQA sample: {len(ds)} items; "
          + ", ".join(f"{k} {v}" for k, v in Counter(a["知识动态性分类"] for a in ann).items()))
    print("  types: " + ", ".join(f"{k} {v}" for k, v in Counter(a["回答类型"] for a in ann).most_common()))
    print(f"  p修改 {sum(a['分类1'] == 'p修改' for a in ann)}, p-改写问题 {sum('p-改写问题' in a for a in ann)}, "
          f"p-改写答案 {sum('p-改写答案' in a for a in ann)}")
    for col, model in enumerate(("qwen-7b-chat", "glm-6b")):
        print(f"  {model}: plan " + ", ".join(f"{k} {v}" for k, v in
                                             sorted(Counter(it['plan'][col] for it in CDQA_ITEMS).items())))
    return {"dataset": ds, "runs": runs}


# ============================================================================ --check

_SP = "-:_*^/\\~`+=，。：？！“”；’《》·、「」（）－～『』"


def _segment(text: str, rm_punc: bool) -> list[str]:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    tok = NLTKWordTokenizer().tokenize
    text = str(text).lower().strip()
    out, tmp = [], ""
    for ch in text:
        if rm_punc and ch in _SP:
            continue
        if re.match(r"[\u4e00-\u9fa5]", ch) or ch in _SP:
            if tmp:
                out.extend(tok(tmp))
                tmp = ""
            out.append(ch)
        else:
            tmp += ch
    if tmp:
        out.extend(tok(tmp))
    return out


def _lcs_run(a: list[str], b: list[str]) -> int:
    best, prev = 0, [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b):
            if x == y:
                cur[j + 1] = prev[j] + 1
                best = max(best, cur[j + 1])
        prev = cur
    return best


def fallback_cmrc(golds: list[str], pred: str) -> tuple[int, float]:
    rm = lambda s: "".join(c for c in str(s).lower().strip() if c not in _SP)
    em = int(any(rm(g) == rm(pred) for g in golds))
    f1 = 0.0
    ps = _segment(pred, True)
    for g in golds:
        gs = _segment(g, True)
        n = _lcs_run(gs, ps)
        if n:
            p, r = n / len(ps), n / len(gs)
            f1 = max(f1, 2 * p * r / (p + r))
    return em, f1


def fallback_recall(golds: list[str], pred: str) -> float:
    import jieba

    drop = "，、。 ,.《》"
    toks = lambda s: Counter(t for t in jieba.lcut(s) if t not in drop)
    best = 0.0
    pt = toks(pred)
    for g in golds:
        gt = toks(g)
        if gt:
            best = max(best, sum((gt & pt).values()) / sum(gt.values()))
    return best


def check(cmrc: dict | None, cdqa: dict) -> None:
    if cmrc:
        try:
            from qa_inspect.core.metrics.cmrc import aggregate, score  # type: ignore

            how = "qa_inspect.core.metrics.cmrc"
        except Exception:  # noqa: BLE001 - the project's scorer may not exist yet
            score = aggregate = None
            how = "self-contained fallback scorer only"
        gold = {qa["id"]: [a["text"] for a in qa["answers"]] for _, qa in iter_questions(cmrc["dataset"])}
        print(f"CMRC EM/F1 ({how}; missing ids count 0):")
        for name, preds in cmrc["runs"].items():
            em = f1 = 0.0
            for qid, golds in gold.items():
                if qid in preds:
                    e, f = fallback_cmrc(golds, preds[qid])
                    em, f1 = em + e, f1 + f
            line = (f"  {name:20s} fallback EM {100 * em / len(gold):6.3f}  F1 {100 * f1 / len(gold):6.3f}"
                    f"  ({len(preds)}/{len(gold)} answered)")
            if score is not None:
                res = aggregate([score(preds[q], g) for q, g in gold.items() if q in preds], len(gold))
                line += f"  | project EM {res['em']:6.3f}  F1 {res['f1']:6.3f}  skip {res['skip']}"
            print(line)
    try:
        from qa_inspect.core.metrics import cdqa as cdqa_metrics  # type: ignore
    except Exception:  # noqa: BLE001
        cdqa_metrics = None
    print("CDQA (refusal = any of 对不起/抱歉/无法确定/没有提及 in the prediction; F1-recall over answered "
          "items against the current gold (p-改写答案 when there is one)"
          + ("; project scorer qa_inspect.core.metrics.cdqa alongside" if cdqa_metrics else "") + "):")
    items = {}
    for it in CDQA_ITEMS:
        items[it["q"]] = it
        if it.get("rq"):
            items[it["rq"]] = it
    for model, rows in cdqa["runs"].items():
        refused = [any(p in r["prediction"] for p in REFUSAL_PHRASES) for r in rows]
        answered = [r for r, x in zip(rows, refused) if not x]
        current = lambda r: [items[r["question"]].get("ra") or items[r["question"]]["a"]]
        rec = [fallback_recall(current(r), r["prediction"]) for r in answered]
        stale = sum(1 for r in answered if items[r["question"]].get("ra")
                    and fallback_recall([items[r["question"]]["a"]], r["prediction"]) == 1.0)
        line = (f"  {model:14s} refusals {sum(refused)}/{len(rows)} = {100 * sum(refused) / len(rows):.1f}%  "
                f"answer rate {100 * len(answered) / len(rows):.1f}%  F1-recall {100 * sum(rec) / len(rec):.1f}  "
                f"answers matching a superseded gold {stale}")
        if cdqa_metrics is not None:
            res = cdqa_metrics.aggregate([cdqa_metrics.score(r["prediction"], current(r)) for r in rows], len(rows))
            line += f"  | project F1-recall {res['f1_recall']}  answer rate {res['answer_rate']}"
        print(line)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV, help="CMRC 2018 dev set (SQuAD-style JSON)")
    ap.add_argument("--check", action="store_true", help="print scores of the generated runs")
    args = ap.parse_args()
    cmrc = build_cmrc(args.dev)
    cdqa = build_cdqa()
    if args.check:
        check(cmrc, cdqa)
    return 0


if __name__ == "__main__":
    sys.exit(main())
