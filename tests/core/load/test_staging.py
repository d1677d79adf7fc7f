"""`core.load.staging`: a changed big dataset is staged in committed steps and applied set-based;
the result equals a clean load of the new file, a kill mid-staging is resumed, readers see the old
rows until the apply."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from qa_inspect.core.load import ingest, load_runs, loader, stream

from .killed_load import load_killed
from .test_ingest import CMRC, stored

pytestmark = pytest.mark.usefixtures("small_steps")


@pytest.fixture
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stream, "MIN_BYTES", 0)  # every SQuAD-style dataset streamed (and staged when changed)
    monkeypatch.setattr(stream, "BATCH", 7)
    monkeypatch.setattr(loader, "STEP_ROWS", 20)


@pytest.fixture
def runs(tmp_path: Path, sample_runs: Path) -> Path:
    dest = tmp_path / "runs"
    shutil.copytree(sample_runs, dest, ignore=shutil.ignore_patterns(".qa-inspect"))
    return dest


def change(path: Path, new: str = "NEW_QUERY") -> None:
    """Golds of some questions changed, a passage edited, a question removed, one added."""
    data = json.loads(path.read_text(encoding="utf-8"))
    paras = [p for a in data["data"] for p in a["paragraphs"]]
    for qa in paras[0]["qas"][:2] + paras[5]["qas"][:1]:
        qa["answers"] = [{"text": qa["answers"][0]["text"][:1], "answer_start": qa["answers"][0]["answer_start"]}]
    paras[3]["context"] = paras[3]["context"] + "（补）"
    paras[3]["qas"][0]["question"] += "？"
    del paras[7]["qas"][0]
    paras[9]["qas"].append(dict(paras[9]["qas"][0], id=new))
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def like_clean(db: Path) -> dict[str, Any]:
    """`stored` without the runs' link statements: a run not read again keeps the one of its load."""
    out = stored(db)
    out["runs"] = [row[:9] for row in out["runs"]]
    return out


def test_a_changed_dataset_is_staged_and_stores_what_a_clean_load_stores(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for db in ("qa.db", "plain.db"):
        load_runs(runs, tmp_path / db)
    old_ids = dict(sqlite3.connect(tmp_path / "qa.db").execute("SELECT key, id FROM items"))
    change(runs / CMRC)
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors
    load_runs(runs, tmp_path / "clean.db")
    assert like_clean(tmp_path / "qa.db") == like_clean(tmp_path / "clean.db")
    monkeypatch.setattr(stream, "MIN_BYTES", 1 << 40)  # read whole: rewritten in one transaction
    load_runs(runs, tmp_path / "plain.db")
    assert stored(tmp_path / "qa.db") == stored(tmp_path / "plain.db")
    conn = sqlite3.connect(tmp_path / "qa.db")
    new_ids = dict(conn.execute("SELECT key, id FROM items"))
    assert all(new_ids[k] == i for k, i in old_ids.items() if k in new_ids)  # item ids survive
    assert conn.execute("SELECT name FROM sqlite_master WHERE name LIKE 'staged_%'").fetchall() == []




@pytest.mark.parametrize("steps", [1, 3])
def test_a_load_killed_mid_staging_is_finished_by_the_next(runs: Path, tmp_path: Path, steps: int) -> None:
    load_runs(runs, tmp_path / "qa.db")
    change(runs / CMRC)
    load_killed(runs, tmp_path / "qa.db", steps, step_rows=20, batch=7)
    conn = sqlite3.connect(tmp_path / "qa.db")
    assert conn.execute("SELECT COUNT(*) FROM staged_items").fetchone()[0] > 0  # a stage was committed
    conn.close()
    summary = load_runs(runs, tmp_path / "qa.db")
    assert not summary.errors
    load_runs(runs, tmp_path / "clean.db")
    assert like_clean(tmp_path / "qa.db") == like_clean(tmp_path / "clean.db")


def test_readers_see_the_old_rows_while_the_new_version_is_staged(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between two committed steps another connection sees the old version whole, then (once
    applied) the new one whole, only the positions in the file of moved questions catching up."""
    db = tmp_path / "qa.db"
    load_runs(runs, db)
    before = stored(db)
    change(runs / CMRC)
    seen: list[dict[str, Any]] = []
    commit = ingest.Steps.commit

    def look(self: ingest.Steps) -> None:
        commit(self)
        seen.append(stored(db))

    monkeypatch.setattr(ingest.Steps, "commit", look)
    load_runs(runs, db)
    after = stored(db)
    staging = [view for view in seen if view == before]
    assert len(staging) >= 3 and after != before
    assert all(content(view) == content(after) for view in seen[len(staging):])


def content(view: dict[str, Any]) -> dict[str, Any]:
    """A `stored` view without the items' positions in the file (`source_line`), the `files`
    stamps (the file counts as loaded once they are in place too) and the search index counts (new
    rows are indexed at the end of the load; until then a search finds them by `LIKE`)."""
    return {**view, "items": [row[:12] + row[13:] for row in view["items"]], "files": None, "search": None}


def test_a_stage_of_other_content_is_dropped_and_the_new_content_staged(runs: Path, tmp_path: Path) -> None:
    """Killed mid-staging, then the file changed again: the next load stages the new content afresh."""
    load_runs(runs, tmp_path / "qa.db")
    change(runs / CMRC)
    load_killed(runs, tmp_path / "qa.db", 2, step_rows=20, batch=7)
    change(runs / CMRC, new="NEW_QUERY_2")
    assert not load_runs(runs, tmp_path / "qa.db").errors
    load_runs(runs, tmp_path / "clean.db")
    assert like_clean(tmp_path / "qa.db") == like_clean(tmp_path / "clean.db")
