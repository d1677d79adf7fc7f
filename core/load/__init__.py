"""A runs folder into the database: find the files, read them, link runs to datasets, score once, write.

Holds: `manifest` (the optional `qa-inspect.toml`), `discover` (walking the folder, reading a file
with the manifest's hints, run names), `matching` (which dataset a run goes with, by id, question,
prompt or position: pure), `scoring` (scoring a run against a dataset in memory: `qa-inspect
score`), `ingest` + `ingest_runs` (writing datasets and runs set-based, in bounded steps for big
files, scores computed once: `score_pool`), `search_index` (the full-text index, filled after the
bulk insert: `build_search_index`), `linking` (matching against the stored datasets), `loader`
(`load_runs`: the phases, incremental by size, mtime and SHA-256, resuming an interrupted file)
and `summary` (what a load did, file by file, with the warnings a user should read).

May import: `core.store`, `core.formats`, `core.metrics`, `core.model`, `core.keys`, `core.errors`.
"""

from __future__ import annotations

from .discover import (
    GENERIC_STEMS,
    STATE_DIR,
    WalkResult,
    read_in_folder,
    run_display_name,
    walk,
)
from .loader import load_runs
from .manifest import MANIFEST_NAME, Manifest, ManifestEntry, load_manifest
from .matching import (
    LOW_COVERAGE,
    DatasetIndex,
    LinkResult,
    PositionMatch,
    link_run,
    match_by_position,
    match_in_prompts,
)
from .scoring import ScoredFile, score_run
from .search_index import build_search_index, pending_marks, pending_rows
from .summary import DatasetReport, LoadSummary, RunReport

__all__ = [
    "GENERIC_STEMS",
    "LOW_COVERAGE",
    "MANIFEST_NAME",
    "STATE_DIR",
    "DatasetIndex",
    "DatasetReport",
    "LinkResult",
    "LoadSummary",
    "Manifest",
    "ManifestEntry",
    "PositionMatch",
    "RunReport",
    "ScoredFile",
    "WalkResult",
    "build_search_index",
    "link_run",
    "load_manifest",
    "load_runs",
    "match_by_position",
    "match_in_prompts",
    "pending_marks",
    "pending_rows",
    "read_in_folder",
    "run_display_name",
    "score_run",
    "walk",
]
