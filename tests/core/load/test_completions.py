"""Many answers per item: every sample of a run stored in `completions` with its scores, and the
prediction's row holding their aggregate as a direct computation gives it — for an Inspect log
written by inspect_ai with four epochs, lm-eval samples with four responses, and plain records."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.load import load_runs
from qa_inspect.core.load.completions import insert_completions, score_samples
from qa_inspect.core.metrics import score_prediction, scorer_form
from qa_inspect.core.model import Prediction
from qa_inspect.core.store import SCHEMA_VERSION, open_db

from tests.sampled_runs import ANSWERS, GOLDS, copy_inspect, write_dataset, write_lm_eval, write_plain

def _loaded(tmp_path: Path, *writers: object) -> sqlite3.Connection:
    runs = tmp_path / "runs"
    write_dataset(runs)
    for write in writers:
        if callable(write):
            write(runs)
    summary = load_runs(runs)
    assert not summary.errors, summary.errors
    return open_db(runs / ".qa-inspect" / "qa.db").conn


def _expected(scorer: str, answers: list[str], gold: str) -> tuple[object, ...]:
    """The aggregate computed here from its definition, not through core.metrics.samples."""
    em = [score_prediction(scorer, a, [gold]).em or 0 for a in answers]
    f1 = [score_prediction(scorer, a, [gold]).f1 or 0.0 for a in answers]  # the SQuAD scorers always give one
    forms = [scorer_form(a, scorer) for a in answers]
    counts = {f: forms.count(f) for f in forms}
    top = max(counts.values())
    majority = next(a for a, f in zip(answers, forms) if counts[f] == top)
    return (len(answers), sum(em), sum(em) / len(em), sum(f1) / len(f1), majority, top / len(answers),
            em[answers.index(majority)], len(counts), int(0 < sum(em) < len(em)))


_AGG = ("SELECT i.key, r.format, p.text, p.samples, p.correct_samples, p.mean_em, p.mean_f1, p.majority,"
        " p.majority_share, p.majority_correct, p.distinct_answers, p.flaky, p.em, r.scorer, p.id FROM predictions p"
        " JOIN items i ON i.id = p.item_id JOIN runs r ON r.id = p.run_id ORDER BY r.format, i.key")


def test_every_form_loads_every_sample_with_its_aggregate(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    conn = _loaded(tmp_path, write_plain, write_lm_eval, copy_inspect)
    rows = conn.execute(_AGG).fetchall()
    assert {r[1] for r in rows} == {"inspect-log", "lm-eval-samples", "prediction-records"}
    assert len(rows) == 9
    for key, fmt, text, *agg, em, scorer, pid in rows:
        answers = ANSWERS[key]
        assert text == answers[0], (fmt, key)  # the official answer is the first sample's
        assert em == score_prediction(scorer, answers[0], [GOLDS[key]]).em  # official score unchanged
        want = _expected(scorer, answers, GOLDS[key])
        assert tuple(agg[:3]) == want[:3] and agg[3] == pytest.approx(want[3]) and tuple(agg[4:]) == want[4:], fmt
        stored = conn.execute("SELECT sample, text, em FROM completions WHERE prediction_id = ? ORDER BY sample",
                              (pid,)).fetchall()
        assert [(s, t) for s, t, _ in stored] == list(enumerate(answers, 1))
        assert [e for *_, e in stored] == [score_prediction(scorer, a, [GOLDS[key]]).em for a in answers]


def test_a_run_of_one_answer_per_item_stores_no_samples(tmp_path: Path) -> None:
    def single(runs: Path) -> None:
        (runs / "single.jsonl").write_text(
            "".join(json.dumps({"id": k, "sample": 1, "prediction": a[0]}) + "\n" for k, a in ANSWERS.items()))

    conn = _loaded(tmp_path, single)
    assert conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM predictions WHERE samples IS NOT NULL OR flaky IS NOT NULL"
                        ).fetchone()[0] == 0


def test_a_sample_given_twice_names_both_records(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_dataset(runs)
    (runs / "twice.jsonl").write_text(json.dumps({"id": "Q1", "sample": 2, "prediction": "a"}) + "\n"
                                      + json.dumps({"id": "Q1", "sample": 2, "prediction": "b"}) + "\n")
    summary = load_runs(runs)
    assert len(summary.errors) == 1
    message = summary.errors[0]["message"]
    assert "twice.jsonl" in message and "sample 2 of 'Q1' given twice" in message and "line 1" in message


def test_the_marked_sample_is_the_official_one(tmp_path: Path) -> None:
    def marked(runs: Path) -> None:
        (runs / "marked.jsonl").write_text(
            json.dumps({"id": "Q1", "sample": 1, "prediction": "a hare"}) + "\n"
            + json.dumps({"id": "Q1", "sample": 2, "prediction": "quick brown fox", "official": True}) + "\n")

    conn = _loaded(tmp_path, marked)
    assert conn.execute("SELECT text, em, samples, correct_samples FROM predictions").fetchone() == (
        "quick brown fox", 1, 2, 1)


def _make_previous_version(db: Path) -> None:
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE completions")
    for column in ("samples", "correct_samples", "mean_em", "mean_f1", "majority", "majority_share",
                   "majority_correct", "distinct_answers", "flaky"):
        conn.execute(f"ALTER TABLE predictions DROP COLUMN {column}")
    conn.execute("PRAGMA user_version = 13")  # migration 14 added the samples; later ones run again, as on any upgrade
    conn.commit()
    conn.close()


def test_a_database_of_the_previous_version_upgrades_keeping_every_annotation(tmp_path: Path) -> None:
    from qa_inspect.core import flags

    conn = _loaded(tmp_path, write_plain)
    dataset = conn.execute("SELECT name FROM datasets").fetchone()[0]
    flags.mark(conn, dataset, "Q3", "the river bank", proposed="the bank", author="ann")
    want = conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()
    conn.close()
    db = tmp_path / "runs" / ".qa-inspect" / "qa.db"
    _make_previous_version(db)
    conn = open_db(db).conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("SELECT * FROM annotations ORDER BY id").fetchall() == want
    assert conn.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 0
    conn.close()


def test_an_upgraded_database_reads_the_frameworks_samples_on_its_next_load(tmp_path: Path) -> None:
    pytest.importorskip("zstandard")
    conn = _loaded(tmp_path, copy_inspect, write_plain)
    conn.close()
    db = tmp_path / "runs" / ".qa-inspect" / "qa.db"
    _make_previous_version(db)
    assert not load_runs(tmp_path / "runs").errors
    conn = open_db(db).conn
    by_format = dict(conn.execute("SELECT r.format, COUNT(c.sample) FROM runs r JOIN predictions p ON p.run_id = r.id"
                                  " LEFT JOIN completions c ON c.prediction_id = p.id GROUP BY r.format").fetchall())
    assert by_format == {"inspect-log": 12, "prediction-records": 0}  # the log read again; the other left as it was


def test_changed_golds_rescore_every_sample(tmp_path: Path) -> None:
    conn = _loaded(tmp_path, write_plain)
    conn.close()
    runs = tmp_path / "runs"
    data = runs / "qa.jsonl"
    data.write_text(data.read_text(encoding="utf-8").replace('"the river bank"', '"a tree"'), encoding="utf-8")
    assert not load_runs(runs).errors
    conn = open_db(runs / ".qa-inspect" / "qa.db").conn
    row = conn.execute(_AGG + "").fetchall()
    q3 = next(r for r in row if r[0] == "Q3")
    scorer = q3[13]
    assert tuple(q3[3:6]) == _expected(scorer, ANSWERS["Q3"], "a tree")[:3]
    assert q3[11] == 1  # flaky now: three samples say "a tree", one "the hill"
    ems = [e for (e,) in conn.execute("SELECT em FROM completions WHERE prediction_id = ? ORDER BY sample", (q3[14],))]
    assert ems == [score_prediction(scorer, a, ["a tree"]).em for a in ANSWERS["Q3"]]


_WORDS = st.sampled_from(["The", "the", "Paris", "paris.", "a", "an", "London,", " ", "", "Rome!"])
_GOLDS = ("Paris", "the paris")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_WORDS, max_size=4).map(" ".join), min_size=2, max_size=6),
       st.sampled_from(["squad-v1.1", "squad-v2"]))
def test_squad_samples_scored_by_form_score_as_each_text_would(samples: list[str], scorer: str) -> None:
    """Samples of one SQuAD form share a score (`completions`): it must be each text's own."""
    prediction = Prediction("q", "id", samples[0], samples=tuple(samples))
    (scored,) = score_samples(scorer, [(1, prediction)], {1: (_GOLDS, (0, 1))}, {})
    assert scored is not None
    for text, got in zip(samples, scored[1]):
        row = score_prediction(scorer, text, list(_GOLDS))
        assert got == (row.em, row.f1, None, None)


