"""The MCP front, driven by the official SDK client: in memory (2026-07-28 and legacy 2025
handshake), over stdio and over streamable HTTP."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager
from pathlib import Path
from typing import Any, cast

import anyio
import httpx2
import mcp.types as types
import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from mcp_sim.errors import ModelUnavailable
from mcp_sim.models.base import Completion, CompletionRequest, ProgressCallback
from mcp_sim.server.mcp_front import (
    CONSISTENCY_URI,
    JOURNAL_URI,
    SESSION_META_KEY,
    STATE_URI,
    WORLD_URI,
    build_server,
)
from mcp_sim.simulator.core import Simulator
from mcp_sim.spec.world import World
from tests.conftest import BOOKSTORE, ROOT
from tests.processes import serving_http
from tests.scripted_model import ScriptedModel

GLASS = {"query": "glass"}
DEAD_MODEL = ["--model-url", "http://127.0.0.1:9/v1", "--timeout", "5", "--retries", "0"]
TOKEN = "s3cret-token"


class BlockingModel:
    """Answers at once, except for sessions whose gate is closed: those wait for it."""

    def __init__(self, *blocked: str) -> None:
        self.gates = {session: anyio.Event() for session in blocked}
        self.waiting: set[str] = set()

    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        session = request.routing_key or ""
        if session in self.gates:
            self.waiting.add(session)
            await self.gates[session].wait()
        return Completion(
            content=f"<predicted_observation>answer for {session}</predicted_observation>"
        )

    async def aclose(self) -> None:
        pass


class FailingModel:
    async def complete(
        self, request: CompletionRequest, progress: ProgressCallback | None = None
    ) -> Completion:
        raise ModelUnavailable("the test model is down")

    async def aclose(self) -> None:
        pass


@asynccontextmanager
async def connected(target: Any, mode: str = "auto") -> AsyncIterator[Client]:
    """An SDK client, opened in the test's own task (see the pytest note on Client fixtures)."""
    with anyio.fail_after(30):
        async with Client(target, mode=mode) as client:
            yield client


def text_of(result: types.CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, types.TextContent)
    return content.text


async def read_text(client: Client, uri: str, session: str | None = None) -> str:
    meta = session_meta(session) if session is not None else None
    result = await client.read_resource(uri, meta=meta)
    (content,) = result.contents
    assert isinstance(content, types.TextResourceContents)
    assert content.uri == uri
    return content.text


async def journal_of(client: Client, session: str | None = None) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (await read_text(client, JOURNAL_URI, session)).splitlines()
    ]


def session_meta(session: str) -> types.RequestParamsMeta:
    """Request ``_meta`` that names the mcp-sim session (an extra key of the SDK's TypedDict)."""
    return cast(types.RequestParamsMeta, {SESSION_META_KEY: session})


# --- in memory ------------------------------------------------------------------------------


