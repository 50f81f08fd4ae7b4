"""Waiting for a launched vLLM to be ready: polling its ``/health`` over HTTP while
reporting progress, and failing early when it dies or takes too long."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

import anyio
import httpx2

from mcp_sim.engine.progress import EngineProgress
from mcp_sim.errors import EngineError

_LOADING_REPORT_S = 5.0
_POLL_S = 0.5


class LaunchedServer(Protocol):
    """What waiting needs of a server that was just launched."""

    @property
    def label(self) -> str: ...

    @property
    def progress(self) -> EngineProgress: ...

    @property
    def ready_timeout(self) -> float: ...

    @property
    def base_url(self) -> str: ...

    @property
    def health_url(self) -> str: ...

    @property
    def returncode(self) -> int | None: ...

    def failure(self, what: str) -> EngineError: ...


@dataclass
class _Startup:
    """Bookkeeping while a launched server loads: progress, death and timeout checks."""

    server: LaunchedServer
    started: float = field(default_factory=time.monotonic)
    next_report: float = 0.0

    def __post_init__(self) -> None:
        self.next_report = self.started + _LOADING_REPORT_S

    def ready(self, healthy: bool) -> bool:
        server = self.server
        now = time.monotonic()
        elapsed = now - self.started
        if healthy:
            server.progress(f"{server.label}: ready after {elapsed:.0f} s at {server.base_url}")
            return True
        code = server.returncode
        if code is not None:
            raise server.failure(f"exited with code {code} before it was ready")
        if elapsed > server.ready_timeout:
            raise server.failure(f"was not ready after {server.ready_timeout:.0f} s")
        if now >= self.next_report:
            server.progress(f"{server.label}: loading… {elapsed:.0f} s")
            self.next_report = now + _LOADING_REPORT_S
        return False


def _healthy(client: httpx2.Client, url: str) -> bool:
    try:
        return client.get(url).status_code == 200
    except httpx2.HTTPError:
        return False  # connection refused while it loads


async def _ahealthy(client: httpx2.AsyncClient, url: str) -> bool:
    try:
        return (await client.get(url)).status_code == 200
    except httpx2.HTTPError:
        return False


def wait_until_ready(server: LaunchedServer) -> None:
    """Block until ``/health`` answers 200; raise :class:`EngineError` with the server's
    log tail when it exits first or is not ready within its ``ready_timeout``."""
    startup = _Startup(server)
    with httpx2.Client(timeout=2.0, trust_env=False) as client:
        while not startup.ready(_healthy(client, server.health_url)):
            time.sleep(_POLL_S)


async def await_ready(server: LaunchedServer) -> None:
    """:func:`wait_until_ready` for an event loop."""
    startup = _Startup(server)
    async with httpx2.AsyncClient(timeout=2.0, trust_env=False) as client:
        while not startup.ready(await _ahealthy(client, server.health_url)):
            await anyio.sleep(_POLL_S)
