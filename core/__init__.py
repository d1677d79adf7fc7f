"""qa-inspect's headless core: everything the TUI and the CLI show, as plain Python.

Data flows one way, each layer importing only those below it (checked by the import-linter
contracts in pyproject.toml)::

    report    metrics by slice, overview, run diffs, stale-excluded metrics
    query     filters → SQL, pages, facets, saved slices, item detail, export
    flags     the stale-answer journal        load   runs folder → database
    store     the SQLite file                 formats  one reader per source format
    metrics   pure scorers    model  dataclasses    keys  stable item ids
    errors    the one-line errors users see    visible  control characters as stand-ins

The root holds only the shared vocabulary (`errors`, `model`, `keys`, `visible`) and `faces`, which lets each
package's face import a module only when one of its names is first used; a new scorer goes in
`metrics/`, a reader in `formats/`, an annotation action in `flags/`, a statistic in `report/`.
Never imports textual, rich or `qa_inspect.tui`.
"""

from __future__ import annotations

__all__ = ["errors", "flags", "formats", "keys", "load", "metrics", "model", "query", "report", "store", "visible"]
