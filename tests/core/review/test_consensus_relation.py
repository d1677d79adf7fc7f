"""Consensus and score on the equivalence relation (pure): only different answers make a
consensus on a new answer; a replaced answer or a same cut is a note that ranks last or low;
accepted aliases, when given, are asked at once."""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics import CDQA_F1_RECALL, relation
from qa_inspect.core.review import LAST, POINTS, ItemGolds, RunAnswer, Signals, consensus, score_signals

TODAY = date(2025, 11, 1)
Q = "在海口最近举办的什么音乐节活动吸引了大量年轻人？"
GOLDS = ItemGolds(("2023海口迷笛音乐节",), ("同程音乐生活节",))


def _answers(texts: list[str], golds: ItemGolds = GOLDS, stored: bool = True) -> list[RunAnswer]:
    out = []
    for n, text in enumerate(texts):
        rel = relation(text, golds.scored, scorer=CDQA_F1_RECALL, superseded=golds.superseded).relation.value
        out.append(RunAnswer(f"run-{n}", text, 0.0, False, relation=rel if stored else None))
    return out


def test_runs_giving_the_replaced_answer_are_no_new_answer() -> None:
    c = consensus(_answers(["同程音乐生活节", "同程音乐生活节", "同程音乐生活节"]), CDQA_F1_RECALL, Q, GOLDS)
    assert c is not None and (c.kind, c.replaced, c.count) == ("superseded", "同程音乐生活节", 3)
    scored = score_signals(Signals("cdqa", "k", GOLDS.scored[0], Q, consensus=c), TODAY)
    assert scored.reasons[0] == "runs still give the replaced answer 同程音乐生活节 (3 of 3 runs)"
    assert scored.last and scored.points["consensus"] == 0


def test_a_filler_around_the_replaced_answer_is_still_the_replaced_answer() -> None:
    answers = _answers(["答案是同程音乐生活节。", "同程音乐生活节。"])
    assert answers[0].relation == "different"  # stored: the filler hides it
    c = consensus(answers, CDQA_F1_RECALL, Q, GOLDS)
    assert c is not None and c.kind == "superseded" and c.replaced == "同程音乐生活节"


def test_a_same_cut_is_a_note_never_a_consensus() -> None:
    golds = ItemGolds(("郝鹏",))
    c = consensus(_answers(["郝", "郝"], golds), CDQA_F1_RECALL, "国资委主任是谁？", golds)
    assert c is not None and c.kind == "partial"
    scored = score_signals(Signals("cdqa", "k", "郝鹏", "国资委主任是谁？", consensus=c), TODAY)
    assert scored.reasons[0] == "runs cut the gold the same way: 2 of 2 runs answer 郝"
    assert scored.points["consensus"] == 0 and not scored.last


def test_the_gold_said_at_length_is_no_cut() -> None:
    golds = ItemGolds(("蓉江新区",))
    answers = _answers(["答案是蓉江新区。", "答案是蓉江新区。"], golds)
    assert answers[0].relation == "partial"
    assert consensus(answers, CDQA_F1_RECALL, "赣州市的哪一个新区最近积极推进晚稻的收割工作？", golds) is None


def test_a_new_answer_beats_a_replaced_one_on_the_same_item() -> None:
    c = consensus(_answers(["草莓音乐节", "草莓音乐节", "同程音乐生活节", "同程音乐生活节", "同程音乐生活节"]),
                  CDQA_F1_RECALL, Q, GOLDS)
    assert c is not None and (c.kind, c.answer, c.count) == ("different", "草莓音乐节", 2)


def test_an_accepted_alias_is_no_disagreement() -> None:
    texts = ["迷笛音乐节", "迷笛音乐节"]
    assert consensus(_answers(texts), CDQA_F1_RECALL, Q, GOLDS) is not None  # a part of the gold: a cut
    golds = ItemGolds(GOLDS.scored, GOLDS.superseded, ("迷笛音乐节",))
    assert consensus(_answers(texts), CDQA_F1_RECALL, Q, golds) is None


def test_without_a_stored_relation_the_score_decides() -> None:
    answers = [RunAnswer("a", "章贡新区", 0.5, False), RunAnswer("b", "章贡新区", 0.5, False)]
    c = consensus(answers, CDQA_F1_RECALL, "赣州市的哪一个新区？")
    assert c is not None and c.kind == "different"


def test_the_table_has_a_row_for_every_last_signal() -> None:
    assert LAST <= set(POINTS)


_TEXT = st.sampled_from(["同程音乐生活节", "草莓音乐节", "迷笛", "2023海口迷笛音乐节", "抱歉，无法确定", "", "郝"])


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(_TEXT, max_size=6))
def test_only_different_answers_make_a_consensus_on_a_new_answer(texts: list[str]) -> None:
    c = consensus(_answers(texts), CDQA_F1_RECALL, Q, GOLDS)
    if c is not None and c.kind == "different":
        rels = {relation(a, GOLDS.scored, scorer=CDQA_F1_RECALL, superseded=GOLDS.superseded).relation.value
                for a in texts if a.strip() and a.strip() == c.answer}
        assert rels == {"different"} and c.count >= 2
