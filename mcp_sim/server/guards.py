"""Who may reach the HTTP app: ASGI middleware for the bearer token and for the Host and
Origin checks against DNS rebinding."""

from __future__ import annotations

import hmac
import json

from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send


class BearerTokenGuard:
    """Rejects HTTP requests without ``Authorization: Bearer <token>`` (constant-time check)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await self._refuse(send)
                return
        await self.app(scope, receive, send)

    @staticmethod
    async def _refuse(send: Send) -> None:
        body = json.dumps({"error": "unauthorized", "message": "missing or wrong bearer token"})
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="mcp-sim"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body.encode()})


class HostGuard:
    """Rejects HTTP requests whose Host or Origin header names no allowed host, the same checks
    the SDK's transport makes on ``/mcp``, for the routes that sit next to it."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings) -> None:
        self.app = app
        self._security = TransportSecurityMiddleware(security)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = await self._security.validate_request(Request(scope, receive))
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
