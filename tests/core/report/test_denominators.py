"""Every figure is computed over what the official script divides by, the same in every report:
CDQA's answer rate over the run's responses (cdqa_eval.py), EM/F1 over all dataset items."""

from __future__ import annotations

import pytest

from qa_inspect.core import query
from qa_inspect.core.metrics import answer_rate
from qa_inspect.core.query import Filter
from qa_inspect.core.report import overview, report, slice_metrics_excluding_stale
from tests.helpers import Env

RUN = "glm-6b"


def _keep_first(env: Env, run: str, n: int) -> tuple[int, int]:
    """Leave the run only its first `n` predictions; (responses, answered) left."""
    c = env.conn
    run_id = c.execute("SELECT id FROM runs WHERE name = ?", (run,)).fetchone()[0]
    c.execute("DELETE FROM predictions WHERE run_id = ? AND id NOT IN"
              " (SELECT id FROM predictions WHERE run_id = ? ORDER BY item_id LIMIT ?)", (run_id, run_id, n))
    return c.execute("SELECT COUNT(*), SUM(COALESCE(refused, 0) = 0) FROM predictions WHERE run_id = ?",
                     (run_id,)).fetchone()


def test_answer_rate_is_over_the_run_s_responses_everywhere(env: Env) -> None:
    responses, answered = _keep_first(env, RUN, 10)
    want = answer_rate(answered, responses)
    assert want == pytest.approx(100.0 * answered / 10)
    table = report(env.conn, by=[])
    row = next(r for r in table.iter_rows(named=True) if r["run"] == RUN)
    assert row["answer_rate"] == pytest.approx(want)
    assert row["predicted"] == 10 and row["items"] == 38
    run = next(r for d in overview(env.conn) for r in d.runs if r.name == RUN)
    assert run.overall.answer_rate == pytest.approx(want)
    assert query.metrics(env.conn, Filter(run=RUN)).answer_rate == pytest.approx(want)
    assert slice_metrics_excluding_stale(env.conn, Filter(run=RUN)).metrics.answer_rate == pytest.approx(want)


def test_em_and_f1_stay_over_every_dataset_item(env: Env) -> None:
    run = "bert-base-chinese"
    _keep_first(env, run, 50)
    row = next(r for r in report(env.conn, by=[]).iter_rows(named=True) if r["run"] == run)
    ems = env.conn.execute("SELECT SUM(em) FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.name = ?",
                           (run,)).fetchone()[0]
    assert row["em"] == pytest.approx(100.0 * ems / row["items"])  # missing predictions count 0


def test_no_response_has_no_answer_rate() -> None:
    assert answer_rate(0, 0) is None and answer_rate(1, 4) == 25.0


def test_a_partial_run_shows_both_denominators_labelled(env: Env) -> None:
    """The official number stays the default; the other denominator appears only where it differs."""
    _keep_first(env, "bert-base-chinese", 50)
    _keep_first(env, RUN, 10)
    rows = {r["run"]: r for r in report(env.conn, by=[]).iter_rows(named=True)}
    bert = rows["bert-base-chinese"]
    assert bert["em_over_run"] == pytest.approx(bert["em"] * bert["items"] / bert["predicted"])
    assert rows[RUN]["answer_rate_over_dataset"] == pytest.approx(100.0 * rows[RUN]["answered"] / rows[RUN]["items"])
    full = rows["qwen-7b-chat"]
    assert full["answer_rate_over_dataset"] is None and full["em_over_run"] is None, "nothing to add at full coverage"
