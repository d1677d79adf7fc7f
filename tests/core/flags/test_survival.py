"""Stale flags survive: reloads, changed runs, new dataset releases, a schema migration, a killed
writer, and two processes writing at once."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core.load import load_runs
from qa_inspect.core.report import rescore_excluding_stale
from qa_inspect.core.store import MIGRATIONS, SCHEMA_VERSION, open_db, split_statements

from tests.helpers import Env

CDQA = "cdqa_sample"
CMRC = "cmrc2018_dev_sample"
METRO_Q = "澜州市最近开通运营的地铁线路是几号线？"
CDQA_FILE = Path("cdqa/cdqa_sample.json")

pytestmark = pytest.mark.usefixtures("no_author_env")  # `env` (conftest): a loaded copy of sample_runs


def mark_metro(env: Env) -> F.Target:
    ref = F.resolve_item(env.conn, METRO_Q)
    F.mark(env.conn, ref.dataset, ref.key, "6号线", reason="line 7 opened", proposed="7号线")
    return F.Target(ref.dataset, ref.key, "6号线")


def stale_rows(conn: sqlite3.Connection) -> list[tuple[str, int, str | None]]:
    return conn.execute(
        f"SELECT i.key, s.idx, s.proposed FROM ({F.STALE_GOLDS_SQL}) s JOIN items i ON i.id = s.item_id ORDER BY i.key"
    ).fetchall()


def edit_cdqa(env: Env, change, indent: int = 1) -> None:  # noqa: ANN001
    path = env.runs / CDQA_FILE
    records = json.loads(path.read_text(encoding="utf-8"))
    change(records)
    path.write_text(json.dumps(records, ensure_ascii=False, indent=indent) + "\n", encoding="utf-8")


def record_of(records: list[dict], question: str) -> dict:
    return next(r for r in records if question in r["qa"])


# --- reloads and new releases -----------------------------------------------------------------


def test_flags_survive_reloading_the_folder(env: Env) -> None:
    t = mark_metro(env)
    before = stale_rows(env.conn)
    env.reload()  # nothing changed
    assert stale_rows(env.conn) == before
    # the same content written differently is re-read and re-stored: item and gold rows are rewritten
    edit_cdqa(env, lambda records: None, indent=2)
    summary = load_runs(env.runs, env.db)
    assert [d.status for d in summary.datasets if d.name == CDQA] == ["loaded"]
    assert stale_rows(env.conn) == before
    # the dataset file disappears (the flag is kept, shown orphaned) and comes back (open again)
    saved = (env.runs / CDQA_FILE).read_bytes()
    (env.runs / CDQA_FILE).unlink()
    load_runs(env.runs, env.db)  # its runs now link to nothing: load errors, expected
    assert [f.status for f in F.current_flags(env.conn)] == ["orphaned"]
    (env.runs / CDQA_FILE).write_bytes(saved)
    env.reload()
    assert [(f.target, f.status, f.proposed) for f in F.current_flags(env.conn)] == [(t, "open", "7号线")]
    assert stale_rows(env.conn) == before


def test_flags_survive_a_changed_prediction_file(env: Env) -> None:
    mark_metro(env)
    before = stale_rows(env.conn)
    path = env.runs / "cdqa/runs/glm-6b.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["prediction"] = "7号线"
    lines[0] = json.dumps(first, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = load_runs(env.runs, env.db)
    assert [r.status for r in summary.runs if r.name == "glm-6b"] == ["loaded"]
    assert stale_rows(env.conn) == before
    assert rescore_excluding_stale(env.conn, "glm-6b").items_dropped == 1


def test_new_release_with_the_item_unchanged_keeps_the_flag(env: Env) -> None:
    t = mark_metro(env)

    def change(records: list[dict]) -> None:
        other = record_of(records, "云帆科技")
        other["annotation"]["p-改写答案"] = "云帆X11"
        records.append({"qa": "\ufeff问题: 新加的问题？\n答案: 新答案", "annotation": {"知识动态性分类": "快速变化"}})

    edit_cdqa(env, change)
    env.reload()
    [flag] = F.current_flags(env.conn)
    assert (flag.target, flag.status, flag.gold_idxs) == (t, "open", (0,))
    assert len(stale_rows(env.conn)) == 1


def test_new_release_without_the_flagged_text_shows_it_resolved(env: Env) -> None:
    t = mark_metro(env)

    def change(records: list[dict]) -> None:
        rec = record_of(records, METRO_Q)
        rec["qa"] = rec["qa"].replace("答案: 6号线", "答案: 7号线")

    edit_cdqa(env, change)
    env.reload()
    [flag] = F.current_flags(env.conn)
    assert (flag.target, flag.status, flag.gold_idxs, flag.proposed) == (t, "resolved", (), "7号线")
    assert stale_rows(env.conn) == []  # filters and metrics no longer count it
    assert F.current_flags(env.conn, include_resolved=False) == []


def test_new_release_that_rewrites_the_answer_resolves_the_flag(env: Env) -> None:
    mark_metro(env)

    def change(records: list[dict]) -> None:
        ann = record_of(records, METRO_Q)["annotation"]
        ann["p-改写答案"] = "7号线"
        ann["分类1"] = "p修改"

    edit_cdqa(env, change)
    env.reload()
    [flag] = F.current_flags(env.conn)
    assert flag.status == "resolved"  # 6号线 is only left as the superseded original answer
    assert stale_rows(env.conn) == []


# --- schema migration -------------------------------------------------------------------------


def _downgrade_to_v1(db: Path) -> None:
    """Make the database what schema version 1 wrote: no settings table or new indexes, no uids."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("DROP TABLE settings")
    conn.execute("DROP INDEX annotations_ref")
    conn.execute("DROP INDEX annotations_author")
    conn.execute("UPDATE annotations SET uid = NULL")
    conn.execute("PRAGMA user_version = 1")
    conn.close()


