"""Straightforward reference for CMRC 2018 official scoring: the official algorithm as written
(Python 3), with no caches, NLTK called on every run and the O(n·m) LCS table per gold.

Used by `bench_score.py` as the yardstick for speed and for per-item agreement; not imported by
the package.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nltk.tokenize import word_tokenize

PUNCT = [
    "-", ":", "_", "*", "^", "/", "\\", "~", "`", "+", "=",
    "，", "。", "：", "？", "！", "“", "”", "；", "’", "《", "》", "……", "·", "、",
    "「", "」", "（", "）", "－", "～", "『", "』",
]
_CJK = re.compile("[\u4e00-\u9fa5]")


def mixed_segmentation(text: str, rm_punc: bool = False) -> list[str]:
    text = text.lower().strip()
    out: list[str] = []
    pending = ""
    for ch in text:
        if rm_punc and ch in PUNCT:
            continue
        if _CJK.search(ch) or ch in PUNCT:
            if pending != "":
                out.extend(word_tokenize(pending, preserve_line=True))
                pending = ""
            out.append(ch)
        else:
            pending += ch
    if pending != "":
        out.extend(word_tokenize(pending, preserve_line=True))
    return out


def remove_punctuation(text: str) -> str:
    return "".join(ch for ch in text.lower().strip() if ch not in PUNCT)


def find_lcs(s1: Sequence[str], s2: Sequence[str]) -> tuple[Sequence[str], int]:
    table = [[0] * (len(s2) + 1) for _ in range(len(s1) + 1)]
    best = 0
    end = 0
    for i in range(len(s1)):
        for j in range(len(s2)):
            if s1[i] == s2[j]:
                table[i + 1][j + 1] = table[i][j] + 1
                if table[i + 1][j + 1] > best:
                    best = table[i + 1][j + 1]
                    end = i + 1
    return s1[end - best : end], best


def calc_f1_score(answers: Sequence[str], prediction: str) -> float:
    scores: list[float] = []
    for ans in answers:
        ans_segs = mixed_segmentation(ans, rm_punc=True)
        pred_segs = mixed_segmentation(prediction, rm_punc=True)
        _, lcs_len = find_lcs(ans_segs, pred_segs)
        if lcs_len == 0:
            scores.append(0)
            continue
        precision = 1.0 * lcs_len / len(pred_segs)
        recall = 1.0 * lcs_len / len(ans_segs)
        scores.append((2 * precision * recall) / (precision + recall))
    return max(scores)


def calc_em_score(answers: Sequence[str], prediction: str) -> int:
    pred = remove_punctuation(prediction)
    for ans in answers:
        if remove_punctuation(ans) == pred:
            return 1
    return 0


def evaluate(questions: Sequence[tuple[str, Sequence[str]]], predictions: dict[str, str]) -> dict:
    """`questions` = (id, golds) in dataset order. Same totals and '%.3f' output as official."""
    f1 = 0.0
    em = 0
    total = 0
    skip = 0
    for qid, golds in questions:
        total += 1
        if qid not in predictions:
            skip += 1
            continue
        f1 += calc_f1_score(golds, predictions[qid])
        em += calc_em_score(golds, predictions[qid])
    f1_score = 100.0 * f1 / total
    em_score = 100.0 * em / total
    return {"AVERAGE": "%.3f" % ((em_score + f1_score) * 0.5), "F1": "%.3f" % f1_score,
            "EM": "%.3f" % em_score, "TOTAL": total, "SKIP": skip}