_SCORED = st.tuples(st.none() | st.integers(0, 1), st.none() | st.floats(0, 1), st.none() | st.integers(0, 1),
                    st.none() | st.floats(0, 1))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.tuples(st.text(max_size=3), _SCORED), max_size=5), max_size=4))
def test_completions_are_stored_as_given_whatever_their_none_pattern(predictions: list[list[tuple[str, tuple]]]) -> None:
    """None scores go in as NULL literals, by pattern (a whole column None, or mixed within a
    prediction): every row reads back as it was given."""
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE completions (prediction_id INTEGER, sample INTEGER, text TEXT, em INTEGER, f1 REAL,"
                 " refused INTEGER, f1_recall REAL, PRIMARY KEY (prediction_id, sample)) WITHOUT ROWID")
    batch = [(pid, tuple(t for t, _ in rows), tuple(s for _, s in rows)) for pid, rows in enumerate(predictions, 1)]
    insert_completions(conn, batch)
    want = [(pid, n, t, *s) for pid, rows in enumerate(predictions, 1) for n, (t, s) in enumerate(rows, 1)]
    assert conn.execute("SELECT * FROM completions ORDER BY prediction_id, sample").fetchall() == want


def _mixed_folder(root: Path) -> Path:
    """Sampled runs under all three scorers: CMRC (ids), CDQA (questions, F1-recall and refusals),
    SQuAD (plain records and lm-eval samples); each item's samples drawn from the shipped runs'
    answers to it, so they repeat, differ in form and split right from wrong."""
    import random
    import shutil

    from tests.paths import SAMPLE_RUNS

    runs = root / "runs"
    rng = random.Random(7)
    cmrc, cdqa = runs / "cmrc", runs / "cdqa"
    cmrc.mkdir(parents=True)
    cdqa.mkdir()
    shutil.copy(SAMPLE_RUNS / "cmrc2018" / "cmrc2018_dev_sample.json", cmrc)
    shutil.copy(SAMPLE_RUNS / "cdqa" / "cdqa_sample.json", cdqa)
    shipped = [json.loads((SAMPLE_RUNS / "cmrc2018" / "runs" / f).read_text(encoding="utf-8"))
               for f in ("bert-base-chinese.json", "bidaf-baseline.json")]
    with (cmrc / "sampled.jsonl").open("w", encoding="utf-8") as f:
        for key in shipped[0]:
            answers = [run[key] for run in shipped if key in run] + ["", "。"]
            for n in range(1, 7):
                f.write(json.dumps({"id": key, "sample": n, "prediction": rng.choice(answers)}, ensure_ascii=False) + "\n")
    records = [[json.loads(line) for line in (SAMPLE_RUNS / "cdqa" / "runs" / f).read_text(encoding="utf-8").splitlines()]
               for f in ("glm-6b.jsonl", "qwen-7b-chat.jsonl")]
    with (cdqa / "sampled.jsonl").open("w", encoding="utf-8") as f:
        for first, second in zip(*records):
            for n in range(1, 6):
                answer = rng.choice([first["prediction"], second["prediction"], "我不知道。"])
                f.write(json.dumps({"question": first["question"], "sample": n, "prediction": answer},
                                   ensure_ascii=False) + "\n")
    squad = runs / "squad"
    write_dataset(squad)
    write_plain(squad)
    write_lm_eval(squad)
    return runs


