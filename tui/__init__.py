"""qa-inspect's user interface: the Typer command line (`cli`) and the Textual app (`app`).

The app is built in layers; each imports only those below it (`[tool.importlinter]` contracts in
pyproject.toml check it, and that no two modules import each other):

    cli        the command line; opens the app (tui.app.QAInspectApp) and prints with tui.text
    app        QAInspectApp: knows every screen, implements tui.base.QAApp, one stylesheet (app.tcss)
    screens    overview → browser → compare → detail; each screen owns small controllers
    stale      the stale-answer UI, mirroring core.flags: keys, form, jobs, StaleActions, StaleScreen
    dialogs    confirm, export, filters, help, pick_run, slices: modal screens that return an answer
    widgets    item and facet tables, filter bar, status line, overview tables, detail parts
    commands   the command palette's providers and the help screen's key rows
    base       BaseScreen, BaseModal, WorkerErrors and QAApp, the app as everything below it sees it
    workers    the SQLite connection pool (Db): the only place the UI runs SQL itself
    text       dataset and model text made safe to show (clean, truncate, cells)
    present    how figures and names read: numbers, p-values, intervals, counts, plurals (stdlib only)

Every package's `__init__` says what it holds and may import, and lists its public names. The
database is only touched from thread workers, which post typed messages back to the UI thread.
This package itself exports nothing: importing it stays free (the command line imports `text`
without loading Textual).
"""

from __future__ import annotations

__all__: list[str] = []
