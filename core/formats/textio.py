"""Bytes → text → parsed JSON/JSONL, once per file, with errors a user can act on.

Readers never open files themselves: `read_document` decodes and parses a file exactly once and
hands the same `Document` to every reader's `sniff` and to the one `read` that claims it.

Decisions:
- Encoding: UTF-8 (a BOM is stripped), else GB18030 (common for Chinese files saved on Windows);
  the encoding used is reported so the UI can say so. Anything else is an error rather than a
  lossy decode, since a mis-decoded answer would silently score 0; the error says what the bytes
  are (UTF-16/32, gzip, binary) or, for UTF-8 damaged in a few places, where the damage is (read
  as GB18030 it would be garbage throughout).
- JSON vs JSONL is decided by shape: a file that parses as one JSON value is JSON; a file whose
  first line is a complete value followed by more values is JSONL (so a one-record `.jsonl` file
  is read as JSONL too, by its suffix, since its shape is ambiguous). JSONL lines end at `\\n`
  only: U+2028, U+0085 and the like are valid inside JSON strings.
- A JSON object that repeats a key keeps the last value (as every JSON parser does) and says so
  (`duplicate_keys`), so a reader can report it instead of dropping data silently.
- JSON floats keep their literal text (`JSONFloat.literal`) so an answer written as `39764.0` or
  `1.50` becomes exactly that string, never a re-printed float.
- Magic bytes come first: a Git LFS pointer (the file was cloned without `git lfs pull`) is an
  error saying so, whatever its suffix; a zip archive (Inspect AI `.eval` logs) is not decoded as
  text but opened as an `Archive` whose JSON members are parsed on first use (`Document.archive`);
  Parquet and Arrow files (`PAR1`, `ARROW1`, an Arrow stream's `FF FF FF FF`) are opened as a
  `tables.Table` (`Document.table`). A `.csv` file, which has no magic, is decoded like JSON and
  parsed as a table too.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from qa_inspect.core.errors import FormatError

from ._archive import Archive, describe_partial, open_archive
from .json_values import (
    JSONFloat,
    JSONObject,
    duplicate_keys,
    loads,
    loads_lines,
    mend_surrogates,
    number_text,
    plain,
    shown,
    surrogate_note,
    type_name,
    watch_repeats,
)
from .limits import Limits, active, too_big
from .tables import CSV_SUFFIXES, Table, csv_problem, csv_table, open_binary, table_kind

__all__ = [
    "JSONL_SUFFIXES",
    "LFS_MESSAGE",
    "LFS_POINTER",
    "ZIP_MAGIC",
    "Archive",
    "Document",
    "JSONFloat",
    "is_zip",
    "loads",
    "mend_surrogates",
    "number_text",
    "parse",
    "plain",
    "read_archive",
    "read_csv",
    "read_document",
    "read_text",
    "decode",
    "duplicate_keys",
    "shown",
    "JSONObject",
    "sha256_file",
    "type_name",
]

JSONL_SUFFIXES = frozenset({".jsonl", ".ndjson"})
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""A zip archive's first bytes (local file header; end of central directory for an empty one)."""
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
"""How a Git LFS pointer file starts (the small text file Git holds in place of the data)."""
LFS_MESSAGE = "Git LFS pointer (the data was not downloaded): run git lfs pull"


@dataclass(slots=True)
class Document:
    """One decoded and parsed file.

    `value` is the JSON value for JSON files; for JSONL files it is None and `lines` holds
    `(line number, value)` pairs (blank lines dropped); for zip archives both are None and
    `archive` holds the members; for Parquet, Arrow and CSV files `table` holds the table.
    """

    path: Path
    encoding: str
    value: Any = None
    lines: list[tuple[int, Any]] | None = None
    archive: Archive | None = None
    """Set (and `value`/`lines` None) when the file is a zip archive."""
    table: Table | None = None
    """Set (and `value`/`lines` None) when the file is a Parquet, Arrow or CSV table."""
    notes: list[str] = field(default_factory=list)
    """What reading changed or mended that a user should know (a BOM removed from a JSONL line, lone
    surrogates replaced, a partial archive): the reader's result carries them as warnings."""
    repeats: bool = True
    """False when `parse` saw no object repeat a key, so nothing needs looking for (`_repeats`)."""

    @property
    def is_jsonl(self) -> bool:
        return self.lines is not None

    def records(self) -> list[tuple[int, Any]] | None:
        """Numbered records: JSONL lines, or the elements of a top-level JSON list (1-based).

        A JSON object whose only list is under `data` and holds flat records (HF `datasets`
        JSON export) counts as a record list too. None when the file is not record-shaped (tables
        too: only table readers claim them, by their columns).
        """
        if self.lines is not None:
            return self.lines
        value = self.value
        if isinstance(value, dict) and isinstance(value.get("data"), list):
            data = value["data"]
            if data and isinstance(data[0], dict) and "paragraphs" not in data[0]:
                value = data
        if isinstance(value, list):
            return list(enumerate(value, start=1))
        return None

    def where(self, number: int) -> str | int:
        """The `record` argument of `FormatError` for record `number`: "line N", "row N" or N."""
        if self.table is not None:
            return f"{self.table.unit} {number}"
        return f"line {number}" if self.lines is not None else number


