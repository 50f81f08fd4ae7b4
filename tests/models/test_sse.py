"""Server-sent events parsed from raw network reads, however the bytes are split."""

from __future__ import annotations

import pytest

from mcp_sim.models.sse import EventParser

STREAM = (
    b": keep-alive comment\n\n"
    b'data: {"a": 1}\n\n'
    b"event: message\r\nid: 7\r\n"
    b"data: first line\r\ndata:second line\r\n\r\n"
    b"data\r\r"
    b"data: [DONE]\n\n"
)
EVENTS = ['{"a": 1}', "first line\nsecond line", "", "[DONE]"]


def feed_in_pieces(parser: EventParser, data: bytes, size: int) -> list[str]:
    events: list[str] = []
    for start in range(0, len(data), size):
        events += parser.feed(data[start : start + size])
    return events + parser.close()


def test_events_are_read_from_one_whole_buffer() -> None:
    assert feed_in_pieces(EventParser(), STREAM, len(STREAM)) == EVENTS


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64])
def test_events_are_the_same_however_the_reads_split_them(size: int) -> None:
    assert feed_in_pieces(EventParser(), STREAM, size) == EVENTS


def test_a_crlf_split_between_two_reads_is_one_line_end() -> None:
    parser = EventParser()
    assert parser.feed(b"data: x\r") == []
    assert parser.feed(b"\n\r") == []
    assert parser.feed(b"\ndata: y\n\n") == ["x", "y"]


def test_an_event_cut_off_by_the_end_of_the_stream_is_still_delivered() -> None:
    parser = EventParser()
    assert parser.feed(b'data: {"last": true}') == []
    assert parser.close() == ['{"last": true}']


def test_utf8_split_between_reads_is_decoded_whole() -> None:
    encoded = "data: Åse på øya\n\n".encode()
    parser = EventParser()
    events = [e for i in range(len(encoded)) for e in parser.feed(encoded[i : i + 1])]
    assert events == ["Åse på øya"]
