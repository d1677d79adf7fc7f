"""A team shares its work through git alone: two clones of one runs folder, each annotator marks
and labels in their own, both commit their journal files, and after a pull a plain `load` shows
both annotators' work on either side; deleting `qa.db` and loading again changes nothing."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import invoke

pytestmark = [
    pytest.mark.usefixtures("no_author_env"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
]

KEY_A, KEY_B = "DEV_4_QUERY_0", "DEV_4_QUERY_1"
RUN = "bert-base-chinese"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_CONFIG_NOSYSTEM": "1"}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(check=False, args=["git", "-c", "init.defaultBranch=main", "-c", "pull.rebase=false", *args], cwd=cwd,
                          env={**os.environ, **GIT_ENV, "HOME": str(cwd)}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def as_author(author: str, *args: str) -> None:
    res = invoke(*args, env={"QA_INSPECT_AUTHOR": author})
    assert res.exit_code == 0, res.output


def state(runs: Path) -> list[tuple[object, ...]]:
    """The whole journal as it reads after a plain load, row ids left out."""
    res = invoke("load", str(runs))
    assert res.exit_code == 0, res.output
    conn = sqlite3.connect(runs / ".qa-inspect" / "qa.db")
    try:
        return sorted(conn.execute(
            "SELECT a.uid, a.ts, a.author, a.action, a.dataset, a.item_key, a.gold_text, a.reason, a.proposed,"
            " a.meta, a.run, a.label, r.uid FROM annotations a LEFT JOIN annotations r ON r.id = a.ref"))
    finally:
        conn.close()


def listed(runs: Path, *args: str) -> list[dict[str, object]]:
    res = invoke(*args, str(runs), "--json")
    assert res.exit_code == 0, res.output
    out: list[dict[str, object]] = json.loads(res.stdout)
    return out


def test_two_clones_share_their_work_through_git(sample_runs: Path, tmp_path: Path) -> None:
    seed = tmp_path / "seed"
    shutil.copytree(sample_runs, seed, ignore=shutil.ignore_patterns(".qa-inspect"))
    git(seed, "init")
    git(seed, "add", ".")
    git(seed, "commit", "-qm", "runs")
    git(tmp_path, "clone", "-q", "--bare", str(seed), "origin.git")
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), clone.name)

    as_author("ana", "stale", "mark", str(a), KEY_A, "--gold", "1", "--new-answer", "南京", "--reason", "moved")
    as_author("ana", "label", "add", str(a), RUN, KEY_A, "-l", "gold-wrong")
    as_author("bo", "stale", "mark", str(b), KEY_B, "--gold", "1", "--reason", "outdated")
    as_author("bo", "label", "add", str(b), RUN, KEY_A, "-l", "paraphrase")
    as_author("bo", "stale", "verify", str(b), KEY_A, "--gold", "1")

    for clone, who in ((a, "ana"), (b, "bo")):
        assert git(clone, "status", "--porcelain", "--untracked-files=all").split() == [
            "??", ".qa-inspect/.gitignore", "??", f".qa-inspect/journal/{who}.jsonl"]  # qa.db is ignored
        git(clone, "add", ".qa-inspect")
        git(clone, "commit", "-qm", f"{who}'s annotations")
    git(a, "push", "-q")
    git(b, "pull", "-q", "--no-edit")  # a merge, and no conflict: each author has a file of their own
    git(b, "push", "-q")
    git(a, "pull", "-q", "--no-edit")

    on_a, on_b = state(a), state(b)
    assert on_a == on_b
    assert sorted({(row[2], row[3]) for row in on_a}) == [("ana", "label"), ("ana", "mark"), ("bo", "label"),
                                                           ("bo", "mark"), ("bo", "verify")]
    assert sorted((f["item_key"], f["author"]) for f in listed(a, "stale", "list")) == [(KEY_A, "ana"), (KEY_B, "bo")]
    assert sorted((x["label"], x["author"]) for x in listed(b, "label", "list")) == [("gold-wrong", "ana"),
                                                                                    ("paraphrase", "bo")]
    for clone in (a, b):  # the database is a cache: gone, and rebuilt the same from the journal files
        for p in (clone / ".qa-inspect").glob("qa.db*"):
            p.unlink()
    assert state(a) == on_a and state(b) == on_b
