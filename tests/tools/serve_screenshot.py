#!/usr/bin/env python
"""Check `qa-inspect serve` in a real browser and save what it shows as docs/img/serve.png.

    python tests/tools/serve_screenshot.py [--out docs/img/serve.png] [--browser chromium] [--wait 12]

Serves a copy of sample_runs/ (in a temporary folder) on a free loopback port, loads the page in
headless Chromium (Debian: `apt-get install chromium`) and takes a screenshot once the app has drawn
its first screen. The annotator is set in the environment, so the overview shows rather than the
name dialog. Exits 1 with one line when the browser is missing, the server does not start, or the
screenshot stays blank (a page whose terminal never connected is one flat colour).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_runs"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(runs: Path, db: Path, port: int) -> subprocess.Popen[bytes]:
    """`qa-inspect serve` in its own process; returns once the port accepts connections."""
    env = {**os.environ, "QA_INSPECT_AUTHOR": "Ann Example"}
    proc = subprocess.Popen([sys.executable, "-m", "qa_inspect.tui.cli", "serve", str(runs), "--port", str(port),
                             "--db", str(db)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"serve_screenshot: the server stopped: {proc.stderr.read().decode() if proc.stderr else ''}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc
        time.sleep(0.2)
    proc.kill()
    raise SystemExit("serve_screenshot: the server did not start listening in 90 s")


def screenshot(browser: str, url: str, out: Path, wait: float) -> None:
    """Headless Chromium on `url`, driven over the DevTools protocol (aiohttp comes with
    textual-serve): the app gets `wait` real seconds to connect and draw, then a 1280×800 PNG."""
    asyncio.run(_shoot(browser, url, out, wait))


async def _shoot(browser: str, url: str, out: Path, wait: float) -> None:
    import aiohttp

    port = free_port()
    with tempfile.TemporaryDirectory() as profile:
        proc = subprocess.Popen([browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                 f"--user-data-dir={profile}", "--window-size=1280,800",
                                 f"--remote-debugging-port={port}", url],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            async with aiohttp.ClientSession() as http:
                target = await _page_target(http, port)
                await asyncio.sleep(wait)
                async with http.ws_connect(target, max_msg_size=0) as ws:
                    await ws.send_str(json.dumps({"id": 1, "method": "Page.captureScreenshot",
                                                  "params": {"format": "png"}}))
                    while True:
                        reply = json.loads((await ws.receive(timeout=60)).data)
                        if reply.get("id") == 1:
                            out.write_bytes(base64.b64decode(reply["result"]["data"]))
                            return
        finally:
            proc.terminate()
            proc.wait(timeout=30)


async def _page_target(http: object, port: int) -> str:
    """The DevTools websocket of the browser's page, once Chromium answers."""
    import aiohttp

    assert isinstance(http, aiohttp.ClientSession)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            async with http.get(f"http://127.0.0.1:{port}/json") as res:
                pages = [t for t in await res.json() if t.get("type") == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.3)
    raise SystemExit("serve_screenshot: Chromium's DevTools did not answer in 60 s")


def drawn(png: Path) -> bool:
    """Whether the app drew: a page whose terminal never connected is one flat colour, which PNG
    compresses to a few kilobytes; a drawn terminal of text takes tens."""
    return png.is_file() and png.stat().st_size > 30_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshot qa-inspect serve in headless Chromium.")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img" / "serve.png")
    parser.add_argument("--browser", default=next((b for b in BROWSERS if shutil.which(b)), None))
    parser.add_argument("--wait", type=float, default=12.0, help="seconds the app gets to draw")
    args = parser.parse_args(argv)
    if args.browser is None:
        print("serve_screenshot: no Chromium found (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "sample_runs"
        shutil.copytree(SAMPLE, runs, ignore=shutil.ignore_patterns(".qa-inspect"))
        port = free_port()
        server = start_server(runs, Path(tmp) / "qa.db", port)
        try:
            shot = Path(tmp) / "serve.png"
            screenshot(args.browser, f"http://127.0.0.1:{port}/?fontsize=14", shot, args.wait)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        if not drawn(shot):
            print("serve_screenshot: the page stayed blank (the app never drew)", file=sys.stderr)
            return 1
        args.out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
