"""Zip archives (Inspect AI `.eval` logs) opened once and read member by member, within limits.

Why not `zipfile` alone: current inspect_ai compresses every member with Zstandard (zip method
93), which Python's `zipfile` reads only from 3.14 on; and `ZipFile.read` inflates a member whole,
whatever its size. Here `zipfile` only parses the central directory (once, for the whole file);
members are inflated here, stored (0), deflate (8) or Zstandard (93, the `zstandard` library), in
chunks, stopping as soon as a member passes its limit, whatever size it declares
(`limits.max_member_bytes`, `max_record_bytes` for records, `max_archive_bytes` for the whole).

A log still being written has no central directory yet: its local file headers are walked
instead, and the members that are complete are read (`Archive.partial` says so).
"""

from __future__ import annotations

import io
import json
import struct
import threading
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from qa_inspect.core.errors import FormatError

from .json_values import loads, mend_surrogates, watch_repeats
from .limits import Limits, active, shown_size, too_big

__all__ = ["Archive", "Member", "describe_partial", "open_archive"]

STORED, DEFLATED, ZSTANDARD = 0, 8, 93
_METHODS = {STORED: "stored", DEFLATED: "deflate", ZSTANDARD: "Zstandard"}
_LOCAL = struct.Struct("<4s5H3L2H")
_LOCAL_MAGIC = b"PK\x03\x04"
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Member:
    """Where one member's compressed bytes sit and what it declares about itself."""

    name: str
    method: int
    start: int
    """Offset of the compressed data (after the local header)."""
    compressed: int
    declared: int
    """The inflated size the archive declares (a bomb may lie: the inflated bytes are counted too)."""
    crc: int
    """CRC-32 of the inflated bytes: damage that still inflates shows here."""


@dataclass(slots=True)
class Archive:
    """A zip archive's bytes and member table, read once; JSON members parsed on demand."""

    path: Path
    data: bytes
    members: dict[str, Member]
    limits: Limits
    partial: bool = False
    """True when the archive had no central directory (still being written): only complete members are listed."""
    inflated: int = 0
    mended: int = 0
    """Lone surrogate escapes replaced with U+FFFD in the members read so far."""
    repeats: bool = False
    """Whether a member parsed so far repeats a key in some object (`_repeats` looks only then)."""
    _parsed: dict[str, Any] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return list(self.members)

    def __contains__(self, name: object) -> bool:
        return name in self.members

    def raw(self, name: str, limit: str = "max_member_bytes") -> bytes:
        """Member `name` inflated, refused once past limit `limit` (declared or actual) or once the
        archive as a whole passes `max_archive_bytes`; a FormatError names the member."""
        member = self.members.get(name)
        if member is None:
            raise FormatError(str(self.path), "no such member in the archive", name)
        cap = min(getattr(self.limits, limit), self.limits.max_member_bytes)
        cap_name = limit if cap == getattr(self.limits, limit) else "max_member_bytes"
        if member.declared > cap:
            raise FormatError(str(self.path), too_big(self.limits, cap_name, member.declared, "member (declared size)"), name)
        out = _inflate(self, member, cap, cap_name)
        self.inflated += len(out)
        if self.inflated > self.limits.max_archive_bytes:
            message = too_big(self.limits, "max_archive_bytes", self.inflated, "the archive's members together")
            raise FormatError(str(self.path), message, name)
        return out

    def json(self, name: str, limit: str = "max_member_bytes", keep: bool = True) -> Any:
        """Member `name` parsed as JSON (UTF-8, BOM stripped); `keep=False` for members read once
        (samples: a 20,000-sample log keeps none of them parsed)."""
        if name in self._parsed:
            return self._parsed[name]
        raw = self.raw(name, limit)
        try:
            text = raw.decode("utf-8").removeprefix("\ufeff")
            del raw
            text, mended = mend_surrogates(text)
            self.mended += mended
            with watch_repeats() as seen:
                value = loads(text, self.limits.max_json_depth)
            self.repeats = self.repeats or seen()
        except UnicodeDecodeError:
            raise FormatError(str(self.path), "member is not UTF-8 text", name) from None
        except json.JSONDecodeError as exc:
            message = f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            raise FormatError(str(self.path), message, name) from None
        if keep:
            self._parsed[name] = value
        return value


