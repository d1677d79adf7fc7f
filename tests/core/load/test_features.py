"""`core.load.features`: an item's features, computed half in the load's second process for a
big new dataset, are the values this process computes."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import features, load_runs, score_pool
from qa_inspect.core.load.features import FeatureMemo, feature_values, features_of
from qa_inspect.core.load.score_pool import ScorePool

from tests.paths import SAMPLE_RUNS

_ITEMS = "SELECT d.name, i.key, i.question_type, i.gold_length, i.passage_length, i.answer_position, i.gold_count," \
         " i.gold_agreement, i.cross_sentence, i.question_overlap FROM items i JOIN datasets d ON d.id = i.dataset_id" \
         " ORDER BY d.name, i.key"


def _keys() -> list[Any]:
    passage = "北京是中国的首都。上海是中国最大的城市。"
    return [(f"问题{n}是什么？", ("北京",) if n % 2 else ("上海", "上海市"), passage, ((0, 2),) if n % 2 else ((9, 11), None))
            for n in range(12)]


class _Here:
    """A pool whose second process is never there: the caller computes everything."""

    def beside(self, request: Any, here: Any) -> tuple[Any, None]:
        return here(), None


def test_fill_computes_half_in_the_second_process_and_the_rest_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(features, "FEATURE_SPLIT", 4)
    keys = _keys()
    memo = FeatureMemo()
    sent: list[Any] = []
    send = ScorePool.send

    def counted(pool: ScorePool, request: Any, **how: bool) -> bool:
        sent.append(request)
        return bool(send(pool, request, **how))

    monkeypatch.setattr(ScorePool, "send", counted)
    with ScorePool() as pool:
        memo.fill([*keys, *keys], pool)  # repeated keys are computed once
    assert [request[1][0] for request in sent] == [keys[6:]]
    assert memo.known == {key: feature_values(*key) for key in keys}
    alone = FeatureMemo()
    alone.fill(keys, _Here())  # no second process: all here
    assert alone.known == memo.known
    few = FeatureMemo()
    few.fill(keys[:3], _Here())  # below FEATURE_SPLIT: left to `of`
    assert few.known == {}
    assert features_of(keys[:2]) == [feature_values(*k) for k in keys[:2]]


def test_a_dataset_stored_with_features_computed_beside_stores_what_one_process_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(SAMPLE_RUNS, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 1)
    load_runs(runs, tmp_path / "alone.db")
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(features, "FEATURE_SPLIT", 10)
    asked: list[int] = []
    real = FeatureMemo.fill

    def counted(memo: FeatureMemo, keys: Any, pool: Any) -> None:
        asked.append(len(keys))
        real(memo, keys, pool)

    monkeypatch.setattr(FeatureMemo, "fill", counted)
    load_runs(runs, tmp_path / "beside.db")
    assert asked and max(asked) >= 10
    with sqlite3.connect(tmp_path / "alone.db") as a, sqlite3.connect(tmp_path / "beside.db") as b:
        assert b.execute(_ITEMS).fetchall() == a.execute(_ITEMS).fetchall() != []
