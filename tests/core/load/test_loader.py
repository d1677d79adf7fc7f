"""`core.loader.load_runs`: what a load stores, and what a reload re-reads, replaces and keeps."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from qa_inspect.core import flags
from qa_inspect.core.load import LoadSummary, changed, discover, load_runs

from tests.paths import SAMPLE_RUNS

CMRC = "cmrc2018/cmrc2018_dev_sample.json"
CDQA = "cdqa/cdqa_sample.json"
BERT = "cmrc2018/runs/bert-base-chinese.json"
BIDAF = "cmrc2018/runs/bidaf-baseline.json"
ROBERTA = "cmrc2018/runs/roberta-wwm-large/eval_predictions.json"
NBEST = "cmrc2018/runs/roberta-wwm-large/eval_nbest_predictions.json"
GLM = "cdqa/runs/glm-6b.jsonl"
QWEN = "cdqa/runs/qwen-7b-chat.jsonl"
RUN_FILES = [GLM, QWEN, BERT, BIDAF, ROBERTA]


# ------------------------------------------------------------------------------------- helpers


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    """A private copy of sample_runs/ (tests edit files in it)."""
    dest = tmp_path / "runs"
    shutil.copytree(sample_runs, dest, ignore=shutil.ignore_patterns(".qa-inspect"))
    return dest


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "db" / "qa.db"


@pytest.fixture
def conn(db: Path) -> Iterator[sqlite3.Connection]:
    """A reader on the test database, opened lazily (the first load creates the file)."""
    holder: list[sqlite3.Connection] = []

    class Lazy:
        def __getattr__(self, name: str):  # noqa: ANN204
            if not holder:
                holder.append(sqlite3.connect(db, isolation_level=None))
            return getattr(holder[0], name)

    yield Lazy()  # type: ignore[misc]
    for c in holder:
        c.close()


def load(runs: Path, db: Path) -> LoadSummary:
    summary = load_runs(runs, db)
    assert not summary.errors, summary.errors
    return summary


def statuses(summary: LoadSummary) -> dict[str, str]:
    return {r.path: r.status for r in [*summary.datasets, *summary.runs]}


def scalar(conn: sqlite3.Connection, sql: str, *params: object) -> object:
    return conn.execute(sql, params).fetchone()[0]


def pred_ids(conn: sqlite3.Connection, run_path: str) -> list[int]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT p.id FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.path = ? ORDER BY p.id",
            (run_path,),
        )
    ]


def item_ids(conn: sqlite3.Connection, dataset_path: str) -> dict[str, int]:
    return dict(
        conn.execute(
            "SELECT i.key, i.id FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.path = ?", (dataset_path,)
        ).fetchall()
    )


def annotations(conn: sqlite3.Connection) -> list[tuple]:
    return conn.execute("SELECT * FROM annotations ORDER BY id").fetchall()


def bump_mtime(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def rewrite_json(path: Path, edit) -> None:  # noqa: ANN001
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    bump_mtime(path)  # never rely on the clock having moved on


def no_reading(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make any read_source call fail the test; returns the list of files that were hashed."""

    def boom(path, **kwargs):  # noqa: ANN001, ANN003
        raise AssertionError(f"{path} was re-read")

    monkeypatch.setattr(discover, "read_source", boom)
    hashed: list[str] = []
    real = changed.sha256_file
    monkeypatch.setattr(changed, "sha256_file", lambda p, **kw: (hashed.append(Path(p).name), real(p, **kw))[1])
    return hashed


def mark_some_gold(conn: sqlite3.Connection, dataset: str = "cmrc2018_dev_sample") -> int:
    key, text = conn.execute(
        "SELECT i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = ? ORDER BY i.key, g.idx LIMIT 1",
        (dataset,),
    ).fetchone()
    return flags.append(conn, "mark", dataset, key, text, author="tester", reason="stale")


# ------------------------------------------------------------------------------------ first load


