"""Each request's tokens as the engine makes them, set against what it served
(benchmarks/engine_cache)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2

from benchmarks.engine_cache import RequestRecord, engine_tokens


def fake_engine(request: httpx2.Request) -> httpx2.Response:
    """Stands in for vLLM's /v1/models, /tokenize and /detokenize: one token per character
    (its code point), so the shared prefixes are known without a tokenizer."""
    if request.url.path == "/v1/models":
        return httpx2.Response(200, json={"data": [{"id": "tiny"}]})
    body = json.loads(request.content)
    if request.url.path == "/detokenize":
        return httpx2.Response(200, json={"prompt": "".join(map(chr, body["tokens"]))})
    if "messages" in body:
        text = "".join(f"<{m['role']}>{m['content']}" for m in body["messages"]) + "<model>"
    else:
        text = body["prompt"]
    return httpx2.Response(200, json={"tokens": [ord(c) for c in text]})


def test_engine_tokens_measure_each_request_against_the_earlier_ones() -> None:
    system = {"role": "system", "content": "s" * 300}
    first = [system, {"role": "user", "content": "turn one. answer now"}]
    second = [
        system,
        {"role": "user", "content": "turn one."},
        {"role": "assistant", "content": "seen"},
        {"role": "user", "content": "turn two. answer now"},
    ]
    records = [
        RequestRecord(1, "answer", first, "seen", queried=330, hits=0),
        RequestRecord(2, "answer", second, "again", queried=360, hits=256),
    ]

    async def run() -> list[dict[str, Any]]:
        transport = httpx2.MockTransport(fake_engine)
        async with httpx2.AsyncClient(transport=transport, base_url="http://engine") as http:
            return await engine_tokens(http, "http://engine", records)

    rows = anyio.run(run)
    shared = len("<system>" + "s" * 300 + "<user>turn one.")
    assert [r["shared_tokens"] for r in rows] == [0, shared]
    assert rows[1]["prompt_tokens"] == len(rows[1]["tokens"])
    assert rows[1]["vllm_hits"] == 256
    # The previous prompt's last whole block (256, of 128 tokens) lies inside the shared part.
    assert rows[1]["sparse_expected"] == 256
    assert "turn one." in str(rows[1]["divergence"])
