#!/usr/bin/env python
"""Inspect AI `.eval` logs as current inspect_ai writes them, made without inspect_ai: every member
Zstandard-compressed (zip method 93, which Python's `zipfile` reads only from 3.14), samples as
`samples/<id>_epoch_<n>.json` with messages, events and scores, `header.json` written last.

    python tests/tools/make_inspect_logs.py OUT_DIR [--samples 1000 2000 …] [--epochs 1]

writes `OUT_DIR/log-<n>.eval` and, beside each, `pred-<n>.jsonl` with the same predictions as
plain JSONL records (the floor `tests/bench/bench_inspect.py` compares with) and a SQuAD-style
`data-<n>.json` they answer. The functions are also the corpus' builders of hostile archives:
`zip_bytes` (any method, sizes that lie), `zeros_deflate`/`zeros_zstd` (bombs made in milliseconds).

The small real log in `tests/fixtures/frameworks/inspect_current/` was written by inspect_ai
itself (`pip install inspect_ai`), offline, with its mock model:

    import inspect_ai.model._model as m
    m.count_text_tokens = lambda *a, **k: 10      # it would fetch a tiktoken encoding
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import includes
    from inspect_ai.solver import generate
    samples = [Sample(id="Q1", input="What jumps?", target="quick brown fox", metadata={"question": "What jumps?"}),
               Sample(id="Q2", input="Over what?", target="the lazy dog"),
               Sample(id="Q3", input="Near what?", target="the river bank")]
    eval(Task(dataset=samples, solver=[generate()], scorer=includes(), epochs=2, name="qa_limits_fixture"),
         model="mockllm/model", log_dir="logs", display="none")
"""

from __future__ import annotations

import argparse
import json
import struct
import zlib
from pathlib import Path
from typing import Any

__all__ = [
    "DEFLATED",
    "STORED",
    "ZSTANDARD",
    "compress",
    "header",
    "sample",
    "synthetic_log",
    "zeros_deflate",
    "zeros_zstd",
    "zip_bytes",
]

STORED, DEFLATED, ZSTANDARD = 0, 8, 93


def compress(data: bytes, method: int) -> bytes:
    if method == STORED:
        return data
    if method == DEFLATED:
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush()
    import zstandard

    return zstandard.ZstdCompressor(level=3, write_content_size=True).compress(data)


def zeros_deflate(size: int) -> bytes:
    """Raw deflate data inflating to `size` zero bytes (a multiple of 1 MiB), built from one
    flushed 1 MiB block repeated: a 3 GiB bomb in milliseconds."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
    return block * (size >> 20) + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def zeros_zstd(size: int) -> bytes:
    """Zstandard frames inflating to `size` zero bytes (a multiple of 1 MiB): one frame repeated."""
    import zstandard

    return zstandard.ZstdCompressor(level=3).compress(bytes(1 << 20)) * (size >> 20)


def zip_bytes(members: dict[str, bytes], method: int = ZSTANDARD, *, raw: dict[str, tuple[bytes, int, int]] | None = None,
              central_directory: bool = True) -> bytes:
    """A zip archive of `members` (name → bytes, compressed with `method`); `raw` adds members given
    as (compressed bytes, declared inflated size, CRC-32), which may lie; without `central_directory`, the
    archive is cut where a writer that has not finished would stop."""
    entries: list[tuple[str, int, bytes, int, int]] = []
    for name, data in members.items():
        entries.append((name, method, compress(data, method), len(data), zlib.crc32(data)))
    for name, (packed, declared, crc) in (raw or {}).items():
        entries.append((name, method, packed, declared, crc))
    out = bytearray()
    central = bytearray()
    for name, how, packed, size, crc in entries:
        encoded = name.encode()
        offset = len(out)
        out += struct.pack("<4s5H3L2H", b"PK\x03\x04", 63, 0x800, how, 0, 0x21, crc, len(packed), size, len(encoded), 0)
        out += encoded + packed
        central += struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 63, 63, 0x800, how, 0, 0x21, crc, len(packed), size,
                               len(encoded), 0, 0, 0, 0, 0, offset) + encoded
    if not central_directory:
        return bytes(out)
    return bytes(out + central + _directory_end(len(entries), len(central), len(out)))


def _directory_end(count: int, size: int, offset: int) -> bytes:
    """The end of the central directory; past 65,535 members (a 200k-sample log) the ZIP64 record
    and its locator first, as Python's `zipfile` writes them, the classic record saturated."""
    if count <= 0xFFFF:
        return struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, size, offset, 0)
    record = struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, offset)
    locator = struct.pack("<4sLQL", b"PK\x06\x07", 0, offset + size, 1)
    return record + locator + struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, size, offset, 0)