def _inflate(archive: Archive, member: Member, cap: int, cap_name: str) -> bytes:
    """The member's bytes, inflated in chunks; stops one chunk past `cap`."""
    raw = memoryview(archive.data)[member.start:member.start + member.compressed]
    where = (str(archive.path), member.name)
    if member.method == STORED:
        if len(raw) > cap:
            raise FormatError(where[0], too_big(archive.limits, cap_name, len(raw), "member"), where[1])
        if zlib.crc32(raw) != member.crc:
            raise FormatError(where[0], "cannot unpack member (its CRC-32 does not match: damaged)", where[1])
        return bytes(raw)
    if member.method not in _METHODS:
        raise FormatError(where[0], f"cannot unpack member (compression method {member.method} is not read:"
                          " stored, deflate and Zstandard are)", where[1])
    try:
        out = _chunks(raw, member.method, cap, archive.limits, cap_name, where)
        if zlib.crc32(out) != member.crc:
            raise FormatError(where[0], "cannot unpack member (its CRC-32 does not match: damaged)", where[1])
        return out
    except FormatError:
        raise
    except Exception as exc:  # noqa: BLE001  (zlib.error, zstandard.ZstdError: a damaged member)
        raise FormatError(where[0], f"cannot unpack member ({_METHODS[member.method]}: {exc})", where[1]) from None


def _chunks(raw: memoryview, method: int, cap: int, limits: Limits, cap_name: str, where: tuple[str, str]) -> bytes:
    out = bytearray()
    if method == DEFLATED:
        inflater = zlib.decompressobj(-15)
        pending = bytes(raw)
        while pending and not inflater.eof:
            out += inflater.decompress(pending, _CHUNK)
            pending = inflater.unconsumed_tail
            if len(out) > cap:
                raise FormatError(where[0], too_big(limits, cap_name, None, "member"), where[1])
        out += inflater.flush()
        if not inflater.eof:
            raise FormatError(where[0], "cannot unpack member (deflate data cut short)", where[1])
    else:
        with _zstd().stream_reader(io.BytesIO(raw), read_across_frames=True) as reader:
            while chunk := reader.read(_CHUNK):
                out += chunk
                if len(out) > cap:
                    raise FormatError(where[0], too_big(limits, cap_name, None, "member"), where[1])
    if len(out) > cap:
        raise FormatError(where[0], too_big(limits, cap_name, len(out), "member"), where[1])
    return bytes(out)


_LOCAL_STATE = threading.local()


def _zstd() -> Any:
    """One Zstandard decompression context per thread (contexts are not thread-safe), reused for
    every member; the library is imported on first use."""
    dctx = getattr(_LOCAL_STATE, "zstd", None)
    if dctx is None:
        import zstandard

        dctx = _LOCAL_STATE.zstd = zstandard.ZstdDecompressor()
    return dctx


def open_archive(path: Path) -> Archive:
    """Read `path` (within `max_file_bytes`) and its member table once; an archive without a
    central directory is walked by its local headers (`partial`)."""
    limits = active()
    try:
        size = path.stat().st_size
        if size > limits.max_file_bytes:
            raise FormatError(str(path), too_big(limits, "max_file_bytes", size, "file"))
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except zipfile.BadZipFile as exc:
        walked = _walk(data)
        if not walked:
            raise FormatError(str(path), f"not a readable zip archive (truncated or still being written?): {exc}") from None
        return Archive(path, data, walked, limits, partial=True)
    found = (_member(data, i) for i in infos if not i.is_dir())
    return Archive(path, data, {m.name: m for m in found if m is not None}, limits)


def _member(data: bytes, info: zipfile.ZipInfo) -> Member | None:
    """A central-directory entry with its data's offset (from the local header it points to)."""
    offset = info.header_offset
    head = data[offset:offset + _LOCAL.size]
    if len(head) < _LOCAL.size or not head.startswith(_LOCAL_MAGIC):
        return None
    name_len, extra_len = _LOCAL.unpack(head)[9:11]
    return Member(info.filename, info.compress_type, offset + _LOCAL.size + name_len + extra_len,
                  info.compress_size, info.file_size, info.CRC)


def _walk(data: bytes) -> dict[str, Member]:
    """Complete members in file order, from local headers (no central directory yet). A member whose
    sizes follow its data (streamed writes) or that runs past the end of the bytes ends the walk."""
    members: dict[str, Member] = {}
    offset = 0
    while data.startswith(_LOCAL_MAGIC, offset) and offset + _LOCAL.size <= len(data):
        _, _, flags, method, _, _, crc, csize, usize, name_len, extra_len = _LOCAL.unpack_from(data, offset)
        start = offset + _LOCAL.size + name_len + extra_len
        if flags & 0x08 or csize == 0xFFFFFFFF or start + csize > len(data):
            break
        name = data[offset + _LOCAL.size:offset + _LOCAL.size + name_len].decode("utf-8", "replace")
        if not name.endswith("/"):
            members[name] = Member(name, method, start, csize, usize, crc)
        offset = start + csize
    return members


def describe_partial(archive: Archive) -> str:
    """The warning for an archive read without its central directory."""
    return (f"archive has no central directory (still being written?): read the {len(archive.members):,}"
            f" complete members of {shown_size(len(archive.data))}")
