"""What becomes of one JSON-RPC message (a stdio line, an HTTP body) before the SDK sees it.

The MCP SDK's stdio transport drops every line its parser or its message types refuse, with no
reply: JSON nested deeper than 200 levels, an integer of more than 4,300 digits, ``params``
that is not an object, a missing ``method``, ``"jsonrpc": "1.0"``, an ``id`` that is an
object, a batch, malformed JSON. A client waiting on that id waits forever. Its streamable
HTTP transport answers them, but without the request's id, with the wrong code (-32602 for a
missing method), or with 202 Accepted (an object or null ``id`` passes as a notification).

So every message is judged here first, and gets what JSON-RPC 2.0 and MCP allow:

- a request the SDK can take is handed to it (:attr:`Verdict.message`);
- any other request gets an error reply (:attr:`Verdict.refusals`) with its id when the id
  could be read (a string or an integer), else ``null``: -32700 parse error (not JSON, or a
  number the parser cannot hold), -32600 invalid request (not an object, no ``method``, a
  ``jsonrpc`` other than ``"2.0"``, an id that is not a string or integer, params that are
  not structured, a batch), -32602 invalid params (params given as a list, nesting deeper
  than :data:`MAX_DEPTH`);
- a notification or a response that cannot be taken is answered with nothing (JSON-RPC
  replies to neither).

Batches (removed from MCP in 2025-06-18; the SDK cannot take them) are refused element by
element: each request in one gets its own -32600 reply with its id.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import mcp.types as types
from pydantic import ValidationError
from pydantic_core import from_json

MAX_DEPTH = 64
"""How deeply a message may nest arrays and objects, its envelope included (a tool's
arguments sit at depth 3). Deeper values are refused before they reach the recursive code
that would handle them (JSON Schema validation, prompt rendering, snapshots)."""

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The longest message taken, over stdio and streamable HTTP alike (the SDK's default limit
for HTTP bodies); ``mcp-sim serve --max-message-bytes`` sets it."""

RequestId = str | int

_STRINGS = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
"""A JSON string; applied only to text that parsed, so every string in it is closed."""
_OPENERS = b"[{"
_ONLY_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_BRACKET_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
_STRUCTURE = re.compile(rb'["\[\]{}]')
MAX_SCANNED = 100_000
"""How many strings and brackets of a message that does not parse are read to find its top
level; one with more is answered as a parse error without an id."""


@dataclass(frozen=True)
class Refusal:
    """An error reply: the request's id (``None`` when it could not be read), code, message."""

    id: RequestId | None
    code: int
    message: str

    def reply(self) -> types.JSONRPCError:
        error = types.ErrorData(code=self.code, message=self.message)
        return types.JSONRPCError(jsonrpc="2.0", id=self.id, error=error)


@dataclass(frozen=True)
class Verdict:
    """What to do with one message: hand ``message`` to the SDK, send ``refusals``, or (neither)
    let it go unanswered, as JSON-RPC asks of a notification or a response."""

    message: types.JSONRPCMessage | None = None
    refusals: tuple[Refusal, ...] = ()
    batch: bool = False
    """The message was a batch (over HTTP its replies form one JSON array)."""


def check_message(data: bytes) -> Verdict:
    """The verdict on one message, given as the bytes of its JSON text."""
    try:
        value = from_json(data, allow_inf_nan=False)
    except ValueError as exc:
        return _unparsed(data, str(exc))
    too_deep = _depth(data) > MAX_DEPTH
    if isinstance(value, list):
        return _batch(value)
    return _single(value, too_deep=too_deep)


def _depth(data: bytes) -> int:
    """How deeply ``data`` (JSON that parsed) nests arrays and objects: the strings are taken
    out, the brackets left are steps of +1 and -1, and the deepest running sum is the depth."""
    steps = _STRINGS.sub(b"", data).translate(_BRACKET_STEPS, _ONLY_BRACKETS)
    return max(accumulate(memoryview(steps).cast("b")), default=0)


def _is_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _refuse(request_id: RequestId | None, code: int, message: str) -> Verdict:
    return Verdict(refusals=(Refusal(request_id, code, message),))


def _single(value: object, *, too_deep: bool) -> Verdict:
    if not isinstance(value, dict):
        return _refuse(None, types.INVALID_REQUEST, "a JSON-RPC message is a JSON object")
    answer_to = value["id"] if _is_id(value.get("id")) else None
    if "method" not in value:
        if "result" in value or "error" in value:  # a response: handed on or let go
            return Verdict() if too_deep else _response(value)
        return _refuse(answer_to, types.INVALID_REQUEST, 'a JSON-RPC request needs a "method"')
    problem = _envelope_problem(value)
    if problem is None and too_deep:
        problem = (types.INVALID_PARAMS, f"the message nests deeper than {MAX_DEPTH} levels")
    if problem is None:
        try:
            return Verdict(
                message=types.jsonrpc_message_adapter.validate_python(value, by_name=False)
            )
        except ValidationError as exc:
            problem = (types.INVALID_REQUEST, f"not a JSON-RPC request: {_first_error(exc)}")
    if "id" not in value:  # a notification: JSON-RPC answers it with nothing
        return Verdict()
    return _refuse(answer_to, *problem)


