"""The documentation stays true and buildable: the site builds with `mkdocs build --strict` (every
page in the nav, every link and anchor resolving), the README stays a five-minute read whose
links resolve and whose test command is the one CI runs, the screenshots and the generated table
list match what the code produces, and nothing refers to an issue tracker that is not in the
repository."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
CI = REPO / ".ci" / "run"
README_LIMIT = 12_000  # bytes
ISSUE_REF = re.compile(r"\(issues? \d|\(issue ")
_FENCE = re.compile(r"```sh\n(.*?)\n```", re.DOTALL)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _run(args: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(args, check=False, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
                    reason="mkdocs-material is not installed (pip install -e '.[docs]')")
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    res = _run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")], timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    pages = {p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("index.html")}
    assert {"index.html", "cli/index.html", "guide/index.html", "database-tables/index.html"} <= pages


def test_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size < README_LIMIT, f"README.md is {size} bytes; move manual content into docs/"


def test_readme_links_and_images_exist() -> None:
    targets = [t for t in _LINK.findall(README.read_text(encoding="utf-8")) if "://" not in t]
    assert "docs/img/overview.svg" in targets and "docs/cli.md" in targets
    missing = [t for t in targets if not (REPO / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_readme_test_command_is_what_ci_runs() -> None:
    """`.ci/run` says it runs the README's test command verbatim; so it must."""
    blocks = [b.strip() for b in _FENCE.findall(README.read_text(encoding="utf-8"))]
    test_commands = [b for b in blocks if "pytest" in b]
    assert len(test_commands) == 1, test_commands
    ci_lines = [line for line in CI.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    assert test_commands[0] == ci_lines[-1]
    assert "'.[test,docs,serve,publish]'" in test_commands[0]


def _texts() -> list[Path]:
    """Every docs page, the README, and the Python sources of core/, tui/ and tests/."""
    files = [README, *DOCS.rglob("*.md"), *DOCS.rglob("*.py")]
    for root in ("core", "tui", "tests"):
        files += [p for p in (REPO / root).rglob("*.py") if "__pycache__" not in p.parts]
    return [p for p in files if p != Path(__file__).resolve()]


def test_nothing_refers_to_an_issue_tracker() -> None:
    """The tracker is not in the repository: say the reason instead of "(issue N)"."""
    found = [f"{p.relative_to(REPO)}:{n}" for p in _texts()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if ISSUE_REF.search(line)]
    assert not found, f"reword without an issue number: {found}"


def test_the_check_sees_an_issue_reference() -> None:
    assert ISSUE_REF.search('"""Start-up is kept short (issue 16)."""')
    assert ISSUE_REF.search("targets (issues 4 and 16)")
    assert not ISSUE_REF.search("a known issue with the official script")


def test_screenshots_match_the_snapshots() -> None:
    res = _run([sys.executable, str(DOCS / "gen_screenshots.py"), "--check"], timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


def test_the_table_list_matches_a_loaded_database() -> None:
    res = _run([sys.executable, str(DOCS / "gen_schema.py"), "--check"], timeout=180)
    assert res.returncode == 0, res.stdout + res.stderr
    page = (DOCS / "database-tables.md").read_text(encoding="utf-8")
    for table in ("annotations", "items", "predictions", "runs", "datasets", "golds", "settings"):
        assert f"## `{table}`" in page


def test_the_option_reference_matches_the_cli() -> None:
    res = _run([sys.executable, str(DOCS / "gen_cli.py"), "--check"], timeout=180)
    assert res.returncode == 0, res.stdout + res.stderr
    page = (DOCS / "cli-options.md").read_text(encoding="utf-8")
    assert "## `qa-inspect stale mark`" in page and "## `qa-inspect label import`" in page
