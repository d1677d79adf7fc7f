"""Big SQuAD-style files read article by article, so memory holds one article, not the file.

`open_stream` says whether a file can be streamed: UTF-8 JSON whose top level is an object with
a `data` list that the SQuAD reader claims (by the same sniffing as `read_source`, on the first
article). `DatasetStream.items` then parses the `data` list one element at a time
(`json.JSONDecoder.raw_decode` over a sliding window of the text) and yields the reader's own
items, with the same values, the same float literals and the same record paths in errors.

Streaming only makes a big file cheaper to read. Whatever the incremental parser does not expect
(a file that is not UTF-8, a duplicate `data` key, invalid JSON, a lone surrogate escape that must
be mended, a key an article repeats: `repeats_a_key`) raises `NotStreamable`, and the caller reads the file the ordinary way, which says what
is wrong (or what it mended) in its usual words.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collections.abc import Sequence
from types import ModuleType

from qa_inspect.core.model import Item

from . import squad
from ._common import Keys, SpanStats, dataset_name, family_of
from .json_values import _parse_float, mend_surrogates, repeats_a_key
from .textio import Document

__all__ = ["STREAM_MIN_BYTES", "DatasetStream", "NotStreamable", "open_stream"]

STREAM_MIN_BYTES = 64 << 20
"""Files smaller than this are read whole (streaming pays only where the parse tree is large)."""
_CHUNK = 8 << 20
_KEYS_BEFORE_DATA = 16
"""SQuAD files put `version` (and little else) beside `data`: an object with more keys before it is not one."""


class NotStreamable(Exception):
    """The file cannot be streamed; read it the ordinary way (which names any error)."""


def _lone_surrogate(text: str) -> bool:
    """True when JSON text holds a surrogate escape without its pair (`\\ud800` alone)."""
    return mend_surrogates(text)[1] > 0


class _Text:
    """A UTF-8 file as text in a sliding window; `more()` reads on, `drop()` forgets the consumed part."""

    def __init__(self, path: Path) -> None:
        self.fh = path.open("rb")
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.buf = ""
        self.eof = False
        self.more()
        self.buf = self.buf.removeprefix("\ufeff")

    def more(self, size: int = _CHUNK) -> bool:
        if self.eof:
            return False
        data = self.fh.read(size)
        try:
            self.buf += self.decoder.decode(data, final=not data)
        except UnicodeDecodeError:
            raise NotStreamable("not UTF-8") from None
        self.eof = not data
        return True

    def drop(self, pos: int) -> int:
        """Forget the text before `pos`; returns the new position of `pos` (0)."""
        self.buf = self.buf[pos:]
        return 0

    def skip(self, pos: int) -> int:
        """Position of the next non-blank character (reading on as needed)."""
        while True:
            while pos < len(self.buf) and self.buf[pos] in " \t\r\n":
                pos += 1
            if pos < len(self.buf) or not self.more():
                return pos

    def char(self, pos: int) -> str:
        pos = self.skip(pos)
        return self.buf[pos] if pos < len(self.buf) else ""

    def value(self, decoder: json.JSONDecoder, pos: int) -> tuple[Any, int]:
        """Decode the JSON value at `pos`, reading on (in doubling steps) while it is cut off."""
        step = _CHUNK
        while True:
            try:
                value, end = decoder.raw_decode(self.buf, pos)
                if end < len(self.buf) or not self.more(step):  # a number cut off at the window's end
                    if self.buf.find("\\u", pos, end) >= 0 and _lone_surrogate(self.buf[pos:end]):
                        raise NotStreamable("a lone surrogate escape")  # the whole read mends and says it
                    return value, end
            except json.JSONDecodeError:
                if not self.more(step):
                    raise NotStreamable("invalid JSON") from None
                step *= 2
            except RecursionError:
                raise NotStreamable("nested too deep") from None

    def close(self) -> None:
        self.fh.close()


@dataclass(slots=True)
class DatasetStream:
    """A SQuAD-style file to be read article by article (see the module docstring)."""

    path: Path
    hints: Mapping[str, Any]
    name: str
    format: str = squad.FORMAT
    encoding: str = "utf-8"
    stats: SpanStats = field(default_factory=SpanStats)
    root: dict[str, Any] = field(default_factory=dict)
    """The top-level keys other than `data` (filled while streaming)."""
    empty: int = 0
    keys: Keys | None = None

    def items(self) -> Iterator[Item]:
        """The reader's items in file order; raises the reader's `FormatError` for a bad record,
        `NotStreamable` when the text is not what the streaming parser expects."""
        doc = Document(self.path, "utf-8")
        self.keys = Keys(doc)
        for item in squad.iter_items(doc, _articles(self.path, self.root), self.hints, self.stats, self.keys):
            self.empty += not item.question
            yield item

    def family(self, first: list[Item]) -> str:
        """The scoring family, from the first items' questions (`family_of` looks at 50 only)."""
        return str(self.hints.get("family") or family_of(item.question for item in first))

    def meta(self) -> dict[str, Any]:
        """`Dataset.meta` once `items` is exhausted (as `squad.read` gives it)."""
        meta = squad.dataset_meta(self.root, self.stats, self.empty)
        if self.keys is not None and self.keys.repeats:
            meta["repeated_questions"] = self.keys.repeats
        return meta