def test_flags_survive_a_schema_migration(env: Env) -> None:
    assert SCHEMA_VERSION >= 2
    t = mark_metro(env)
    F.mark(env.conn, CMRC, "DEV_4_QUERY_0", F.resolve_item(env.conn, "DEV_4_QUERY_0").golds[0][1], author="bob")
    before = [(f.target, f.proposed, f.author, f.ts) for f in F.current_flags(env.conn)]
    env.conn.close()
    _downgrade_to_v1(env.db)

    env.conn = open_db(env.db).conn
    assert env.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [(f.target, f.proposed, f.author, f.ts) for f in F.current_flags(env.conn)] == before
    uids = [e.uid for e in F.journal(env.conn)]
    assert all(u and len(u) == 32 for u in uids) and len(set(uids)) == 2
    env.reload()
    assert len(stale_rows(env.conn)) == 1 + 3  # metro + the three DEV_4_QUERY_0 golds share their text
    assert [e.target for e in F.undo(env.conn, "bob")] != [t]  # undo still works after the migration
    F.set_default_author(env.conn, "after-migration")
    assert F.author_for(env.conn) == "after-migration"


def test_a_first_version_database_opens_and_loads(tmp_path: Path, sample_runs: Path) -> None:
    db = tmp_path / "old.db"
    conn = sqlite3.connect(db, isolation_level=None)
    for statement in split_statements(MIGRATIONS[0]):
        conn.execute(statement)
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO annotations (ts, author, action, dataset, item_key, gold_text, proposed)"
        " VALUES ('2024-01-01T00:00:00.000Z', 'old', 'mark', 'cdqa_sample', 'q:a0eb4ac77fcdba47', '6号线', '7号线')"
    )
    conn.close()
    runs = tmp_path / "runs"
    shutil.copytree(sample_runs / "cdqa", runs, ignore=shutil.ignore_patterns(".qa-inspect"))
    load_runs(runs, db)
    conn = open_db(db).conn
    try:
        [flag] = F.current_flags(conn)
        assert (flag.status, flag.proposed, flag.author) == ("open", "7号线", "old")
    finally:
        conn.close()


# --- a writer killed at any moment ------------------------------------------------------------

WRITER = r"""
import json, sys
from pathlib import Path
from qa_inspect.core import flags as F
from qa_inspect.core.store import open_db
db, targets_json, tag = sys.argv[1], sys.argv[2], sys.argv[3]
targets = [F.Target(*t) for t in json.loads(targets_json)]
conn = open_db(Path(db)).conn
i = 0
limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
while limit is None or i < limit:
    if i % 2 == 0:   # a single mark
        t = targets[i % len(targets)]
        F.mark(conn, t.dataset, t.item_key, t.gold_text, reason=f"{tag}-{i}", author=tag, check=False)
    else:            # a bulk action: many entries, one transaction
        F.bulk_mark(conn, targets, reason=f"{tag}-{i}", author=tag, skip_flagged=False, check=False)
    print(i, flush=True)
    i += 1
"""