_TABLES = (
    "SELECT r.path, i.key, p.text, p.em, p.f1, p.refused, p.f1_recall, p.best_gold, p.error_category, p.relation,"
    " p.samples, p.correct_samples, p.mean_em, p.mean_f1, p.majority, p.majority_share, p.majority_correct,"
    " p.distinct_answers, p.flaky FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
    " ORDER BY r.path, i.key",
    "SELECT r.path, i.key, c.sample, c.text, c.em, c.f1, c.refused, c.f1_recall FROM completions c"
    " JOIN predictions p ON p.id = c.prediction_id JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
    " ORDER BY r.path, i.key, c.sample",
)


def test_samples_scored_beside_in_the_second_process_store_what_one_process_stores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same folder loaded twice: every item's samples scored here (one core), then half the
    items' scored by the load's second process — the first run's beside it (`beside`), each later
    run's ahead, while the run before it is written (`score_ahead`): the tables agree row by row."""
    from qa_inspect.core.load import completions, score_pool

    runs = _mixed_folder(tmp_path)
    tables = []
    send = score_pool.ScorePool.send
    for cores in (1, 2):
        monkeypatch.setattr(score_pool.os, "cpu_count", lambda cores=cores: cores)
        monkeypatch.setattr(completions, "SPLIT_ITEMS", 1)
        monkeypatch.setattr(score_pool, "SPLIT_MIN", 2)
        sent: list[str] = []

        def counted(pool: score_pool.ScorePool, request: Any) -> bool:
            done: bool = send(pool, request)
            if done:
                sent.append(request[0].__name__ if isinstance(request, tuple) else "pairs")
            return done

        monkeypatch.setattr(score_pool.ScorePool, "send", counted)
        db = tmp_path / f"cores{cores}.db"
        summary = load_runs(runs, db)
        assert not summary.errors, summary.errors
        assert len(summary.runs) == 4
        if cores == 1:
            assert sent == []
        else:
            assert "score_sample_items" in sent and sent.count("scored_there") >= 2, sent
        with sqlite3.connect(db) as conn:
            tables.append([conn.execute(q).fetchall() for q in _TABLES])
    alone, split = tables
    assert {r[0].split("/")[0] for r in alone[0] if r[10] is not None} == {"cmrc", "cdqa", "squad"}
    assert sum(1 for r in alone[0] if r[18] == 1) > 0 and len(alone[1]) > 100
    assert split == alone
