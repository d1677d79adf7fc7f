"""`q` quits at once, whatever a worker is doing (a slow load or query must not hold the app)."""

from __future__ import annotations

import threading
from pathlib import Path

from tests.helpers import SIZE, app_for, async_test, settle


@async_test
async def test_q_quits_while_a_slow_worker_runs(db: Path) -> None:
    release = threading.Event()
    started = threading.Event()

    def slow() -> None:
        started.set()
        release.wait(120)  # a load or query that takes minutes

    app = app_for(db)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            worker = app.run_worker(slow, thread=True, exit_on_error=False, group="slow")
            for _ in range(200):  # the worker starts on the event loop's next turns
                if started.is_set():
                    break
                await pilot.pause(0.05)
            assert started.is_set()
            await pilot.press("q")
            await pilot.pause()
            assert worker.is_cancelled and not app.is_running
        slow_threads = [t for t in threading.enumerate() if t.name == "qa-inspect-worker" and t.is_alive()]
        assert slow_threads and all(t.daemon for t in slow_threads)  # abandoned: the process can end
    finally:
        release.set()
