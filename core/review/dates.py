"""When was a gold answer last true? A date read from its evidence (URL or text) or metadata.

Pure (no I/O). News and government sites put the publication date in the URL in a handful of
shapes; each parse says where it came from, so a reviewer can check it ("2023-10-20 from the URL"):

- `/2023/10/20/`, `/2023/1020/`, `/2023-09/25/`, `/202310/04/`, `art/2023/4/23/` (day);
- `2023-10-20`, `2023_10_20`, `2023.10.20`, `20231020` as its own digit run, and 14-digit
  timestamps `20230120140046…` (day);
- `/2023/10/`, `/202309/`, `2023-10` (month);
- Chinese dates in text: `2023年10月20日`, `2023年10月` (day, month).

Years outside 1990–2099 and impossible days are never taken. Numbers that merely look like dates
(`baijiahao …?id=1778873121820323941`) are not dates: a digit run longer than 8 must be a full
timestamp (valid hours, minutes, seconds) to count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any
from urllib.parse import unquote

__all__ = ["EvidenceDate", "evidence_date", "months_between", "parse_date"]


@dataclass(frozen=True, slots=True)
class EvidenceDate:
    """A date and how it was found: `precision` is "day" or "month" (then `value` is the 1st)."""

    value: date
    precision: str
    source: str
    """Where it was read: "the URL", "the evidence text", "the question", "metadata (date)"."""
    raw: str
    """The matched text, as written."""

    @property
    def label(self) -> str:
        """"2023-10-20" or "2023-10" (a month-only date never pretends to a day)."""
        return self.value.isoformat() if self.precision == "day" else self.value.strftime("%Y-%m")

    def describe(self) -> str:
        """"2023-10-20 from the URL"."""
        return f"{self.label} from {self.source}"


_SEP = r"[-_./]"
# Ordered: the most specific shape first; each has named groups y, m and optionally d.
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]"), "day"),
    (re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)[-_./](?P<m>\d{1,2})[-_./](?P<d>\d{1,2})(?!\d)"), "day"),
    (re.compile(r"/(?P<y>(?:19|20)\d\d)/(?P<m>[01]\d)(?P<d>[0-3]\d)/"), "day"),
    (re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)(?P<m>[01]\d)/(?P<d>[0-3]\d)(?!\d)"), "day"),
    (re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)(?P<m>[01]\d)(?P<d>[0-3]\d)(?:(?P<t>\d{6})\d*)?(?!\d)"), "day"),
    (re.compile(r"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>\d{1,2})\s*月"), "month"),
    (re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)[-_/](?P<m>\d{1,2})(?![\d.])"), "month"),
    (re.compile(r"/(?P<y>(?:19|20)\d\d)(?P<m>[01]\d)/"), "month"),
]
_METADATA_KEYS = ("evidence_date", "date", "published", "publish_date", "time", "timestamp", "created")


def _valid_time(t: str | None) -> bool:
    if t is None:
        return True
    return int(t[:2]) < 24 and int(t[2:4]) < 60 and int(t[4:6]) < 60


def _make(y: str, m: str, d: str | None) -> date | None:
    try:
        value = date(int(y), int(m), int(d) if d else 1)
    except ValueError:
        return None
    return value if 1990 <= value.year <= 2099 else None


def _full_run_ok(text: str, match: re.Match[str]) -> bool:
    """A bare digit run is a date only when it is 8 digits or a valid 14+-digit timestamp."""
    if "t" not in match.re.groupindex:
        return True
    run = match.group(0)
    return len(run) == 8 or (len(run) >= 14 and _valid_time(match.group("t")))


def parse_date(text: str, source: str) -> EvidenceDate | None:
    """The first date in `text` (a URL or prose), most specific shape first; None when none."""
    if not text:
        return None
    plain = unquote(text) if "%" in text else text
    for pattern, precision in _PATTERNS:
        for match in pattern.finditer(plain):
            if not _full_run_ok(plain, match):
                continue
            groups = match.groupdict()
            value = _make(groups["y"], groups["m"], groups.get("d") if precision == "day" else None)
            if value is not None:
                return EvidenceDate(value, precision, source, match.group(0).strip("/"))
    return None


def _is_url(text: str) -> bool:
    return bool(re.match(r"^[a-z][a-z0-9+.-]*://", text.strip(), re.IGNORECASE))


def evidence_date(
    evidence: str | None, metadata: Mapping[str, Any] | None = None, texts: Iterable[tuple[str, str]] = ()
) -> EvidenceDate | None:
    """The evidence's date: from the evidence (a URL, or text), else a date-like metadata field,
    else the first of `texts` ((source, text) pairs, e.g. ("the question", q)) that holds one."""
    if evidence and evidence.strip():
        found = parse_date(evidence, "the URL" if _is_url(evidence) else "the evidence text")
        if found is not None:
            return found
    for key in _METADATA_KEYS:
        value = (metadata or {}).get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            found = parse_date(str(value), f"metadata ({key})")
            if found is not None:
                return found
    for source, text in texts:
        found = parse_date(text or "", source)
        if found is not None:
            return found
    return None


def months_between(earlier: date, later: date) -> int:
    """Whole calendar months from `earlier` to `later` (never negative)."""
    months = (later.year - earlier.year) * 12 + later.month - earlier.month - (later.day < earlier.day)
    return max(0, months)
