"""Regenerate the documentation's screenshots from the TUI snapshot tests' SVGs.

The snapshot tests (`tests/tui/**/__snapshots__/`) already render every screen at fixed terminal
sizes and fail when a screen changes, so their SVGs are the one current picture of the app; the
docs copy them instead of keeping hand-made screenshots that go stale. After a snapshot update
(`pytest --snapshot-update`), run `python docs/gen_screenshots.py`; `--check` only reports the
images that differ (the docs test runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO / "tests" / "tui"
IMAGES = REPO / "docs" / "img"

# docs image name → snapshot SVG, relative to tests/tui/
SHOTS: dict[str, str] = {
    "overview.svg": "screens/__snapshots__/test_overview_snapshots/test_overview_120x40.svg",
    "browser.svg": "screens/__snapshots__/test_browser_snapshots/test_browser_120x40.svg",
    "facets.svg": "screens/__snapshots__/test_browser_snapshots/test_facets_120x40.svg",
    "columns.svg": "screens/__snapshots__/test_browser_columns_snapshots/"
                   "test_browser_with_label_category_and_meta_columns[120x40].svg",
    "detail.svg": "screens/__snapshots__/test_detail_snapshots/test_detail_120x40.svg",
    "compare.svg": "screens/__snapshots__/test_compare_snapshots/test_compare_120x40.svg",
    "distribution.svg": "screens/__snapshots__/test_distribution_snapshots/test_distribution_grid_120x40.svg",
    "review-queue.svg": "screens/__snapshots__/test_review_queue/test_review_queue_120x40.svg",
    "load-log.svg": "screens/__snapshots__/test_load_log/test_load_log_120x40.svg",
    "stale-form.svg": "stale/__snapshots__/test_stale_snapshots/test_stale_form_80x24.svg",
    "label-dialog.svg": "dialogs/__snapshots__/test_labels_snapshots/test_label_dialog_80x24.svg",
}


def stale_images(images: Path = IMAGES) -> list[str]:
    """Names of the docs images that are missing or differ from their snapshot."""
    return [name for name, src in SHOTS.items()
            if not (images / name).is_file()
            or (images / name).read_bytes() != (SNAPSHOTS / src).read_bytes()]


def write_images(images: Path = IMAGES) -> list[str]:
    """Copy every snapshot whose docs image is missing or out of date; the names copied."""
    images.mkdir(parents=True, exist_ok=True)
    changed = stale_images(images)
    for name in changed:
        (images / name).write_bytes((SNAPSHOTS / SHOTS[name]).read_bytes())
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only list images out of date; exit 1 if any")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_images()
        for name in stale:
            print(f"docs/img/{name} differs from tests/tui/{SHOTS[name]}: run python docs/gen_screenshots.py")
        return 1 if stale else 0
    for name in write_images():
        print(f"docs/img/{name} ← tests/tui/{SHOTS[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
