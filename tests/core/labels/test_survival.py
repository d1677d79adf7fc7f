"""Labels survive as stale flags do: reloads, a changed prediction file, a renamed dataset file, a
new dataset release where the item remains; and they travel: export → import between two
databases (idempotent), conflicts reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qa_inspect.core import flags as F
from qa_inspect.core import labels as L
from qa_inspect.core.errors import FormatError
from qa_inspect.core.load import load_runs

from tests.helpers import Env, copy_loaded

RUN, DS = "bert-base-chinese", "cmrc2018_dev_sample"
K0, K1 = "DEV_4_QUERY_0", "DEV_4_QUERY_1"
DS_FILE = Path("cmrc2018/cmrc2018_dev_sample.json")

pytestmark = pytest.mark.usefixtures("no_author_env")


def state(env: Env) -> list[tuple[str, str, str, str, str | None]]:
    return [(lab.run, lab.dataset, lab.item_key, lab.label, lab.note) for lab in L.current_labels(env.conn)]


def label_some(env: Env) -> list[tuple[str, str, str, str, str | None]]:
    L.add_labels(env.conn, RUN, [K0, K1], ["paraphrase"], author="ann")
    L.add_labels(env.conn, RUN, [K0], ["gold-wrong"], note="three golds disagree", author="ann")
    L.set_note(env.conn, RUN, K1, "boundary", author="ann")
    return state(env)


def edit_dataset(env: Env, change) -> None:  # noqa: ANN001
    path = env.runs / DS_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")


def test_labels_survive_reloads_and_a_changed_prediction_file(env: Env) -> None:
    before = label_some(env)
    env.reload()
    assert state(env) == before
    path = env.runs / "cmrc2018/runs/bert-base-chinese.json"
    preds = json.loads(path.read_text(encoding="utf-8"))
    preds[K0] = "巴西"
    path.write_text(json.dumps(preds, ensure_ascii=False), encoding="utf-8")
    summary = load_runs(env.runs, env.db)
    assert [r.status for r in summary.runs if r.name == RUN] == ["loaded"]
    assert state(env) == before
    assert L.item_labels(env.conn, RUN, DS, K1).note == "boundary"


def test_labels_follow_a_renamed_dataset_file(env: Env) -> None:
    label_some(env)
    (env.runs / DS_FILE).rename(env.runs / "cmrc2018/cmrc_dev_v2.json")
    env.reload()
    assert {(lab.dataset, lab.item_key, lab.label) for lab in L.current_labels(env.conn)} == {
        ("cmrc_dev_v2", K0, "paraphrase"), ("cmrc_dev_v2", K1, "paraphrase"), ("cmrc_dev_v2", K0, "gold-wrong")}
    # and new actions land on the same (run, item)
    L.remove_labels(env.conn, RUN, [K0], ["paraphrase"], author="ann")
    assert L.item_labels(env.conn, RUN, "cmrc_dev_v2", K0).names == ["gold-wrong"]


def test_labels_survive_a_release_where_the_item_remains(env: Env) -> None:
    before = label_some(env)

    def change(data: dict) -> None:  # a gold fixed, a question added: same dataset by identity rules
        qa = data["data"][0]["paragraphs"][0]["qas"][0]
        qa["answers"][0]["text"] = "巴西国"
        data["data"][0]["paragraphs"][0]["qas"].append({"question": "新问题？", "id": "DEV_4_QUERY_99",
                                                        "answers": [{"text": "巴西", "answer_start": 34}]})

    edit_dataset(env, change)
    env.reload()
    assert state(env) == before


def test_export_import_round_trip_between_two_databases(env: Env, loaded_template: Path, tmp_path: Path) -> None:
    label_some(env)
    L.add_labels(env.conn, RUN, [K1], ["format"], author="ann")
    F.undo(env.conn, "ann")  # the undo travels too
    path = tmp_path / "labels.jsonl"
    with path.open("w", encoding="utf-8") as out:
        lines = L.export_labels(env.conn, out)
    assert lines == len(L.label_records(env.conn)) == 6
    other = copy_loaded(loaded_template, tmp_path / "other")
    from qa_inspect.core.store import open_db

    conn = open_db(other.parent / "qa.db").conn
    first = L.import_labels(conn, path)
    assert (first.added, first.duplicates, first.unknown, first.conflicts) == (6, 0, [], [])
    assert [(lab.item_key, lab.label, lab.author) for lab in L.current_labels(conn)] == [
        (lab.item_key, lab.label, lab.author) for lab in L.current_labels(env.conn)]
    again = L.import_labels(conn, path)
    assert (again.added, again.duplicates) == (0, 6)
    # bob takes a label off in his database; ann's export and bob's disagree: a conflict, latest wins
    L.remove_labels(conn, RUN, [K0], ["gold-wrong"], author="bob")
    bob = tmp_path / "bob.jsonl"
    with bob.open("w", encoding="utf-8") as out:
        L.export_labels(conn, out)
    result = L.import_labels(env.conn, bob)
    assert result.added == 1
    [conflict] = result.conflicts
    assert (conflict.item_key, conflict.label, conflict.by_author) == (K0, "gold-wrong", {"ann": "label", "bob": "unlabel"})
    assert L.item_labels(env.conn, RUN, DS, K0).names == ["paraphrase"]


def test_import_leaves_out_unknown_runs_and_names_bad_lines(env: Env, tmp_path: Path) -> None:
    rec = {"kind": "label-journal", "uid": "u1", "ts": "2026-01-01T00:00:00Z", "author": "x", "action": "label",
           "run": "no-such-run", "dataset": DS, "item_key": K0, "label": "format"}
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    result = L.import_labels(env.conn, path)
    assert result.added == 0 and result.unknown == [f"no-such-run {DS} {K0}: unknown run"]
    path.write_text(json.dumps({**rec, "action": "mark"}) + "\n", encoding="utf-8")
    with pytest.raises(FormatError, match="line 1.*unknown action 'mark'|unknown action 'mark'.*line 1"):
        L.import_labels(env.conn, path)


def test_a_label_export_is_refused_by_stale_import_with_a_hint(env: Env, tmp_path: Path) -> None:
    L.add_labels(env.conn, RUN, [K0], ["format"], author="ann")
    path = tmp_path / "labels.jsonl"
    with path.open("w", encoding="utf-8") as out:
        L.export_labels(env.conn, out)
    with pytest.raises(FormatError, match="label import"):
        F.import_file(env.conn, path)
