"""Browser facets of runs with several samples per item: pass-rate band, distinct answers and
flaky select exactly the items a direct computation says; a run of one answer hides them."""

from __future__ import annotations

from pathlib import Path

import pytest
from qa_inspect.core.load import load_runs
from qa_inspect.core.metrics import score_prediction, scorer_form
from qa_inspect.core.query import Filter, count, facet_tables, page_ids, select
from qa_inspect.core.store import open_db

from tests.sampled_runs import ANSWERS, GOLDS, sampled_runs


@pytest.fixture
def conn(tmp_path: Path):  # type: ignore[no-untyped-def]
    runs = sampled_runs(tmp_path)
    assert not load_runs(runs).errors
    c = open_db(runs / ".qa-inspect" / "qa.db").conn
    yield c
    c.close()


def _keys(conn, f: Filter) -> set[str]:  # type: ignore[no-untyped-def]
    ids = page_ids(conn, f, 0, 100)
    return {k for (k,) in conn.execute(f"SELECT key FROM items WHERE id IN ({','.join('?' * len(ids))})", ids)}


def test_flaky_selects_exactly_the_items_with_mixed_outcomes(conn) -> None:  # type: ignore[no-untyped-def]
    for run, scorer in conn.execute("SELECT r.name, d.scorer FROM runs r JOIN datasets d ON d.id = r.dataset_id"):
        right = {k: [score_prediction(scorer, a, [GOLDS[k]]).em for a in ANSWERS[k]] for k in ANSWERS}
        mixed = {k for k, r in right.items() if 0 < sum(r) < len(r)}
        f = Filter(run=run)
        tables = {t.name: t for t in facet_tables(conn, f)}
        assert {"pass_band", "distinct_answers", "flaky"} <= set(tables)
        flaky = next(r for r in tables["flaky"].rows if r.value == "flaky")
        assert flaky.items == len(mixed)
        chosen = select(f, "flaky", "flaky")
        assert chosen is not None and count(conn, chosen) == len(mixed)
        assert _keys(conn, chosen) == mixed
        distinct = {r.value: r.items for r in tables["distinct_answers"].rows}
        want: dict[str, int] = {}
        for answers in ANSWERS.values():
            n = str(len({scorer_form(a, scorer) for a in answers}))
            want[n] = want.get(n, 0) + 1
        assert distinct == want
        bands: dict[str, int] = {}
        for r in right.values():
            band = "0" if not any(r) else "100" if all(r) else "1–49" if 2 * sum(r) < len(r) else "50–99"
            bands[band] = bands.get(band, 0) + 1
        assert {r.value: r.items for r in tables["pass_band"].rows if r.items} == bands


def test_a_single_answer_run_hides_the_sample_facets(tmp_path: Path, sample_runs: Path) -> None:
    from tests.cli.helpers import copy_sample_runs

    runs = copy_sample_runs(sample_runs, tmp_path)
    load_runs(runs, tmp_path / "qa.db")
    c = open_db(tmp_path / "qa.db").conn
    run = c.execute("SELECT name FROM runs LIMIT 1").fetchone()[0]
    names = {t.name for t in facet_tables(c, Filter(run=run))}
    assert not names & {"pass_band", "distinct_answers", "flaky"}
    c.close()
