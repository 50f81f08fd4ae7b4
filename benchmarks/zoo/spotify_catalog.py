"""The ``spotify`` shape's data: a label's catalogue as the Web API's several-items endpoints
answer it (``GET /v1/artists``, ``/v1/albums``, ``/v1/tracks``) and the label's playlists as
``GET /v1/playlists/{id}`` answers each. The same track is a simplified track inside its album's
``tracks`` paging object, a full track (with ``external_ids``, ``popularity`` and a simplified
album) in ``tracks`` and again inside every playlist item that holds it; artists are simplified
objects everywhere but in ``artists``."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, ToolError, fill, size_of

API = "https://api.spotify.com/v1"
OPEN = "https://open.spotify.com"
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
GENRES = ["indie pop", "art rock", "uk garage", "nordic folk", "synthwave", "jazz fusion"]
GENRES += ["afrobeat", "dream pop", "neo soul", "post-punk", "ambient", "celtic rock"]
LABELS = ["Harbor Lights Records", "Cedar & Vale", "Northcove Music", "Onyx Sound"]
CURATOR = "harborlights"


def spotify_id(rng: random.Random) -> str:
    return "".join(rng.choice(BASE62) for _ in range(22))


def snapshot(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return "AAAA" + "".join(BASE62[b % 62] for b in digest[:28])


def _linked(kind: str, ident: str) -> dict[str, Any]:
    """The fields every object has: ``external_urls``, ``href``, ``id``, ``type`` and ``uri``."""
    return {
        "external_urls": {"spotify": f"{OPEN}/{kind}/{ident}"},
        "href": f"{API}/{kind}s/{ident}",
        "id": ident,
        "type": kind,
        "uri": f"spotify:{kind}:{ident}",
    }


def simplified_artist(artist: dict[str, Any]) -> dict[str, Any]:
    return _linked("artist", artist["id"]) | {"name": artist["name"]}


def _image(rng: random.Random) -> list[dict[str, Any]]:
    code = "".join(rng.choice("0123456789abcdef") for _ in range(24))
    return [{"height": 640, "url": f"https://i.scdn.co/image/ab67616d0000b273{code}", "width": 640}]


def _title(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS).capitalize() for _ in range(count))


def _artist(rng: random.Random) -> dict[str, Any]:
    name = (
        f"The {_title(rng, 1)}s"
        if rng.random() < 0.4
        else " ".join(rng.choice(n) for n in (FIRST, LAST))
    )
    return {
        **_linked("artist", spotify_id(rng)),
        "followers": {"href": None, "total": rng.randint(120, 2_400_000)},
        "genres": rng.sample(GENRES, rng.randint(1, 3)),
        "images": _image(rng),
        "name": name,
        "popularity": rng.randint(5, 85),
    }


def _release(rng: random.Random) -> tuple[str, str]:
    year = rng.randint(1968, 2025)
    if year < 1995 and rng.random() < 0.6:
        return str(year), "year"  # old catalogue: only the year is known
    return f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", "day"


def _album(rng: random.Random, state: State, artist: dict[str, Any], isrc: list[int]) -> None:
    kind = rng.choice(["album", "album", "single", "compilation"])
    count = rng.randint(1, 2) if kind == "single" else rng.randint(4, 10)
    date, precision = _release(rng)
    ident = spotify_id(rng)
    album = {
        "album_type": kind,
        "total_tracks": count,
        **_linked("album", ident),
        "images": _image(rng),
        "name": _title(rng, rng.randint(1, 3)),
        "release_date": date,
        "release_date_precision": precision,
        "artists": [simplified_artist(artist)],
    }
    label = rng.choice(LABELS)
    items, full = [], []
    others = state["artists"]["artists"]
    for number in range(1, count + 1):
        artists = [simplified_artist(artist)]
        if others and rng.random() < 0.15:
            guest = rng.choice(others)
            artists += [simplified_artist(guest)] if guest["id"] != artist["id"] else []
        track = {
            "artists": artists,
            "disc_number": 1,
            "duration_ms": rng.randint(95_000, 420_000),
            "explicit": rng.random() < 0.12,
            **_linked("track", spotify_id(rng)),
            "is_local": False,
            "name": _title(rng, rng.randint(1, 3)),
            "preview_url": None,
            "track_number": number,
        }
        items.append(track)
        isrc[0] += 1
        year = date[2:4]
        full.append(
            {"album": album}
            | track
            | {"external_ids": {"isrc": f"GB{label[:3].upper()}{year}{isrc[0]:05d}"}}
            | {"popularity": rng.randint(0, 80)}
        )
    state["albums"]["albums"].append(
        album
        | {
            "tracks": {
                "href": f"{API}/albums/{ident}/tracks?offset=0&limit=50",
                "items": items,
                "limit": 50,
                "next": None,
                "offset": 0,
                "previous": None,
                "total": count,
            },
            "copyrights": [{"text": f"(C) {date[:4]} {label}", "type": "C"}],
            "external_ids": {"upc": str(rng.randint(10**11, 10**12 - 1))},
            "genres": [],
            "label": label,
            "popularity": rng.randint(0, 80),
        }
    )
    state["tracks"]["tracks"].extend(full)


def curator() -> dict[str, Any]:
    return _linked("user", CURATOR)


def playlist_item(track: dict[str, Any], added_at: str) -> dict[str, Any]:
    return {"added_at": added_at, "added_by": curator(), "is_local": False, "track": track}


def _added_at(rng: random.Random) -> str:
    return f"2025-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z"


def _playlist(rng: random.Random) -> dict[str, Any]:
    ident = spotify_id(rng)
    return {
        "collaborative": False,
        "description": f"{_title(rng, 2)} picks from the label, updated monthly.",
        **_linked("playlist", ident),
        "followers": {"href": None, "total": rng.randint(10, 90_000)},
        "images": _image(rng),
        "name": f"{_title(rng, rng.randint(1, 2))} {rng.choice(['Mix', 'Radar', 'Sessions', 'Drive'])}",
        "owner": curator() | {"display_name": "Harbor Lights"},
        "public": rng.random() < 0.8,
        "snapshot_id": snapshot(ident),
        "tracks": {
            "href": f"{API}/playlists/{ident}/tracks?offset=0&limit=100",
            "items": [],
            "limit": 100,
            "next": None,
            "offset": 0,
            "previous": None,
            "total": 0,
        },
    }


def _pick(rng: random.Random, state: State) -> None:
    """A few tracks added to a playlist (a new one now and then)."""
    lists = state["playlists"]
    if not lists or (len(lists) < 40 and rng.random() < 0.12):
        lists.append(_playlist(rng))
    paging = rng.choice(lists)["tracks"]
    held = {item["track"]["id"] for item in paging["items"]}
    for track in rng.sample(tracks(state), min(3, len(tracks(state)))):
        if len(paging["items"]) < 30 and track["id"] not in held:
            paging["items"].append(playlist_item(track, _added_at(rng)))
            paging["total"] += 1


def catalog(rng: random.Random, target_bytes: int) -> State:
    state: State = {"artists": {"artists": []}, "albums": {"albums": []}, "tracks": {"tracks": []}}
    state["playlists"] = []
    isrc = [rng.randint(100, 900)]

    def add() -> None:
        if not artists(state) or rng.random() < 0.5:
            artists(state).append(_artist(rng))
        _album(rng, state, rng.choice(artists(state)[-5:]), isrc)
        _pick(rng, state)

    fill(add, lambda: size_of(state), target_bytes)
    for playlist in playlists(state):
        playlist["tracks"]["items"].sort(key=lambda item: str(item["added_at"]))
    return state


def artists(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["artists"]["artists"]
    return found


def albums(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["albums"]["albums"]
    return found


def tracks(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["tracks"]["tracks"]
    return found


def playlists(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["playlists"]
    return found


def find(records: list[dict[str, Any]], ident: str, kind: str) -> tuple[int, dict[str, Any]]:
    for n, record in enumerate(records):
        if record["id"] == ident:
            return n, record
    raise ToolError(f'{{"error": {{"status": 404, "message": "Non existing {kind} id"}}}}')
