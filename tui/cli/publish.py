"""`publish`: a read-only copy of the database with Datasette metadata (`core.report.publish_database`),
and the `datasette` line that browses it. Nothing is served from here: Datasette does that."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import Annotated

import typer

from .common import DbOpt, JsonOpt, RunsDir, app, fail, line, loaded_db, print_json, say

__all__ = ["publish_cmd"]

PUBLISH_EXTRA = "pip install 'qa-inspect[publish]'"


@app.command("publish")
def publish_cmd(
    runs_dir: RunsDir,
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder to write qa.db and metadata.json into.",
                                         show_default=False)],
    db: DbOpt = None,
    title: Annotated[str, typer.Option("--title", help="Title of the published pages.")] = "qa-inspect",
    as_json: JsonOpt = False,
) -> None:
    """Write a read-only copy of the database and Datasette metadata (descriptions, facets, canned queries)."""
    from qa_inspect.core.report import publish_database

    if output.exists() and not output.is_dir():
        raise fail(f"{output}: not a folder")
    with loaded_db(runs_dir, db, read_only=True) as conn:
        published = publish_database(conn, output, title=title)
    if as_json:
        print_json(published.to_dict())
        return
    line(f"wrote {published.db} and {published.metadata}")
    line(published.command())
    if find_spec("datasette") is None:
        say(f"datasette is not installed: {PUBLISH_EXTRA}")
