"""Every kind of chip the filter bar shows, walked across scorer families (CMRC → CDQA → SQuAD →
CMRC): after each run change a chip is still there meaning the same, converted to the new scorer's
words, or dropped with a note that names it; and the score chips agree with the rows shown."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from qa_inspect.core.query import BANDS, Filter, errors_only, page, shows_errors_only
from qa_inspect.core.report import BrowseInfo
from qa_inspect.tui.screens.filter_keys import moved, scorer_of, with_run
from qa_inspect.tui.widgets.filter_bar import describe

CMRC = BrowseInfo("cmrc2018_dev_sample", "cmrc", "cmrc2018-official", 3, ["bidaf-baseline", "bert-base-chinese"])
CDQA = BrowseInfo("cdqa_sample", "cdqa", "cdqa-f1-recall", 3, ["glm-6b", "qwen-7b-chat"])
SQUAD = BrowseInfo("squad_normans", "squad", "squad-v1.1", 3, ["squad-run"])
WALK = [CMRC, CDQA, SQUAD, CMRC]
"""The runs visited, in order: back where it started at the end."""

BASE = Filter(dataset="cmrc2018_dev_sample", run="bidaf-baseline")
PAIR = BASE.with_(compare="bert-base-chinese")
CHIPS: dict[str, Filter] = {
    "split": BASE.with_(splits=("dev",)),
    "tag": BASE.with_(tags=("fast-changing",)),
    "type": BASE.with_(answer_types=("person",)),
    "refused": BASE.with_(refused=True),
    "answered": BASE.with_(refused=False),
    "EM 0": BASE.with_(em=0),
    "EM 1": BASE.with_(em=1),
    "wrong only": errors_only(BASE, "cmrc2018-official", True),
    "F1 range": BASE.with_(f1_min=0.2, f1_max=0.8),
    "search": BASE.with_(search="的"),
    "stale": BASE.with_(stale=True),
    "has proposal": BASE.with_(has_proposal=False),
    "facet": BASE.with_(facets=(("qword", "who"), ("gold_len", "1–2"))),
    "span category": BASE.with_(facets=(("error_category", "boundary-long"),)),
    "any category": BASE.with_(facets=(("error_category", "exact"),)),
    "label": BASE.with_(facets=(("label", "typo"),)),
    "judge": BASE.with_(facets=(("judge:gpt", "correct"), ("judge_vs:gpt", "agree"))),
    "keys": BASE.with_(keys=("TRIAL_1_QUERY_0",)),
    "compare": PAIR,
    "disagree": PAIR.with_(only_disagree=True),
    "outcome": PAIR.with_(outcome="fixed"),
    "score band": PAIR.with_(bands=(BANDS[0][0], BANDS[-1][0])),
}


@pytest.fixture(scope="module")
def conn(loaded_db: Path) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(loaded_db)
    yield c
    c.close()


def _chips(f: Filter) -> list[tuple[str, str]]:
    return [c for c in describe(f) if c[0] not in ("run", "dataset")]


def _said(chip: tuple[str, str], after: list[tuple[str, str]], notes: list[str]) -> bool:
    """The chip is still shown, or a note names it (its label, else its value)."""
    word = chip[0] or chip[1]
    return chip in after or any(word.split(" ")[0] in n or chip[1] in n for n in notes)


def _agrees(conn: sqlite3.Connection, f: Filter, info: BrowseInfo) -> None:
    """Every row shown matches the score chips (only runs of the sample database have rows)."""
    chips = dict(_chips(f))
    for row in page(conn, f, 0, 500):
        score = row.f1 if row.f1 is not None else (row.f1_recall or 0.0)
        if "EM" in chips:
            assert (row.em or 0) == int(chips["EM"]), (f, row)
        if chips.get("score") == "below 1":
            assert score < 1, (f, row)
    if info.scorer == "cdqa-f1-recall":
        assert "EM" not in chips  # F1-recall runs have no EM: the chip would select every item


@pytest.mark.parametrize("kind", sorted(CHIPS))
def test_every_chip_survives_a_walk_across_scorers_or_is_dropped_by_name(kind: str, conn: sqlite3.Connection) -> None:
    f = CHIPS[kind]
    wrong = shows_errors_only(f, scorer_of(CMRC))
    for old, new in zip(WALK, WALK[1:]):
        before = _chips(f)
        f, notes = moved(with_run(f, new.runs[0], old), old, new)
        after = _chips(f)
        for chip in before:
            assert _said(chip, after, notes), (kind, old.dataset, new.dataset, chip, after, notes)
        assert shows_errors_only(f, scorer_of(new)) == wrong  # `w` means wrong only on every run
        if new is not SQUAD:
            _agrees(conn, f, new)
    if kind not in ("split", "tag", "type", "keys", "compare", "disagree", "outcome", "score band", "refused",
                    "span category"):
        assert _chips(f) == _chips(CHIPS[kind]), kind  # back on the CMRC run: the chips it started with