def header(samples: int, epochs: int = 1, model: str = "mockllm/model") -> dict[str, Any]:
    return {"version": 2, "status": "success",
            "eval": {"eval_id": "e1", "run_id": "r1", "created": "2026-01-01T00:00:00+00:00", "task": "qa_bench",
                     "task_version": 0, "dataset": {"name": "qa_bench", "samples": samples}, "model": model,
                     "config": {"epochs": epochs}},
            "plan": {"name": "plan", "steps": [{"solver": "generate", "params": {}}]},
            "results": {"total_samples": samples * epochs, "completed_samples": samples * epochs,
                        "scores": [{"name": "includes", "scorer": "includes",
                                    "metrics": {"accuracy": {"name": "accuracy", "value": 0.5}}}]},
            "stats": {"started_at": "2026-01-01T00:00:00+00:00", "completed_at": "2026-01-01T00:01:00+00:00"}}


def sample(i: int, epoch: int = 1) -> dict[str, Any]:
    """A sample shaped as inspect_ai writes one (messages, output, scores, events), about 3 KB."""
    question = f"Question number {i}: what does the fox jump over?"
    answer = f"the lazy dog {i % 7}"
    message = {"id": f"m{i}", "role": "assistant", "content": answer, "source": "generate", "model": "mockllm/model"}
    return {"id": f"Q{i}", "epoch": epoch, "input": question, "target": f"the lazy dog {i % 5}",
            "messages": [{"id": f"u{i}", "role": "user", "content": question, "source": "input"}, message],
            "output": {"model": "mockllm/model", "choices": [{"message": message, "stop_reason": "stop"}],
                       "completion": answer, "usage": {"input_tokens": 10, "output_tokens": 10, "total_tokens": 20}},
            "scores": {"includes": {"value": "C" if i % 7 == i % 5 else "I", "answer": answer}},
            "metadata": {"question": question}, "store": {},
            "events": [{"event": "sample_init", "timestamp": "2026-01-01T00:00:00+00:00",
                        "sample": {"input": question, "target": "the lazy dog", "id": f"Q{i}"}},
                       {"event": "model", "timestamp": "2026-01-01T00:00:01+00:00", "model": "mockllm/model",
                        "input": [{"role": "user", "content": question}], "tools": [], "tool_choice": "none",
                        "config": {}, "output": {"completion": answer}, "call": {"request": {"x": "y" * 1500}}}],
            "model_usage": {}, "attachments": {}}


def synthetic_log(samples: int, epochs: int = 1, method: int = ZSTANDARD) -> bytes:
    """A finished log of `samples` samples × `epochs`, header last (as inspect_ai writes it)."""
    members = {"_journal/start.json": json.dumps({"version": 2, "eval": header(samples, epochs)["eval"]}).encode()}
    for epoch in range(1, epochs + 1):
        for i in range(samples):
            members[f"samples/Q{i}_epoch_{epoch}.json"] = json.dumps(sample(i, epoch)).encode()
    members["header.json"] = json.dumps(header(samples, epochs)).encode()
    return zip_bytes(members, method)


def write_set(out: Path, samples: int, epochs: int = 1) -> tuple[Path, Path, Path]:
    """`log-<n>.eval`, `pred-<n>.jsonl` (same predictions) and `data-<n>.json` (their dataset) in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / f"log-{samples}.eval"
    log.write_bytes(synthetic_log(samples, epochs))
    records = (json.dumps({"id": f"Q{i}", "prediction": sample(i)["output"]["completion"]}) for i in range(samples))
    pred = out / f"pred-{samples}.jsonl"
    pred.write_text("\n".join(records) + "\n", encoding="utf-8")
    qas = [{"id": f"Q{i}", "question": sample(i)["input"], "answers": [{"text": f"the lazy dog {i % 5}", "answer_start": 0}]}
           for i in range(samples)]
    data = out / f"data-{samples}.json"
    context = "the lazy dog 0 1 2 3 4"
    data.write_text(json.dumps({"version": "v1.1", "data": [{"title": "t", "paragraphs": [{"context": context, "qas": qas}]}]}),
                    encoding="utf-8")
    return log, pred, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--samples", type=int, nargs="+", default=[1000, 2000, 4000, 8000, 20000])
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    for n in args.samples:
        for path in write_set(args.out, n, args.epochs):
            print(path)


if __name__ == "__main__":
    main()
