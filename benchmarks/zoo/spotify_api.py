"""The ``spotify`` shape's tools: the Web API's reads (a search's ``q`` with ``artist:``,
``album:``, ``year:`` and ``isrc:`` field filters, answered as a paging object of full tracks),
a playlist's artists and figures as a client computes them from its items, and the playlist
item endpoints' writes (a new ``snapshot_id`` each time)."""

from __future__ import annotations

import re
import statistics
from typing import Any
from urllib.parse import quote

from benchmarks.zoo.kit import Answer, State, ToolError, pointer
from benchmarks.zoo.spotify_catalog import (
    API,
    artists,
    find,
    playlist_item,
    playlists,
    snapshot,
    tracks,
)

TOKEN = re.compile(r'(\w+):"([^"]*)"|(\w+):(\S+)|"([^"]*)"|(\S+)')
FIELDS = ("artist", "album", "year", "isrc")


def parse(q: str) -> tuple[dict[str, str], list[str]]:
    """A query's field filters and its free words."""
    fields: dict[str, str] = {}
    free: list[str] = []
    for quoted_field, quoted, field, value, phrase, word in TOKEN.findall(q):
        name = quoted_field or field
        if name in FIELDS:
            fields[name] = quoted if quoted_field else value
        else:
            free.append(phrase or word or f"{name}:{quoted or value}")
    return fields, free


def _year_ok(date: str, wanted: str) -> bool:
    low, _, high = wanted.partition("-")
    if not (low.isdigit() and (high or low).isdigit()):
        raise ToolError('{"error": {"status": 400, "message": "Invalid year range"}}')
    return int(low) <= int(date[:4]) <= int(high or low)


def meets(track: dict[str, Any], q: str) -> bool:
    fields, free = parse(q)
    name = track["name"].lower()
    if any(word.lower() not in name for word in free):
        return False
    if "artist" in fields and not any(
        fields["artist"].lower() in a["name"].lower() for a in track["artists"]
    ):
        return False
    if "album" in fields and fields["album"].lower() not in track["album"]["name"].lower():
        return False
    if "isrc" in fields and fields["isrc"].upper() != track["external_ids"]["isrc"]:
        return False
    return "year" not in fields or _year_ok(track["album"]["release_date"], fields["year"])


def search(state: State, args: dict[str, Any]) -> Answer:
    if args.get("type", "track") != "track":
        raise ToolError('{"error": {"status": 400, "message": "Only type=track is served"}}')
    q, limit, offset = args["q"], args.get("limit", 20), args.get("offset", 0)
    found = [t for t in tracks(state) if meets(t, q)]
    url = f"{API}/search?query={quote(q)}&type=track"
    more = offset + limit < len(found)
    return {
        "tracks": {
            "href": f"{url}&offset={offset}&limit={limit}",
            "items": found[offset : offset + limit],
            "limit": limit,
            "next": f"{url}&offset={offset + limit}&limit={limit}" if more else None,
            "offset": offset,
            "previous": f"{url}&offset={max(0, offset - limit)}&limit={limit}" if offset else None,
            "total": len(found),
        }
    }, []


def _playlist(state: State, ident: str) -> tuple[int, dict[str, Any]]:
    return find(playlists(state), ident, "playlist")


def playlist_items(state: State, args: dict[str, Any]) -> Answer:
    return _playlist(state, args["playlist_id"])[1]["tracks"], []


def playlist_artists(state: State, args: dict[str, Any]) -> Answer:
    """Each artist on the playlist's tracks, as the artists endpoint has them, with the number
    of the playlist's tracks they are on."""
    items = _playlist(state, args["playlist_id"])[1]["tracks"]["items"]
    counts: dict[str, int] = {}
    for item in items:
        for artist in item["track"]["artists"]:
            counts[artist["id"]] = counts.get(artist["id"], 0) + 1
    full = {a["id"]: a for a in artists(state)}
    shown = [
        {
            "id": ident,
            "name": full[ident]["name"],
            "genres": full[ident]["genres"],
            "followers": full[ident]["followers"]["total"],
            "popularity": full[ident]["popularity"],
            "tracks_on_playlist": count,
        }
        for ident, count in counts.items()
    ]
    return {"playlist_id": args["playlist_id"], "artists": shown}, []