def _envelope_problem(value: Mapping[str, Any]) -> tuple[int, str] | None:
    """What is wrong with a request's or notification's envelope, if anything."""
    if not isinstance(value["method"], str):
        return types.INVALID_REQUEST, '"method" must be a string'
    if value.get("jsonrpc") != "2.0":
        return types.INVALID_REQUEST, '"jsonrpc" must be "2.0"'
    if "id" in value and not _is_id(value["id"]):
        return types.INVALID_REQUEST, 'a request\'s "id" is a string or an integer'
    params = value.get("params")
    if isinstance(params, list):
        return types.INVALID_PARAMS, '"params" must be an object: MCP names its parameters'
    if params is not None and not isinstance(params, dict):
        return types.INVALID_REQUEST, '"params" must be an object'
    return None


def _response(value: Mapping[str, Any]) -> Verdict:
    """A client's response to a request of the server's: the SDK's, if it is one."""
    try:
        return Verdict(message=types.jsonrpc_message_adapter.validate_python(value, by_name=False))
    except ValidationError:
        return Verdict()


def _batch(items: list[Any]) -> Verdict:
    """A batch: every request in it refused with its id, one refusal without an id for the
    elements that are not messages at all (an empty batch is one of those)."""
    refusals = [
        Refusal(item["id"], types.INVALID_REQUEST, "batches are not supported: send each alone")
        for item in items
        if isinstance(item, dict) and "method" in item and _is_id(item.get("id"))
    ]
    malformed = not items or any(not isinstance(item, dict) for item in items)
    if malformed:
        refusals.append(Refusal(None, types.INVALID_REQUEST, "not a JSON-RPC message"))
    return Verdict(refusals=tuple(refusals), batch=True)


def _first_error(exc: ValidationError) -> str:
    first = exc.errors(include_input=False, include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


# --- messages that do not parse ---------------------------------------------------------------


def _unparsed(data: bytes, reason: str) -> Verdict:
    """A message the parser refused: too deep for it, or malformed somewhere. When its top
    level still reads (everything nested below it emptied), a request's reply carries its id,
    a message that is only too deep is refused as such, and a notification or a response
    gets nothing; otherwise it is a parse error without an id."""
    parse_error = f"Parse error: {reason}"
    shape = _top_level(data)
    if shape is None:
        return _refuse(None, types.PARSE_ERROR, parse_error)
    top, deepest = shape
    if isinstance(top, list):
        return _batch(top)
    if deepest > MAX_DEPTH or not isinstance(top, dict):
        return _single(top, too_deep=True)
    if "method" in top and "id" not in top:  # a notification
        return Verdict()
    if "method" not in top and ("result" in top or "error" in top):  # a response
        return Verdict()
    return _refuse(top["id"] if _is_id(top.get("id")) else None, types.PARSE_ERROR, parse_error)


def _top_level(data: bytes) -> tuple[Any, int] | None:
    """``data``'s top level, every array or object below it emptied (a batch keeps its
    elements' own top level), and how deeply ``data`` nests; ``None`` when even that does
    not parse (an unclosed string or bracket, or malformed JSON at the top)."""
    keep = 2 if data.lstrip()[:1] == b"[" else 1
    pieces: list[bytes] = []
    depth = deepest = 0
    copied = opened = 0
    position = 0
    for _ in range(MAX_SCANNED):
        found = _STRUCTURE.search(data, position)
        if found is None:
            break
        at = found.start()
        if data[at] == 0x22:  # a string: skip to its end in one step
            string = _STRINGS.match(data, at)
            if string is None:
                return None
            position = string.end()
            continue
        position = at + 1
        if data[at] in _OPENERS:
            depth += 1
            deepest = max(deepest, depth)
            if depth == keep + 1:
                opened = at
            continue
        if depth == keep + 1:
            pieces += [data[copied:opened], b"{}" if data[opened] == 0x7B else b"[]"]
            copied = at + 1
        depth -= 1
        if depth < 0:
            return None
    else:
        return None
    if depth != 0:
        return None
    pieces.append(data[copied:])
    try:
        return from_json(b"".join(pieces), allow_inf_nan=False), deepest
    except ValueError:
        return None
