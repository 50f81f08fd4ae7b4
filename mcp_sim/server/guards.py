"""Who may reach the HTTP app and with how much: ASGI middleware for the bearer tokens (the
operator's and the episodes'), the Host and Origin checks against DNS rebinding, and the
request body limit.

A request the guard lets in carries its credential as the ASGI scope's ``user`` (an
:class:`AuthenticatedUser` whose client id is ``operator`` or ``episode:`` and a digest of the
token): the SDK's transport binds each ``Mcp-Session-Id`` to the credential that opened it
and answers any other credential as if the session did not exist, so one client can neither
use nor ``DELETE`` another's transport session."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_sim.errors import EpisodeStoreError

EPISODE_MCP_PATH = re.compile(r"/episodes/([^/]+)/mcp")
"""The one route an episode's token opens: the agent's MCP endpoint. The rest of the episode
API (state, journal, verify, snapshot) is the operator's: it holds the hidden state and the
grader."""
OPERATOR_PRINCIPAL = "operator"
EPISODE_PRINCIPAL = "episode:"
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""Largest request body the episode API reads (a snapshot of a multi-MB world fits)."""


async def _refuse(
    send: Send, status: int, code: str, message: str, *extra: tuple[bytes, bytes]
) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    # A refused client's connection is closed with the answer: it cannot hold it open by
    # sending the rest of its body slowly.
    headers = [(b"content-type", b"application/json"), (b"connection", b"close"), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class AccessGuard:
    """Who may reach what, by bearer token. The operator's token (``--auth-token``) opens
    everything; an episode's token is the agent's and opens that episode's MCP endpoint
    (``/episodes/{id}/mcp``) and nothing else: 403 elsewhere. Any other token, or none, gets
    401. Without an operator token every route is open (a loopback development server: episodes
    are then protected only by their unguessable ids)."""

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        token_holder: Callable[[str], Awaitable[str | None]],
        *,
        token_opens: Callable[[str, str], Awaitable[bool]] | None = None,
        public: frozenset[str] = frozenset(),
    ):
        """``token_holder``: the episode a token opens, if any; ``token_opens``: whether a
        token opens a given episode (one lookup by id, where ``token_holder`` may take more:
        asked first on an episode's routes); ``public``: paths anyone may GET."""
        self.app = app
        self._operator = token.encode() if token else None
        self._token_holder = token_holder
        self._token_opens = token_opens
        self._public = public

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._operator is None:
            await self.app(scope, receive, send)
            return
        public = scope.get("method") in ("GET", "HEAD") and scope.get("path") in self._public
        if scope["type"] == "http" and public:
            await self.app(scope, receive, send)
            return
        given = [v for k, v in scope.get("headers") or [] if k == b"authorization"]
        if len(given) > 1:
            # Two credentials are one too many: which one a proxy or a framework would pick
            # differs (the last won here), so neither is taken.
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await _refuse(send, 400, "bad_request", "send one Authorization header, not two")
            return
        scheme, _, token = (given[0] if given else b"").partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(token, self._operator):
            await self.app(_as(scope, OPERATOR_PRINCIPAL, token), receive, send)
            return
        if scope["type"] == "websocket":
            # Only the operator's token opens a socket (OpenEnv's, which no episode owns); a
            # socket closed before it is accepted is refused with 403.
            await send({"type": "websocket.close", "code": 1008})
            return
        route = EPISODE_MCP_PATH.fullmatch(str(scope.get("path", "")))
        try:
            opened = scheme.lower() == b"bearer" and await self._opens(
                token.decode("latin-1"), route
            )
            refusal = None if opened else await self._refusal(scheme, token)
        except EpisodeStoreError as exc:
            # Tokens live in the episode store: when it cannot answer, say so.
            await _refuse(send, 503, "episode_store", str(exc))
            return
        if refusal is not None:
            status, code, message, *extra = refusal
            await _refuse(send, status, code, message, *extra)
            return
        principal = EPISODE_PRINCIPAL + hashlib.sha256(token).hexdigest()[:32]
        await self.app(_as(scope, principal, token), receive, send)

    async def _opens(self, token: str, route: re.Match[str] | None) -> bool:
        """Whether ``token`` opens the episode whose route was asked for."""
        if route is None:
            return False
        if self._token_opens is not None:
            return await self._token_opens(token, route.group(1))
        return await self._token_holder(token) == route.group(1)

    async def _refusal(self, scheme: bytes, token: bytes) -> list[Any]:
        """Status, code and message (and a header) for a refused token: 403 for another
        episode's, else 401."""
        if scheme.lower() == b"bearer" and await self._token_holder(token.decode("latin-1")):
            message = "an episode's token opens its own MCP endpoint only (/episodes/{id}/mcp)"
            return [403, "forbidden", message]
        challenge = (b"www-authenticate", b'Bearer realm="mcp-sim"')
        return [401, "unauthorized", "missing or wrong bearer token", challenge]


def _as(scope: Scope, principal: str, token: bytes) -> Scope:
    """``scope`` marked as the request of ``principal``, holding ``token``."""
    credential = AccessToken(token=token.decode("latin-1"), client_id=principal, scopes=[])
    return {**scope, "user": AuthenticatedUser(credential)}


def episode_token(scope: Scope) -> str | None:
    """The episode token a request was let in with, if it came with one (not the
    operator's, and not on a server without tokens)."""
    user = scope.get("user")
    if isinstance(user, AuthenticatedUser) and user.username.startswith(EPISODE_PRINCIPAL):
        return user.access_token.token
    return None


class BodyTooLarge(ValueError):
    """A request body went past the server's limit while it was being read."""


class BodyLimit:
    """Refuses request bodies over ``max_bytes`` with 413 without reading them whole: at once
    when Content-Length says so, else (a chunked body) as soon as the bytes read pass the
    limit, by raising :class:`BodyTooLarge` from the read, which the API answers with 413."""

    def __init__(self, app: ASGIApp, max_bytes: int = DEFAULT_MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _refuse(send, 413, "too_large", self._message())
            return
        seen = 0

        async def bounded() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self._message())
            return message

        await self.app(scope, bounded, send)

    def _message(self) -> str:
        return f"the request body is over the limit of {self.max_bytes} bytes"


class HostGuard:
    """Rejects HTTP requests and WebSocket handshakes whose Host or Origin header names no
    allowed host, the same checks the SDK's transport makes on ``/mcp``, for the routes that
    sit next to it."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self.app = app
        self._security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._security.validate_request(Request(scope, receive))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        elif scope["type"] == "websocket":
            # Browsers open sockets to any host: the same checks keep other sites' pages out.
            headers_only = Request({**scope, "type": "http"})
            if await self._security.validate_request(headers_only) is not None:
                await send({"type": "websocket.close", "code": 1008})
                return
        await self.app(scope, receive, send)
