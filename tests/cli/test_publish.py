"""`qa-inspect publish RUNS_DIR -o DIR`: the copy and its metadata, read back through Datasette
itself (`datasette … --get`): the database page and every canned query return rows on the sample
runs once a few stale flags and labels are written through core."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path
from urllib.parse import urlencode

import pytest

from qa_inspect.core import flags, labels
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import CANNED_QUERIES
from qa_inspect.core.store import open_db
from tests.cli.helpers import copy_sample_runs, invoke

pytestmark = pytest.mark.usefixtures("no_author_env")


def _annotate(db: Path) -> dict[str, str]:
    """Two annotators who disagree on a gold and on a label, a stale flag with a proposal; returns
    the parameters of the queries that take some (two runs of one dataset, where A beats B)."""
    conn = open_db(db).conn
    try:
        (d1, k1, g1), (d2, k2, g2) = conn.execute(
            "SELECT d.name, i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d"
            " ON d.id = i.dataset_id WHERE g.superseded = 0 ORDER BY d.name, i.key, g.idx LIMIT 2").fetchall()
        flags.mark(conn, d1, k1, g1, proposed="新答案", evidence="https://example.org/news", author="ann")
        flags.verify(conn, [flags.Target(d1, k1, g1)], author="ben")
        flags.mark(conn, d2, k2, g2, reason="outdated", author="ben")
        run_a, run_b = (r[0] for r in conn.execute(
            "SELECT r.name FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE d.family = 'cmrc'"
            " ORDER BY (SELECT AVG(COALESCE(p.em, 0)) FROM predictions p WHERE p.run_id = r.id) DESC LIMIT 2"))
        key = conn.execute("SELECT i.key FROM items i JOIN runs r ON r.dataset_id = i.dataset_id WHERE r.name = ?"
                           " ORDER BY i.key LIMIT 1", (run_a,)).fetchone()[0]
        known = labels.label_set(conn)
        labels.add_labels(conn, run_a, [key], [known[0]], author="ann")
        labels.add_labels(conn, run_a, [key], [known[1]], author="ben")
    finally:
        conn.close()
    return {"run_a": run_a, "run_b": run_b, "run": run_a}


def _get(out: Path, path: str) -> object:
    proc = subprocess.run(
        [sys.executable, "-m", "datasette", str(out / "qa.db"), "-m", str(out / "metadata.json"), "--get", path],
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.skipif(find_spec("datasette") is None, reason="datasette (the publish extra) is not installed")
def test_datasette_serves_the_copy_and_every_canned_query(sample_runs: Path, tmp_path: Path) -> None:
    runs = copy_sample_runs(sample_runs, tmp_path)
    db = tmp_path / "qa.db"
    assert not load_runs(runs, db).errors
    params = _annotate(db)
    out = tmp_path / "published"
    res = invoke("publish", str(runs), "--db", str(db), "-o", str(out), "--title", "Sample runs")
    assert res.exit_code == 0, res.output
    assert f"datasette {out / 'qa.db'} -m {out / 'metadata.json'}" in res.stdout

    page = _get(out, "/qa.json")
    assert isinstance(page, dict)
    tables = {t["name"]: t for t in page["tables"]}
    assert tables["predictions"]["count"] > 0 and tables["annotations"]["count"] > 0
    assert tables["settings"]["hidden"] is True
    for name, query in CANNED_QUERIES.items():
        args = {p: params[p] for p in query.params}
        rows = _get(out, f"/qa/{name}.json?{urlencode({**args, '_shape': 'array'})}")
        assert isinstance(rows, list) and rows, name
    kinds = {r["kind"] for r in _get(out, "/qa/disagreements.json?_shape=array")}  # type: ignore[union-attr]
    assert kinds == {"stale flag", "error labels"}


def test_json_names_the_files_and_the_command(sample_runs: Path, tmp_path: Path) -> None:
    runs = copy_sample_runs(sample_runs, tmp_path)
    res = invoke("publish", str(runs), "--db", str(tmp_path / "qa.db"), "-o", str(tmp_path / "out"), "--json")
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["db"] == str(tmp_path / "out" / "qa.db") and Path(got["metadata"]).is_file()
    assert got["command"].startswith("datasette ")


def test_an_output_that_is_a_file_is_one_line(sample_runs: Path, tmp_path: Path) -> None:
    runs = copy_sample_runs(sample_runs, tmp_path)
    (tmp_path / "taken").write_text("x", encoding="utf-8")
    res = invoke("publish", str(runs), "--db", str(tmp_path / "qa.db"), "-o", str(tmp_path / "taken"))
    assert res.exit_code == 1
    assert res.stderr.strip() == f"qa-inspect: {tmp_path / 'taken'}: not a folder"
