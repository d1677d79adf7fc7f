"""Scoring as pure functions (no I/O), checked against the official scorers' conformance files.

- `cmrc`: CMRC 2018 official EM/F1 (QUIRKS listed there); `segment`: its segmentation, cached,
  with raw offsets.
- `cdqa`: CDQA F1-recall and refusals.
- `human`: human performance estimate from an item's golds.
- `align`: matched ranges in raw strings, for display.
- `registry`: scorer names, defaults per dataset family, `score_prediction`, `aggregate`.

Importing this package is cheap: NLTK and jieba load on first use.
"""
