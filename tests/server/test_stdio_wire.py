"""The stdio transport: every line a client sends gets the reply JSON-RPC allows (an error with
its id, or nothing for a notification), and the server goes on serving; nothing printed in
the process reaches the wire."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

from mcp_sim.server.stdio_wire import read_message
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE, ROOT
from tests.processes import DEAD_MODEL, RawStdio, serving_stdio

LIMIT = 65_536


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RawStdio]:
    log = tmp_path_factory.mktemp("stdio") / "stderr.txt"
    args = (*DEAD_MODEL, "--max-message-bytes", str(LIMIT))
    with serving_stdio(BOOKSTORE, *args, log=log) as served:
        yield served
    assert "Traceback" not in log.read_text()


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def call(request_id: int, arguments: str) -> bytes:
    params = f'{{"name": "search_books", "arguments": {arguments}}}'
    line = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": {params}}}'
    return line.encode()


MALFORMED: dict[str, tuple[bytes, Any, int]] = {
    "nested 200 deep": (call(1, f'{{"query": "q", "x": {nested(200)}}}'), 1, -32602),
    "nested 5000 deep": (call(2, f'{{"query": "q", "x": {nested(5000)}}}'), 2, -32602),
    "integer of 4,301 digits": (call(3, f'{{"query": "q", "n": {"9" * 4301}}}'), 3, -32700),
    "params a list": (b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": [1]}', 4, -32602),
    "params a string": (b'{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": "x"}', 5, -32600),
    "no method": (b'{"jsonrpc": "2.0", "id": 6}', 6, -32600),
    "jsonrpc 1.0": (b'{"jsonrpc": "1.0", "id": 7, "method": "ping"}', 7, -32600),
    "object id": (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', None, -32600),
    "malformed JSON": (b'{"jsonrpc": "2.0", "id": 8, "method": "ping"', None, -32700),
    "not JSON": (b"hello", None, -32700),
    "empty batch": (b"[]", None, -32600),
}


@pytest.mark.parametrize("case", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_line_gets_its_error_and_the_server_goes_on(wire: RawStdio, case: str) -> None:
    line, request_id, code = MALFORMED[case]
    wire.send(line)
    reply = wire.reply()
    assert (reply["id"], reply["error"]["code"]) == (request_id, code)
    assert wire.request("after", "ping") == {"jsonrpc": "2.0", "id": "after", "result": {}}


def test_a_batch_gets_an_error_for_each_request_in_it(wire: RawStdio) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 9, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "ten", "method": "tools/list"},
    ]
    wire.send(json.dumps(batch).encode())
    replies = [wire.reply(), wire.reply()]
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(9, -32600), ("ten", -32600)]


def test_a_notification_that_cannot_be_taken_gets_nothing(wire: RawStdio) -> None:
    wire.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": "x"}')
    wire.send(
        b'{"jsonrpc": "2.0", "method": "notifications/x", "params": {"a": ' + b"1" * 5000 + b"}}"
    )
    # The next line from the server answers the next request: nothing came in between.
    assert wire.request("next", "ping")["id"] == "next"


def test_a_line_over_the_limit_is_refused_and_skipped(wire: RawStdio) -> None:
    wire.send(call(11, json.dumps({"query": "x" * (LIMIT + 10)})))
    reply = wire.reply()
    assert reply["id"] is None and reply["error"]["code"] == -32600
    assert str(LIMIT) in reply["error"]["message"]
    assert wire.request("after", "ping")["id"] == "after"


def test_a_tool_call_still_works_between_malformed_lines(wire: RawStdio, bookstore: World) -> None:
    wire.send(b"{not json")
    assert wire.reply()["error"]["code"] == -32700
    arguments = {"name": "search_books", "arguments": {"query": "glass"}}
    reply = wire.request(12, "tools/call", arguments)
    assert reply["result"]["structuredContent"] == bookstore.fixtures[1].result


async def test_the_sdk_client_gets_an_error_for_arguments_nested_200_deep(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_sim", "serve", str(BOOKSTORE.relative_to(ROOT)), *DEAD_MODEL],
        cwd=str(ROOT),
    )
    deep: Any = "leaf"
    for _ in range(200):
        deep = [deep]
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
            with anyio.fail_after(60), pytest.raises(MCPError) as refused:
                await client.call_tool("search_books", {"query": "q", "x": deep})
            assert refused.value.error.code == -32602
            assert (await client.list_tools()).tools


def test_read_message_skips_blank_lines_and_replaces_bytes_that_are_not_utf8() -> None:
    source = io.BytesIO(b'\n  \n{"jsonrpc": "2.0", "method": "n", "params": {"x": "\xff"}}\n')
    verdict = read_message(source, LIMIT)
    assert verdict is not None and verdict.message is not None
    assert verdict.message.model_dump()["params"] == {"x": "\ufffd"}
    assert read_message(source, LIMIT) is None


def test_read_message_refuses_a_long_line_without_reading_it_into_one_piece() -> None:
    source = io.BytesIO(b"x" * 5000 + b"\n" + b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')
    refused = read_message(source, 1024)
    assert refused is not None and [r.code for r in refused.refusals] == [-32600]
    following = read_message(source, 1024)
    assert following is not None and following.message is not None


def test_what_the_process_prints_while_serving_goes_to_stderr() -> None:
    script = (
        "from mcp_sim.server.stdio_wire import claimed_stdio\n"
        "with claimed_stdio() as (source, sink):\n"
        "    print('stray', flush=True)\n"
        "    sink.write(source.readline())\n"
        "print('after')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=b"wire\n", capture_output=True, cwd=ROOT, timeout=60
    )
    assert done.stdout == b"wire\nafter\n"
    assert b"stray" in done.stderr
