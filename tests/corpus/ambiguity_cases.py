"""Hostile inputs that are ambiguous rather than broken: what a file says twice, hides or names
in another's words. Each must load correctly with one warning naming the file and record, or be
one error line, the good folder (`shapes.GOOD_FILES`) loading beside it.

- `CASES`: declared as in `bad_inputs.py` (warning / error / skip, the words the one line holds)
  and checked by the same test (`test_bad_inputs.test_bad_input_is_one_line_and_harmless`).
- `READS`: files refused before that must now load without a word (submission CSVs, prediction
  pairs), with how many of the good dataset's items the run answers.
- `HOSTILE_TEXT`: text for every field that reaches an export (question, gold, prediction, label
  note), checked by `test_ambiguity.py` on every CSV and Markdown writer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import shapes as S
from .bad_inputs import Case, Content, Expect
from .shapes import jl, js

__all__ = ["CASES", "HOSTILE_TEXT", "READS", "Read"]

CASES: dict[str, Case] = {}


def _add(name: str, group: str, files: Mapping[str, Content], expect: Expect, *says: str, names: str = "") -> None:
    assert name not in CASES, f"two cases named {name}"
    CASES[name] = Case(group, files, expect, says, names)


def _twice(data: bytes, key_value: str, earlier: str) -> bytes:
    """`data` (JSON text) with `earlier` written just before the first `key_value`: the same key
    given twice in one object, which `json.dumps` cannot write."""
    text = data.decode("utf-8")
    assert key_value in text, key_value
    return text.replace(key_value, f"{earlier}, {key_value}", 1).encode("utf-8")


_BAD = js(S.squad([S.qa("B1", "Bad one?", "brown"), S.qa("B2", "Bad two?", "fox")]))

# ------------------------------------------------------------------- repeated keys, every level

_add("repeat-squad-data", "repeated keys", {"bad.json": _twice(_BAD, '"data": [', '"data": []')},
     "warning", "top level", "key 'data' repeated", "(a list of 1)")
_add("repeat-squad-title", "repeated keys", {"bad.json": _twice(_BAD, '"title": "Fox"', '"title": "Dog"')},
     "warning", "data[0]", "key 'title' repeated")
_add("repeat-squad-context", "repeated keys", {"bad.json": _twice(_BAD, '"context": ', '"context": "other"')},
     "warning", "data[0].paragraphs[0]", "key 'context' repeated", "'The quick brown")
_add("repeat-squad-id", "repeated keys", {"bad.json": _twice(_BAD, '"id": "B2"', '"id": "B9"')},
     "warning", "data[0].paragraphs[0].qas[1] (id 'B2')", "key 'id' repeated", "('B2')")
_add("repeat-squad-answers", "repeated keys",
     {"bad.json": _twice(_BAD, '"answers": [{"text": "fox"', '"answers": [{"text": "dog", "answer_start": 0}]')},
     "warning", "qas[1] (id 'B2')", "key 'answers' repeated", "(a list of 1)")
_add("repeat-squad-answer-text", "repeated keys", {"bad.json": _twice(_BAD, '"text": "fox"', '"text": "dog"')},
     "warning", "qas[1].answers[0] (id 'B2')", "key 'text' repeated", "('fox')")
_add("repeat-squad-question", "repeated keys",
     {"bad.json": _twice(_BAD, '"question": "Bad one?"', '"question": "Other?"')},
     "warning", "(id 'B1')", "key 'question' repeated", "('Bad one?')")
_add("repeat-squad-many", "repeated keys",
     {"bad.json": _twice(_twice(_BAD, '"id": "B2"', '"id": "B9"'), '"id": "B1"', '"id": "B8"')},
     "warning", "key 'id' repeated", "1 more repeated key in the file")
_add("repeat-jsonl-dataset-id", "repeated keys",
     {"bad.jsonl": jl(*S.dataset_records(1), _twice(js(S.dataset_records(2)[1]), '"id": "B2"', '"id": "B7"'))},
     "warning", "line 2 (id 'B2')", "key 'id' repeated")
_add("repeat-jsonl-dataset-answers", "repeated keys",
     {"bad.jsonl": jl(_twice(js(S.dataset_records(1)[0]), '"answers": ', '"answers": ["fox"]'))},
     "warning", "line 1 (id 'B1')", "key 'answers' repeated", "(a list of 1)")
_add("repeat-json-list-dataset", "repeated keys",
     {"bad.json": js(S.dataset_records(2)).replace(b'"question": "Bad question 2?"',
                                                   b'"question": "x", "question": "Bad question 2?"')},
     "warning", "[1] (id 'B2')", "key 'question' repeated")
_add("repeat-cmrc-original-query-id", "repeated keys",
     {"bad-data.json": _twice(js(S.cmrc_original()), '"query_id": "B1"', '"query_id": "B0"')},
     "warning", "[0].qas[0] (id 'B1')", "key 'query_id' repeated", "('B1')")
_add("repeat-cdqa-annotation", "repeated keys",
     {"bad-data.json": _twice(js([S.cdqa_record()]), '"回答类型": "地名"', '"回答类型": "人名"')},
     "warning", "[0].annotation", "key '回答类型' repeated")
_add("repeat-records-prediction", "repeated keys",
     {"bad.jsonl": jl({"id": "Q1", "prediction": "quick brown fox"},
                      b'{"id": "Q2", "prediction": "the lazy dog", "prediction": "a dog"}')},
     "warning", "line 2 (id 'Q2')", "key 'prediction' repeated", "('a dog')")
_add("repeat-records-id", "repeated keys",
     {"bad.jsonl": jl({"id": "Q1", "prediction": "fox"}, b'{"id": "Q3", "id": "Q2", "prediction": "dog"}')},
     "warning", "line 2 (id 'Q2')", "key 'id' repeated", "('Q2')")
_add("repeat-records-meta", "repeated keys",
     {"bad.jsonl": jl({"id": "Q1", "prediction": "fox"}, b'{"id": "Q2", "prediction": "dog", "m": {"t": 1, "t": 2}}')},
     "warning", "line 2.m (id 'Q2')", "key 't' repeated")
_add("repeat-inspect-eval-member", "repeated keys",
     {"logs/run.eval": lambda: S.eval_zip({
         "header.json": js(S.inspect_header()),
         "samples/Q1_epoch_1.json": _twice(js(S.inspect_sample()), '"target": ', '"target": "nothing"')})},
     "warning", "member samples/Q1_epoch_1.json (id 'Q1')", "key 'target' repeated", "('quick brown fox')")
_add("repeat-inspect-json-log", "repeated keys",
     {"logs/run.json": _twice(js(S.inspect_header(samples=[S.inspect_sample()])), '"model": ', '"model": "x"')},
     "warning", "eval", "key 'model' repeated")
_add("repeat-map-kept-value", "repeated keys", {"dup.json": b'{"Q1": "first", "Q2": "b", "Q1": "last"}'},
     "warning", "1 duplicate id; the last of each was kept", "'Q1': 'last'")

# ------------------------------------------------------------------ byte-order marks in a line

_BOM = b"\xef\xbb\xbf"
_add("bom-csv-middle-line", "byte-order marks", {"sub.csv": S.csv_text("id,prediction", "Q1,fox") + _BOM + b"Q2,dog\n"},
     "warning", "line 3", "byte-order mark")
_add("bom-csv-two-lines", "byte-order marks",
     {"sub.csv": S.csv_text("id,prediction", "Q1,fox") + _BOM + b"Q2,dog\n" + _BOM + b"Q3,bank\n"},
     "warning", "line 3 (and 1 more line)", "byte-order mark")
_add("bom-jsonl-run-middle-line", "byte-order marks",
     {"bad.jsonl": jl({"id": "Q1", "prediction": "fox"}, _BOM + js({"id": "Q2", "prediction": "dog"}))},
     "warning", "line 2", "byte-order mark")
_add("bom-jsonl-dataset-middle-line", "byte-order marks",
     {"bad.jsonl": jl(S.dataset_records(1)[0], _BOM + js(S.dataset_records(2)[1]))},
     "warning", "line 2", "byte-order mark")

# --------------------------------------------------------------- header rows of joined CSV files

_add("csv-header-repeated", "joined files", {"sub.csv": S.csv_text("id,prediction", "Q1,fox", "id,prediction", "Q2,dog")},
     "warning", "line 3", "header row repeated")
_add("csv-header-repeated-twice", "joined files",
     {"sub.csv": S.csv_text("Id,Predicted", "Q1,fox", "Id,Predicted", "Q2,dog", " Id , Predicted ", "Q3,bank")},
     "warning", "line 3 (and 1 more line)", "header row repeated")

# ----------------------------------------------------------------------- prediction map pairs

_add("map-pair-null-null", "prediction pairs", {"bad.json": js({"Q1": ["fox", None], "Q2": [None, None]})},
     "error", "key 'Q2'", "[null, null]")

# ------------------------------------------------------------------------------ split datasets


def _part(first: int, last: int) -> bytes:
    return js(S.squad(S.qa(f"B{i}", f"Split question {i}?", "brown") for i in range(first, last + 1)))


_SPLIT_RUN = js({f"B{i}": "brown" for i in range(1, 7)})
_add("split-dataset-two-files", "split datasets",
     {"split/part1.json": _part(1, 4), "split/part2.json": _part(5, 6), "split/run.json": _SPLIT_RUN},
     "warning", "2 predictions match no item of 'part1'", "2 of them are items of 'part2'", "split dataset?",
     names="split/run.json")
_add("split-dataset-three-files", "split datasets",
     {"split/part1.json": _part(1, 3), "split/part2.json": _part(4, 5), "split/part3.json": _part(6, 6),
      "split/run.json": _SPLIT_RUN},
     "warning", "3 predictions match no item of 'part1'", "2 of them are items of 'part2'",
     "1 of them are items of 'part3'", names="split/run.json")


@dataclass(frozen=True)
class Read:
    """A file that must load with no warning: a run answering `answers` of the good dataset's items."""

    files: Mapping[str, Content]
    answers: int


