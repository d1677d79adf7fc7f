"""The one rule for a JSON object that repeats a key, whatever file it sits in.

JSON parsers keep the last value of a repeated key and drop the others without a word; a SQuAD
record with `"id"` or `"answers"` twice, or a file with `"data"` twice, would lose items and golds
silently. `textio.loads` (every JSON reader's parser) marks such objects (`JSONObject`); this
module finds them anywhere in a parsed file (JSON value, JSONL lines, archive members) and says
where, in one line per file: the record (JSON path or line, and the item's id when the object or
the record around it has one), the key, and, where the value decides what is scored (ids,
answers, questions, predictions, `data`), the value that was kept. `_common.build_dataset` and
`_common.build_run` call it, so every reader reports repeats the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .textio import Document, JSONObject, shown

__all__ = ["Repeat", "find_repeats", "repeat_warning", "roots"]

_ID_KEYS = ("id", "qid", "query_id", "question_id", "sample_id")
_VALUE_MATTERS = frozenset({*_ID_KEYS, "answers", "answer", "data", "question", "qas", "paragraphs", "context",
                            "prediction", "prediction_text", "pred", "response", "target", "text", "Predicted"})
"""Keys whose kept value changes what is scored: the warning says which value that is."""


@dataclass(frozen=True, slots=True)
class Repeat:
    """A key given more than once in one object: where (`place`), the record's id, the kept value."""

    place: str
    key: str
    ident: str | None
    kept: Any

    def describe(self) -> str:
        """"data[0].paragraphs[0].qas[1] (id 'Q2'): key 'answers' repeated, the last kept (a list of 1)"."""
        where = self.place or "top level"
        if self.ident is not None:
            where += f" (id {shown(self.ident)})"
        said = f"{where}: key {shown(self.key)} repeated, the last value kept"
        if self.key in _VALUE_MATTERS:
            said += f" ({kept_text(self.kept)})"
        return said


def kept_text(value: Any) -> str:
    """A short description of a kept value for a message: text as `repr`, containers by size."""
    if isinstance(value, list):
        return f"a list of {len(value):,}"
    if isinstance(value, dict):
        return f"an object of {len(value):,} keys"
    return shown(str(value), 40)


def roots(doc: Document) -> Iterator[tuple[str, Any]]:
    """The parsed values of a document with the place each starts at: the JSON value (""), each
    JSONL line ("line N"), each archive member parsed so far ("member NAME"). None when the
    parse saw no repeated key (`Document.repeats`): a big file is not walked for nothing."""
    if not doc.repeats:
        return
    if doc.lines is not None:
        yield from ((f"line {number}", value) for number, value in doc.lines)
    elif doc.value is not None:
        yield "", doc.value
    elif doc.archive is not None and doc.archive.repeats:
        yield from ((f"member {name}", value) for name, value in doc.archive._parsed.items())


def _ident(obj: dict[str, Any]) -> str | None:
    for key in _ID_KEYS:
        value = obj.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return str(value)
    return None


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    step = key if key.isidentifier() else repr(key)
    return f"{parent}.{step}" if parent else step


def find_repeats(place: str, value: Any, *, skip_root: bool = False) -> Iterator[Repeat]:
    """Every repeated key under `value` (depth first, file order), `place` naming where it starts.

    Iterative (a deeply nested model output cannot exhaust the stack); paths are built only for
    the containers walked, and only objects that repeat a key cost more than a type check.
    `skip_root`: the root object's own repeats are reported by its reader (a prediction map)."""
    stack: list[tuple[Any, str, str | None]] = [(value, place, None)]
    while stack:
        node, where, ident = stack.pop()
        if isinstance(node, dict):
            ident = _ident(node) or ident
            if type(node) is JSONObject and not (skip_root and node is value):
                for key in dict.fromkeys(node.duplicates):
                    yield Repeat(where, key, ident, node[key])
            children = [(v, _path(where, k), ident) for k, v in node.items() if isinstance(v, (dict, list))]
        elif isinstance(node, list):
            children = [(v, _path(where, i), ident) for i, v in enumerate(node) if isinstance(v, (dict, list))]
        else:
            continue
        stack.extend(reversed(children))


def repeat_warning(doc: Document, *, skip_root: bool = False, also: Sequence[Repeat] = ()) -> str | None:
    """One line for every repeated key in the file: the first in full, and how many more; None
    when no object repeats a key. `also`: repeats a reader found in values it did not keep
    (an Inspect log's samples, parsed one at a time)."""
    found: list[Repeat] = list(also)
    for place, value in roots(doc):
        found.extend(find_repeats(place, value, skip_root=skip_root))
    if not found:
        return None
    more = f"; {len(found) - 1:,} more repeated key{'s' if len(found) > 2 else ''} in the file" if len(found) > 1 else ""
    return f"repeated JSON key: {found[0].describe()}{more}"