def test_first_load_counts(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    s = load(runs, db)
    assert s.db == str(db)
    assert [d.path for d in s.datasets] == sorted([CDQA, CMRC])
    assert [r.path for r in s.runs] == sorted(RUN_FILES)
    assert set(statuses(s).values()) == {"loaded"}
    assert s.changed and not s.removed
    ds = {d.name: d for d in s.datasets}
    assert (ds["cmrc2018_dev_sample"].items, ds["cmrc2018_dev_sample"].golds) == (153, 459)
    assert (ds["cdqa_sample"].items, ds["cdqa_sample"].golds) == (38, 48)  # 10 superseded originals
    assert {r.name: r.dataset for r in s.runs} == {
        "glm-6b": "cdqa_sample", "qwen-7b-chat": "cdqa_sample", "bert-base-chinese": "cmrc2018_dev_sample",
        "bidaf-baseline": "cmrc2018_dev_sample", "roberta-wwm-large": "cmrc2018_dev_sample",
    }
    assert {r.name: r.predictions for r in s.runs} == {
        "glm-6b": 38, "qwen-7b-chat": 38, "bert-base-chinese": 150, "bidaf-baseline": 148, "roberta-wwm-large": 152,
    }
    assert all(r.unmatched == 0 for r in s.runs)
    assert {"path": NBEST, "reason": "n-best side file of eval_predictions.json"} in s.skipped

    assert scalar(conn, "SELECT COUNT(*) FROM datasets") == 2
    assert scalar(conn, "SELECT COUNT(*) FROM runs") == 5
    assert scalar(conn, "SELECT COUNT(*) FROM items") == 191
    assert scalar(conn, "SELECT COUNT(*) FROM predictions") == 526
    golds = dict(
        conn.execute(
            "SELECT d.name || ':' || g.superseded, COUNT(*) FROM golds g JOIN items i ON i.id = g.item_id"
            " JOIN datasets d ON d.id = i.dataset_id GROUP BY 1"
        ).fetchall()
    )
    assert golds == {"cmrc2018_dev_sample:0": 459, "cdqa_sample:0": 38, "cdqa_sample:1": 10}
    # every CDQA item scores against exactly one current gold
    assert scalar(
        conn,
        "SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.name = 'cdqa_sample'"
        " AND (SELECT COUNT(*) FROM golds g WHERE g.item_id = i.id AND g.superseded = 0) != 1",
    ) == 0
    # scores are computed at ingest, by the dataset's scorer
    assert dict(conn.execute("SELECT r.name, COUNT(DISTINCT p.scorer) || p.scorer FROM predictions p"
                             " JOIN runs r ON r.id = p.run_id GROUP BY r.name").fetchall()) == {
        "glm-6b": "1cdqa-f1-recall", "qwen-7b-chat": "1cdqa-f1-recall", "bert-base-chinese": "1cmrc2018-official",
        "bidaf-baseline": "1cmrc2018-official", "roberta-wwm-large": "1cmrc2018-official",
    }
    assert scalar(conn, "SELECT COUNT(*) FROM predictions WHERE scorer = 'cmrc2018-official' AND f1 IS NULL") == 0
    # the n-best side file was read with its run
    assert scalar(
        conn, "SELECT COUNT(*) FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.path = ?"
        " AND p.candidates IS NOT NULL", ROBERTA
    ) == 152
    assert scalar(conn, "SELECT owner FROM files WHERE path = ?", NBEST) == ROBERTA


# ------------------------------------------------------------------------------------ reloading


def test_second_load_reads_nothing(runs: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (runs / "cmrc2018" / "runs" / "config.json").write_text('{"hidden_size": 768, "model_type": "bert"}')
    first = load(runs, db)
    assert any(k["path"].endswith("config.json") for k in first.skipped)
    hashed = no_reading(monkeypatch)
    start = time.perf_counter()
    second = load(runs, db)
    elapsed = time.perf_counter() - start
    assert set(statuses(second).values()) == {"unchanged"}
    assert statuses(second).keys() == statuses(first).keys()
    assert not second.changed and not second.removed
    assert hashed == []  # size and mtime matched: not even hashed
    assert [(r.name, r.predictions, r.dataset) for r in second.runs] == [
        (r.name, r.predictions, r.dataset) for r in first.runs
    ]
    assert [(d.name, d.items, d.golds) for d in second.datasets] == [(d.name, d.items, d.golds) for d in first.datasets]
    assert any(k["path"] == NBEST and "side file" in k["reason"] for k in second.skipped)
    config = [k for k in second.skipped if k["path"].endswith("config.json")]  # remembered, not re-read
    assert config == [k for k in first.skipped if k["path"].endswith("config.json")]
    assert elapsed < 1.0


def test_touch_without_change_is_hashed_only(runs: Path, db: Path, monkeypatch: pytest.MonkeyPatch,
                                             conn: sqlite3.Connection) -> None:
    load(runs, db)
    ids = pred_ids(conn, BERT)
    bump_mtime(runs / BERT)
    hashed = no_reading(monkeypatch)
    s = load(runs, db)
    assert set(statuses(s).values()) == {"unchanged"} and not s.changed
    assert hashed == ["bert-base-chinese.json"]
    assert pred_ids(conn, BERT) == ids
    # the new mtime is remembered: the next load does not even hash it
    hashed.clear()
    load(runs, db)
    assert hashed == []


def test_changed_run_replaces_only_its_rows(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    before = {p: pred_ids(conn, p) for p in RUN_FILES}
    items_before = item_ids(conn, CMRC)

    def edit(preds: dict[str, str]) -> None:
        preds["DEV_4_QUERY_0"] = "改过的答案"
        del preds["DEV_4_QUERY_1"]

    rewrite_json(runs / BERT, edit)
    s = load(runs, db)
    assert {p: st for p, st in statuses(s).items() if st != "unchanged"} == {BERT: "loaded"}
    assert s.changed
    bert = next(r for r in s.runs if r.path == BERT)
    assert (bert.name, bert.predictions) == ("bert-base-chinese", 149)
    for path in RUN_FILES:
        if path != BERT:
            assert pred_ids(conn, path) == before[path], path
    assert len(pred_ids(conn, BERT)) == 149
    assert not set(pred_ids(conn, BERT)) & set(before[BERT])  # replaced, not patched
    text = scalar(
        conn, "SELECT p.text FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.path = ? AND i.key = 'DEV_4_QUERY_0'", BERT
    )
    assert text == "改过的答案"
    assert item_ids(conn, CMRC) == items_before
    assert scalar(conn, "SELECT COUNT(*) FROM runs") == 5
    # full-text index follows the replacement
    assert scalar(conn, "SELECT COUNT(*) FROM predictions_fts WHERE predictions_fts MATCH '改过的答案'") == 1


def test_changed_nbest_side_file_reloads_its_run(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    others = {p: pred_ids(conn, p) for p in RUN_FILES if p != ROBERTA}

    def edit(nbest: dict[str, list[dict]]) -> None:
        nbest["DEV_4_QUERY_0"][0]["text"] = "改过的候选"

    rewrite_json(runs / NBEST, edit)
    s = load(runs, db)
    assert {p: st for p, st in statuses(s).items() if st != "unchanged"} == {ROBERTA: "loaded"}
    assert any(k["path"] == NBEST and "side file" in k["reason"] for k in s.skipped)
    cands = json.loads(scalar(
        conn, "SELECT p.candidates FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.path = ? AND i.key = 'DEV_4_QUERY_0'", ROBERTA
    ))
    assert cands[0]["text"] == "改过的候选"
    assert {p: pred_ids(conn, p) for p in others} == others
    # and the new side file is remembered
    s = load(runs, db)
    assert set(statuses(s).values()) == {"unchanged"}


def test_changed_dataset_keeps_item_ids_and_rescores(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    flag = mark_some_gold(conn)
    journal = annotations(conn)
    items_before = item_ids(conn, CMRC)
    preds_before = {p: pred_ids(conn, p) for p in RUN_FILES}
    score_sql = (
        "SELECT p.em, p.f1 FROM predictions p JOIN runs r ON r.id = p.run_id JOIN items i ON i.id = p.item_id"
        " WHERE r.path = ? AND i.key = 'DEV_28_QUERY_0'"
    )
    assert conn.execute(score_sql, (BERT,)).fetchone() == (1, 1.0)  # "泽鹿" against gold "泽鹿"

    def edit(data: dict) -> None:
        for article in data["data"]:
            for para in article["paragraphs"]:
                for qa in para["qas"]:
                    if qa["id"] == "DEV_28_QUERY_0":
                        for ans in qa["answers"]:
                            ans["text"] = "泽鹿和水鹿"

    rewrite_json(runs / CMRC, edit)
    s = load(runs, db)
    assert {p: st for p, st in statuses(s).items() if st != "unchanged"} == {CMRC: "loaded"}
    assert item_ids(conn, CMRC) == items_before
    assert {p: pred_ids(conn, p) for p in RUN_FILES} == preds_before  # rescored in place
    em, f1 = conn.execute(score_sql, (BERT,)).fetchone()
    assert em == 0 and 0 < f1 < 1
    golds = [r[0] for r in conn.execute(
        "SELECT g.text FROM golds g JOIN items i ON i.id = g.item_id WHERE i.key = 'DEV_28_QUERY_0' ORDER BY g.idx"
    )]
    assert golds == ["泽鹿和水鹿"] * 3
    assert annotations(conn) == journal and flag == journal[0][0]


def test_deleted_run_file_is_removed(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    mark_some_gold(conn)
    journal = annotations(conn)
    others = {p: pred_ids(conn, p) for p in RUN_FILES if p != BIDAF}
    (runs / BIDAF).unlink()
    s = load(runs, db)
    assert s.removed == [BIDAF] and s.changed
    assert BIDAF not in statuses(s)
    assert scalar(conn, "SELECT COUNT(*) FROM runs WHERE path = ?", BIDAF) == 0
    assert scalar(conn, "SELECT COUNT(*) FROM files WHERE path = ?", BIDAF) == 0
    assert scalar(conn, "SELECT COUNT(*) FROM predictions") == 526 - 148
    assert scalar(conn, "SELECT COUNT(*) FROM predictions_fts") == 526 - 148
    assert {p: pred_ids(conn, p) for p in others} == others
    assert annotations(conn) == journal
    assert load(runs, db).removed == []


def test_deleted_dataset_file_is_removed(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    mark_some_gold(conn, "cdqa_sample")
    journal = annotations(conn)
    (runs / CDQA).unlink()
    s = load_runs(runs, db)
    assert CDQA in s.removed
    assert scalar(conn, "SELECT COUNT(*) FROM datasets WHERE name = 'cdqa_sample'") == 0
    assert scalar(conn, "SELECT COUNT(*) FROM items") == 153
    assert annotations(conn) == journal  # flags are keyed by name: they wait for the dataset's return
    # its runs have nothing left to answer: an error each, and no stale counts
    assert sorted(e["path"] for e in s.errors) == [GLM, QWEN]
    assert all("no prediction matches any dataset" in e["message"] for e in s.errors)
    cdqa_runs = {r.path: r for r in s.runs if r.path in (GLM, QWEN)}
    assert {(r.status, r.dataset, r.predictions) for r in cdqa_runs.values()} == {("error", None, 0)}
    assert scalar(conn, "SELECT COUNT(*) FROM predictions") == 526 - 76


def test_moved_dataset_relinks_its_runs(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    """Moving a dataset file is a removal and a new file; its unchanged runs must follow it."""
    load(runs, db)
    mark_some_gold(conn, "cdqa_sample")
    journal = annotations(conn)
    (runs / "cdqa" / "data").mkdir()
    (runs / CDQA).rename(runs / "cdqa" / "data" / "cdqa_sample.json")
    s = load(runs, db)
    assert s.removed == [CDQA]
    assert statuses(s)["cdqa/data/cdqa_sample.json"] == "loaded"
    cdqa_runs = {r.path: r for r in s.runs if r.path in (GLM, QWEN)}
    assert {(r.status, r.dataset, r.predictions) for r in cdqa_runs.values()} == {("loaded", "cdqa_sample", 38)}
    assert scalar(conn, "SELECT COUNT(*) FROM predictions") == 526
    assert scalar(conn, "SELECT COUNT(*) FROM runs WHERE dataset_id IS NULL") == 0
    assert annotations(conn) == journal
    assert len(flags.current_flags(conn, "cdqa_sample")) == 1
    assert set(statuses(load(runs, db)).values()) == {"unchanged"}


def test_items_dropped_from_a_dataset_update_run_counts(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)

    def drop(data: dict) -> None:
        para = data["data"][0]["paragraphs"][0]
        para["qas"] = [qa for qa in para["qas"] if qa["id"] != "DEV_4_QUERY_0"]

    rewrite_json(runs / CMRC, drop)
    s = load(runs, db)
    assert statuses(s)[CMRC] == "loaded"
    assert {d.path: d.items for d in s.datasets}[CMRC] == 152
    assert scalar(conn, "SELECT COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id WHERE d.path = ?", CMRC) == 152
    for path in (BERT, BIDAF, ROBERTA):
        stored = scalar(conn, "SELECT prediction_count FROM runs WHERE path = ?", path)
        assert stored == len(pred_ids(conn, path)), path
    assert scalar(conn, "SELECT prediction_count FROM runs WHERE path = ?", ROBERTA) == 151


def test_annotations_survive_every_reload(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    mark_some_gold(conn)
    mark_some_gold(conn, "cdqa_sample")
    journal = annotations(conn)
    steps = [
        lambda: None,
        lambda: bump_mtime(runs / GLM),
        lambda: rewrite_json(runs / BERT, lambda d: d.update({"DEV_4_QUERY_0": "x"})),
        lambda: rewrite_json(runs / CMRC, lambda d: d.update({"version": "changed"})),
        lambda: (runs / CDQA).write_bytes((runs / CDQA).read_bytes() + b"\n"),
        lambda: (runs / QWEN).unlink(),
    ]
    for step in steps:
        step()
        load(runs, db)
        assert annotations(conn) == journal
    assert len(flags.current_flags(conn)) == 2


def test_same_display_name_gets_distinct_run_names(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    twin = runs / "cmrc2018" / "runs" / "seed2" / "bert-base-chinese.json"
    twin.parent.mkdir()
    rewrite_json(runs / BERT, lambda d: None)
    twin.write_text((runs / BERT).read_text(encoding="utf-8"), encoding="utf-8")
    s = load(runs, db)
    names = {r.path: r.name for r in s.runs}
    assert names[BERT] == "bert-base-chinese"
    assert names["cmrc2018/runs/seed2/bert-base-chinese.json"] == "bert-base-chinese (seed2)"
    assert len(set(names.values())) == len(names) == 6
    # names are stable when one of them reloads
    rewrite_json(twin, lambda d: d.update({"DEV_4_QUERY_0": "x"}))
    s = load(runs, db)
    assert {r.path: r.name for r in s.runs} == names
    assert scalar(conn, "SELECT COUNT(DISTINCT name) FROM runs") == 6


def test_manifest_names_model_and_dataset(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    copy = runs / "cmrc2018" / "copy" / "dev_copy.json"
    copy.parent.mkdir()
    shutil.copy(runs / CMRC, copy)
    (runs / "qa-inspect.toml").write_text(
        "[[run]]\n"
        f'path = "{BERT}"\n'
        'name = "BERT base (ours)"\n'
        'model = "bert-base-chinese-v2"\n'
        'dataset = "dev_copy"\n'
        "[[link]]\n"
        'runs = "cmrc2018/runs/bidaf*"\n'
        'dataset = "dev_copy"\n',
        encoding="utf-8",
    )
    s = load(runs, db)
    runs_by_path = {r.path: r for r in s.runs}
    assert runs_by_path[BERT].name == "BERT base (ours)"
    assert runs_by_path[BERT].dataset == "dev_copy"  # by coverage alone it would be the first name
    assert runs_by_path[BIDAF].dataset == "dev_copy"
    assert runs_by_path[ROBERTA].dataset == "cmrc2018_dev_sample"
    assert conn.execute("SELECT model FROM runs WHERE path = ?", (BERT,)).fetchone() == ("bert-base-chinese-v2",)
    assert {"path": "qa-inspect.toml", "reason": "qa-inspect manifest"} in s.skipped


def test_manifest_change_rereads_files(runs: Path, db: Path, conn: sqlite3.Connection) -> None:
    load(runs, db)
    assert scalar(conn, "SELECT name FROM runs WHERE path = ?", BERT) == "bert-base-chinese"
    manifest = runs / "qa-inspect.toml"
    manifest.write_text(f'[[run]]\npath = "{BERT}"\nname = "bert-renamed"\n', encoding="utf-8")
    s = load(runs, db)
    assert {r.path: r.name for r in s.runs}[BERT] == "bert-renamed"
    assert scalar(conn, "SELECT name FROM runs WHERE path = ?", BERT) == "bert-renamed"
    assert "qa-inspect.toml" not in s.removed
    assert set(statuses(load(runs, db)).values()) == {"unchanged"}  # the manifest stamp is kept
    manifest.unlink()
    s = load(runs, db)
    assert {r.path: r.name for r in s.runs}[BERT] == "bert-base-chinese"
    assert s.removed == []


def test_bad_manifest_is_one_error_and_the_rest_loads(runs: Path, db: Path) -> None:
    (runs / "qa-inspect.toml").write_text("[[run]]\npath = 3\n", encoding="utf-8")
    s = load_runs(runs, db)
    assert len(s.errors) == 1
    assert s.errors[0]["path"] == "qa-inspect.toml"
    assert s.errors[0]["message"].startswith("qa-inspect.toml, [[run]] #1, path:")
    assert len(s.runs) == 5 and len(s.datasets) == 2


# ------------------------------------------------------------------------------------ real data


def test_real_data_loads_every_item_and_gold(shared_data: Path, tmp_path: Path) -> None:
    db = tmp_path / "real.db"
    s = load(shared_data, db)
    by_name = {d.name: d for d in s.datasets}
    assert {n: (d.items, d.golds, d.status) for n, d in by_name.items()} == {
        "cmrc2018_dev": (3219, 9657, "loaded"),
        "cmrc2018_trial": (1002, 1002, "loaded"),
        "CDQA_v1": (1339, 1339 + 438, "loaded"),
        "squad1_dev_normans_answerable": (96, 293, "loaded"),
        "squad2_dev_normans": (208, 293, "loaded"),  # 112 unanswerable questions have no gold
        "DRCD_dev": (3524, 7048, "loaded"),  # Traditional Chinese, two golds per question
    }
    with sqlite3.connect(db) as conn:
        rows = dict(
            conn.execute(
                "SELECT d.name || ':' || g.superseded, COUNT(*) FROM golds g JOIN items i ON i.id = g.item_id"
                " JOIN datasets d ON d.id = i.dataset_id GROUP BY 1"
            ).fetchall()
        )
        items = dict(conn.execute("SELECT d.name, COUNT(*) FROM items i JOIN datasets d ON d.id = i.dataset_id GROUP BY 1"))
    assert rows == {"cmrc2018_dev:0": 9657, "cmrc2018_trial:0": 1002, "CDQA_v1:0": 1339, "CDQA_v1:1": 438,
                    "squad1_dev_normans_answerable:0": 293, "squad2_dev_normans:0": 293,
                    "DRCD_dev:0": 7048}
    assert items == {"cmrc2018_dev": 3219, "cmrc2018_trial": 1002, "CDQA_v1": 1339,
                     "squad1_dev_normans_answerable": 96, "squad2_dev_normans": 208, "DRCD_dev": 3524}

    start = time.perf_counter()
    again = load(shared_data, db)
    elapsed = time.perf_counter() - start
    assert set(statuses(again).values()) == {"unchanged"} and not again.changed
    assert elapsed < 1.0, f"unchanged reload took {elapsed:.2f} s"


def test_a_load_that_scored_leaves_no_per_text_cache(tmp_path: Path) -> None:
    """What the scorers kept per answer is let go when the load ends (`clear_score_caches`): the
    app that opens after it does not hold it, nor does the exit walk it."""
    from qa_inspect.core.metrics import equivalence, segment, textnorm

    runs = tmp_path / "runs"
    shutil.copytree(SAMPLE_RUNS, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    summary = load_runs(runs, tmp_path / "qa.db")
    assert summary.changed and len(summary.runs) >= 4
    assert [c.cache_info().currsize for c in (segment.prepared, textnorm.plain, equivalence.wide_form)] == [0, 0, 0]
