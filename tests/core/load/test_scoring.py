"""`score_run` and `ScoredFile` on small in-memory datasets: matching by id or question, each
distinct (prediction, golds) pair scored once, slices."""

from __future__ import annotations

from qa_inspect.core.load import score_run
from qa_inspect.core.metrics import CMRC_OFFICIAL, SQUAD_V2, score_prediction
from qa_inspect.core.model import Dataset, Gold, Item, Prediction, Run


def item(key: str, question: str, golds: list[str], split: str | None = "dev", **kw: object) -> Item:
    return Item(key=key, question=question, golds=[Gold(g) for g in golds], split=split, **kw)  # type: ignore[arg-type]


def dataset(items: list[Item], family: str = "cmrc") -> Dataset:
    return Dataset(name="d", path="d.json", format="squad", family=family, items=items)  # type: ignore[arg-type]


def run(preds: list[Prediction]) -> Run:
    return Run(name="r", path="r.json", format="prediction-map", predictions=preds)


def test_predictions_naming_questions_are_matched_when_ids_do_not_name_them() -> None:
    ds = dataset([item("A", "谁写了这本书？", ["鲁迅"]), item("B", "在哪里？", ["北京"])])
    scored = score_run(ds, run([Prediction("在哪里?", "question", "北京"), Prediction("X9", "id", "鲁迅",
                                                                                   meta={"question": "谁写了这本书"})]))
    assert [(it.key, p is not None, r.em if r else None) for it, p, r in scored.rows] == [("A", True, 1), ("B", True, 1)]
    assert scored.unmatched == []


def test_repeated_pairs_score_as_each_alone() -> None:
    golds = ["光荣和ω-force", "光荣"]
    ds = dataset([item(f"Q{k}", f"问题{k}", golds) for k in range(4)] + [item("Q9", "别的", ["ω-force"])])
    texts = ["光荣", "ω-force", "光荣", "光荣和", "光荣"]
    scored = score_run(ds, run([Prediction(f"Q{k}", "id", t) for k, t in zip([0, 1, 2, 3, 9], texts)]))
    for (it, pred, row), golds_of in zip(scored.rows, [golds] * 4 + [["ω-force"]]):
        assert pred is not None and row == score_prediction(CMRC_OFFICIAL, pred.text, golds_of)
    assert scored.summary()["overall"]["total"] == 5


def test_slices_of_every_item_equal_overall_and_unlabelled_items_are_in_none() -> None:
    items = [item("A", "一？", ["甲"]), item("B", "二？", ["乙"], split=None), item("C", "三？", ["丙"], split="test")]
    both = score_run(dataset(items), run([Prediction("A", "id", "甲"), Prediction("C", "id", "丁")])).summary()
    assert set(both["by_split"]) == {"dev", "test"} and both["by_split"]["dev"]["total"] == 1
    assert both["by_tag"] == {} and "unanswerable" not in str(both["by_answerable"])
    same = [item("A", "一？", ["甲"]), item("C", "三？", ["丙"])]
    summary = score_run(dataset(same), run([Prediction("A", "id", "甲")]), CMRC_OFFICIAL).summary()
    assert summary["by_split"] == {"dev": summary["overall"]} and summary["by_split"]["dev"] is not summary["overall"]


def test_unanswerable_items_make_answerable_slices() -> None:
    ds = dataset([item("A", "who?", ["Ann"]), item("B", "where?", [], is_impossible=True)], family="squad")
    summary = score_run(ds, run([Prediction("A", "id", "Ann"), Prediction("B", "id", "")])).summary()
    assert summary["scorer"] == SQUAD_V2
    assert set(summary["by_answerable"]) == {"answerable", "unanswerable"}
    records = score_run(ds, run([Prediction("A", "id", "Ann")])).item_records()
    assert [(r["id"], r["best_gold"], r["prediction"]) for r in records] == [("A", "Ann", "Ann"), ("B", None, None)]
