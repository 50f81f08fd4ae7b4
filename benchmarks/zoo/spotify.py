"""``spotify``: an independent label's catalogue and playlists as Spotify's Web API serves
them. The state is the several-items endpoints' answers (``{"artists": [...]}``, ``{"albums":
[...]}``, ``{"tracks": [...]}``) and each playlist as ``GET /v1/playlists/{id}`` answers it.
Every object carries ``external_urls``, ``href``, ``id``, ``type`` and ``uri``; lists are
paging objects (``href``, ``items``, ``limit``, ``next``, ``offset``, ``previous``,
``total``); a track is simplified inside its album, full (``external_ids.isrc``,
``popularity``, a simplified album) in ``tracks`` and again in each playlist item beside its
``added_at``; artists are simplified (no genres) everywhere but in ``artists``; release dates
are only a year where ``release_date_precision`` says so. Tools take base62 ids and
``spotify:track:`` URIs, a search takes ``q`` with field filters, and the playlist writes
answer only a new ``snapshot_id``."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import Answer, Planned, State, Tool, note_tool, prop
from benchmarks.zoo.shape import Shape
from benchmarks.zoo.spotify_api import (
    add_items,
    meets,
    playlist_artists,
    playlist_items,
    playlist_stats,
    remove_items,
    search,
)
from benchmarks.zoo.spotify_catalog import albums, artists, catalog, find, playlists, tracks

ID = prop("string", "Spotify ID (base62).")
PLAYLIST = {"playlist_id": prop("string", "The playlist's Spotify ID.")}


class Spotify(Shape):
    name = "spotify"
    title = "Catalogue assistant over a label's Spotify presence"
    description = (
        "Harbor Lights, an independent label: its artists, albums and tracks on Spotify and "
        "the playlists its curators keep, through the Spotify Web API. Errors are text "
        "starting with 'Error:'."
    )
    note = ("scratchpad", "note")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return catalog(rng, target_bytes)

    def tools(self) -> list[Tool]:
        return [
            Tool(
                "get_track", "GET /v1/tracks/{id}: a full track.", {"id": ID}, self._track, ("id",)
            ),
            Tool(
                "get_artist",
                "GET /v1/artists/{id}: a full artist.",
                {"id": ID},
                self._artist,
                ("id",),
            ),
            Tool(
                "get_album_tracks",
                "GET /v1/albums/{id}/tracks: a paging object of the album's simplified tracks.",
                {"id": ID},
                self._album_tracks,
                ("id",),
            ),
            Tool(
                "search",
                "GET /v1/search for tracks. q: words of the track name and field filters "
                'artist:"...", album:"...", year:2019 or year:2015-2019 (album release) and '
                "isrc:...; filters match as case-insensitive substrings.",
                {
                    "q": prop("string", "The query."),
                    "type": prop("string", "Item type.", enum=["track"]),
                    "limit": prop("integer", "Page size, 1-50 (default 20)."),
                    "offset": prop("integer", "Index of the first item (default 0)."),
                },
                search,
                ("q",),
            ),
            Tool(
                "get_playlist_items",
                "GET /v1/playlists/{id}/tracks: the playlist's items, oldest added first.",
                PLAYLIST,
                playlist_items,
                ("playlist_id",),
            ),
            Tool(
                "get_playlist_artists",
                "The artists on a playlist's tracks as full artists (genres, followers total, "
                "popularity) with how many of its tracks each is on, in order of appearance.",
                PLAYLIST,
                playlist_artists,
                ("playlist_id",),
            ),
            Tool(
                "get_playlist_stats",
                "A playlist's figures: tracks, total duration_ms, explicit tracks, distinct "
                "artists, mean popularity, tracks per release decade and album type, earliest "
                "and latest release date.",
                PLAYLIST,
                playlist_stats,
                ("playlist_id",),
            ),
            Tool(
                "add_items_to_playlist",
                "POST /v1/playlists/{id}/tracks: add tracks (at position, else at the end).",
                PLAYLIST
                | {
                    "uris": prop("array", "spotify:track: URIs.", items={"type": "string"}),
                    "position": prop("integer", "Zero-based index to insert at."),
                },
                add_items,
                ("playlist_id", "uris"),
                effect="write",
            ),
            Tool(
                "remove_playlist_items",
                "DELETE /v1/playlists/{id}/tracks: remove every occurrence of the tracks.",
                PLAYLIST
                | {
                    "tracks": prop(
                        "array",
                        'Objects {"uri": "spotify:track:..."}.',
                        items={"type": "object", "properties": {"uri": {"type": "string"}}},
                    ),
                    "snapshot_id": prop("string", "The playlist version to change."),
                },
                remove_items,
                ("playlist_id", "tracks"),
                effect="write",
            ),
            note_tool("scratchpad", "note", "Keep a private note (answers nothing)."),
        ]

    def _track(self, state: State, args: dict[str, Any]) -> Answer:
        return find(tracks(state), args["id"], "track")[1], []

    def _artist(self, state: State, args: dict[str, Any]) -> Answer:
        return find(artists(state), args["id"], "artist")[1], []

    def _album_tracks(self, state: State, args: dict[str, Any]) -> Answer:
        return find(albums(state), args["id"], "album")[1]["tracks"], []

    def lookup(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.6:
            return Planned("lookup", "get_track", {"id": rng.choice(tracks(state))["id"]})
        return Planned("lookup", "get_artist", {"id": rng.choice(artists(state))["id"]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        album = rng.choice(albums(state))
        return Planned("nested_lookup", "get_album_tracks", {"id": album["id"]})

    def _query(self, rng: random.Random, state: State) -> str:
        """A ``q`` that a random track meets, narrowed while more than 20 tracks meet it."""
        track = rng.choice(tracks(state))
        date = track["album"]["release_date"]
        low, high = int(date[:4]) - rng.randint(0, 4), int(date[:4]) + rng.randint(0, 4)
        options = [
            f'artist:"{rng.choice(track["artists"])["name"]}"',
            f'album:"{track["album"]["name"]}"',
            f"year:{date[:4]}" if rng.random() < 0.4 else f"year:{low}-{high}",
            rng.choice(track["name"].split()).lower(),
        ]
        rng.shuffle(options)
        if rng.random() < 0.08:
            options.insert(0, f"isrc:{track['external_ids']['isrc']}")
        chosen: list[str] = []
        for option in options:
            chosen.append(option)
            q = " ".join(chosen)
            if len(chosen) >= rng.randint(1, 4) and sum(meets(t, q) for t in tracks(state)) <= 20:
                break
        return " ".join(chosen)

    def search(self, rng: random.Random, state: State) -> Planned:
        args: dict[str, Any] = {"q": self._query(rng, state), "type": "track"}
        if rng.random() < 0.4:
            args["limit"] = rng.choice([5, 10, 20])
        return Planned("search", "search", args)

    def _listed(self, rng: random.Random, state: State) -> dict[str, Any]:
        return rng.choice([p for p in playlists(state) if p["tracks"]["items"]])

    def join(self, rng: random.Random, state: State) -> Planned:
        args = {"playlist_id": self._listed(rng, state)["id"]}
        return Planned("join", "get_playlist_artists", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        args = {"playlist_id": self._listed(rng, state)["id"]}
        return Planned("aggregate", "get_playlist_stats", args)

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        playlist = self._listed(rng, state)
        items = playlist["tracks"]["items"]
        args: dict[str, Any] = {"playlist_id": playlist["id"]}
        if len(items) > 3 and rng.random() < 0.35:
            gone = rng.sample(items, rng.randint(1, 2))
            args["tracks"] = [{"uri": item["track"]["uri"]} for item in gone]
            if rng.random() < 0.5:
                args["snapshot_id"] = playlist["snapshot_id"]
            planned = Planned("write", "remove_playlist_items", args)
        else:
            held = {item["track"]["id"] for item in items}
            fresh = [t for t in tracks(state) if t["id"] not in held]
            args["uris"] = [t["uri"] for t in rng.sample(fresh, rng.randint(1, 3))]
            if rng.random() < 0.4:
                args["position"] = rng.randint(0, len(items))
            planned = Planned("write", "add_items_to_playlist", args)
        read = {"playlist_id": playlist["id"]}
        return planned, Planned("read_after_write", "get_playlist_items", read)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        q = rng.choice(['artist:"Zephyr Okonkwo-Lind"', "year:1931", 'album:"Nocturnes for Tuba"'])
        return Planned("empty", "search", {"q": q, "type": "track"})
