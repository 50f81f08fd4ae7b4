"""A small OpenAI-compatible HTTP server for the benchmarks: it answers every chat completion
after a set delay, in vLLM's wire format, with a fixed observation.

It stands in for vLLM so that the benchmarks measure mcp-sim and nothing else: no GPU, no
tokenizer, no scheduler. It speaks real HTTP/1.1 (keep-alive, chunked transfer) on raw asyncio
streams rather than through a web framework, to spend as little as possible of the machine's
CPU, which the server under test needs. The answer is streamed the way vLLM streams one:
``data: {chat.completion.chunk}`` events of about one token each (``--token-chars``
characters), a usage chunk with ``choices: []`` when ``stream_options.include_usage`` asks for
it, then ``data: [DONE]``. Non-streaming requests get one ``chat.completion`` object.

    python benchmarks/backend.py --port 8100 --delay 0.2 --result-bytes 1024

prints ``ready PORT`` on stdout once it listens.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass

MODEL = "Qwen/Qwen-AgentWorld-35B-A3B"


@dataclass(frozen=True)
class Answer:
    """The bytes of one answer, rendered once: every request gets the same."""

    stream: bytes
    stream_with_usage: bytes
    whole: bytes
    completion_tokens: int


def observation(size: int) -> str:
    """A JSON observation of exactly ``size`` characters, like a tool's record listing."""
    items: list[dict[str, object]] = []
    while len(json.dumps({"results": items, "more": ""})) + 60 < size:
        i = len(items)
        items.append({"id": f"r{i:04d}", "title": f"Record number {i}", "score": i % 7})
    base = len(json.dumps({"results": items, "more": ""}))
    return json.dumps({"results": items, "more": "x" * max(0, size - base)})


def render(result_bytes: int, token_chars: int) -> Answer:
    content = f"<predicted_observation>\n{observation(result_bytes)}\n</predicted_observation>"
    pieces = [content[i : i + token_chars] for i in range(0, len(content), token_chars)]

    def chunk(choices: list[dict[str, object]], **extra: object) -> bytes:
        body = {
            "id": "chatcmpl-bench",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": MODEL,
            "choices": choices,
            **extra,
        }
        return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"

    events = [chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}}])]
    for n, piece in enumerate(pieces, 1):
        last = n == len(pieces)
        events.append(
            chunk(
                [
                    {
                        "index": 0,
                        "delta": {"content": piece},
                        "logprobs": None,
                        "finish_reason": "stop" if last else None,
                    }
                ]
            )
        )
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": len(pieces),
        "total_tokens": 1000 + len(pieces),
    }
    done = b"data: [DONE]\n\n"
    whole = {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "reasoning": None},
                "finish_reason": "stop",
            }
        ],
        "usage": usage,
    }
    return Answer(
        stream=b"".join(events) + done,
        stream_with_usage=b"".join(events) + chunk([], usage=usage) + done,
        whole=json.dumps(whole).encode(),
        completion_tokens=len(pieces),
    )


def _response(status: str, content_type: str, body: bytes, *, chunked: bool = False) -> bytes:
    head = f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\n"
    if chunked:
        # One chunk and the terminator: the client still parses every event of the stream.
        return (
            (head + "transfer-encoding: chunked\r\n\r\n").encode()
            + f"{len(body):x}\r\n".encode()
            + body
            + b"\r\n0\r\n\r\n"
        )
    return (head + f"content-length: {len(body)}\r\n\r\n").encode() + body


class Backend:
    def __init__(self, delay: float, answer: Answer) -> None:
        self.delay = delay
        self.answer = answer
        self.models = json.dumps(
            {"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "vllm"}]}
        ).encode()
        self.requests = 0

    async def serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                request_line, _, header_block = head.decode("latin-1").partition("\r\n")
                method, path, _ = request_line.split(" ", 2)
                length = 0
                for line in header_block.split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                body = await reader.readexactly(length) if length else b""
                writer.write(await self.answer_request(method, path, body))
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def answer_request(self, method: str, path: str, body: bytes) -> bytes:
        if method == "GET" and path.endswith("/models"):
            return _response("200 OK", "application/json", self.models)
        if method == "GET" and path == "/health":
            return _response("200 OK", "text/plain", b"")
        if method != "POST" or not path.endswith("/chat/completions"):
            return _response("404 Not Found", "application/json", b'{"error": "not found"}')
        self.requests += 1
        request = json.loads(body)
        if self.delay:
            await asyncio.sleep(self.delay)
        if not request.get("stream"):
            return _response("200 OK", "application/json", self.answer.whole)
        options = request.get("stream_options") or {}
        events = (
            self.answer.stream_with_usage if options.get("include_usage") else self.answer.stream
        )
        return _response("200 OK", "text/event-stream; charset=utf-8", events, chunked=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--result-bytes", type=int, default=1024)
    parser.add_argument("--token-chars", type=int, default=4, help="characters per stream event")
    args = parser.parse_args()
    backend = Backend(args.delay, render(args.result_bytes, args.token_chars))
    server = await asyncio.start_server(backend.serve_client, "127.0.0.1", args.port, backlog=4096)
    port = server.sockets[0].getsockname()[1]
    print(f"ready {port}", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
