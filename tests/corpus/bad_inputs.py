"""The bad-input corpus: what a runs folder can hold that must never break the tool.

Each `Case` is data: the file(s) to write beside the good folder (`shapes.GOOD_FILES`), their
bytes (generated: nothing binary is committed), and what the load must say: `error` (exit 1),
`warning` (loaded, exit 0) or `skip` (not QA data: listed with its reason, exit 0); which path the
one line names, and the words it must hold (the record, where there is one). Filesystem oddities
(links, odd names) are a `setup` step; `refuse` lists paths made unreadable.

`test_bad_inputs.py` loads every case and checks the rest: no traceback, one line, the good
dataset and run loaded and reported, the annotation commands still working. The manifest and
filesystem cases are in `bad_folders.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from . import shapes as S
from .shapes import jl, js

__all__ = ["CASES", "Case", "Content", "Expect", "add"]

Content = bytes | Callable[[], bytes]
"""A file's bytes, or a function making them (big and binary files are made when the case runs)."""
Expect = Literal["error", "warning", "skip"]


@dataclass(frozen=True)
class Case:
    group: str
    files: Mapping[str, Content]
    expect: Expect
    says: tuple[str, ...]
    """Words the one line must hold besides the path, e.g. the record ("line 3", "key 'Q2'")."""
    names: str = ""
    """The path the line names; default: the first of `files`."""
    setup: Callable[[Path], object] | None = None
    """Makes what bytes cannot say (links, odd names, folders) in the runs folder."""
    refuse: tuple[str, ...] = ()
    """Paths (files or folders) made unreadable: chmod 000, simulated when running as root."""

    @property
    def target(self) -> str:
        return self.names or next(iter(self.files))


CASES: dict[str, Case] = {}


def add(name: str, group: str, files: Mapping[str, Content], expect: Expect, *says: str, names: str = "",
        setup: Callable[[Path], object] | None = None, refuse: tuple[str, ...] = ()) -> None:
    """One case into `CASES` (names are unique)."""
    assert name not in CASES, f"two cases named {name}"
    CASES[name] = Case(group, files, expect, says, names, setup, refuse)


def error(name: str, group: str, files: Mapping[str, Content], *says: str, names: str = "") -> None:
    add(name, group, files, "error", *says, names=names)


