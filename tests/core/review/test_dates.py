"""core.review.dates: evidence dates from real CDQA v1 URL shapes, with the parse described."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from qa_inspect.core.review import evidence_date, months_between, parse_date

REAL_SHAPES = [
    ("http://www.newskj.com/yw/system/2023/10/20/030637311.shtml", "2023-10-20", "day"),
    ("https://www.sc.gov.cn/10462/10464/10797/2023/10/13/19b47a2bb0534981ac766a93573a9cd0.shtml", "2023-10-13", "day"),
    ("http://www.qianguo.gov.cn/ztlm/cghbhhkfjxs/202309/t20230928_506369.html", "2023-09-28", "day"),
    ("http://zhzfj.ningbo.gov.cn/art/2023/4/23/art_1229101865_58931212.html", "2023-04-23", "day"),
    ("https://new.qq.com/rain/a/20230927A07VZA00", "2023-09-27", "day"),
    ("https://news.dayoo.com/gzrbrmt/202308/25/158534_54544541.htm", "2023-08-25", "day"),
    ("https://www.jnu.edu.cn/2023/1024/c2618a769739/page.htm", "2023-10-24", "day"),
    ("https://pub-zhtb.hizh.cn/s/202310/04/AP651cfe66e4b0a12e0ce93184.html", "2023-10-04", "day"),
    ("http://www.zlb.gov.cn/2023-09/25/c_1212274991.htm", "2023-09-25", "day"),
    ("http://cq.people.com.cn/n2/2023/0930/c365401-40591091.html", "2023-09-30", "day"),
    ("https://news.10jqka.com.cn/20231026/c651604691.shtml", "2023-10-26", "day"),
    ("http://www.lnds.com.cn/lnds/snyq/2023012014004656585/", "2023-01-20", "day"),
    ("http://www.cnap.org.cn/cnap/yaow/202009/c728a310bb264d0fb7e7668f09ea75d1.shtml", "2020-09", "month"),
    ("https://www.nenjiang.gov.cn/njs/c100694/202303/c11_240714.shtml", "2023-03", "month"),
]
NOT_DATES = [
    "https://baijiahao.baidu.com/s?id=1778873121820323941&wfr=spider&for=pc",
    "https://baike.baidu.com/item/%E9%92%9F%E4%B8%87%E5%8B%B0/3824267?fr=ge_ala",
    "https://www.sohu.com/a/582536146_121106994",
    "https://www.thepaper.cn/newsDetail_forward_22966905",
    "http://www.ihep.cas.cn/jg/sld/",
    "https://example.org/2023/13/45/",  # no 13th month
]


@pytest.mark.parametrize(("url", "label", "precision"), REAL_SHAPES)
def test_real_url_shapes_parse(url: str, label: str, precision: str) -> None:
    found = evidence_date(url)
    assert found is not None and (found.label, found.precision) == (label, precision)
    assert found.describe() == f"{label} from the URL"


@pytest.mark.parametrize("url", NOT_DATES)
def test_ids_that_look_like_numbers_are_not_dates(url: str) -> None:
    assert evidence_date(url) is None


def test_chinese_dates_in_text_and_metadata() -> None:
    assert parse_date("据2023年10月20日报道", "the evidence text").describe() == "2023-10-20 from the evidence text"
    assert evidence_date("据2023年10月报道").label == "2023-10"
    assert evidence_date(None, {"date": "2024-05-01"}).describe() == "2024-05-01 from metadata (date)"
    found = evidence_date("https://example.org/a", texts=[("the question", "2023年9月1日开幕的展会叫什么？")])
    assert found is not None and found.describe() == "2023-09-01 from the question"
    assert months_between(date(2023, 10, 20), date(2025, 11, 19)) == 24
    assert months_between(date(2023, 10, 20), date(2025, 11, 20)) == 25


def test_share_of_real_cdqa_evidence_urls_that_parse(shared_data: Path) -> None:
    """Printed for the docs (run with -s): the share of CDQA v1 evidence URLs with a date."""
    records = json.loads((shared_data / "CDQA_v1.json").read_text(encoding="utf-8-sig"))
    urls = [r["annotation"]["准确性检查"] for r in records
            if str(r["annotation"].get("准确性检查", "")).startswith("http")]
    parsed = [u for u in urls if evidence_date(u) is not None]
    print(f"CDQA v1: {len(parsed)} of {len(urls)} evidence URLs carry a date ({len(parsed) / len(urls):.1%})")
    assert len(urls) > 1300 and 0.2 < len(parsed) / len(urls) < 0.5
