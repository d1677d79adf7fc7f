"""The kept second scoring process of a load (`ScorePool`): every batch worth it halved with the
same process, the same numbers in the same order as scoring alone, and a failed process's half
scored here."""

from __future__ import annotations

import pytest
from qa_inspect.core.load import score_pool
from qa_inspect.core.load.score_pool import ScorePool

_GOLDS = (("泽鹿", "泽鹿和水鹿"), (0, 2))
_CTX = ("有泽鹿和水鹿。还有鹿。第十七届", ((1, 3), (1, 6)), False)


def _todo(texts: list[str]) -> list[score_pool.Todo]:
    return [("cmrc2018-official", text, _GOLDS, _CTX, ("水鹿",)) for text in texts]


_BATCHES = [_todo(["泽鹿", "水鹿", "泽鹿和", "鹿"]), _todo(["The answer", "", "第十七届", "第17届", "还有鹿"]),
            _todo(["有泽鹿"])]


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(score_pool.os, "cpu_count", lambda: 2)


@pytest.mark.usefixtures("two_cores")
def test_batches_share_one_second_process_and_score_as_alone() -> None:
    with ScorePool() as pool:
        first = pool.score(_BATCHES[0], least=2)
        worker = pool._worker
        assert worker is not None and worker.poll() is None
        rest = [pool.score(batch, least=2) for batch in _BATCHES[1:]]
        assert pool._worker is worker  # the last batch (1 pair) is scored here, the process kept
    assert worker.wait(timeout=10) == 0  # closing its input ended it
    assert [first, *rest] == [score_pool.score_many(b) for b in _BATCHES]
    assert pool.score(_BATCHES[0], least=2) == first and pool._worker is None  # closed: scores alone


@pytest.mark.usefixtures("two_cores")
def test_a_failed_process_leaves_its_half_to_this_one() -> None:
    with ScorePool() as pool:
        pool.score(_BATCHES[0], least=2)
        assert pool._worker is not None
        pool._worker.kill()
        pool._worker.wait()
        assert pool.score(_BATCHES[1], least=2) == score_pool.score_many(_BATCHES[1])
        assert pool._worker is None
        assert pool.score(_BATCHES[0], least=2) == score_pool.score_many(_BATCHES[0])


def test_score_rows_with_a_pool_equals_without(two_cores: None, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [(s, t, g, c, x) for batch in _BATCHES for s, t, g, c, x in batch] * 2
    alone = score_pool.score_rows(rows)
    monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
    with ScorePool() as pool:
        assert score_pool.score_rows(rows, {}, pool) == alone
        assert pool._worker is not None


@pytest.mark.usefixtures("two_cores")
def test_a_request_beside_is_answered_by_the_second_process_or_left_to_the_caller() -> None:
    from qa_inspect.core.load.completions import score_sample_items

    items = [(("Paris", "paris.", "Rome"), ("Paris",)), (("x", "x"), ())]
    with ScorePool() as pool:
        here, there = pool.beside((score_sample_items, ("squad-v1.1", items)), lambda: "mine")
        assert here == "mine" and there == score_sample_items("squad-v1.1", items, {})
        assert pool._worker is not None
        pool._worker.kill()
        pool._worker.wait()
        assert pool.beside((score_sample_items, ("squad-v1.1", items)), lambda: "mine") == ("mine", None)
        assert pool._worker is None  # failed: closed, and the caller computes its half
        assert pool.beside((score_sample_items, ("squad-v1.1", items)), lambda: 1) == (1, None)


def test_caller_keys_score_as_the_rows_and_equal_items_share_an_id() -> None:
    """A load keys rows by (its item's scoring id, the answer): the same scores as keying by the
    rows, equal items one id, an item scored otherwise (other superseded golds) another."""
    rows = [row for batch in _BATCHES for row in batch]
    other = [("cmrc2018-official", "水鹿", _GOLDS, _CTX, ())]
    parts: dict[object, int] = {}
    keys = [(score_pool.item_key(parts, row), row[1]) for row in rows + other]
    assert len(parts) == 2 and {k for k, _ in keys[:-1]} == {0} and keys[-1][0] == 1
    memo: score_pool.ScoreMemo = {}
    assert score_pool.score_rows(rows + other, memo, keys=keys) == score_pool.score_many(rows + other)
    assert set(memo) == set(keys)
    _, todo = score_pool.new_pairs(rows, memo, keys[:-1])
    assert todo == {}  # all known: nothing left to score
