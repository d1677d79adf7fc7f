"""`qa-inspect serve RUNS_DIR`: textual-serve's page on loopback, and through its websocket a session
of the app whose first frame asks who is annotating; a name typed there reaches the app, and an
export is handed to the browser to download. Anything
but loopback is warned about; a missing extra is one line."""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest

from qa_inspect.tui.cli.serve import SERVE_EXTRA, is_loopback, session_command
from tests.cli.helpers import copy_sample_runs, invoke

needs_serve = pytest.mark.skipif(find_spec("textual_serve") is None, reason="textual-serve (the serve extra) is not installed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "QA_INSPECT_AUTHOR"}
    env["COLUMNS"] = "200"
    return env


@pytest.fixture
def server(sample_runs: Path, tmp_path: Path) -> Iterator[int]:
    """`qa-inspect serve` on a free loopback port, in its own process; stopped with SIGINT (Ctrl+C)."""
    runs = copy_sample_runs(sample_runs, tmp_path)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "qa_inspect.tui.cli", "serve", str(runs), "--port", str(port), "--db", str(tmp_path / "qa.db")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, proc.communicate()[1].decode()
            assert time.monotonic() < deadline, "the server did not start listening"
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield port
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _session(port: int) -> tuple[bytes, bytes, str]:
    """Open a browser's websocket: the bytes up to the annotator question, those after a name, and
    the file an export (enter on the first run, `e`, enter) hands the browser to download."""
    import aiohttp

    async def until(ws: aiohttp.ClientWebSocketResponse, marker: bytes, seconds: float = 60) -> bytes:
        got = b""
        deadline = time.monotonic() + seconds
        while marker not in got:
            assert time.monotonic() < deadline, f"{marker!r} never arrived ({len(got)} bytes)"
            try:
                msg = await ws.receive(timeout=2)
            except TimeoutError:
                continue
            assert msg.type in (aiohttp.WSMsgType.BINARY, aiohttp.WSMsgType.TEXT), msg
            got += msg.data if msg.type == aiohttp.WSMsgType.BINARY else msg.data.encode()
        return got

    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(f"http://127.0.0.1:{port}/ws?width=120&height=36") as ws:
            first = await until(ws, b"Who is annotating?")
            await ws.send_json(["stdin", "Ann Example\r"])
            after = await until(ws, b"Annotating as Ann Example")
            await asyncio.sleep(1.0)  # the notice comes from the dialog's callback, before the dialog is gone
            await ws.send_json(["stdin", "\r"])  # the first run's items
            await until(ws, b"Export")
            await ws.send_json(["stdin", "e"])
            await until(ws, b"Export the item list")
            await ws.send_json(["stdin", "\r"])
            started = await until(ws, b'["deliver_file_start"')
            key = started.rsplit(b'["deliver_file_start", "', 1)[1].split(b'"', 1)[0].decode()
            async with http.get(f"http://127.0.0.1:{port}/download/{key}") as res:
                assert res.status == 200
                return first, after, await res.text()


@needs_serve
def test_the_page_and_a_session_of_the_app(server: int) -> None:
    with urllib.request.urlopen(f"http://127.0.0.1:{server}/", timeout=30) as res:
        page = res.read().decode()
    assert "textual.js" in page and f"ws://127.0.0.1:{server}/ws" in page
    first, after, download = asyncio.run(_session(server))
    assert first.startswith(b"\x1b[")  # a terminal frame, drawn by the app's own process
    assert b"qa-inspect" in first + after
    header = download.splitlines()[0].split(",")
    assert "item_key" in header or "key" in header, header  # the export, downloaded by the browser


@needs_serve
def test_another_host_is_warned_about(sample_runs: Path, tmp_path: Path) -> None:
    """192.0.2.1 (TEST-NET-1) is no address of this machine: the warning, then one line, exit 1."""
    runs = copy_sample_runs(sample_runs, tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "qa_inspect.tui.cli", "serve", str(runs), "--host", "192.0.2.1",
         "--port", str(_free_port()), "--db", str(tmp_path / "qa.db")],
        capture_output=True, text=True, timeout=120, env=_env(), check=False)
    assert proc.returncode == 1
    assert "WARNING: serving on 192.0.2.1" in proc.stderr and "can read the data and write annotations" in proc.stderr
    assert "qa-inspect: cannot listen on 192.0.2.1:" in proc.stderr and "Traceback" not in proc.stderr


def test_a_missing_extra_is_one_line(sample_runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # what find_spec sees when it is not installed
    res = invoke("serve", str(copy_sample_runs(sample_runs, tmp_path)))
    assert res.exit_code == 1
    assert res.stderr.strip() == SERVE_EXTRA == "qa-inspect serve needs the serve extra: pip install 'qa-inspect[serve]'"


def test_loopback_and_the_session_command(tmp_path: Path) -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "[::1]", "127.1.2.3"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.5", "example.org", ""))
    runs = tmp_path / "my runs"
    command = session_command(runs, runs / "q'a.db")
    assert command.startswith(f"{shlex.quote(sys.executable)} -m qa_inspect.tui.cli open ")
    assert "'" + str(runs) + "'" in command  # quoted for the shell textual-serve runs it with