def read_text(path: Path) -> tuple[str, str]:
    """Decode a file; returns `(text, encoding)` with any BOM removed. At most `max_file_bytes`
    are read, and a file whose first bytes say it is not text (NUL bytes only, gzip) is not read on."""
    try:
        data = _read_bounded(path, active())
    except IsADirectoryError:
        raise FormatError(str(path), "cannot read: is a directory") from None
    except PermissionError:
        raise FormatError(str(path), "cannot read: permission denied") from None
    except FileNotFoundError:
        raise FormatError(str(path), "cannot read: no such file") from None
    except OSError as exc:
        raise FormatError(str(path), f"cannot read: {exc.strerror or exc}") from None
    return decode(path, data)


def _refuse_early(path: Path, fh: BinaryIO, limits: Limits) -> bytes:
    """The first bytes of an open file, after refusing one over `max_file_bytes` or whose first
    bytes are all NUL (a zeroed or sparse file: reading on would cost its whole size for nothing)."""
    size = os.fstat(fh.fileno()).st_size
    if size > limits.max_file_bytes:
        raise FormatError(str(path), too_big(limits, "max_file_bytes", size, "file"))
    head = fh.read(_HEAD)
    if head and not head.strip(b"\x00"):
        raise FormatError(str(path), f"NUL bytes only in its first {len(head):,} bytes (a zeroed or sparse file?), not text")
    fh.seek(0)
    return head


def _read_bounded(path: Path, limits: Limits) -> bytes:
    with path.open("rb") as fh:
        head = _refuse_early(path, fh, limits)
        fh.seek(len(head))
        if head.startswith(b"\x1f\x8b"):
            raise FormatError(str(path), "gzip-compressed data, not text: unpack it first")
        data = head + fh.read(limits.max_file_bytes + 1 - len(head))
    if len(data) > limits.max_file_bytes:  # it grew while read
        raise FormatError(str(path), too_big(limits, "max_file_bytes", len(data), "file"))
    return data


_HEAD = 4096
_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32"), (b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe", "UTF-16"), (b"\xfe\xff", "UTF-16"))


def decode(path: Path, data: bytes, *, gb18030: bool = True) -> tuple[str, str]:
    """Bytes → `(text, encoding)`: UTF-8 (BOM removed), else GB18030 unless `gb18030=False`.

    Bytes that are not such text say what they are instead: UTF-16/32, gzip, binary, or UTF-8
    damaged in a few places (named by line and column: a GB18030 reading of it would be garbage)."""
    if not data.strip():
        raise FormatError(str(path), "empty file")
    bom = next((name for mark, name in _BOMS if data.startswith(mark)), None)
    if bom is not None:
        return _decode_bom(path, data, bom)
    problem = _not_text(data)
    if problem is not None:
        raise FormatError(str(path), problem)
    try:
        text, encoding = data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        where = _position(data, exc.start)
        if not gb18030 or _mostly_utf8(data):
            rest = " (the rest is UTF-8: a damaged file?)" if gb18030 else ""
            raise FormatError(str(path), f"not valid UTF-8: {where}{rest}") from None
        try:
            text, encoding = data.decode("gb18030"), "gb18030"
        except UnicodeDecodeError:
            raise FormatError(str(path), f"not UTF-8 or GB18030 text ({where} is not UTF-8)") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise FormatError(str(path), "empty file")
    return text, encoding


