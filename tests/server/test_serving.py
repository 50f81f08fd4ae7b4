"""Worlds served from Python as their settings say, as ``mcp-sim serve`` serves them: the
hosting options and HTTP limits read from the settings, the combinations refused, and a
server that comes up, answers and stops."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest

from mcp_sim.api.worlds import Worlds
from mcp_sim.errors import SettingsError
from mcp_sim.server.hosting import HostingOptions
from mcp_sim.server.http_timeouts import HttpLimits
from mcp_sim.server.serving import serve_over_http, serve_over_stdio
from mcp_sim.settings import Settings
from tests.conftest import BOOKSTORE
from tests.processes import free_port
from tests.scripted_model import ScriptedModel


def test_hosting_options_are_the_settings_of_the_server_and_its_episodes(tmp_path: Path) -> None:
    settings = Settings.of(
        http=("::1", 8765),
        auth_token="secret",
        allow_host=["sim.example"],
        control_tools=True,
        snapshot_dir=tmp_path,
        openenv=True,
        session_idle_timeout=60,
    )
    options = HostingOptions.of(settings)
    assert (options.host, options.auth_token, options.allowed_hosts) == (
        "::1",
        "secret",
        ("sim.example",),
    )
    assert options.control_tools and options.openenv and options.session_idle_timeout == 60
    assert options.snapshots is not None
    assert HostingOptions.of(Settings()).host == HostingOptions().host
    assert HostingOptions.of(Settings()).snapshots is None


def test_http_limits_are_the_server_settings() -> None:
    server = Settings.of(header_timeout=3, body_timeout=7, max_header_bytes=4096).server
    assert HttpLimits.of(server) == HttpLimits(
        header_timeout=3, body_timeout=7, max_header_bytes=4096
    )


@pytest.mark.parametrize(
    ("worlds", "given", "source"),
    [
        (2, {}, "world"),
        (2, {"http": ("127.0.0.1", 8), "replay": "calls.jsonl"}, "--replay"),
        (1, {"openenv": True}, "--openenv"),
        (1, {"episode_store": "sqlite:///e.db"}, "--episode-store"),
        (1, {"snapshot_dir": "snaps"}, "--snapshot-dir"),
    ],
)
def test_settings_that_cannot_serve_together_are_refused(
    worlds: int, given: dict[str, object], source: str
) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.of(**given).check_served(worlds)
    assert refused.value.source == source
    Settings.of(http=("127.0.0.1", 8)).check_served(worlds)  # over HTTP, several are fine


async def test_a_server_of_worlds_comes_up_answers_and_stops() -> None:
    port = free_port()
    settings = Settings.of(http=("127.0.0.1", port), auth_token="secret")
    said: list[str] = []
    listening, stop = anyio.Event(), anyio.Event()
    async with await Worlds.open(BOOKSTORE, settings=settings, model=ScriptedModel()) as worlds:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tg:
                tg.start_soon(
                    lambda: serve_over_http(
                        worlds, settings, say=said.append, stop=stop, on_listening=listening.set
                    )
                )
                await listening.wait()
                async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
                    refused = await http.get("/episodes")
                    listed = await http.get("/episodes", headers={"Authorization": "Bearer secret"})
                stop.set()
    assert refused.status_code == 401 and listed.status_code == 200
    assert said[0].startswith("serving paperlane-books (") and f":{port}/mcp" in said[0]


async def test_stdio_and_http_refuse_what_they_cannot_serve() -> None:
    async with await Worlds.open(BOOKSTORE, model=ScriptedModel()) as worlds:
        with pytest.raises(ValueError, match="no --http address"):
            await serve_over_http(worlds, Settings(), say=print)
        with pytest.raises(SettingsError, match="goes with --control-tools"):
            await serve_over_stdio(worlds, Settings.of(snapshot_dir="snaps"), print)
