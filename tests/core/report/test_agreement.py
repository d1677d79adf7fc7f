"""Agreement gathered from the journal (core.report.agreement): each annotator's deciding judgement,
κ and α equal to the reference libraries on a planted set, per tag and answer type, and the
disagreements as a browser filter and as a queue with reasons side by side."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from qa_inspect.core import flags as F
from qa_inspect.core import labels as L
from qa_inspect.core.errors import QAInspectError
from qa_inspect.core.query import Filter, count
from qa_inspect.core.report import (
    agreement_report,
    disagreement_filter,
    gather_judgements,
)

from tests.helpers import Env, loaded_env

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
metrics = pytest.importorskip("sklearn.metrics")

pytestmark = pytest.mark.usefixtures("no_author_env")

CDQA = "cdqa_sample"
ANNOTATORS = ("ana", "bo", "cy")
CATS = ("fresh", "stale")
# per gold (by position among the CDQA golds): each annotator's category; a pattern that is neither
# all-agreeing nor random, over enough golds that the coefficients are defined
PLANT = ["sss", "fff", "sfs", "ffs", "sss", "fff", "ssf", "fsf", "fff", "sss", "sff", "fff"]


def golds(env: Env) -> list[F.Target]:
    rows = env.conn.execute(
        "SELECT i.key, g.text FROM golds g JOIN items i ON i.id = g.item_id JOIN datasets d ON d.id = i.dataset_id"
        " WHERE d.name = ? AND g.superseded = 0 ORDER BY i.id, g.idx", (CDQA,)).fetchall()
    return [F.Target(CDQA, key, text) for key, text in rows]


def plant(env: Env) -> dict[str, dict[str, str]]:
    """Judge the golds as PLANT says, through the public actions; returns the ratings planted."""
    planted: dict[str, dict[str, str]] = {}
    for target, pattern in zip(golds(env), PLANT, strict=False):
        planted[target.item_key + target.gold_text] = {}
        for who, c in zip(ANNOTATORS, pattern, strict=True):
            if c == "s":
                F.mark(env.conn, target.dataset, target.item_key, target.gold_text, author=who,
                       reason=f"{who} says stale")
            else:
                F.verify(env.conn, [target], author=who, note=f"{who} checked")
            planted[target.item_key + target.gold_text][who] = {"s": "stale", "f": "fresh"}[c]
    return planted


def test_the_numbers_are_the_reference_libraries_on_a_planted_set(env: Env) -> None:
    planted = plant(env)
    report = agreement_report(env.conn, "stale", resamples=200)
    assert report.annotators == list(ANNOTATORS) and len(report.units) == len(PLANT)
    items = sorted(planted)
    counts = np.array([[sum(planted[i][a] == c for a in ANNOTATORS) for c in CATS] for i in items])
    data = np.array([[CATS.index(planted[i][a]) for i in items] for a in ANNOTATORS], dtype=float)
    assert math.isclose(report.overall.fleiss.estimate or 0, inter_rater.fleiss_kappa(counts), abs_tol=1e-12)
    assert math.isclose(report.overall.alpha.estimate or 0,
                        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs_tol=1e-12)
    for (first, second), value in report.overall.pairs.items():
        expected = metrics.cohen_kappa_score([planted[i][first] for i in items], [planted[i][second] for i in items])
        assert math.isclose(value.estimate or 0, expected, abs_tol=1e-12)
    assert set(report.by_tag) <= {"fast-changing", "slow-changing", "never-changing"} and report.by_tag
    assert sum(a.fleiss.items for a in report.by_tag.values()) <= len(PLANT)
    data_dict = report.to_dict()
    assert data_dict["overall"]["fleiss_kappa"]["estimate"] == report.overall.fleiss.estimate


def test_disagreements_as_a_filter_and_side_by_side(env: Env) -> None:
    plant(env)
    report = agreement_report(env.conn, "stale", resamples=50)
    disagreeing = [p for p in PLANT if len(set(p)) > 1]
    assert len(report.disagreements) == len(disagreeing)
    first = report.disagreements[0]
    assert {j.annotator: j.reason for j in first.judgements.values()} == {
        who: f"{who} {'says stale' if j.category == 'stale' else 'checked'}" for who, j in first.judgements.items()}
    f = disagreement_filter(report)
    assert set(f.keys or ()) == {u.item_key for u in report.disagreements}
    assert count(env.conn, disagreement_filter(report, Filter(dataset=CDQA))) == len(set(f.keys or ()))


def test_the_latest_judgement_not_undone_decides(env: Env) -> None:
    target = golds(env)[0]
    F.mark(env.conn, target.dataset, target.item_key, target.gold_text, author="ana", proposed="x")
    F.verify(env.conn, [target], author="bo")
    F.unmark(env.conn, target.dataset, target.item_key, target.gold_text, author="ana")
    F.undo(env.conn, author="ana")  # the unmark: ana's mark stands
    [unit] = gather_judgements(env.conn, "stale")
    assert {a: j.category for a, j in unit.judgements.items()} == {"ana": "stale", "bo": "fresh"}
    assert unit.judgements["ana"].reason == "→ x" and unit.tag is not None


def test_labels_compare_the_set_each_annotator_put_on_a_run_item(env: Env, loaded_template: Path, tmp_path: Path) -> None:
    """Labels are judged blind, each annotator in their own database (a label already on is not
    written again), then merged: here through a label export, as journal files would."""
    run = "glm-6b"
    keys = [t.item_key for t in golds(env)[:3]]
    known = ["gold-wrong", "paraphrase"]
    L.add_labels(env.conn, run, keys, ["gold-wrong"], author="ana", known=known)
    with loaded_env(loaded_template, tmp_path / "bo") as theirs:
        L.add_labels(theirs.conn, run, keys[:2], ["gold-wrong"], author="bo", known=known)
        L.add_labels(theirs.conn, run, keys[2:], ["paraphrase"], author="bo", known=known)
        L.remove_labels(theirs.conn, run, keys[1:2], ["gold-wrong"], author="bo")
        export = tmp_path / "bo.jsonl"
        with export.open("w", encoding="utf-8") as fh:
            L.export_labels(theirs.conn, fh)
    L.import_labels(env.conn, export)
    units = {u.item_key: {a: j.category for a, j in u.judgements.items()} for u in gather_judgements(env.conn, "labels")}
    assert units == {keys[0]: {"ana": "gold-wrong", "bo": "gold-wrong"}, keys[1]: {"ana": "gold-wrong", "bo": "none"},
                     keys[2]: {"ana": "gold-wrong", "bo": "paraphrase"}}
    assert len(agreement_report(env.conn, "labels", resamples=20).disagreements) == 2


def test_an_unknown_kind_is_one_clear_line(env: Env) -> None:
    with pytest.raises(QAInspectError, match="unknown kind of judgement 'votes'; known: stale, labels, aliases"):
        gather_judgements(env.conn, "votes")
    assert gather_judgements(env.conn, "aliases") == []