def _decode_bom(path: Path, data: bytes, name: str) -> tuple[str, str]:
    """UTF-16 or UTF-32 text with its byte order mark (what Windows PowerShell's `>` writes)."""
    try:
        text = data.decode(name.lower())
    except UnicodeDecodeError as exc:
        raise FormatError(str(path), f"not valid {name} text at byte {exc.start:,} (it starts with a {name} byte order mark)") from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise FormatError(str(path), "empty file")
    return text, name.lower()


def _not_text(data: bytes) -> str | None:
    """What bytes with NULs (or gzip magic) are: UTF-16/32 text without a BOM, gzip, or binary; None for text."""
    if data.startswith(b"\x1f\x8b"):
        return "gzip-compressed data, not text: unpack it first"
    if b"\x00" not in data:
        return None
    head = data[:_HEAD]
    if not head.strip(b"\x00"):
        return "NUL bytes only in its first bytes (a zeroed or sparse file?), not text"

    def nul_share(offset: int, step: int) -> float:
        part = head[offset::step]
        return part.count(0) / len(part) if part else 0.0

    # UTF-32/16 without a BOM: NULs in the high lanes, the character lane mostly not NUL (a file
    # that is mostly NUL bytes is binary, whatever lane its few characters sit in)
    if min(nul_share(1, 4), nul_share(2, 4), nul_share(3, 4)) > 0.9 and nul_share(0, 4) < 0.5 or (
            min(nul_share(0, 4), nul_share(1, 4), nul_share(2, 4)) > 0.9 and nul_share(3, 4) < 0.5):
        return "UTF-32 text (not UTF-8 or GB18030): save it as UTF-8"
    odd, even = nul_share(1, 2), nul_share(0, 2)
    if max(odd, even) > 0.3 and min(odd, even) < 0.05:
        return "UTF-16 text (not UTF-8 or GB18030): save it as UTF-8"
    return "not UTF-8 or GB18030 text (contains NUL bytes: binary data?)"


def _mostly_utf8(data: bytes) -> bool:
    """UTF-8 damaged in a few places (a cut or flipped byte), not text in another encoding: far
    more well-formed multi-byte characters than broken ones."""
    text = data.decode("utf-8", "replace")
    replaced = text.count("\ufffd")
    broken = replaced - data.count("\ufffd".encode())
    well_formed = len(text) - len(text.encode("ascii", "ignore")) - replaced
    return well_formed >= 10 * max(broken, 1)


def _position(data: bytes, offset: int) -> str:
    """"byte 0xNN at line L, column C" for a byte offset (the column counted in characters)."""
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[start:offset].decode("utf-8", "replace")) + 1
    return f"byte 0x{data[offset]:02x} at line {line}, column {column}"


def _newline(text: str) -> str:
    """`\\n`, or `\\r` for a file that has no `\\n` but `\\r` (old Mac line ends)."""
    return "\r" if "\n" not in text and "\r" in text else "\n"


def _parse_jsonl(path: Path, text: str) -> list[tuple[int, Any]]:
    """Records by line; lines end at \\n only (U+2028 and other separators may sit in strings;
    `\\r` in a file without `\\n`), a BOM at the start of a line (files joined with `cat`) is
    dropped; a line longer than `max_record_bytes` is an error naming it."""
    lines: list[tuple[int, Any]] = []  # `loads_lines` appends the plain records, the loop below the rest
    limits = active()
    for number, line in loads_lines(text, _newline(text), lines, limits.max_json_depth, limits.max_record_bytes):
        line = line.removeprefix("\ufeff")
        if not line.strip():
            continue
        if len(line) * 4 > limits.max_record_bytes and len(line.encode("utf-8", "surrogatepass")) > limits.max_record_bytes:
            size = len(line.encode("utf-8", "surrogatepass"))
            raise FormatError(str(path), too_big(limits, "max_record_bytes", size, "line"), f"line {number}")
        try:
            lines.append((number, loads(line, limits.max_json_depth)))
        except json.JSONDecodeError as exc:
            cut = exc.pos >= len(line.rstrip()) or exc.msg.startswith("Unterminated")
            at = " column" if exc.msg.endswith(" at") else " at column"
            message = f"{'truncated' if cut else 'invalid'} JSON: {exc.msg}{at} {exc.colno}"
            raise FormatError(str(path), message, f"line {number}") from None
    return lines