@pytest.fixture(params=["auto", "legacy"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def test_tools_list_advertises_the_spec_tools_verbatim(bookstore: World, mode: str) -> None:
    async with connected(build_server(Simulator(bookstore, None)), mode) as client:
        listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == [t.name for t in bookstore.tools]
    for advertised, spec in zip(listed, bookstore.tools, strict=True):
        assert advertised.description == spec.description
        assert advertised.input_schema == spec.input_schema
        assert advertised.output_schema == spec.output_schema


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
async def test_subscriptions_of_an_expired_session_are_dropped(bookstore: World) -> None:
    from mcp_sim.runtime.session import SessionStore

    now = [0.0]
    store = SessionStore(bookstore, idle_timeout=10, clock=lambda: now[0])
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    glass = {"query": "glass"}  # a fixture: answered without a model
    simulator = Simulator(bookstore, None, sessions=store)
    with anyio.fail_after(30):
        async with Client(
            build_server(simulator, operator_resources=True),
            mode="legacy",
            message_handler=on_message,
        ) as client:
            await client.subscribe_resource(STATE_URI, meta=session_meta("a"))
            await client.call_tool("search_books", glass, meta=session_meta("a"))
            heard = len(updates)
            now[0] += 11  # "a" expires; a new session "a" has not subscribed
            await client.call_tool("search_books", glass, meta=session_meta("b"))
            await client.call_tool("search_books", glass, meta=session_meta("a"))
    assert heard == 1 and updates == [STATE_URI]


async def test_protocol_version_follows_the_mode(bookstore: World, mode: str) -> None:
    async with connected(build_server(Simulator(bookstore, None)), mode) as client:
        assert (client.protocol_version == "2026-07-28") == (mode == "auto")


async def test_fixture_call_returns_text_and_structured_content(
    bookstore: World, mode: str
) -> None:
    async with connected(build_server(Simulator(bookstore, None)), mode) as client:
        result = await client.call_tool("search_books", GLASS)
    assert not result.is_error
    assert result.structured_content == bookstore.fixtures[1].result
    assert json.loads(text_of(result)) == result.structured_content
    assert result.meta is not None and result.meta["mcp-sim/source"] == "fixture"


async def test_text_tool_answer_has_no_structured_content(bookstore: World, mode: str) -> None:
    server = build_server(Simulator(bookstore, BlockingModel()))
    async with connected(server, mode) as client:
        result = await client.call_tool("get_book", {"book_id": "b1"})
    assert not result.is_error
    assert result.structured_content is None
    assert text_of(result) == "answer for default"


async def test_bad_arguments_are_an_error_result(bookstore: World, mode: str) -> None:
    async with connected(build_server(Simulator(bookstore, None)), mode) as client:
        result = await client.call_tool("search_books", {"query": 42})
    assert result.is_error
    assert result.structured_content is None
    assert result.meta is not None and result.meta["mcp-sim/source"] == "validation"


async def test_model_failure_is_an_error_result(bookstore: World, mode: str) -> None:
    async with connected(build_server(Simulator(bookstore, FailingModel())), mode) as client:
        failed = await client.call_tool("search_books", {"query": "rain"})
        assert failed.is_error
        assert failed.meta is not None and failed.meta["mcp-sim/source"] == "model_error"
        assert not (await client.call_tool("search_books", GLASS)).is_error


async def test_unknown_tool_is_an_invalid_params_error(bookstore: World, mode: str) -> None:
    async with connected(build_server(Simulator(bookstore, None)), mode) as client:
        with pytest.raises(MCPError) as info:
            await client.call_tool("launch_rockets", {})
    assert info.value.code == types.INVALID_PARAMS


async def test_resources_are_listed_and_read(bookstore: World, mode: str) -> None:
    async with connected(
        build_server(Simulator(bookstore, None), operator_resources=True), mode
    ) as client:
        listed = (await client.list_resources()).resources
        assert {r.uri for r in listed} == {WORLD_URI, STATE_URI, JOURNAL_URI, CONSISTENCY_URI}
        assert json.loads(await read_text(client, WORLD_URI)) == bookstore.model_dump(mode="json")
        assert json.loads(await read_text(client, STATE_URI)) == bookstore.state
        assert await journal_of(client) == []
        await client.call_tool("search_books", GLASS)
        (record,) = await journal_of(client)
        assert (record["tool"], record["source"], record["step"]) == ("search_books", "fixture", 1)
        assert (await client.list_resource_templates()).resource_templates == []


@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")
async def test_without_the_flag_the_operators_resources_are_not_there(
    bookstore: World, mode: str
) -> None:
    updates: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(str(message.params.uri))

    server = build_server(Simulator(bookstore, None))
    with anyio.fail_after(30):
        async with Client(server, mode=mode, message_handler=on_message) as client:
            assert (await client.list_resources()).resources == []
            for uri in (WORLD_URI, STATE_URI, JOURNAL_URI, CONSISTENCY_URI):
                with pytest.raises(MCPError, match="Resource not found") as info:
                    await client.read_resource(uri)
                assert info.value.code == types.INVALID_PARAMS
            if mode == "legacy":  # resources/subscribe is of the handshake-era wire only
                await client.subscribe_resource(JOURNAL_URI)
            await client.call_tool("search_books", GLASS)
    assert updates == []


async def test_unknown_resource_is_an_invalid_params_error(bookstore: World, mode: str) -> None:
    async with connected(
        build_server(Simulator(bookstore, None), operator_resources=True), mode
    ) as client:
        with pytest.raises(MCPError) as info:
            await client.read_resource("sim://nowhere")
    assert info.value.code == types.INVALID_PARAMS


async def test_session_meta_key_selects_separate_sessions(bookstore: World, mode: str) -> None:
    async with connected(
        build_server(Simulator(bookstore, None), operator_resources=True), mode
    ) as client:
        await client.call_tool("search_books", GLASS, meta=session_meta("a"))
        await client.call_tool("search_books", {"query": "antarctica"}, meta=session_meta("a"))
        await client.call_tool("get_book", {}, meta=session_meta("b"))
        journal_a = await journal_of(client, "a")
        journal_b = await journal_of(client, "b")
        assert [(r["session"], r["step"], r["arguments"]) for r in journal_a] == [
            ("a", 1, GLASS),
            ("a", 2, {"query": "antarctica"}),
        ]
        assert [(r["session"], r["tool"]) for r in journal_b] == [("b", "get_book")]
        assert await journal_of(client) == []
        assert json.loads(await read_text(client, STATE_URI, "b")) == bookstore.state


async def test_a_session_id_of_a_megabyte_is_refused_before_the_model_is_asked(
    bookstore: World, script: type[ScriptedModel], mode: str
) -> None:
    model = script(script.answer("never asked"))
    async with connected(build_server(Simulator(bookstore, model)), mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("get_book", {"book_id": "b1"}, meta=session_meta("s" * 2**20))
    assert refused.value.code == types.INVALID_PARAMS
    assert "at most 256 characters" in refused.value.error.message
    assert model.requests == []


async def test_server_serves_other_sessions_while_one_call_is_blocked(
    bookstore: World, mode: str
) -> None:
    model = BlockingModel("slow")
    async with connected(
        build_server(Simulator(bookstore, model), operator_resources=True), mode
    ) as client:
        slow: list[types.CallToolResult] = []

        async def slow_call() -> None:
            slow.append(
                await client.call_tool("get_book", {"book_id": "b1"}, meta=session_meta("slow"))
            )

        async with anyio.create_task_group() as tg:
            tg.start_soon(slow_call)
            with anyio.fail_after(5):
                while "slow" not in model.waiting:
                    await anyio.sleep(0.005)
                fast = await client.call_tool(
                    "get_book", {"book_id": "b2"}, meta=session_meta("fast")
                )
                assert text_of(fast) == "answer for fast"
                assert await journal_of(client, "fast") != []
                assert slow == []
            model.gates["slow"].set()
        assert text_of(slow[0]) == "answer for slow"


# --- stdio ----------------------------------------------------------------------------------


async def test_stdio_server_answers_and_survives_a_dead_model(
    bookstore: World, tmp_path: Path
) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_sim",
            "serve",
            str(BOOKSTORE.relative_to(ROOT)),
            *DEAD_MODEL,
            "--operator-resources",
        ],
        cwd=str(ROOT),
    )
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with connected(stdio_client(params, errlog=errlog), "legacy") as client:
            tools = (await client.list_tools()).tools
            assert [t.name for t in tools] == [t.name for t in bookstore.tools]
            pinned = await client.call_tool("search_books", GLASS)
            assert pinned.structured_content == bookstore.fixtures[1].result
            with anyio.fail_after(15):
                failed = await client.call_tool("get_book", {"book_id": "b1"})
            assert failed.is_error
            again = await client.call_tool("search_books", {"query": "antarctica"})
            assert again.structured_content == {"results": [], "total": 0}
            assert [r["step"] for r in await journal_of(client)] == [1, 2, 3]
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


# --- streamable HTTP ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Two HTTP servers for this module: an open one and one that needs a bearer token.
    Yields their /mcp URLs by name."""
    logs = tmp_path_factory.mktemp("http")
    with ExitStack() as stack:
        yield {
            name: stack.enter_context(
                serving_http(BOOKSTORE, *DEAD_MODEL, *extra, log=logs / f"{name}.log")
            )
            for name, extra in (
                ("open", ["--operator-resources"]),
                ("token", ["--auth-token", TOKEN, "--operator-resources"]),
            )
        }


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    },
}


def raw_initialize(url: str, **headers: str) -> httpx2.Response:
    return httpx2.post(
        url,
        json=INITIALIZE,
        headers={"Accept": "application/json, text/event-stream", **headers},
        timeout=10,
    )


async def test_http_legacy_clients_get_separate_sessions(http_servers: dict[str, str]) -> None:
    url = http_servers["open"]
    async with connected(url, "legacy") as first, connected(url, "legacy") as second:
        await first.call_tool("search_books", GLASS)
        await first.call_tool("search_books", {"query": "antarctica"})
        await second.call_tool("search_books", GLASS)
        assert [r["step"] for r in await journal_of(first)] == [1, 2]
        assert [r["step"] for r in await journal_of(second)] == [1]
        sessions = {(await journal_of(c))[0]["session"] for c in (first, second)}
        assert len(sessions) == 2
        assert json.loads(await read_text(second, STATE_URI)) == json.loads(
            await read_text(first, STATE_URI)
        )


async def test_http_clients_naming_sessions_in_meta_get_separate_sessions(
    http_servers: dict[str, str],
) -> None:
    url = http_servers["open"]
    async with connected(url) as first, connected(url) as second:
        await first.call_tool("search_books", GLASS, meta=session_meta("http-a"))
        await second.call_tool("search_books", GLASS, meta=session_meta("http-b"))
        await second.call_tool("get_book", {}, meta=session_meta("http-b"))
        assert [r["tool"] for r in await journal_of(first, "http-a")] == ["search_books"]
        assert [r["tool"] for r in await journal_of(first, "http-b")] == [
            "search_books",
            "get_book",
        ]


async def test_http_call_to_a_dead_model_is_an_error_result(http_servers: dict[str, str]) -> None:
    async with connected(http_servers["open"]) as client:
        with anyio.fail_after(15):
            failed = await client.call_tool(
                "get_book", {"book_id": "b1"}, meta=session_meta("dead")
            )
        assert failed.is_error
        assert not (
            await client.call_tool("search_books", GLASS, meta=session_meta("dead"))
        ).is_error


def test_http_accepts_a_plain_initialize_from_localhost(http_servers: dict[str, str]) -> None:
    assert raw_initialize(http_servers["open"]).status_code == 200


def test_http_rejects_a_foreign_host_header(http_servers: dict[str, str]) -> None:
    assert raw_initialize(http_servers["open"], Host="evil.example").status_code == 421


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token", TOKEN])
def test_http_with_auth_token_rejects_missing_or_wrong_tokens(
    http_servers: dict[str, str], authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    response = raw_initialize(http_servers["token"], **headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")


async def test_http_with_auth_token_serves_clients_that_send_it(
    http_servers: dict[str, str],
) -> None:
    url = http_servers["token"]
    assert raw_initialize(url, Authorization=f"Bearer {TOKEN}").status_code == 200
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http,
        connected(streamable_http_client(url, http_client=http)) as client,
    ):
        assert len((await client.list_tools()).tools) == 4
        assert not (await client.call_tool("search_books", GLASS)).is_error


@pytest.mark.skipif(not Path("/proc/self/limits").exists(), reason="reads /proc (Linux)")
def test_http_server_raises_its_open_file_limit_for_many_sessions(tmp_path: Path) -> None:
    import subprocess

    from tests.processes import free_port, stop, wait_until_listening

    port = free_port()
    log = tmp_path / "serve.log"
    command = (
        "ulimit -Sn 256 && exec "
        f"{sys.executable} -m mcp_sim serve {BOOKSTORE} {' '.join(DEAD_MODEL)} "
        f"--http 127.0.0.1:{port}"
    )
    with log.open("wb") as stderr:  # the child keeps its own copy
        process = subprocess.Popen(["bash", "-c", command], stderr=stderr, cwd=ROOT)
    try:
        wait_until_listening(port, process, log)
        limits = Path(f"/proc/{process.pid}/limits").read_text()
    finally:
        stop(process)
    soft, hard = re.search(r"Max open files\s+(\S+)\s+(\S+)", limits).groups()  # type: ignore[union-attr]
    assert soft == hard and soft != "256"


def test_http_with_json_response_answers_calls_as_one_json_body(tmp_path: Path) -> None:
    with serving_http(BOOKSTORE, *DEAD_MODEL, "--json-response", log=tmp_path / "s.log") as url:
        opened = raw_initialize(url)
        session = opened.headers["mcp-session-id"]
        headers = {
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session,
            "MCP-Protocol-Version": "2025-11-25",
        }
        httpx2.post(
            url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
        )
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_books", "arguments": GLASS},
        }
        answer = httpx2.post(url, json=call, headers=headers, timeout=10)
    assert opened.headers["content-type"].startswith("application/json")
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json()["result"]["structuredContent"]["total"] == 2
