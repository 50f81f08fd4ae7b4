"""Server-sent events from raw bytes, as they arrive.

A streamed answer is a few hundred to several thousand events (one per token), and the world
model's answers to many sessions arrive at once, so reading them is on every call's path.
Parsing whole network reads here costs a fraction of iterating the response line by line
through an HTTP library's chain of async generators, which was the largest single cost of a call.

Only what an OpenAI-compatible stream uses is kept: ``data`` fields (several in one event are
joined with newlines) and the end of an event at a blank line; comments and other fields are
skipped. Lines may end in ``\\n``, ``\\r\\n`` or ``\\r``, as the SSE specification allows.
"""

from __future__ import annotations


class EventParser:
    """Feed it bytes as they come; it hands back the data of each event completed."""

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, chunk: bytes) -> list[str]:
        """The data of the events that ``chunk`` completes, in order."""
        text = self._partial + chunk
        # A trailing \r may be the first half of a \r\n split over two reads: keep it back.
        held = b"\r" if text.endswith(b"\r") else b""
        if held:
            text = text[:-1]
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        blocks = text.split(b"\n\n")
        # What follows the last blank line is an event still arriving; it is parsed whole
        # once its blank line is here.
        self._partial = blocks.pop() + held
        events: list[str] = []
        for block in blocks:
            if block.startswith(b"data: ") and b"\n" not in block:
                events.append(block[6:].decode("utf-8", errors="replace"))  # the usual event
            else:
                event = _data_of(block)
                if event is not None:
                    events.append(event)
        return events

    def close(self) -> list[str]:
        """The data of an event the stream ended in without its closing blank line."""
        rest = self._partial.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        self._partial = b""
        event = _data_of(rest)
        return [] if event is None else [event]


def _data_of(block: bytes) -> str | None:
    """The data of one event's lines (None when it has no data field)."""
    data: list[bytes] = []
    for line in block.split(b"\n"):
        if line.startswith(b"data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(b" ") else value)
        elif line == b"data":
            data.append(b"")
        # Comments (":...") and the other fields (event, id, retry) carry nothing we use.
    if not data:
        return None
    return b"\n".join(data).decode("utf-8", errors="replace")