def parse(path: Path, text: str, encoding: str) -> Document:
    """Parse decoded text as JSON, else as JSONL (see the module docstring for the rule); lone
    surrogate escapes become U+FFFD, counted in `Document.notes`; `Document.repeats` says whether
    some object repeated a key."""
    text, mended = mend_surrogates(text)
    with watch_repeats() as seen:
        doc = _parse(path, text, encoding)
    doc.repeats = seen()
    if mended:
        doc.notes.append(surrogate_note(mended))
    return doc


def _parse(path: Path, text: str, encoding: str) -> Document:
    try:
        value = loads(text)
    except json.JSONDecodeError as exc:
        first = next((ln for ln in text.split(_newline(text)) if ln.strip()), "").removeprefix("\ufeff")
        if exc.msg == "Extra data" and _is_value(first):
            return _jsonl_document(path, encoding, text)
        if path.suffix.lower() in JSONL_SUFFIXES:
            return _jsonl_document(path, encoding, text)
        raise FormatError(
            str(path), f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if path.suffix.lower() in JSONL_SUFFIXES and isinstance(value, dict):
        line = 1 + next(i for i, ln in enumerate(text.split(_newline(text))) if ln.strip())
        return Document(path, encoding, lines=[(line, value)])
    return Document(path, encoding, value=value)


def _jsonl_document(path: Path, encoding: str, text: str) -> Document:
    """A JSONL document; a BOM found at the start of a line (files joined with `cat`) is noted."""
    doc = Document(path, encoding, lines=_parse_jsonl(path, text))
    boms = [n for n, line in enumerate(text.split("\n"), start=1) if line.startswith("\ufeff")] if "\ufeff" in text else []
    if boms:
        more = f" (and {len(boms) - 1:,} more)" if len(boms) > 1 else ""
        doc.notes.append(f"line {boms[0]}{more}: a byte-order mark (U+FEFF) at the start of the line was removed")
    return doc


def _is_value(line: str) -> bool:
    try:
        loads(line)
    except json.JSONDecodeError:
        return False
    return True


def _head(path: Path) -> bytes:
    """A file's first bytes, for magic numbers (unreadable files: b"", `read_text` says why)."""
    try:
        with path.open("rb") as fh:
            return fh.read(len(LFS_POINTER))
    except OSError:
        return b""


def is_zip(path: Path) -> bool:
    """True when the file starts with zip magic bytes (unreadable files: False, `read_text` says why)."""
    return _head(path)[:4] in ZIP_MAGIC


def read_archive(path: Path) -> Document:
    """Open a zip archive once (members are inflated and parsed on use by `Archive.json`)."""
    archive = open_archive(path)
    doc = Document(path, "utf-8", archive=archive)
    if archive.partial:
        doc.notes.append(describe_partial(archive))
    return doc


def read_document(path: Path) -> Document:
    """Read, decode and parse `path` once: magic bytes first (an LFS pointer is an error, a zip
    archive or a Parquet/Arrow table is opened, not decoded), then the `.csv` suffix, then text."""
    head = _head(path)
    if head.startswith(LFS_POINTER):
        raise FormatError(str(path), LFS_MESSAGE)
    if head[:4] in ZIP_MAGIC:
        return read_archive(path)
    kind = table_kind(head)
    if kind is not None:
        return Document(path, "utf-8", table=open_binary(path, kind))  # Arrow and Parquet strings are UTF-8
    if path.suffix.lower() in CSV_SUFFIXES:
        return read_csv(path)
    text, encoding = read_text(path)
    return parse(path, text, encoding)


def read_csv(path: Path) -> Document:
    """A CSV file as a table; one that is empty or not UTF-8/GB18030 text is a table without
    columns that says why (no reader claims it: a skip, not an error)."""
    try:
        text, encoding = read_text(path)
    except FormatError as exc:
        if exc.message.startswith("cannot read"):
            raise
        return Document(path, "utf-8", table=csv_problem(path, exc.message))
    return Document(path, encoding, table=csv_table(path, text))


def sha256_file(path: Path, *, checked: bool = False) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB chunks (how the loader tells a changed file).

    `checked`: first refuse (FormatError) what no reader would read, as the reader would say it: a
    file over `max_file_bytes`, or one whose first bytes are all NUL. Hashing 2 GiB of zeros took
    longer than refusing it."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        if checked:
            _refuse_early(Path(path), fh, active())
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
