"""The HTTP client under the model client: what it must offer, and httpx2 made to offer it.

The model client runs on the lean client of :mod:`.http11` unless it needs httpx2: an injected
client or transport (tests), or a proxy named in the environment, which only httpx2 speaks
(:func:`proxied`). Both raise mcp-sim's errors, so that the model client classifies failures in
one place whichever it runs on: :class:`Httpx2Client` translates httpx2's exceptions.
"""

from __future__ import annotations

import urllib.request
from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx2

from mcp_sim.errors import ConnectFailed, ConnectionBroken, ModelError, ModelTimeout


class StreamedResponse(Protocol):
    """What the model client reads of a response it streams."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def aiter_bytes(self) -> AsyncIterator[bytes]: ...


class ReadResponse(StreamedResponse, Protocol):
    """A response whose whole body has been read."""

    @property
    def content(self) -> bytes: ...

    def json(self) -> Any: ...


class HttpClient(Protocol):
    """The requests the model client makes. Failures are :class:`~mcp_sim.errors.ModelError`:
    :class:`~mcp_sim.errors.ConnectFailed`, :class:`~mcp_sim.errors.ConnectionBroken` or, for
    an httpx2 read timeout, :class:`~mcp_sim.errors.ModelTimeout`."""

    def stream(
        self, method: str, url: str, *, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> AbstractAsyncContextManager[StreamedResponse]: ...

    async def get(self, url: str, *, headers: Mapping[str, str] | None = None) -> ReadResponse: ...

    async def aclose(self) -> None: ...


class Httpx2Client:
    """An httpx2 client behind :class:`HttpClient`; an injected one is not closed by
    :meth:`aclose`, which belongs to its owner."""

    def __init__(
        self,
        client: httpx2.AsyncClient,
        *,
        connect_timeout: float,
        request_timeout: float,
        owned: bool,
    ) -> None:
        self._client = client
        self._connect_timeout = connect_timeout
        self._request_timeout = request_timeout
        self._timeout = httpx2.Timeout(request_timeout, connect=connect_timeout)
        self._owned = owned

    @classmethod
    def create(
        cls,
        transport: httpx2.AsyncBaseTransport | None,
        *,
        connect_timeout: float,
        request_timeout: float,
        connections: int,
    ) -> Httpx2Client:
        client = httpx2.AsyncClient(
            transport=transport,
            timeout=httpx2.Timeout(request_timeout, connect=connect_timeout),
            limits=httpx2.Limits(
                max_connections=connections, max_keepalive_connections=connections
            ),
        )
        return cls(
            client, connect_timeout=connect_timeout, request_timeout=request_timeout, owned=True
        )

    @asynccontextmanager
    async def stream(
        self, method: str, url: str, *, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> AsyncIterator[StreamedResponse]:
        # The block's own reads of the body run inside this try too: their httpx2 errors are
        # thrown in at the yield.
        try:
            async with self._client.stream(
                method, url, json=json, headers=headers, timeout=self._timeout
            ) as response:
                yield response
        except httpx2.HTTPError as exc:
            raise self._translated(url, exc) from exc

    async def get(self, url: str, *, headers: Mapping[str, str] | None = None) -> ReadResponse:
        try:
            return await self._client.get(url, headers=headers, timeout=self._timeout)
        except httpx2.HTTPError as exc:
            raise self._translated(url, exc) from exc

    async def aclose(self) -> None:
        if self._owned:
            await self._client.aclose()

    def _translated(self, url: str, exc: httpx2.HTTPError) -> ModelError:
        reason = str(exc) or type(exc).__name__
        if isinstance(exc, httpx2.ConnectTimeout):
            return ConnectFailed(
                f"could not connect within {self._connect_timeout:g} s (connect timeout)",
                timed_out=True,
            )
        if isinstance(exc, httpx2.TimeoutException):
            return ModelTimeout(
                f"the world model at {url} sent nothing for {self._request_timeout:g} s "
                f"(request timeout; {type(exc).__name__})"
            )
        if isinstance(exc, httpx2.ConnectError):
            return ConnectFailed(reason)
        if isinstance(exc, httpx2.TransportError):
            return ConnectionBroken(f"the connection broke ({type(exc).__name__}: {reason})")
        return ModelError(f"request to the world model at {url} failed: {reason}")


def proxied(urls: list[str]) -> bool:
    """Whether the environment names a proxy for any of ``urls`` (as httpx2 would use it)."""
    proxies = urllib.request.getproxies()
    for url in urls:
        parts = urlsplit(url)
        if (proxies.get(parts.scheme) or proxies.get("all")) and not urllib.request.proxy_bypass(
            parts.hostname or ""
        ):
            return True
    return False
