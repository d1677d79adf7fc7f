"""A runs folder into the database: find the files, read them, link runs to datasets, score once, write.

Holds: `manifest` (the optional `qa-inspect.toml`), `discover` (walking the folder, reading a file
with the manifest's hints, run names), `matching` (which dataset a run goes with, by id, question,
prompt or position: pure), `scoring` (scoring a run against a dataset in memory: `qa-inspect
score`), `ingest` + `ingest_runs` (writing datasets and runs set-based, in bounded steps for big
files, scores computed once: `score_pool`, each prediction's error category with them; `stream`:
a big dataset read in a second process while stored; `staging`: a changed big dataset staged in
committed steps, then applied set-based; `features`:
the item features stored where items are written; `backfill`: both filled into rows stored
without them), `search_index` (the full-text index, filled after the bulk insert:
`build_search_index`), `linking` (matching against the stored datasets), `loader`
(`load_runs`: the phases, incremental by size, mtime and SHA-256, resuming an interrupted file),
`summary` (what a load did, file by file, with the warnings a user should read), `log` (the
last load's summary kept in the database, flattened into rows for the app's load log) and `warmup`
(the load's last step: the overview's first-paint rows stored, `warm_overview`).

May import: `core.store`, `core.formats`, `core.metrics`, `core.model`, `core.keys`, `core.errors`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qa_inspect.core.faces import lazy_face

__all__ = [
    "GENERIC_STEMS",
    "LOG_SETTING",
    "LOW_COVERAGE",
    "STATE_DIR",
    "DatasetIndex",
    "DatasetReport",
    "LinkResult",
    "LoadLog",
    "LoadSummary",
    "LogEntry",
    "Manifest",
    "ManifestEntry",
    "PositionMatch",
    "RunReport",
    "ScoredFile",
    "WalkResult",
    "build_search_index",
    "last_load",
    "link_run",
    "load_manifest",
    "load_runs",
    "match_by_position",
    "match_in_prompts",
    "no_cycle_collection",
    "read_in_folder",
    "record_load",
    "run_display_name",
    "score_run",
    "walk",
    "warm_overview",
]

if TYPE_CHECKING:  # where each name lives; loaded on first use at run time (core/faces.py)
    from .bulk import (
        no_cycle_collection,
    )
    from .discover import (
        GENERIC_STEMS,
        read_in_folder,
        run_display_name,
        STATE_DIR,
        walk,
        WalkResult,
    )
    from .loader import (
        load_runs,
    )
    from .warmup import (
        warm_overview,
    )
    from .log import (
        last_load,
        LoadLog,
        LOG_SETTING,
        LogEntry,
        record_load,
    )
    from .manifest import (
        load_manifest,
        Manifest,
        ManifestEntry,
    )
    from .matching import (
        DatasetIndex,
        link_run,
        LinkResult,
        LOW_COVERAGE,
        match_by_position,
        match_in_prompts,
        PositionMatch,
    )
    from .scoring import (
        score_run,
        ScoredFile,
    )
    from .search_index import (
        build_search_index,
    )
    from .summary import (
        DatasetReport,
        LoadSummary,
        RunReport,
    )

lazy_face(__name__)
