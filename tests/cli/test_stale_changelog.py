"""`qa-inspect stale export --format changelog`: Markdown release notes to a file or stdout."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import invoke
from tests.release_data import Q, flag_tiny, tiny_cdqa

pytestmark = pytest.mark.usefixtures("no_author_env")


def test_changelog_to_file_and_stdout(tmp_path: Path) -> None:
    tiny_cdqa(tmp_path)
    runs = tmp_path / "runs"
    flag_tiny(runs)
    out = tmp_path / "CHANGELOG.md"
    res = invoke("stale", "export", str(runs), "--format", "changelog", "-o", str(out))
    assert res.exit_code == 0, res.output
    md = out.read_text(encoding="utf-8")
    assert "### fast-changing (4)" in md and f"| {Q[2]} | 乙二 | 新乙二 | changed 2 | https://e.org/2 | alice |" in md
    assert "| bob |" in md
    res = invoke("stale", "export", str(runs), "--format", "changelog", "-o", "-")
    assert res.exit_code == 0 and res.stdout == md
    assert invoke("stale", "export", str(runs), "--format", "nope", "-o", "-").exit_code == 1
