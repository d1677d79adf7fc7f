"""The review queue counts samples in its consensus: runs that sampled an item agree through their
official answer, and the reason says how many of their samples give the answer."""

from __future__ import annotations

from datetime import date

from qa_inspect.core.review import ItemGolds, RunAnswer, consensus
from qa_inspect.core.review.score import Signals, score_signals

SCORER = "cdqa-f1-recall"
GOLDS = ItemGolds(scored=("章贡新区",))


def _answers() -> list[RunAnswer]:
    return [RunAnswer("sampled", "蓉江新区", 0.0, False, samples=("蓉江新区",) * 8),
            RunAnswer("b", "蓉江新区", 0.0, False), RunAnswer("c", "蓉江新区。", 0.0, False)]


def test_consensus_counts_the_agreeing_runs_samples() -> None:
    c = consensus(_answers(), SCORER, "哪个新区？", GOLDS)
    assert c is not None and (c.count, c.total) == (3, 3)
    assert (c.samples, c.sample_total, c.sampled_runs) == (8, 8, 1)
    mixed = [RunAnswer("s", "蓉江新区", 0.0, False, samples=("蓉江新区", "章贡新区", "蓉江新区", "别的")), *_answers()[1:]]
    m = consensus(mixed, SCORER, "哪个新区？", GOLDS)
    assert m is not None and (m.samples, m.sample_total) == (2, 4)


def test_the_queue_reason_counts_samples() -> None:
    answers = _answers()
    c = consensus(answers, SCORER, "哪个新区？", GOLDS)
    signals = Signals("d", "k", "章贡新区", "哪个新区？", answers=tuple(answers), consensus=c)
    reasons = score_signals(signals, date(2026, 1, 1)).reasons
    assert any("8 of 8 samples of one run, 3 of 3 runs answer 蓉江新区" in r for r in reasons), reasons


def test_runs_without_samples_keep_the_runs_wording() -> None:
    answers = [RunAnswer(r, "蓉江新区", 0.0, False) for r in "abc"]
    c = consensus(answers, SCORER, "", GOLDS)
    assert c is not None and c.sample_total == 0
    reasons = score_signals(Signals("d", "k", "章贡新区", "", consensus=c), date(2026, 1, 1)).reasons
    assert any(r.startswith("3 of 3 runs answer") for r in reasons), reasons