_SUBMISSION = {"Q1": "quick brown fox", "Q2": "the lazy dog", "Q3": "bank", "Q4": "brown"}


def _submission(header: str, sep: str = ",") -> bytes:
    return S.csv_text(header, *(f"{k}{sep}{v}" for k, v in _SUBMISSION.items()))


_HEADERS = (("Id,Predicted", ","), ("id,prediction", ","), ("qid,answer", ","), ("question_id,text", ","),
            ("ID,PREDICTED", ","), ("Id;Predicted", ";"), ("uuid,answer", ","), ("id,predicted_answer", ","))
"""The Kaggle / CS224n submission header and the variants people write."""

READS: dict[str, Read] = {
    **{f"submission-{h.replace(sep, '-')}": Read({"sub.csv": _submission(h, sep)}, 4) for h, sep in _HEADERS},
    "submission-bom-first-line": Read({"sub.csv": b"\xef\xbb\xbf" + _submission("Id,Predicted")}, 4),
    "map-pair-text-null": Read({"pairs.json": js({k: [v, None] for k, v in _SUBMISSION.items()})}, 4),
    "map-pair-text-score": Read({"pairs.json": js({k: [v, 0.5] for k, v in _SUBMISSION.items()})}, 4),
    "map-pair-some-null": Read({"pairs.json": js({"Q1": ["fox", None], "Q2": "dog", "Q3": ["", None]})}, 3),
}

HOSTILE_TEXT = {
    "formula-equals": '=HYPERLINK("http://example.invalid","click")',
    "formula-plus": "+cmd|' /C calc'!A0",
    "formula-minus": "-2+3",
    "formula-at": "@SUM(A1:A9)",
    "formula-tab": "\t=1+1",
    "formula-cr": "\r=1+1",
    "esc": "red \x1b[31mtext\x1b[0m",
    "c1-csi": "csi \x9b31m here",
    "bidi-override": "abc \u202edcba\u202c end",
    "bidi-isolate": "x \u2066y\u2069 z",
    "del-and-nul": "a\x7fb\x00c",
    "line-separator": "one\u2028two",
}
"""Text placed in a question, a gold, a prediction and a label note; every CSV/Markdown cell that
shows it must be free of formulas (unless raw) and of control and bidi characters."""
