"""What the load that opened the app chose or could not do is shown in the app, not only printed
before it opened (and scrolled away)."""

from __future__ import annotations

from pathlib import Path

from qa_inspect.tui.app import QAInspectApp
from tests.helpers import async_test


@async_test
async def test_load_warnings_and_errors_are_notifications(loaded_db: Path) -> None:
    notices = [("warning", "bert.json: 150 predictions match 'a' and 'b' alike"), ("error", "x.json: bad\x1b[31m")]
    app = QAInspectApp(loaded_db, load_notices=notices)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        shown = [(n.severity, n.title, n.message) for n in app._notifications]
        assert ("warning", "Load warning", notices[0][1]) in shown
        error = next(m for s, _, m in shown if s == "error")
        assert "\x1b" not in error, "control characters made visible"
