"""The whole path over real HTTP on both sides: an MCP client → ``mcp-sim serve --http`` (a real
subprocess) → an OpenAI-compatible endpoint.

The endpoint is ``tests/openai_double.py``, a real HTTP server speaking vLLM's wire format: real
vLLM needs a GPU and the Qwen-AgentWorld weights, and cannot go down, stream slowly or hang on
demand. The same path against real vLLM (CPU, tiny model) is in ``test_real_model.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import mcp.types as types
import pytest
from mcp import Client

from tests.openai_double import OpenAIDouble, Reply
from tests.processes import ROOT, free_port, request_meta, run_cli, serving_http

BOOKSTORE = ROOT / "worlds" / "bookstore.yaml"
BOOK = '{"id": "b1", "title": "The Glass River", "author": "M. Ortega", "price": 12.5, "stock": 3}'


@pytest.fixture
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble() as d:
        yield d


def text_of(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def test_dead_endpoint_gives_an_error_in_time_and_the_next_call_succeeds_once_it_is_back(
    tmp_path: Path,
) -> None:
    port = free_port()
    model_url = f"http://127.0.0.1:{port}/v1"
    args = ("--model-url", model_url, "--timeout", "5", "--retries", "1")
    with serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(10):
                down = await client.call_tool("get_book", {"book_id": "b1"})
            assert down.is_error
            assert "127.0.0.1" in text_of(down)

            with OpenAIDouble(port=port) as back:
                back.script(Reply(content=f"<predicted_observation>{BOOK}</predicted_observation>"))
                with anyio.fail_after(20):
                    up = await client.call_tool("get_book", {"book_id": "b1"})
            assert not up.is_error
            assert text_of(up) == BOOK


async def test_progress_is_reported_while_the_model_streams(
    double: OpenAIDouble, tmp_path: Path
) -> None:
    thinking = " ".join(f"step{i}" for i in range(120))
    double.script(
        Reply(
            reasoning=thinking,
            content=f"<predicted_observation>{BOOK}</predicted_observation>",
            chunk_delay=0.01,
        )
    )
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    args = ("--model-url", double.base_url)
    with serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(30):
                result = await client.call_tool(
                    "get_book", {"book_id": "b1"}, progress_callback=on_progress
                )
    assert not result.is_error
    assert len(updates) >= 2
    values = [p for p, _, _ in updates]
    assert values == sorted(values) and len(set(values)) == len(values)


async def test_tool_with_output_schema_asks_for_structured_output(
    double: OpenAIDouble, tmp_path: Path
) -> None:
    answer = '{"results": [{"id": "b3", "title": "Cartographers of Rain", "author": "L. Haddad", "price": 22.9, "stock": 7}], "total": 1}'
    double.script(Reply(content=answer))
    args = ("--model-url", double.base_url, "--no-thinking")
    with serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.fail_after(30):
                result = await client.call_tool("search_books", {"query": "rain"})
    assert not result.is_error
    assert result.structured_content == {
        "results": [
            {
                "id": "b3",
                "title": "Cartographers of Rain",
                "author": "L. Haddad",
                "price": 22.9,
                "stock": 7,
            }
        ],
        "total": 1,
    }
    body = double.completion_requests[-1].body
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["results", "total"]
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert "tools" not in body and "guided_json" not in body


async def test_cancelled_call_closes_the_model_request_and_the_server_keeps_serving(
    double: OpenAIDouble, tmp_path: Path
) -> None:
    double.script(
        Reply(content="<predicted_observation>late</predicted_observation>", delay=30),
        Reply(content=f"<predicted_observation>{BOOK}</predicted_observation>"),
    )
    args = ("--model-url", double.base_url)
    with serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url:
        async with Client(url) as client:
            with anyio.move_on_after(1.5) as scope:
                await client.call_tool("get_book", {"book_id": "b1"})
            assert scope.cancelled_caught
            await double.wait_for(lambda: double.disconnects >= 1, timeout=10)
            with anyio.fail_after(20):
                result = await client.call_tool("get_book", {"book_id": "b1"})
    assert text_of(result) == BOOK


async def test_sessions_stick_to_one_replica_from_a_url_file_and_fail_over_when_it_dies(
    tmp_path: Path,
) -> None:
    sessions = [f"episode-{i}" for i in range(12)]
    answer = Reply(content=f"<predicted_observation>{BOOK}</predicted_observation>")
    first_port, second_port = free_port(), free_port()
    urls = tmp_path / "replicas.txt"
    urls.write_text(
        f"# two replicas\nhttp://127.0.0.1:{first_port}/v1\nhttp://127.0.0.1:{second_port}/v1\n",
        encoding="utf-8",
    )
    args = ("--model-urls-file", str(urls), "--timeout", "10", "--retries", "0")

    async def call_each(client: Client) -> None:
        for session in sessions:
            with anyio.fail_after(20):
                result = await client.call_tool(
                    "get_book", {"book_id": "b1"}, meta=request_meta({"mcp-sim/session": session})
                )
            assert not result.is_error, text_of(result)

    with (
        OpenAIDouble(port=first_port) as first,
        OpenAIDouble(port=second_port) as second,
        serving_http(BOOKSTORE, *args, log=tmp_path / "serve.log") as url,
    ):
        for replica in (first, second):
            replica.respond_with(lambda _: answer)
        async with Client(url) as client:
            await call_each(client)
            await call_each(client)
            seen = {
                name: [r.headers["x-session-id"] for r in replica.completion_requests]
                for name, replica in (("first", first), ("second", second))
            }
            assert sorted(seen["first"] + seen["second"]) == sorted(sessions * 2)
            assert not set(seen["first"]) & set(seen["second"])
            assert seen["first"] and seen["second"]
            first.stop()
            await call_each(client)
    assert sorted(r.headers["x-session-id"] for r in second.completion_requests) == sorted(
        seen["second"] + sessions
    )


def test_an_empty_model_url_file_stops_the_command_with_a_clear_message(
    tmp_path: Path,
) -> None:
    urls = tmp_path / "replicas.txt"
    urls.write_text("\n", encoding="utf-8")
    run = run_cli("serve", str(BOOKSTORE), "--model-urls-file", str(urls))
    assert run.returncode != 0
    assert "lists no URL" in run.stderr and "Traceback" not in run.stderr


def test_the_servers_context_window_bounds_the_prompt_and_a_window_too_small_is_a_clear_error(
    tmp_path: Path,
) -> None:
    book = '{"id": "b1", "title": "The Glass River"}'
    with OpenAIDouble(max_model_len=6000) as double:
        double.script(Reply(content=f"<predicted_observation>{book}</predicted_observation>"))
        args = ("call", str(BOOKSTORE), "get_book", "--args", '{"book_id": "b1"}')
        fits = run_cli(*args, "--model-url", double.base_url, "--max-tokens", "1000")
        assert fits.returncode == 0, fits.stderr
        assert "context window is 6000 tokens" in fits.stderr
        prompt = "".join(m["content"] for m in double.completion_requests[0].body["messages"])
        assert len(prompt) // 3 + 1 <= 6000 - 1000
        too_small = run_cli(*args, "--model-url", double.base_url, "--max-tokens", "5500")
    assert too_small.returncode == 1
    assert "context window of 6000 tokens leaves no room" in too_small.stderr
    assert "Traceback" not in too_small.stderr
