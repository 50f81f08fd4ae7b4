"""The messages POSTed to an MCP endpoint, judged before the SDK's streamable HTTP transport
reads them (see :mod:`mcp_sim.server.jsonrpc_check`).

The SDK answers a malformed body without the request's id, sometimes with the wrong code, and
takes a request whose id is an object or null for a notification (202, no reply ever). Here
such a body is answered with 400 and the JSON-RPC error, carrying the request's id when it has
one (a batch: a JSON array of them, one per request); a notification or a response that cannot
be taken gets 400 with an error without an id, as streamable HTTP asks. Everything else goes
on to the SDK unchanged.
"""

from __future__ import annotations

import json

import mcp.types as types
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_sim.server.jsonrpc_check import MAX_MESSAGE_BYTES, Refusal, check_message

_NOT_TAKEN = Refusal(None, types.INVALID_REQUEST, "not a JSON-RPC message the server can take")


class MessageCheck:
    """ASGI middleware for an MCP endpoint: POST bodies up to ``max_bytes`` are judged before
    ``app`` sees them (longer ones go on to the SDK, which refuses them with 413)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        read, complete = await self._read(receive)
        replay = _replaying(read, receive)
        body = b"".join(m.get("body", b"") for m in read if m["type"] == "http.request")
        if not complete or len(body) > self.max_bytes:
            await self.app(scope, replay, send)
            return
        verdict = check_message(body)
        if verdict.message is not None:
            await self.app(scope, replay, send)
            return
        replies = [
            r.reply().model_dump(by_alias=True, mode="json", exclude_unset=True)
            for r in verdict.refusals
        ]
        if not replies:
            replies = [
                _NOT_TAKEN.reply().model_dump(by_alias=True, mode="json", exclude_unset=True)
            ]
        answer = replies if verdict.batch and verdict.refusals else replies[0]
        await _send_json(send, 400, answer)

    async def _read(self, receive: Receive) -> tuple[list[Message], bool]:
        """The request's messages up to the end of its body or past ``max_bytes``, and whether
        the body ended."""
        read: list[Message] = []
        size = 0
        while True:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":
                return read, False
            size += len(message.get("body", b""))
            if not message.get("more_body", False):
                return read, True
            if size > self.max_bytes:
                return read, False


def _replaying(read: list[Message], receive: Receive) -> Receive:
    """``receive`` that gives the messages already read again first."""
    pending = list(read)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


async def _send_json(send: Send, status: int, payload: object) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
