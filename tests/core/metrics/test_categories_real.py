"""Error categories on real items of `../shared/data`, each expected category checked by reading
the item (question, golds, passage split into sentences) and the prediction.

Predictions: no real model runs exist beside the data, so each one was written by taking spans
from the passage (boundary shifts, other sentences), as a generative model would write (not in
the passage, other number forms), or, for CDQA, by a stated change of the gold (the CDQA release
has no licence, so no CDQA text is copied here: items are named by their stable key and
predictions are built from their golds at test time). CMRC 2018 and SQuAD 2.0 spans are quoted
from their dev sets (CC BY-SA 4.0). The comment after each case says why the category is right.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from qa_inspect.core.formats import read_source
from qa_inspect.core.metrics import CDQA_F1_RECALL, CMRC_OFFICIAL, SQUAD_V2, SQUAD_V11, error_category, score_prediction
from qa_inspect.core.model import Item

CMRC = "cmrc2018_dev.json"
SQ2 = "squad2_dev_normans.json"
SQ1 = "squad1_dev_normans_answerable.json"
CDQA = "CDQA_v1.json"
TRIAL = "cmrc2018_trial.json"  # the passages of the CMRC conformance cases

# (file, item id, scorer, prediction, expected category)
SPAN_CASES: list[tuple[str, str, str, str, str]] = [
    # 新西兰鸲鹟身体呈什么颜色? gold = all of sentence 7 (羽毛呈深灰黑色，…斑汶。)
    (CMRC, "DEV_164_QUERY_3", CMRC_OFFICIAL, "羽毛呈深灰黑色", "boundary-short"),  # its first clause only
    (CMRC, "DEV_164_QUERY_3", CMRC_OFFICIAL, "新西兰鸲鹟长18厘米，较为大型", "wrong-span-other-sentence"),  # sentence 6
    (CMRC, "DEV_164_QUERY_3", CMRC_OFFICIAL, "较为大型，但却比鸲鹟细小些。羽毛呈深灰黑色", "boundary-shifted"),  # end of 6 + start of 7
    # 主办机构: gold 行政院新闻局 in sentence 2; the name recurs in sentences 4 and 8
    (CMRC, "DEV_1042_QUERY_0", CMRC_OFFICIAL, "行政院新闻局主导", "boundary-long"),  # gold + 主导
    (CMRC, "DEV_1042_QUERY_0", CMRC_OFFICIAL, "由行政院新闻局", "boundary-long"),  # taken from sentence 4, still gold + 由
    # golds 现代学者研究古希腊神话 (×2) and 古希腊神话, all in sentence 1
    (CMRC, "DEV_1859_QUERY_0", CMRC_OFFICIAL, "古希腊神话具有重要意义", "boundary-long"),  # best F1 is gold 3: contains it
    (CMRC, "DEV_1859_QUERY_0", CMRC_OFFICIAL, "研究古希腊神话具有重要意义", "boundary-shifted"),  # best F1 gold 1: starts inside, runs past
    (CMRC, "DEV_1859_QUERY_0", CMRC_OFFICIAL, "学者研究古希腊神话", "boundary-short"),  # gold 1 without 现代
    # 露天操场普遍存在于什么地方? gold 学校以及公园 in sentence 5 (现今露天操场都普遍存在于学校以及公园，…)
    (CMRC, "DEV_70_QUERY_2", CMRC_OFFICIAL, "学校", "boundary-short"),
    (CMRC, "DEV_70_QUERY_2", CMRC_OFFICIAL, "露天操场", "wrong-span-same-sentence"),  # also in sentence 5, before the gold
    (CMRC, "DEV_70_QUERY_2", CMRC_OFFICIAL, "室内操场", "wrong-span-other-sentence"),  # sentence 7
    (CMRC, "DEV_70_QUERY_2", CMRC_OFFICIAL, "普遍存在于学校", "boundary-shifted"),  # starts early, stops at 学校
    # golds 颈部前部两侧可以看到两根沟 / the same with 。(not a passage span) / the whole clause from 皮肤松弛
    (CMRC, "DEV_323_QUERY_2", CMRC_OFFICIAL, "两根沟", "boundary-short"),
    (CMRC, "DEV_323_QUERY_2", CMRC_OFFICIAL, "皮肤松弛的老年人", "boundary-short"),  # inside gold 3 only
    # 班卡雀鲷还可以叫什么? gold 细点齿鲷 (又称细点齿鲷，俗名为厚壳仔 in sentence 1)
    (CMRC, "DEV_147_QUERY_0", CMRC_OFFICIAL, "厚壳仔", "wrong-span-same-sentence"),
    (CMRC, "DEV_147_QUERY_0", CMRC_OFFICIAL, "又称细点齿鲷", "boundary-long"),
    # 神医又叫什么? gold 巫医 (神医，又称巫医，…); 巫医 recurs all over the passage
    (CMRC, "DEV_600_QUERY_0", CMRC_OFFICIAL, "神医", "wrong-span-same-sentence"),
    (CMRC, "DEV_600_QUERY_0", CMRC_OFFICIAL, "巫医起源甚早", "boundary-long"),  # sentence 2 opens with the gold's text
    # 《长眠不醒》的作者是谁? gold 雷蒙·钱德勒 in sentence 1
    (CMRC, "DEV_549_QUERY_0", CMRC_OFFICIAL, "钱德勒", "boundary-short"),  # 雷蒙· missing
    (CMRC, "DEV_549_QUERY_0", CMRC_OFFICIAL, "霍华德·霍克斯", "wrong-span-other-sentence"),  # the film director, sentence 5
    (CMRC, "DEV_549_QUERY_0", CMRC_OFFICIAL, "雷蒙德·钱德勒", "not-in-passage"),  # another transliteration
    # golds 搭乘热气球横越太平洋 (×2) and 1982年搭乘热气球横越太平洋, sentence 15
    (CMRC, "DEV_573_QUERY_4", CMRC_OFFICIAL, "1982年", "boundary-short"),  # the start of gold 3
    (CMRC, "DEV_573_QUERY_4", CMRC_OFFICIAL, "家喻户晓的探险家", "wrong-span-same-sentence"),
    (CMRC, "DEV_573_QUERY_4", CMRC_OFFICIAL, "全美西洋双陆棋大赛", "wrong-span-other-sentence"),  # sentence 14
    (CMRC, "DEV_573_QUERY_4", CMRC_OFFICIAL, "１９８２年搭乘热气球横越太平洋", "format-only"),  # full-width digits
    # gold “勋位” with quotes
    (CMRC, "DEV_1160_QUERY_1", CMRC_OFFICIAL, "勋位", "exact"),  # the scorer drops “ ”
    (CMRC, "DEV_1160_QUERY_1", CMRC_OFFICIAL, "均属于“勋位”", "boundary-long"),
    # 椰子猫主要以什么为食? golds 果实，如芒果及韶子 (×2) and 主要吃果实，如芒果及韶子, sentence 7
    (CMRC, "DEV_473_QUERY_2", CMRC_OFFICIAL, "果实", "boundary-short"),
    (CMRC, "DEV_473_QUERY_2", CMRC_OFFICIAL, "牠们主要吃果实，如芒果及韶子", "boundary-long"),  # gold 3 + 牠们
    (CMRC, "DEV_473_QUERY_2", CMRC_OFFICIAL, "细小的哺乳动物及昆虫", "wrong-span-same-sentence"),
    # 潘均顺哪年去世? gold 1974年 in sentence 7
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "1974", "format-only"),  # a measure word dropped: the same answer
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "1916年", "wrong-span-other-sentence"),  # sentence 2: when he left
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "于1974年去世", "boundary-long"),
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "一九七四年", "format-only"),  # 中文数字
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "", "empty"),
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "1974年。", "exact"),  # the scorer drops 。
    # 派西·卫斯理是哪个作家笔下的人物? gold J·K·罗琳 in sentence 1
    (CMRC, "DEV_221_QUERY_0", CMRC_OFFICIAL, "英国作家J·K·罗琳", "boundary-long"),
    (CMRC, "DEV_221_QUERY_0", CMRC_OFFICIAL, "J.K. Rowling", "not-in-passage"),
    (CMRC, "DEV_221_QUERY_0", CMRC_OFFICIAL, "哈利·波特", "wrong-span-same-sentence"),  # the book, same sentence
    # 派西·卫斯理在家里排第几? gold 第三 (在卫斯理家排行第三。)
    (CMRC, "DEV_221_QUERY_1", CMRC_OFFICIAL, "第3", "format-only"),
    (CMRC, "DEV_221_QUERY_1", CMRC_OFFICIAL, "三", "format-only"),  # 第 dropped: the same ordinal
    (CMRC, "DEV_221_QUERY_1", CMRC_OFFICIAL, "排行第三", "boundary-long"),
    (CMRC, "DEV_221_QUERY_1", CMRC_OFFICIAL, "，", "empty"),  # nothing the scorer counts
    # SQuAD 2.0, Normans. In what country is Normandy located? France, sentence 1
    (SQ2, "56ddde6b9a695914005b9628", SQUAD_V2, "a region in France", "boundary-long"),
    (SQ2, "56ddde6b9a695914005b9628", SQUAD_V2, "Normandy", "wrong-span-same-sentence"),
    (SQ2, "56ddde6b9a695914005b9628", SQUAD_V2, "Denmark", "wrong-span-other-sentence"),  # sentence 2
    (SQ2, "56ddde6b9a695914005b9628", SQUAD_V2, "", "false-abstain"),  # v2: abstaining on an answerable item
    (SQ2, "56ddde6b9a695914005b9628", SQUAD_V2, "France, a country in Europe", "not-in-passage"),
    # golds 10th and 11th centuries / in the 10th and 11th centuries
    (SQ2, "56ddde6b9a695914005b9629", SQUAD_V2, "11th centuries", "boundary-short"),
    # golds include 'the first half of the 10th century': articles are dropped by the scorer
    (SQ2, "56ddde6b9a695914005b962c", SQUAD_V2, "first half of the 10th century", "exact"),
    # Who was the duke in the battle of Hastings? William the Conqueror, sentence 6
    (SQ2, "56dddf4066d3e219004dad5f", SQUAD_V2, "William", "boundary-short"),
    (SQ2, "56dddf4066d3e219004dad5f", SQUAD_V2, "Roger II", "wrong-span-same-sentence"),  # Kingdom of Sicily, same sentence
    (SQ2, "56dddf4066d3e219004dad5f", SQUAD_V2, "Richard I", "wrong-span-other-sentence"),  # sentence 4
    (SQ2, "56dddf4066d3e219004dad5f", SQUAD_V2, "", "false-abstain"),
    (SQ2, "56dddf4066d3e219004dad60", SQUAD_V2, "Richard Ⅰ", "format-only"),  # ROMAN NUMERAL ONE, not the letter I
    # What religion were the Normans? Catholic (…Christian piety, becoming exponents of the Catholic orthodoxy)
    (SQ2, "56dddf4066d3e219004dad61", SQUAD_V2, "Christian", "wrong-span-same-sentence"),
    # golds Viking / Norseman, Viking
    (SQ2, "56dde0379a695914005b9636", SQUAD_V2, "Norseman", "boundary-short"),
    # What river originally bounded the Duchy? golds Seine (sentence 4), Epte (sentence 3)
    (SQ2, "56dde0ba66d3e219004dad77", SQUAD_V2, "the river Epte", "boundary-long"),
    (SQ2, "56dde0ba66d3e219004dad77", SQUAD_V2, "Atlantic coast", "wrong-span-same-sentence"),  # Epte's sentence
    (SQ2, "56dde0ba66d3e219004dad75", SQUAD_V2, "in the year 911", "not-in-passage"),
    # How many men were in Robert's army? 30,000 (an army of 30,000 men in 300 ships)
    (SQ2, "56de148dcffd8e1900b4b5be", SQUAD_V2, "30,000 men", "boundary-long"),
    (SQ2, "56de148dcffd8e1900b4b5be", SQUAD_V2, "300", "wrong-span-same-sentence"),  # the ships
    (SQ2, "56de148dcffd8e1900b4b5be", SQUAD_V2, "30000", "exact"),  # the scorer drops the comma
    # golds Battle of Hastings / the Battle of Hastings / at the Battle of Hastings
    (SQ2, "56de16ca4396321400ee25c5", SQUAD_V2, "King Harold II at the Battle of Hastings", "boundary-long"),
    (SQ2, "56de16ca4396321400ee25c5", SQUAD_V2, "Hastings", "boundary-short"),
    (SQ2, "56de16ca4396321400ee25c5", SQUAD_V2, "Harold II at the Battle", "boundary-shifted"),  # best gold 3: ends early
    (SQ2, "56de16ca4396321400ee25c5", SQUAD_V2, "", "false-abstain"),
    # Where was Dyrrachium located? the Adriatic (sentence 2); Dyrrachium is in sentences 1 and 2
    (SQ2, "56de1563cffd8e1900b4b5c4", SQUAD_V2, "Dyrrachium", "wrong-span-same-sentence"),
    (SQ2, "56de3efccffd8e1900b4b6fe", SQUAD_V2, "the following 380 years", "boundary-long"),
    # unanswerable: What is France a region of? (plausible answer Normandy)
    (SQ2, "5ad39d53604f3c001a3fe8d2", SQUAD_V2, "Normandy", "false-answer"),
    (SQ2, "5ad39d53604f3c001a3fe8d2", SQUAD_V2, "", "exact"),
    (SQ2, "5ad3a266604f3c001a3fea2b", SQUAD_V2, "Antioch", "false-answer"),
    # SQuAD 1.1 file (answerable only): an empty answer is no abstention
    (SQ1, "56dddf4066d3e219004dad60", SQUAD_V11, "Richard I of Normandy", "boundary-long"),
    (SQ1, "56ddde6b9a695914005b9628", SQUAD_V11, "", "empty"),
    (SQ1, "56ddde6b9a695914005b9628", SQUAD_V11, "the", "empty"),  # an article only
    (SQ1, "56de3efccffd8e1900b4b6fe", SQUAD_V11, "380", "boundary-short"),
]

_FULL_WIDTH = {c: c + 0xFEE0 for c in range(0x21, 0x7F)}
TRANSFORMS: dict[str, Callable[[str, str], str]] = {
    "gold": lambda g, old: g,
    "gold+。": lambda g, old: g + "。",
    "superseded": lambda g, old: old,
    "upper": lambda g, old: g.upper(),
    "fullwidth": lambda g, old: g.translate(_FULL_WIDTH),
    "strip quotes": lambda g, old: g.strip("“”"),
}


def _cdqa_prediction(spec: str, gold: str, old: str) -> str:
    """`spec`: a TRANSFORMS name, `prefix:N`, `wrap:…{}…`, `replace:A:B` or `literal:TEXT`."""
    kind, _, arg = spec.partition(":")
    if kind == "prefix":
        return gold[: int(arg)]
    if kind == "wrap":
        return arg.format(gold)
    if kind == "replace":
        a, b = arg.split(":")
        assert a in gold, (a, gold)
        return gold.replace(a, b)
    if kind == "literal":
        return arg
    return TRANSFORMS[spec](gold, old)


# (item key, prediction from its current gold, expected). Keys are `q:` + a hash of the question.
CDQA_CASES: list[tuple[str, str, str]] = [
    ("q:1d118f2435d02df7", "gold", "exact"),  # a person's name
    ("q:1d118f2435d02df7", "gold+。", "exact"),  # CDQA drops 。 tokens
    ("q:1d118f2435d02df7", "wrap:答案是{}。", "verbose-contains-gold"),
    ("q:1d118f2435d02df7", "wrap:我认为是{}，但也可能是别人", "verbose-contains-gold"),  # a hedge
    ("q:1d118f2435d02df7", "literal:抱歉，我无法回答这个问题", "refused"),
    ("q:1d118f2435d02df7", "literal:对不起，我没有找到相关信息", "refused"),
    ("q:1d118f2435d02df7", "literal:", "empty"),
    ("q:1d118f2435d02df7", "literal:王芳", "wrong"),  # another name, nothing shared
    ("q:2dfe92b675494282", "literal:  ", "empty"),
    ("q:2dfe92b675494282", "literal:这个问题无法确定。", "refused"),  # 无法确定 is one of CDQA's phrases
    ("q:a8aab429a4399710", "prefix:4", "partial"),  # a company's short name for its full name
    ("q:a8aab429a4399710", "literal:南方航空", "wrong"),  # another airline: 航空 is 1 of 5 gold words
    ("q:7bb1643ec784c2ec", "prefix:12", "partial"),  # the parent institute of the research centre
    ("q:2e5137af4ce5740c", "superseded", "partial"),  # the old gold: the surname alone
    ("q:87fae455e54c1ebf", "prefix:2", "partial"),  # the city without 市
    ("q:87fae455e54c1ebf", "wrap:浙江省{}", "verbose-contains-gold"),  # the province before the city
    ("q:fd031dcfd6c8e905", "superseded", "wrong"),  # the old gold: another city's spirit, one word of two shared
    ("q:d98de94de92c4673", "replace:5:五", "format-only"),  # 5场 as 五场
    ("q:48eaf62c158d4df8", "replace:十二:12", "format-only"),  # 第十二届 as 第12届
    ("q:06b3c18fb988047c", "replace:十七:17", "format-only"),
    ("q:a745cfbeadbd7fb6", "replace:五:5", "format-only"),
    ("q:4c5f3d52bdff54d9", "fullwidth", "format-only"),  # a count in full-width digits
    ("q:c4d0f31de54c2acb", "upper", "format-only"),  # an English title in capitals
    ("q:48803ab6735a7e45", "wrap:{}基因编辑技术", "verbose-contains-gold"),
    ("q:664eed2ffdd79b64", "strip quotes", "format-only"),  # the gold is in “ ”, the answer not
]


@pytest.fixture(scope="module")
def items(shared_data: Path) -> dict[tuple[str, str], Item]:
    out = {}
    for name in (CMRC, SQ2, SQ1, CDQA, TRIAL):
        dataset = read_source(shared_data / name)
        out.update({(name, it.key): it for it in dataset.items})
    return out


def _golds(item: Item) -> tuple[list[str], list[tuple[int, int] | None]]:
    kept = [g for g in item.golds if not g.superseded]
    spans = [(g.span_start, g.span_end) if g.span_start is not None and g.span_end is not None else None for g in kept]
    return [g.text for g in kept], spans


@pytest.mark.parametrize(("name", "key", "scorer", "prediction", "expected"), SPAN_CASES,
                         ids=[f"{c[1]}-{c[4]}-{n}" for n, c in enumerate(SPAN_CASES)])
def test_span_runs(items: dict, name: str, key: str, scorer: str, prediction: str, expected: str) -> None:
    item = items[(name, key)]
    golds, spans = _golds(item)
    got = error_category(prediction, golds, item.context, scorer, unanswerable=item.unanswerable, gold_spans=spans)
    assert got.code == expected, f"{prediction!r}: {got}"
    # the stored score gives the same answer as scoring here, and spans found by text too
    row = score_prediction(scorer, prediction, golds)
    assert error_category(prediction, golds, item.context, scorer, unanswerable=item.unanswerable,
                          gold_spans=spans, score=row) == got
    assert error_category(prediction, golds, item.context, scorer, unanswerable=item.unanswerable).code == expected


@pytest.mark.parametrize(("key", "spec", "expected"), CDQA_CASES,
                         ids=[f"{c[0]}-{c[2]}-{n}" for n, c in enumerate(CDQA_CASES)])
def test_cdqa_runs(items: dict, key: str, spec: str, expected: str) -> None:
    item = items[(CDQA, key)]
    golds, _ = _golds(item)
    old = next((g.text for g in item.golds if g.superseded), "")
    prediction = _cdqa_prediction(spec, golds[0], old)
    got = error_category(prediction, golds, None, CDQA_F1_RECALL)
    assert got.code == expected, f"{spec}: {got}"


def test_enough_real_cases() -> None:
    """At least 60 real items checked by a person, so the rules are tried on real answers."""
    assert len(SPAN_CASES) + len(CDQA_CASES) >= 60
    assert len({(c[0], c[1]) for c in SPAN_CASES} | {(CDQA, c[0]) for c in CDQA_CASES}) >= 40


REASONS = [
    (CMRC, "DEV_221_QUERY_1", CMRC_OFFICIAL, "排行第三", "contains the gold plus 2 characters before it"),
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "于1974年去世", "contains the gold plus 1 character before and 2 characters after it"),
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "1974", "the gold written differently (measure word); scored EM 0, F1 0.67"),
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "1916年", "a span of sentence 2 of 7; the gold is in sentence 7"),
    (CMRC, "DEV_74_QUERY_3", CMRC_OFFICIAL, "一九七四年", "the gold written differently (numerals); scored EM 0, F1 0.29"),
    (SQ2, "56ddde6b9a695914005b9628", SQUAD_V2, "a region in France", "contains the gold plus 3 words before it"),
    (SQ2, "56dddf4066d3e219004dad5f", SQUAD_V2, "William", "inside the gold, missing 2 words at its end"),
    (SQ2, "56dde0ba66d3e219004dad77", SQUAD_V2, "the river Epte", "contains gold 2 plus 2 words before it"),
    (SQ2, "56dde0ba66d3e219004dad77", SQUAD_V2, "Atlantic coast",
     "another span of sentence 3 of 5, which holds gold 2: 2 words after it"),
    (CMRC, "DEV_1859_QUERY_0", CMRC_OFFICIAL, "研究古希腊神话具有重要意义",
     "overlaps gold 1: starts 4 characters into it and runs 6 characters past its end"),
]


@pytest.mark.parametrize(("name", "key", "scorer", "prediction", "reason"), REASONS,
                         ids=[f"{c[1]}-{n}" for n, c in enumerate(REASONS)])
def test_reasons_in_words(items: dict, name: str, key: str, scorer: str, prediction: str, reason: str) -> None:
    item = items[(name, key)]
    golds, spans = _golds(item)
    assert error_category(prediction, golds, item.context, scorer, gold_spans=spans).reason == reason


def test_every_conformance_row(conformance_dir: Path, items: dict) -> None:
    """On every input the official scorers answered: `exact` iff their EM is 1 (span scorers),
    `refused` iff CDQA refused, and an `exact` CDQA answer has F1-recall 1."""
    bad = []
    for name, dataset in (("squad_official.jsonl", SQ2), ("cmrc2018_official.jsonl", TRIAL)):
        for line in (conformance_dir / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            item = items.get((dataset, row.get("id", "")))  # None for the hand-made edge cases
            got = error_category(row["prediction"], row["golds"], item.context if item else None,
                                 row.get("scorer", CMRC_OFFICIAL), unanswerable=bool(item and item.unanswerable))
            if (got.code == "exact") != (row["em"] == 1):
                bad.append(f"{name}: {row!r} → {got}")
    for line in (conformance_dir / "cdqa_f1_recall.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        got = error_category(row["prediction"], row["golds"], None, CDQA_F1_RECALL)
        if (got.code == "refused") != row["refused"] or (got.code == "exact" and row["f1_recall"] != 1):
            bad.append(f"cdqa: {row!r} → {got}")
    assert not bad, "\n".join(bad[:20])
