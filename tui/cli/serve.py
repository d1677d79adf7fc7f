"""`serve`: the same app in a browser, through Textualize's textual-serve (the `serve` extra).

Every browser session gets its own app process: textual-serve runs `qa-inspect open RUNS_DIR --db DB`
(this Python, quoted with shlex) per websocket, all on the one database (WAL and the busy timeout
hold concurrent writers). The processes run in served mode (`SERVED_ENV`): the app asks the
annotator's name first, writes exports only under the runs folder's export folder, reads files
only inside the runs folder, and opens no links.

Nobody gets in by accident: the server listens on loopback unless `--host` names another address,
and then it says, before it starts, that whoever reaches the port reads the data and writes
annotations.
"""

from __future__ import annotations

import ipaddress
import os
import shlex
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Annotated

import typer

from .common import DbOpt, RunsDir, app, err, fail, run_load, say

__all__ = ["SERVE_EXTRA", "is_loopback", "serve_cmd", "session_command"]

SERVE_EXTRA = "qa-inspect serve needs the serve extra: pip install 'qa-inspect[serve]'"


def is_loopback(host: str) -> bool:
    """Whether `host` is this machine only: localhost, 127.0.0.0/8 or ::1."""
    if host.strip().lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def session_command(runs_dir: Path, db: Path) -> str:
    """The shell command textual-serve runs for each browser session: this Python, `open`."""
    return shlex.join([sys.executable, "-m", "qa_inspect.tui.cli", "open", str(runs_dir), "--db", str(db)])


@app.command("serve")
def serve_cmd(
    runs_dir: RunsDir,
    port: Annotated[int, typer.Option("--port", help="TCP port to listen on.", min=1, max=65535)] = 8000,
    host: Annotated[str, typer.Option("--host", help="Address to listen on; anything but loopback is "
                                                     "reachable by others (a warning says so).")] = "127.0.0.1",
    db: DbOpt = None,
    public_url: Annotated[str | None, typer.Option(
        "--public-url", help="The address browsers use, behind a reverse proxy (default: http://HOST:PORT).",
        show_default=False)] = None,
) -> None:
    """Serve the app to browsers (textual-serve): one app process per browser session, one database."""
    if find_spec("textual_serve") is None:
        err.print(SERVE_EXTRA, markup=False, highlight=False)
        raise typer.Exit(1)
    from qa_inspect.tui.text import clean

    summary = run_load(runs_dir, db, as_json=False)
    for e in summary.errors:
        say(clean(e["message"]))
    if not is_loopback(host):
        say(f"WARNING: serving on {clean(host)}:{port}, not loopback only: whoever reaches this port can read "
            "the data and write annotations (there is no login). Prefer an SSH tunnel or an authenticating proxy.")
        if public_url is None and host.strip("[]") in ("0.0.0.0", "::"):
            say(f"the page tells browsers to connect to {clean(host)}:{port}; give the address they use with "
                "--public-url http://NAME:PORT")
    command = session_command(runs_dir.resolve(), Path(summary.db).resolve())
    _serve(command, host, port, public_url)


def _serve(command: str, host: str, port: int, public_url: str | None) -> None:
    """Run textual-serve until interrupted; a port that cannot be bound is one line."""
    from textual_serve.server import Server

    from qa_inspect.tui.dialogs import SERVED_ENV

    os.environ[SERVED_ENV] = "1"  # inherited by every session's process (textual-serve copies os.environ)
    server = Server(command, host=host, port=port, title="qa-inspect", public_url=public_url)
    try:
        server.serve()
    except OSError as exc:
        raise fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
