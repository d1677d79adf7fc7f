"""The carried Treebank rules (`core.metrics.treebank`) give NLTK 3.10's tokens, without importing nltk.

NLTK is only needed to compare (it is a test dependency); the comparison tests skip without it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qa_inspect.core.metrics.treebank import word_tokenize

SETTINGS = settings(max_examples=int(os.environ.get("QA_METRICS_EXAMPLES", "150")), deadline=None)
_CJK_RUN = re.compile("[\u4e00-\u9fa5]+")


@pytest.fixture(scope="module")
def nltk_tokenize() -> Callable[[str], list[str]]:
    """NLTK's own `word_tokenize(text, preserve_line=True)`, or a visible skip."""
    destructive = pytest.importorskip("nltk.tokenize.destructive", reason="nltk is not installed (test extra)")
    return destructive.NLTKWordTokenizer().tokenize


def _runs(value: Any) -> Iterator[str]:
    """Every non-CJK run of every string in a JSON value: what the CMRC scorer hands the tokenizer."""
    if isinstance(value, str):
        yield from (run for run in _CJK_RUN.split(value) if run.strip())
    elif isinstance(value, dict):
        for v in value.values():
            yield from _runs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _runs(v)


def test_nltk_docstring_example() -> None:
    """NLTK's own example (no sentence splitting: inner periods stay on their words)."""
    s = "Good muffins cost $3.88 (roughly 3,36 euros)\nin New York.  Please buy me\ntwo of them.\nThanks."
    assert word_tokenize(s) == ["Good", "muffins", "cost", "$", "3.88", "(", "roughly", "3,36", "euros", ")",
                                "in", "New", "York.", "Please", "buy", "me", "two", "of", "them.", "Thanks", "."]


@pytest.mark.parametrize(("text", "tokens"), [
    ("\"quoted\" text", ["``", "quoted", "''", "text"]),
    ("it's can't cannot gonna 'tis", ["it", "'s", "ca", "n't", "can", "not", "gon", "na", "'", "tis"]),
    ("u.s.", ["u.s", "."]),
    ("a--b ... x;y", ["a", "--", "b", "...", "x", ";", "y"]),
    ("1,000 a,b 3:4 x:", ["1,000", "a", ",", "b", "3:4", "x", ":"]),
    ("«hi» “yo” ‘q’ (p) [r]", ["«", "hi", "»", "“", "yo", "”", "‘", "q", "’", "(", "p", ")", "[", "r", "]"]),
])
def test_treebank_rules(text: str, tokens: list[str]) -> None:
    assert word_tokenize(text) == tokens


def test_identical_to_nltk_on_the_real_data(
    nltk_tokenize: Callable[[str], list[str]], shared_data: Path, conformance_dir: Path
) -> None:
    """Every non-CJK run of every string in the real data and the conformance inputs."""
    runs: set[str] = set()
    for path in sorted(shared_data.glob("*.json")):
        runs.update(_runs(json.loads(path.read_text(encoding="utf-8-sig"))))
    for path in sorted(conformance_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            runs.update(_runs(json.loads(line)))
    assert len(runs) > 10_000
    differ = [r for r in sorted(runs) if word_tokenize(r) != nltk_tokenize(r)]
    assert not differ, differ[:10]


# Away from the classes where stdlib `re` and the `regex` engine NLTK 3.10.4 uses disagree
# (see test_pinned_where_engines_differ), the two must agree on anything.
_ALPHABET = ("abcXYZ019 .,:;'\"`«»“”‘’„()[]{}<>-–—‒―?!*$%&@#\t\n\u3000\u2028\x85éωıİſKß１ａ"
             "cannot gonna wanna gimme lemme gotta more'n d'ye 'tis 'twas n't 're 've 'll 's 'm 'd")
_texts = st.lists(st.one_of(st.text(st.sampled_from(_ALPHABET), max_size=8),
                            st.sampled_from(_ALPHABET.split())), max_size=8).map("".join)


@SETTINGS
@given(_texts)
def test_identical_to_nltk_on_random_text(nltk_tokenize: Callable[[str], list[str]], text: str) -> None:
    assert word_tokenize(text) == nltk_tokenize(text)


@pytest.mark.parametrize(("text", "tokens"), [
    # stdlib `\w` holds '½' and '²'; the `regex` engine's does not (NLTK 3.10.4 gives ["'½"]).
    ("'½", ["'", "½"]),
    # a combining mark is `\w` to `regex`, not to `re` (NLTK 3.10.4 gives ["e\u0301'x"]).
    ("e\u0301'x", ["e\u0301", "'", "x"]),
    # U+001C is whitespace to `re` (and to str.split), not to `regex`: NLTK 3.10.4 gives ["a."].
    ("a.\x1c", ["a", "."]),
])
def test_pinned_where_engines_differ(text: str, tokens: list[str]) -> None:
    """Where NLTK 3.10.4's `regex` engine and stdlib `re` disagree, the rules keep `re`'s meaning
    (NLTK's rules as written, and the engine of the NLTK releases the official script ran on)."""
    assert word_tokenize(text) == tokens


def test_scoring_english_never_imports_nltk() -> None:
    code = (
        "import sys; from qa_inspect.core.metrics import cmrc; "
        "cmrc.score(\"it's the U.S. Open, (1998)\", ['\"the U.S. Open\"']); "
        "print('nltk' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