def _articles(path: Path, root: dict[str, Any]) -> Generator[Any, None, None]:
    """The elements of the top-level `data` list, one at a time; the other top-level keys go to `root`."""
    decoder = json.JSONDecoder(parse_float=_parse_float)
    text = _Text(path)
    try:
        pos = text.skip(0)
        if text.char(pos) != "{":
            raise NotStreamable("not a JSON object")
        pos += 1
        seen_data = False
        while True:
            pos = text.skip(pos)
            if text.char(pos) == "}":
                break
            key, pos = text.value(decoder, pos)
            pos = text.skip(pos)
            if not isinstance(key, str) or text.char(pos) != ":":
                raise NotStreamable("not a JSON object")
            pos = text.skip(pos + 1)
            if key == "data":
                if seen_data or text.char(pos) != "[":
                    raise NotStreamable("a second or non-list 'data'")
                seen_data = True
                pos = yield from _elements(text, decoder, pos + 1)
            elif not seen_data and len(root) >= _KEYS_BEFORE_DATA:
                raise NotStreamable("no 'data' list among the first keys")  # a prediction map, say
            else:
                root[key], pos = text.value(decoder, pos)
            pos = text.skip(pos)
            if text.char(pos) == ",":
                pos += 1
        if not seen_data or text.skip(pos + 1) < len(text.buf):
            raise NotStreamable("no 'data' list, or text after the object")
    finally:
        text.close()


def _elements(text: _Text, decoder: json.JSONDecoder, pos: int) -> Generator[Any, None, int]:
    """Yield the elements of a list whose `[` is just before `pos`; returns the position after `]`."""
    pos = text.skip(pos)
    if text.char(pos) == "]":
        return pos + 1
    while True:
        if pos > _CHUNK:
            pos = text.drop(pos)
        start = text.skip(pos)
        value, pos = text.value(decoder, start)
        if repeats_a_key(value, text.buf, start, pos):
            raise NotStreamable("a repeated key")  # the whole read names it
        yield value
        pos = text.skip(pos)
        sep = text.char(pos)
        if sep == "]":
            return pos + 1
        if sep != ",":
            raise NotStreamable("invalid JSON")
        pos = text.skip(pos + 1)


def open_stream(
    path: Path, hints: Mapping[str, Any], order: Sequence[ModuleType], min_bytes: int | None = None
) -> DatasetStream | None:
    """A stream when `path` is a UTF-8 `.json` file of at least `min_bytes` (default
    `STREAM_MIN_BYTES`) that the SQuAD reader claims, first of the readers in `order`
    (read_source's order), else None."""
    path = Path(path)
    if path.suffix.lower() != ".json" or hints.get("format") not in (None, squad.FORMAT):
        return None
    try:
        if path.stat().st_size < (STREAM_MIN_BYTES if min_bytes is None else min_bytes):
            return None
        head = _articles(path, {})
        first = next(head, None)
        head.close()
    except (OSError, NotStreamable):
        return None
    doc = Document(path, "utf-8", value={"data": [first]})
    for module in order:
        probe = getattr(module, "skip_reason", None)
        if probe is not None and probe(doc) is not None:
            return None
        if module.sniff(doc):
            return DatasetStream(path, hints, dataset_name(doc, hints)) if module is squad else None
    return None
