"""Stable item identity and split names.

Annotations are keyed by (dataset name, item key, gold text), so item keys must survive reloads
and new dataset releases:

- the dataset's own id (stripped) where it has one;
- else `question_key(question)`: `q:` + the first 16 hex digits of SHA-1 over the normalised
  question (NFKC, stripped, whitespace runs collapsed to one space, trailing `?`/`？` dropped).
  NFKC folds full-width forms, so "谁？" and "谁?" and "谁" share a key; case is kept (it can
  matter for English entity questions). 64 bits make a collision in a 100k-question dataset
  about 1 in 10^9.

Splits come from names: the id prefix (`DEV_0_QUERY_0` → dev), else the file name
(`cmrc2018_trial.json` → trial). Hugging Face `run_qa.py` writes `eval_*` for the validation set
and `predict_*` for the test set, so `eval` → dev and `predict` → test. `validation`/`valid`/`val`
→ dev. A manifest `split=` overrides the file name (but not an id prefix or a record's own
`split` field).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import PurePath

__all__ = ["SPLIT_WORDS", "normalise_question", "question_key", "split_from_id", "split_from_name"]

SPLIT_WORDS: dict[str, str] = {
    "trial": "trial",
    "dev": "dev",
    "validation": "dev",
    "valid": "dev",
    "val": "dev",
    "eval": "dev",
    "test": "test",
    "predict": "test",
    "challenge": "challenge",
    "train": "train",
}
"""Name tokens (case-insensitive) → split. Tokens are runs of letters between other characters."""

_TOKEN = re.compile(r"[A-Za-z]+")


def normalise_question(question: str) -> str:
    """The text `question_key` hashes; exposed so matching code can compare the same way."""
    return " ".join(_nfkc(question).split()).rstrip("?").rstrip()  # split(): the whitespace `\s` matches


def _nfkc(text: str) -> str:
    """NFKC, with a shortcut for the common Chinese question: normalised but for a last full-width
    character (`？`), whose NFKC is one ASCII character that nothing composes with."""
    if text and "\uff01" <= text[-1] <= "\uff5e" and unicodedata.is_normalized("NFKC", text[:-1]):
        return text[:-1] + chr(ord(text[-1]) - 0xFEE0)
    return unicodedata.normalize("NFKC", text)


def question_key(question: str) -> str:
    """`q:` + 16 hex digits: the key of an item that has no id of its own."""
    digest = hashlib.sha1(normalise_question(question).encode("utf-8")).hexdigest()
    return "q:" + digest[:16]


def split_from_id(item_id: str) -> str | None:
    """Split named by an id's first word (`DEV_0_QUERY_0` → dev, `TRIAL_800_QUERY_0` → trial).

    Only the leading word counts: the rest of an id is opaque. Hex ids (SQuAD) cannot match by
    accident: every split word has a letter outside a-f.
    """
    match = _TOKEN.match(item_id.strip())
    return None if match is None else SPLIT_WORDS.get(match.group().lower())


def split_from_name(filename_or_id: str) -> str | None:
    """Split named by a file name (any word of the stem) or, failing that, an id prefix.

    `cmrc2018_trial.json` → trial, `dev-v2.0.json` → dev, `eval_predictions.json` → dev,
    `predict_predictions.json` → test, `DEV_0_QUERY_0` → dev, `CDQA_v1.json` → None.
    The first matching word wins; directories are ignored.
    """
    name = PurePath(filename_or_id).name
    stem = name
    for suffix in (".jsonl", ".ndjson", ".json", ".eval", ".toml"):
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    for token in _TOKEN.findall(stem):
        split = SPLIT_WORDS.get(token.lower())
        if split is not None:
            return split
    return None