def playlist_stats(state: State, args: dict[str, Any]) -> Answer:
    playlist = _playlist(state, args["playlist_id"])[1]
    found = [item["track"] for item in playlist["tracks"]["items"]]
    decades: dict[str, int] = {}
    kinds: dict[str, int] = {}
    for track in found:
        decade = track["album"]["release_date"][:3] + "0s"
        decades[decade] = decades.get(decade, 0) + 1
        kinds[track["album"]["album_type"]] = kinds.get(track["album"]["album_type"], 0) + 1
    dates = [t["album"]["release_date"] for t in found]
    return {
        "playlist_id": playlist["id"],
        "name": playlist["name"],
        "tracks": len(found),
        "duration_ms": sum(t["duration_ms"] for t in found),
        "explicit_tracks": sum(1 for t in found if t["explicit"]),
        "distinct_artists": len({a["id"] for t in found for a in t["artists"]}),
        "mean_popularity": round(statistics.fmean(t["popularity"] for t in found), 1)
        if found
        else None,
        "by_decade": dict(sorted(decades.items())),
        "by_album_type": dict(sorted(kinds.items())),
        "earliest_release": min(dates, default=None),
        "latest_release": max(dates, default=None),
    }, []


def add_items(state: State, args: dict[str, Any]) -> Answer:
    n, playlist = _playlist(state, args["playlist_id"])
    paging = playlist["tracks"]
    by_uri = {t["uri"]: t for t in tracks(state)}
    missing = [u for u in args["uris"] if u not in by_uri]
    if missing or not args["uris"]:
        raise ToolError(
            '{"error": {"status": 400, "message": "Invalid track uri: ' + str(missing) + '"}}'
        )
    if len(paging["items"]) + len(args["uris"]) > paging["limit"]:
        raise ToolError('{"error": {"status": 400, "message": "Playlist size limit reached"}}')
    position = args.get("position", len(paging["items"]))
    if not 0 <= position <= len(paging["items"]):
        raise ToolError('{"error": {"status": 400, "message": "Index out of bounds"}}')
    total = len(paging["items"]) + len(args["uris"])
    added = [
        playlist_item(by_uri[u], f"2025-12-{1 + (total + k) % 28:02d}T12:{k:02d}:00Z")
        for k, u in enumerate(args["uris"])
    ]
    made = snapshot(f"{playlist['id']}/{total}/{args['uris']}")
    patch: list[dict[str, Any]] = [
        {
            "op": "add",
            "path": pointer("playlists", n, "tracks", "items", position + k),
            "value": item,
        }
        for k, item in enumerate(added)
    ]
    patch += [
        {"op": "replace", "path": pointer("playlists", n, "tracks", "total"), "value": total},
        {"op": "replace", "path": pointer("playlists", n, "snapshot_id"), "value": made},
    ]
    return {"snapshot_id": made}, patch


def remove_items(state: State, args: dict[str, Any]) -> Answer:
    n, playlist = _playlist(state, args["playlist_id"])
    if "snapshot_id" in args and args["snapshot_id"] != playlist["snapshot_id"]:
        raise ToolError('{"error": {"status": 400, "message": "Invalid snapshot id"}}')
    uris = {t["uri"] for t in args["tracks"]}
    items = playlist["tracks"]["items"]
    gone = [k for k, item in enumerate(items) if item["track"]["uri"] in uris]
    total = len(items) - len(gone)
    made = snapshot(f"{playlist['id']}/{total}/{sorted(uris)}")
    patch: list[dict[str, Any]] = [
        {"op": "remove", "path": pointer("playlists", n, "tracks", "items", k)}
        for k in reversed(gone)
    ]
    patch += [
        {"op": "replace", "path": pointer("playlists", n, "tracks", "total"), "value": total},
        {"op": "replace", "path": pointer("playlists", n, "snapshot_id"), "value": made},
    ]
    return {"snapshot_id": made}, patch