def _targets(conn: sqlite3.Connection, n: int) -> list[list[str]]:
    ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id LIMIT ?", (n,))]
    return [[t.dataset, t.item_key, t.gold_text] for t in F.targets_for_items(conn, ids)][:n]


def _writer(db: Path, targets: list[list[str]], tag: str, limit: int | None = None) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", WRITER, str(db), json.dumps(targets, ensure_ascii=False), tag]
    if limit is not None:
        args.append(str(limit))
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_killed_writer_leaves_only_whole_actions(env: Env) -> None:
    targets = _targets(env.conn, 25)
    env.conn.close()
    proc = _writer(env.db, targets, "w")
    printed = -1
    assert proc.stdout is not None
    deadline = time.monotonic() + 20
    while printed < 60 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        printed = int(line)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert printed >= 60, proc.stderr.read() if proc.stderr else ""

    conn = open_db(env.db).conn  # opens fine (and recovers the WAL)
    env.conn = conn
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    rows = conn.execute("SELECT uid, ts, author, action, dataset, item_key, gold_text, reason, meta FROM annotations").fetchall()
    assert all(all(v is not None for v in r[:8]) for r in rows)  # every entry complete
    assert len({r[0] for r in rows}) == len(rows)
    per_action = Counter(r[7] for r in rows)
    actions = sorted(int(reason.split("-")[1]) for reason in per_action)
    committed = len(actions)
    assert actions == list(range(committed))  # no gaps
    assert committed in (printed + 1, printed + 2)  # all it reported, plus at most one unreported commit
    for reason, n in per_action.items():
        i = int(reason.split("-")[1])
        assert n == (1 if i % 2 == 0 else len(targets)), f"action {i} is partial: {n} entries"
    assert len(F.current_flags(conn)) == len(targets)


# --- two processes at once --------------------------------------------------------------------


def test_two_writer_processes_lose_nothing(env: Env) -> None:
    targets = _targets(env.conn, 6)
    env.conn.close()
    procs = [_writer(env.db, targets, tag, limit=30) for tag in ("p1", "p2")]
    for p in procs:
        _, errors = p.communicate(timeout=60)
        assert p.returncode == 0, errors
    conn = env.conn = open_db(env.db).conn
    reasons = Counter(r for (r,) in conn.execute("SELECT reason FROM annotations"))
    for tag in ("p1", "p2"):
        for i in range(30):
            assert reasons[f"{tag}-{i}"] == (1 if i % 2 == 0 else len(targets))


HOLDER = r"""
import sqlite3, sys
from qa_inspect.core import flags as F
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
F.insert_entry(conn, "mark", F.Target(*sys.argv[2:5]), "tui-user", reason="held")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("committed", flush=True)
"""

CLI = "import sys; from qa_inspect.tui.cli import main; sys.argv[0] = 'qa-inspect'; main()"


def test_cli_mark_while_another_process_writes(env: Env) -> None:
    ref = F.resolve_item(env.conn, "DEV_4_QUERY_0")
    metro = F.resolve_item(env.conn, METRO_Q)
    env.conn.close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(env.db), metro.dataset, metro.key, "6号线"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline().strip() == "locked"
    cli = subprocess.Popen(
        [sys.executable, "-c", CLI, "stale", "mark", str(env.runs), "DEV_4_QUERY_0", "--gold", "1",
         "--reason", "cli", "--db", str(env.db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "COLUMNS": "200"},
    )
    lines: queue.Queue[str] = queue.Queue()
    assert cli.stderr is not None
    threading.Thread(target=lambda: [lines.put(x) for x in cli.stderr], daemon=True).start()  # type: ignore[union-attr]
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not any("busy" in x for x in seen):
            try:
                seen.append(lines.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                break
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
    assert any("busy" in x and "retrying" in x for x in seen), seen
    assert holder.stdout.readline().strip() == "committed"
    holder.wait(timeout=10)
    out, _ = cli.communicate(timeout=40)
    assert cli.returncode == 0, out
    assert "marked stale" in out and ref.golds[0][1] in out

    conn = env.conn = open_db(env.db).conn
    reasons = sorted(r for (r,) in conn.execute("SELECT reason FROM annotations"))
    assert reasons == ["cli", "held"]  # both writers' entries, nothing lost