def _damaged(data: bytes) -> bytes:
    """The bytes between header and footer scrambled: the schema reads, the data does not."""
    middle = bytes(b ^ 0x5A for b in data[8:len(data) // 2])
    return data[:8] + middle + data[len(data) // 2:]


# ------------------------------------------------------------------------------- empty files

for _suffix in (".json", ".jsonl", ".eval", ".parquet", ".arrow", ".prediction"):
    error(f"empty{_suffix}", "empty", {f"bad{_suffix}": b""}, "empty file")
error("blank-lines-only", "empty", {"bad.jsonl": b"\n  \n\t\n"}, "empty file")
error("bom-only", "empty", {"bad.json": b"\xef\xbb\xbf"}, "empty file")
error("bom-and-blank-lines", "empty", {"bad.jsonl": b"\xef\xbb\xbf\n\n"}, "empty file")

# ----------------------------------------------------------------------- encodings and bytes

_MAP_TEXT = json.dumps({"Q1": "quick brown fox", "Q2": "狐狸"}, ensure_ascii=False)
error("utf16-without-bom", "encoding", {"bad.json": _MAP_TEXT.encode("utf-16-le")}, "UTF-16")
error("utf32-without-bom", "encoding", {"bad.json": _MAP_TEXT.encode("utf-32-le")}, "UTF-32")
error("gb18030-bad-record", "encoding",
      {"bad.jsonl": '{"id": "Q1", "prediction": "狐狸"}\n{"id": "Q2", "prediction": ["跳"]}\n'.encode("gb18030")},
      "line 2", "prediction is a list")
error("utf8-bom-bad-record", "encoding",
      {"bad.jsonl": b"\xef\xbb\xbf" + jl({"id": "Q1", "prediction": "x"}, {"id": "Q2", "prediction": {"a": 1}})},
      "line 2", "prediction is an object")
error("utf8-one-broken-byte", "encoding",
      {"bad.jsonl": jl({"id": "Q1", "prediction": "狐狸跳过了懒狗"}, {"id": "Q2", "prediction": "河岸边的狗"},
                       b'{"id": "Q3", "prediction": "\xe6\xb2\xb3\xff\xe5\xb2\xb8"}', {"id": "Q4", "prediction": "棕色"})},
      "line 3", "not valid UTF-8")
error("latin1", "encoding", {"bad.json": '{"Q1": "café", "Q2": "naïve"}'.encode("latin-1")}, "not UTF-8 or GB18030")
error("binary-with-nul", "encoding", {"bad.json": bytes(range(256)) * 4}, "NUL")
error("nul-inside-text", "encoding", {"bad.json": b'{"Q1": "quick\x00brown"}'}, "NUL")
error("gzip-named-json", "encoding", {"bad.json": b"\x1f\x8b\x08\x00" + bytes(range(1, 200))}, "gzip")
error("bom-on-every-line", "encoding",
      {"bad.jsonl": b"\xef\xbb\xbf" + jl({"id": "Q1", "prediction": "x"}) + b"\xef\xbb\xbf"
       + jl({"id": "Q2", "prediction": "y"}, {"id": "Q3", "prediction": ["z"]})},
      "line 3", "prediction is a list")
error("line-separators-in-text", "encoding",
      {"bad.jsonl": jl({"id": "Q1", "prediction": "quick\u2028brown\x85fox\u2029"}, {"id": "Q2", "prediction": "dog"},
                       '{"id": "Q3", "prediction": "riv')},
      "line 3", "truncated JSON")
for _suffix in (".json", ".parquet", ".eval", ".csv"):
    error(f"lfs-pointer{_suffix}", "encoding",
          {f"bad{_suffix}": b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"ab" * 32 + b"\nsize 123\n"},
          "git lfs pull")

# ------------------------------------------------------------------------------- JSON syntax

error("truncated-map", "syntax", {"bad.json": b'{"Q1": "quick brown fox", "Q2": "the la'}, "invalid JSON at line 1")
error("trailing-comma", "syntax", {"bad.json": b'{"Q1": "a", "Q2": "b",}'}, "invalid JSON")
error("single-quotes", "syntax", {"bad.json": b"{'Q1': 'a'}"}, "invalid JSON")
error("comments", "syntax", {"bad.json": b'{\n  // answers\n  "Q1": "a"\n}'}, "invalid JSON at line 2")
error("python-literals", "syntax", {"bad.json": b'{"Q1": None, "Q2": True}'}, "invalid JSON")
error("two-documents-one-line", "syntax", {"bad.json": b'{"Q1": "a"}{"Q2": "b"}'}, "invalid JSON")
error("jsonl-truncated-last-line", "syntax",
      {"bad.jsonl": jl({"id": "Q1", "prediction": "a"}, {"id": "Q2", "prediction": "b"}, '{"id": "Q3", "predic')},
      "line 3", "truncated JSON")
error("jsonl-merge-conflict", "syntax",
      {"bad.jsonl": jl({"id": "Q1", "prediction": "a"}, "<<<<<<< HEAD", {"id": "Q2", "prediction": "b"})},
      "line 2", "invalid JSON")
error("jsonl-crlf-bad-line", "syntax",
      {"bad.jsonl": b'{"id": "Q1", "prediction": "a"}\r\n{"id": "Q2", "prediction": 1e}\r\n'}, "line 2", "JSON")
error("truncated-dataset", "syntax", {"bad-data.json": js(S.squad([S.qa("B1", "q?", "fox")]))[:-9]}, "invalid JSON")

# -------------------------------------------------------------------- nesting, numbers, text

error("deep-array", "limits", {"deep.json": b"[" * 5000 + b"]" * 5000}, "nested deeper")
error("deep-object", "limits", {"deep.json": b'{"a":' * 3000 + b"1" + b"}" * 3000}, "nested deeper")
error("deep-in-jsonl-record", "limits",
      {"deep.jsonl": jl({"id": "Q1", "prediction": "a"},
                        '{"id": "Q2", "prediction": ' + "[" * 3000 + "]" * 3000 + "}")},
      "line 2", "nested deeper")
error("deep-in-map-value", "limits", {"deep.json": b'{"Q1": "a", "Q2": ' + b"[" * 1500 + b"]" * 1500 + b"}"},
      "nested deeper")
error("nested-600-in-record-meta", "limits",
      {"deep.jsonl": jl({"id": "Q1", "prediction": "a"},
                        '{"id": "Q2", "prediction": "b", "extra": ' + "[" * 600 + "]" * 600 + "}",
                        {"id": "Q3", "prediction": ["c"]})},
      "line 3", "prediction is a list")
error("nested-600-in-squad-meta", "limits",
      {"deep-data.json": b'{"data": [{"paragraphs": [{"context": "x", "qas": [{"id": "B1", "question": "q?", "answers": [],'
                         b' "extra": ' + b"[" * 600 + b"]" * 600 + b'}, {"id": "B2", "answers": []}]}]}]}'},
      "qas[1]", "no question")
error("number-5000-digits", "limits", {"big.json": b'{"Q1": ' + b"9" * 5000 + b"}"}, "4,300 digits")
error("number-5000-digits-id", "limits",
      {"big.jsonl": jl({"id": "Q1", "prediction": "a"}, '{"id": ' + "7" * 5000 + ', "prediction": "b"}')},
      "line 2", "4,300 digits")
error("huge-answer-start", "limits",
      {"bad-data.json": js(S.squad([{"id": "B1", "question": "q?", "answers": [{"text": "fox", "answer_start": 10 ** 30}]}]))},
      "qas[0]", "answer_start")
error("huge-null-odds", "limits",
      {"m/eval_predictions.json": js({"Q1": "fox", "Q2": "dog"}),
       "m/eval_null_odds.json": b'{"Q1": 1.5, "Q2": ' + b"9" * 400 + b"}"},
      "key 'Q2'", names="m/eval_null_odds.json")
error("huge-nbest-logit", "limits",
      {"m/eval_predictions.json": js({"Q1": "fox"}),
       "m/eval_nbest_predictions.json": b'{"Q1": [{"text": "fox", "start_logit": ' + b"9" * 400 + b', "end_logit": 1}]}'},
      "key 'Q1'", names="m/eval_nbest_predictions.json")
error("huge-inspect-score", "limits",
      {"bad.json": b'{"version": 2, "eval": {"task": "qa", "model": "m"}, "samples": [{"id": "Q1", "input": "What jumps?",'
                   b' "output": {"completion": "fox"}, "scores": {"m": {"value": ' + b"9" * 400 + b"}}}]}"},
      "samples[0]", "score")
error("nan-map-value", "limits", {"nan.json": b'{"Q1": NaN, "Q2": "x"}'}, "key 'Q1'", "NaN")
error("infinity-gold", "limits", {"inf.jsonl": b'{"id": "B1", "question": "q?", "answers": [Infinity]}\n'},
      "line 1", "Infinity")
error("nan-id", "limits", {"nan.jsonl": jl({"id": "Q1", "prediction": "a"}, '{"id": NaN, "prediction": "b"}')},
      "line 2", "id is NaN")
add("lone-surrogate-prediction", "limits", {"sur.json": b'{"Q1": "a\\ud800b", "Q2": "x"}'}, "warning", "lone surrogate")
add("lone-surrogate-question", "limits",
      {"sur.json": b'{"data": [{"title": "t", "paragraphs": [{"context": "abc", "qas": [{"id": "B1", '
                   b'"question": "\\udfff?", "answers": []}]}]}]}'},
    "warning", "lone surrogate")
add("lone-surrogate-key", "limits", {"sur.json": b'{"Q1": "a", "\\ud834": "b"}'}, "warning", "lone surrogate")
error("huge-line-then-truncated", "limits",
      {"big.jsonl": lambda: jl({"id": "Q1", "prediction": "x" * 10_000_000}, '{"id": "Q2", "pre')},
      "line 2", "truncated JSON")
error("huge-key-bad-value", "limits", {"big.json": lambda: js({"Q1": "a", "K" * 1_000_000: ["b"]})}, "value is a list")
error("huge-id-duplicate", "limits",
      {"big.jsonl": lambda: jl({"id": "I" * 1_000_000, "prediction": "a"}, {"id": "I" * 1_000_000, "prediction": "b"})},
      "line 2", "duplicate id")
error("huge-csv-field-then-bad-row", "limits",
      {"bad.csv": lambda: S.csv_text("id,prediction", "Q1," + "y" * 300_000, ",nameless")}, "line 3", "no question")

# ------------------------------------------------------------------------------ prediction maps

error("map-list-value", "prediction-map", {"bad.json": js({"Q1": "a", "Q2": ["b"], "Q3": "c"})},
      "key 'Q2'", "value is a list")
error("map-object-value", "prediction-map", {"bad.json": js({"Q1": "a", "Q2": {"text": "b"}})}, "key 'Q2'", "an object")
error("map-null-value", "prediction-map", {"bad.json": js({"Q1": "a", "Q2": None, "Q3": "c"})}, "key 'Q2'", "null")
error("map-bool-value", "prediction-map", {"bad.json": js({"Q1": "a", "Q2": True, "Q3": "c"})}, "key 'Q2'", "boolean")
error("map-blank-key", "prediction-map", {"bad.json": js({"Q1": "a", " ": "b"})}, "key ' '", "empty id")
add("map-duplicate-key", "prediction-map", {"dup.json": b'{"Q1": "a", "Q2": "b", "Q1": "c"}'}, "warning",
    "1 duplicate id; the last of each was kept")
add("map-three-duplicates", "prediction-map",
    {"dup.json": b'{"Q1": "a", "Q2": "b", "Q1": "c", "Q3": "d", "Q2": "e", "Q1": "f"}'}, "warning",
    "3 duplicate ids; the last of each was kept")
add("map-duplicate-after-strip", "prediction-map", {"dup.json": b'{"Q1": "a", " Q1": "b", "Q2": "c"}'}, "warning",
    "1 duplicate id; the last of each was kept")
error("nbest-not-a-list", "prediction-map",
      {"m/eval_predictions.json": js({"Q1": "fox"}), "m/eval_nbest_predictions.json": js({"Q1": {"text": "fox"}})},
      "key 'Q1'", "candidates are an object", names="m/eval_nbest_predictions.json")
error("nbest-truncated", "prediction-map",
      {"m/eval_predictions.json": js({"Q1": "fox"}), "m/eval_nbest_predictions.json": b'{"Q1": [{"text": "fo'},
      "invalid JSON", names="m/eval_nbest_predictions.json")
error("null-odds-text", "prediction-map",
      {"m/eval_predictions.json": js({"Q1": "fox", "Q2": "dog"}), "m/eval_null_odds.json": js({"Q1": 0.5, "Q2": "high"})},
      "key 'Q2'", "a string", names="m/eval_null_odds.json")
error("null-odds-a-list", "prediction-map",
      {"m/eval_predictions.json": js({"Q1": "fox"}), "m/eval_null_odds.json": js([0.5])},
      "a list", names="m/eval_null_odds.json")

# --------------------------------------------------------------------------- prediction records

_P1 = {"id": "Q1", "prediction": "a"}
for _name, _record, _says in (
    ("record-a-list", [1, 2], "record is a list"),
    ("record-null", None, "record is null"),
    ("record-a-string", '"Q2: dog"', "record is a string"),
    ("prediction-a-list", {"id": "Q2", "prediction": ["dog"]}, "prediction is a list"),
    ("id-a-list", {"id": ["Q2"], "prediction": "dog"}, "id is a list"),
    ("id-a-boolean", {"id": True, "prediction": "dog"}, "id is a boolean"),
    ("id-an-object", {"id": {"q": 2}, "prediction": "dog"}, "id is an object"),
    ("no-id-no-question", {"prediction": "dog"}, "names no item"),
    ("question-a-number", {"question": 7, "prediction": "dog"}, "names no item"),
    ("dataset-record-in-run", {"id": "Q2", "question": "Over what?", "answers": ["dog"]}, "no prediction"),
):
    error(_name, "prediction-records", {"bad.jsonl": jl(_P1, _record, {"id": "Q3", "prediction": "c"})}, "line 2", _says)
error("records-duplicate-id", "prediction-records",
      {"bad.jsonl": jl(_P1, {"id": "Q2", "prediction": "b"}, {"id": "Q1", "prediction": "c"})},
      "line 3", "duplicate id 'Q1' (first at line 1)")
error("records-json-list", "prediction-records", {"bad.json": js([_P1, {"id": "Q2", "response": []}])},
      "record 2", "response is a list")

# ---------------------------------------------------------------------------- dataset records

_B1 = S.dataset_records(1)[0]
for _name, _record, _says in (
    ("gold-object-without-text", {"id": "B2", "question": "q?", "answers": [{"answer": "x"}]}, "no 'text'"),
    ("gold-a-list-of-lists", {"id": "B2", "question": "q?", "answers": [["x"]]}, "answer is a list"),
    ("question-a-list", {"id": "B2", "question": ["q?"], "answers": ["x"]}, "question is a list"),
    ("question-null", {"id": "B2", "question": None, "answers": ["x"]}, "no question (id B2)"),
    ("context-a-number", {"id": "B2", "question": "q?", "context": 7, "answers": ["x"]}, "context is a number"),
    ("answer-start-text", {"id": "B2", "question": "q?", "context": "x", "answers": [{"text": "x", "answer_start": "0"}]},
     "answer_start is a string"),
    ("gold-boolean", {"id": "B2", "question": "q?", "answers": [False]}, "answer is a boolean"),
    ("dataset-duplicate-id", {"id": "B1", "question": "again?", "answers": ["x"]}, "duplicate id 'B1' (first at line 1)"),
):
    error(_name, "jsonl-dataset", {"bad-data.jsonl": jl(_B1, _record)}, "line 2", _says)

# ---------------------------------------------------------------------------------- SQuAD JSON

_GOOD_QA = S.qa("B1", "What jumps?", "quick brown fox")
error("squad-paragraphs-a-string", "squad", {"bad-data.json": js({"data": [{"title": "t", "paragraphs": "x"}]})},
      "data[0]", "paragraphs")
error("squad-qas-an-object", "squad",
      {"bad-data.json": js({"data": [{"paragraphs": [{"context": S.CONTEXT, "qas": {"id": "B1"}}]}]})},
      "data[0].paragraphs[0]", "qas")
error("squad-context-null", "squad", {"bad-data.json": js(S.squad([_GOOD_QA], context=None))},
      "data[0].paragraphs[0]", "context is null")
error("squad-qa-a-string", "squad", {"bad-data.json": js(S.squad([_GOOD_QA, "B2"]))}, "qas[1]", "a string")
error("squad-answers-a-string", "squad",
      {"bad-data.json": js(S.squad([_GOOD_QA, {"id": "B2", "question": "q?", "answers": "fox"}]))},
      "qas[1]", "answers is a string")
error("squad-answer-text-null", "squad",
      {"bad-data.json": js(S.squad([_GOOD_QA, {"id": "B2", "question": "q?", "answers": [{"text": None}]}]))},
      "qas[1]", "answer is null")
error("squad-answer-start-boolean", "squad",
      {"bad-data.json": js(S.squad([_GOOD_QA, {"id": "B2", "question": "q?",
                                                "answers": [{"text": "fox", "answer_start": True}]}]))},
      "qas[1]", "answer_start is a boolean")
error("squad-is-impossible-text", "squad",
      {"bad-data.json": js(S.squad([_GOOD_QA, {"id": "B2", "question": "q?", "answers": [], "is_impossible": "false"}],
                                   version="v2.0"))},
      "qas[1]", "is_impossible is a string")
error("squad-duplicate-id", "squad", {"bad-data.json": js(S.squad([_GOOD_QA, S.qa("B1", "Again?", "fox")]))},
      "qas[1]", "duplicate id 'B1'")
error("squad-plausible-without-text", "squad",
      {"bad-data.json": js(S.squad([_GOOD_QA, {"id": "B2", "question": "q?", "answers": [], "is_impossible": True,
                                                "plausible_answers": [{"start": 1}]}]))},
      "qas[1]", "plausible answer is null")

# ------------------------------------------------------------------------- CMRC original, CDQA

error("cmrc-original-no-context", "cmrc-original", {"bad-data.json": js(S.cmrc_original(context_text=None))},
      "[0]", "context_text is null")
error("cmrc-original-qa-a-number", "cmrc-original", {"bad-data.json": js(S.cmrc_original([7]))},
      "[0].qas[0]", "a number")
error("cmrc-original-answer-a-list", "cmrc-original",
      {"bad-data.json": js(S.cmrc_original([{"query_id": "B1", "query_text": "甲？", "answers": [["甲"]]}]))},
      "[0].qas[0]", "answer is a list")
error("cmrc-original-answer-nan", "cmrc-original",
      {"bad-data.json": b'[{"context_id": "C1", "context_text": "x", "qas": [{"query_id": "B1", "query_text": "q",'
                        b' "answers": [NaN]}]}]'},
      "[0].qas[0]", "NaN")
error("cdqa-qa-without-parts", "cdqa-v1", {"bad-data.json": js([S.cdqa_record(), S.cdqa_record("只有问题")])},
      "record 2", "问题")
error("cdqa-annotation-a-list", "cdqa-v1", {"bad-data.json": js([S.cdqa_record(), {"qa": "问题: a\n答案: b", "annotation": []}])},
      "record 2", "'annotation' is a list")
error("cdqa-qa-a-number", "cdqa-v1", {"bad-data.json": js([S.cdqa_record(), {"qa": 5, "annotation": {}}])},
      "record 2", "'qa' is a number")
error("cdqa-rewrite-a-list", "cdqa-v1", {"bad-data.json": js([S.cdqa_record(**{"p-改写答案": ["a", "b"]})])},
      "record 1", "p-改写答案 is a list")
error("cdqa-record-a-string", "cdqa-v1", {"bad-data.json": js([S.cdqa_record(), "问题: x\n答案: y"])},
      "record 2", "record is a string")

# ----------------------------------------------------------------------- framework outputs

_CDQA_EVAL = "cdqa/news/2024-05-01--glm-6b--base--0shots--5k.prediction"
error("cdqa-eval-no-requests", "cdqa-eval", {_CDQA_EVAL: js([S.cdqa_eval_record(), {"raw_pred": "x", "requests": None}])},
      "record 2", "requests is null")
error("cdqa-eval-no-question", "cdqa-eval", {_CDQA_EVAL: js([S.cdqa_eval_record(), S.cdqa_eval_record(requests="  \n ")])},
      "record 2", "no question")
error("cdqa-eval-pred-a-list", "cdqa-eval", {_CDQA_EVAL: js([S.cdqa_eval_record(normalized_pred=["x"])])},
      "record 1", "normalized_pred is a list")
add("cdqa-eval-metrics-name-without-numbers", "cdqa-eval",
    {_CDQA_EVAL.replace(".prediction", "--1.2.3AR--50.0F1.metrics"): b"ntrain:0\n", _CDQA_EVAL: js([S.cdqa_eval_record()])},
    "skip", "not a JSON/JSONL file")
error("lm-eval-doc-id-a-list", "lm-eval-samples", {S.LM_SAMPLES: jl(S.lm_sample(0), S.lm_sample([1], "Q2"))},
      "line 2", "doc_id is a list")
error("lm-eval-record-a-list", "lm-eval-samples", {S.LM_SAMPLES: jl(S.lm_sample(0), [S.lm_sample(1, "Q2")])},
      "line 2", "record is a list")
error("lm-eval-truncated", "lm-eval-samples", {S.LM_SAMPLES: jl(S.lm_sample(0), json.dumps(S.lm_sample(1, "Q2"))[:60])},
      "line 2", "truncated JSON")
error("lm-eval-nothing-names-the-item", "lm-eval-samples",
      {S.LM_SAMPLES: jl(S.lm_sample(0), S.lm_sample(1, "Q2", doc={}, arguments={"gen_args_0": {"arg_0": "  "}}))},
      "line 2", "names no item")
add("lm-eval-results-broken", "lm-eval-samples",
    {S.LM_SAMPLES: jl(S.lm_sample(0), S.lm_sample(1, "Q2")), S.LM_RESULTS: b'{"results": {"squad": '},
    "warning", "invalid JSON", names=S.LM_RESULTS.rsplit("/", 1)[1])
error("opencompass-row-key-not-index", "opencompass-predictions", {S.OC_PREDICTIONS: js(S.oc_rows(2, first=S.oc_rows(1)["0"]))},
      "key 'first'", "row index")
error("opencompass-row-missing", "opencompass-predictions", {S.OC_PREDICTIONS: js({"0": S.oc_rows(1)["0"], "2": S.oc_rows(1)["0"]})},
      "row 1 is missing")
error("opencompass-row-a-string", "opencompass-predictions", {S.OC_PREDICTIONS: js(S.oc_rows(2, **{"1": "dog"}))},
      "key '1'", "row is a string")
error("opencompass-prediction-a-number", "opencompass-predictions",
      {S.OC_PREDICTIONS: js(S.oc_rows(2, **{"1": {"origin_prompt": "Question: Over what?", "prediction": 7}}))},
      "key '1'", "prediction is a number")
error("opencompass-shard-not-rows", "opencompass-predictions",
      {S.OC_PREDICTIONS.replace("squad.json", "squad_0.json"): js(S.oc_rows(2)),
       S.OC_PREDICTIONS.replace("squad.json", "squad_1.json"): js(["not", "rows"])},
      "shard is not OpenCompass predictions", names=S.OC_PREDICTIONS.replace("squad.json", "squad_1.json"))
add("opencompass-results-broken", "opencompass-predictions",
    {S.OC_PREDICTIONS: js(S.oc_rows(2)), S.OC_RESULTS: b'{"accuracy": 50, "details": ['}, "warning",
    "invalid JSON", names="results/model-7b/squad.json")
add("opencompass-results-miscounted", "opencompass-predictions",
    {S.OC_PREDICTIONS: js(S.oc_rows(2)), S.OC_RESULTS: js({"accuracy": 50, "details": [{"pred": "a"}] * 3})}, "warning",
    "3 details for 2 predictions", names="results/model-7b/squad.json")
error("opencompass-config-too-deep", "opencompass-predictions",
      {S.OC_PREDICTIONS: js(S.oc_rows(2, **{"1": []})),
       f"{S.OC_ROOT}/configs/cfg.py": ("models = [dict(abbr='model-7b', n=" + "1+" * 100_000 + "1)]\n").encode()},
      "key '1'", "row is a list", names=S.OC_PREDICTIONS)
error("inspect-eval-header-truncated", "inspect-log",
      {"logs/run.eval": lambda: S.eval_zip({"header.json": b'{"eval": {"model": "m", "ta',
                                            "samples/Q1_epoch_1.json": js(S.inspect_sample())})},
      "header.json", "invalid JSON")
error("inspect-eval-sample-a-list", "inspect-log",
      {"logs/run.eval": lambda: S.eval_zip({"header.json": js(S.inspect_header()),
                                            "samples/Q1_epoch_1.json": js([S.inspect_sample()])})},
      "samples/Q1_epoch_1.json", "sample is a list")
add("inspect-eval-truncated-archive", "inspect-log",
    {"logs/run.eval": lambda: S.eval_zip({"header.json": js(S.inspect_header()),
                                          "samples/Q1_epoch_1.json": js(S.inspect_sample())})[:150]},
    "skip", "no sample finished yet")
error("inspect-eval-member-not-utf8", "inspect-log",
      {"logs/run.eval": lambda: S.eval_zip({"header.json": js(S.inspect_header()),
                                            "samples/Q1_epoch_1.json": js(S.inspect_sample()).replace(b"fox", b"\xff\xfe")})},
      "samples/Q1_epoch_1.json", "not UTF-8")
error("inspect-json-samples-an-object", "inspect-log", {"logs/run.json": js(S.inspect_header(samples={"Q1": {}}))},
      "samples", "expected a list")
error("inspect-json-sample-without-id", "inspect-log",
      {"logs/run.json": js(S.inspect_header(samples=[S.inspect_sample(), {"input": "Over what?"}]))},
      "samples[1]", "no id")

# -------------------------------------------------------------------------------------- tables

error("csv-row-names-no-item", "prediction-table", {"bad.csv": S.csv_text("id,prediction", "Q1,fox", ",dog")},
      "line 3", "no question")
error("csv-duplicate-id", "prediction-table", {"bad.csv": S.csv_text("id,prediction", "Q1,fox", "Q2,dog", "Q1,cat")},
      "line 4", "duplicate id 'Q1' (first at line 2)")
error("csv-null-odds-text", "prediction-table",
      {"bad.csv": S.csv_text("id,prediction_text,no_answer_probability", "Q1,fox,0.2", "Q2,dog,high")},
      "line 3", "no_answer_probability")
error("csv-quoted-newline-then-bad-row", "prediction-table",
      {"bad.csv": S.csv_text("id,prediction", 'Q1,"quick\nbrown"', "Q2,dog", ",cat")}, "line 5", "no question")
error("parquet-id-a-list", "prediction-table", {"bad.parquet": lambda: S.parquet({"id": [["Q1"], ["Q2"]], "prediction": ["a", "b"]})},
      "row 1", "id is a list")
error("parquet-prediction-a-struct", "prediction-table",
      {"bad.parquet": lambda: S.parquet({"id": ["Q1", "Q2"], "prediction": [{"t": "a"}, {"t": "b"}]})},
      "row 1", "prediction is an object")
error("parquet-truncated", "prediction-table",
      {"bad.parquet": lambda: S.parquet({"id": ["Q1", "Q2"], "prediction": ["a", "b"]})[:-40]}, "Parquet")
error("parquet-magic-only", "prediction-table", {"bad.parquet": b"PAR1" + bytes(range(1, 100))}, "Parquet")
error("arrow-magic-garbage", "prediction-table", {"bad.arrow": b"ARROW1" + bytes(range(1, 100))}, "Arrow")
error("arrow-stream-garbage", "prediction-table", {"bad.arrow": b"\xff\xff\xff\xff" + bytes(range(1, 100))}, "Arrow stream")
error("parquet-data-pages-damaged", "prediction-table",
      {"bad.parquet": lambda: _damaged(S.parquet({"id": ["Q1", "Q2"] * 50, "prediction": ["a" * 50, "b" * 50] * 50}))},
      "Parquet")
error("hf-table-question-null", "hf-table",
      {"bad-data.parquet": lambda: S.parquet({"id": ["B1", "B2"], "question": ["q?", None], "answers": [["a"], ["b"]]})},
      "row 2", "no question (id B2)")
error("hf-table-missing-shard", "hf-table",
      {"hf/train-00000-of-00002.parquet": lambda: S.parquet({"id": ["B1"], "question": ["q?"], "answers": [["a"]]})},
      "shard", "missing")
error("hf-table-shard-columns-differ", "hf-table",
      {"hf/train-00000-of-00002.parquet": lambda: S.parquet({"id": ["B1"], "question": ["q?"], "answers": [["a"]]}),
       "hf/train-00001-of-00002.parquet": lambda: S.parquet({"id": ["B2"], "query": ["q?"]})},
      "columns", names="hf/train-00001-of-00002.parquet")
error("arrow-dataset-duplicate-id", "hf-table",
      {"bad-data.arrow": lambda: S.arrow({"id": ["B1", "B1"], "question": ["q?", "r?"], "answers": [["a"], ["b"]]})},
      "row 2", "duplicate id 'B1' (first at row 1)")

# ---------------------------------------------------------------------------------- not QA data

for _name, _files, _says in (
    ("top-level-string", {"odd.json": b'"just a string"'}, "a single JSON string"),
    ("top-level-null", {"odd.json": b"null"}, "a single JSON null"),
    ("top-level-number", {"odd.json": b"12.5"}, "a single JSON number"),
    ("empty-list", {"odd.json": b"[]"}, "an empty JSON list"),
    ("empty-object", {"odd.json": b"{}"}, "an empty JSON object"),
    ("training-log", {"odd.jsonl": jl({"step": 1, "loss": 0.5}, {"step": 2, "loss": 0.4})}, "'step', 'loss'"),
    ("zip-named-json", {"odd.json": lambda: S.eval_zip({"a.txt": b"x"})}, "a zip archive"),
    ("eval-without-header", {"odd.eval": lambda: S.eval_zip({"samples/Q1_epoch_1.json": js(S.inspect_sample())})},
     "a zip archive"),
    ("empty.csv", {"odd.csv": b""}, "empty file"),
    ("csv-utf16-without-bom", {"odd.csv": "id,prediction\nQ1,fox\n".encode("utf-16-le")}, "UTF-16"),
):
    add(_name, "not QA data", _files, "skip", _says)
