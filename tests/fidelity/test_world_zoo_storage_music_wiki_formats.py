"""The storage, music and wiki zoo shapes hold what the services they copy serve: a versioned
S3 bucket as ``aws s3api`` prints it (``s3``), a label's catalogue through Spotify's Web API
(``spotify``) and an operations space through Confluence Cloud's REST API (``confluence``);
their computed answers are checked here against independent computations over the state, and
their writes against what the services would change. (That each shape loads, is deterministic,
makes every kind of call and answers from its state is checked with all the zoo's shapes.)"""

from __future__ import annotations

import statistics
from collections import Counter
from html.parser import HTMLParser
from typing import Any

import pytest

from benchmarks.zoo import generate
from benchmarks.zoo.kit import State, ToolError
from tests.fidelity.zoo_calls import run_tool, small_state

BUCKET = "harrowby-analytics-prod"


@pytest.mark.parametrize("shape", ["s3", "spotify", "confluence"])
def test_the_same_seed_makes_the_same_storage_music_or_wiki_world(shape: str) -> None:
    first = generate(shape, 0.05, seed=11, episodes=2)
    assert generate(shape, 0.05, seed=11, episodes=2) == first
    assert generate(shape, 0.05, seed=12, episodes=2)[0]["state"] != first[0]["state"]


# s3


def _listing(state: State) -> dict[str, Any]:
    listing: dict[str, Any] = state["ListObjectVersions"]
    return listing


def _live(state: State) -> list[dict[str, Any]]:
    """The keys a plain listing shows, worked out from whole histories: a key whose newest
    entry (version or delete marker) is a version."""
    newest: dict[str, tuple[str, bool, dict[str, Any]]] = {}
    listing = _listing(state)
    entries = [(v, True) for v in listing["Versions"]] + [
        (m, False) for m in listing["DeleteMarkers"]
    ]
    for entry, is_version in entries:
        held = newest.get(entry["Key"])
        if held is None or entry["LastModified"] > held[0]:
            newest[entry["Key"]] = (entry["LastModified"], is_version, entry)
    return sorted((e for _, live, e in newest.values() if live), key=lambda v: str(v["Key"]))


def test_an_s3_listing_sorts_keys_with_one_latest_entry_and_tags_kept_apart() -> None:
    state = small_state("s3")
    listing = _listing(state)
    keys = [v["Key"] for v in listing["Versions"]]
    assert keys == sorted(keys)
    for key in set(keys):
        times = [v["LastModified"] for v in listing["Versions"] if v["Key"] == key]
        assert times == sorted(times, reverse=True)  # newest first
        entries = [e for e in listing["Versions"] + listing["DeleteMarkers"] if e["Key"] == key]
        assert sum(e["IsLatest"] for e in entries) == 1
    assert listing["DeleteMarkers"], "some key is deleted"
    for version in listing["Versions"]:
        assert version["ETag"].startswith('"') and version["ETag"].endswith('"')
        assert ("-" in version["ETag"]) == (version["Size"] > 16 * 1024 * 1024)
        assert "/" in version["Key"] and len(version["VersionId"]) == 32
    live = _live(state)
    assert [v["VersionId"] for v in live] == [
        v["VersionId"] for v in listing["Versions"] if v["IsLatest"]
    ]
    assert sorted(state["ObjectTagging"]) == [v["Key"] for v in live]
    assert all(state["ObjectTagging"][v["Key"]]["VersionId"] == v["VersionId"] for v in live)


def test_list_objects_answers_exactly_the_current_objects_meeting_its_filters() -> None:
    state = small_state("s3")
    live = _live(state)
    some = next(v for v in live if v["Size"] > 100_000)
    prefix = some["Key"].split("/")[0] + "/"
    args = {"Bucket": BUCKET, "Prefix": prefix, "MinSize": some["Size"] // 2}
    args |= {"ModifiedBefore": some["LastModified"][:10]}
    answer = run_tool("s3", state, "list_objects", args)
    wanted = [
        v["Key"]
        for v in live
        if v["Key"].startswith(prefix)
        and v["Size"] >= some["Size"] // 2
        and v["LastModified"][:10] <= some["LastModified"][:10]
    ]
    assert [c["Key"] for c in answer["Contents"]] == wanted[:20]
    assert answer["KeyCount"] == len(answer["Contents"])
    assert answer["IsTruncated"] == (len(wanted) > 20)
    assert set(answer["Contents"][0]) == {"Key", "LastModified", "ETag", "Size", "StorageClass"}


def test_a_prefix_summary_counts_and_sums_as_an_independent_walk_does() -> None:
    state = small_state("s3")
    prefix = "logs/"
    answer = run_tool("s3", state, "summarize_prefix", {"Bucket": BUCKET, "Prefix": prefix})
    live = [v for v in _live(state) if v["Key"].startswith(prefix)]
    assert answer["TotalObjects"] == len(live)
    assert answer["TotalSize"] == sum(v["Size"] for v in live)
    classes = Counter(v["StorageClass"] for v in live)
    assert {c: row["Objects"] for c, row in answer["ByStorageClass"].items()} == dict(classes)
    apps = Counter(v["Key"].split("/")[1] for v in live)
    assert {r["Prefix"]: r["Objects"] for r in answer["CommonPrefixes"]} == {
        f"logs/{app}/": n for app, n in apps.items()
    }
    live_ids = {v["VersionId"] for v in live}
    old = [
        v
        for v in _listing(state)["Versions"]
        if v["Key"].startswith(prefix) and v["VersionId"] not in live_ids
    ]
    assert answer["NoncurrentVersions"] == len(old)
    assert answer["NoncurrentSize"] == sum(v["Size"] for v in old)


def test_a_put_makes_the_newest_version_and_a_delete_hides_the_key_behind_a_marker() -> None:
    state = small_state("s3")
    before = _live(state)[3]
    key = before["Key"]
    args = {"Bucket": BUCKET, "Key": key, "ContentLength": 4242, "Tagging": "project=atlas"}
    put = run_tool("s3", state, "put_object", args)
    head = run_tool("s3", state, "head_object", {"Bucket": BUCKET, "Key": key})
    assert head["VersionId"] == put["VersionId"] != before["VersionId"]
    assert head["ContentLength"] == 4242 and "StorageClass" not in head  # STANDARD is unnamed
    old = run_tool(
        "s3", state, "head_object", {"Bucket": BUCKET, "Key": key, "VersionId": before["VersionId"]}
    )
    assert old["ContentLength"] == before["Size"]
    tags = run_tool("s3", state, "get_object_tagging", {"Bucket": BUCKET, "Key": key})
    assert tags == {"VersionId": put["VersionId"], "TagSet": [{"Key": "project", "Value": "atlas"}]}
    history = run_tool("s3", state, "list_object_versions", {"Bucket": BUCKET, "Prefix": key})
    assert [v["IsLatest"] for v in history["Versions"]][:2] == [True, False]

    deleted = run_tool("s3", state, "delete_object", {"Bucket": BUCKET, "Key": key})
    assert deleted["DeleteMarker"] is True
    with pytest.raises(ToolError, match="404"):
        run_tool("s3", state, "head_object", {"Bucket": BUCKET, "Key": key})
    listed = run_tool("s3", state, "list_objects", {"Bucket": BUCKET, "Prefix": key})
    assert listed["Contents"] == [] and key not in state["ObjectTagging"]
    history = run_tool("s3", state, "list_object_versions", {"Bucket": BUCKET, "Prefix": key})
    assert not any(v["IsLatest"] for v in history["Versions"])
    assert [m["VersionId"] for m in history["DeleteMarkers"] if m["IsLatest"]] == [
        deleted["VersionId"]
    ]
    assert key not in {v["Key"] for v in _live(state)}


# spotify


def test_a_spotify_track_is_simplified_in_its_album_and_full_elsewhere() -> None:
    state = small_state("spotify")
    full = {t["id"]: t for t in state["tracks"]["tracks"]}
    genres = {a["id"]: a["genres"] for a in state["artists"]["artists"]}
    for album in state["albums"]["albums"]:
        paging = album["tracks"]
        assert paging["total"] == len(paging["items"]) == album["total_tracks"]
        assert album["release_date_precision"] == (
            "year" if len(album["release_date"]) == 4 else "day"
        )
        for item in paging["items"]:
            assert "popularity" not in item and "album" not in item
            track = full[item["id"]]
            assert track["album"]["id"] == album["id"] and "tracks" not in track["album"]
            assert (track["name"], track["duration_ms"]) == (item["name"], item["duration_ms"])
            assert track["uri"] == f"spotify:track:{track['id']}"
            assert all("genres" not in a and a["id"] in genres for a in track["artists"])
    for playlist in state["playlists"]:
        assert playlist["tracks"]["total"] == len(playlist["tracks"]["items"])
        for item in playlist["tracks"]["items"]:
            assert item["track"] == full[item["track"]["id"]]


def test_a_search_answers_exactly_the_tracks_its_q_selects() -> None:
    state = small_state("spotify")
    track = state["tracks"]["tracks"][5]
    artist = track["artists"][0]["name"]
    year = int(track["album"]["release_date"][:4])
    q = f'artist:"{artist.lower()}" year:{year - 3}-{year + 3}'
    answer = run_tool("spotify", state, "search", {"q": q, "type": "track", "limit": 50})
    wanted = [
        t["id"]
        for t in state["tracks"]["tracks"]
        if any(a["name"] == artist or artist.lower() in a["name"].lower() for a in t["artists"])
        and year - 3 <= int(t["album"]["release_date"][:4]) <= year + 3
    ]
    assert [t["id"] for t in answer["tracks"]["items"]] == wanted[:50]
    assert answer["tracks"]["total"] == len(wanted) and track["id"] in wanted
    word = track["name"].split()[0]
    named = run_tool(
        "spotify", state, "search", {"q": f"{word} isrc:{track['external_ids']['isrc']}"}
    )
    assert [t["id"] for t in named["tracks"]["items"]] == [track["id"]]


def test_playlist_stats_and_artists_agree_with_an_independent_count() -> None:
    state = small_state("spotify")
    playlist = max(state["playlists"], key=lambda p: p["tracks"]["total"])
    args = {"playlist_id": playlist["id"]}
    stats = run_tool("spotify", state, "get_playlist_stats", args)
    found = [i["track"] for i in playlist["tracks"]["items"]]
    assert stats["tracks"] == len(found)
    assert stats["duration_ms"] == sum(t["duration_ms"] for t in found)
    assert stats["explicit_tracks"] == sum(t["explicit"] for t in found)
    assert stats["mean_popularity"] == round(statistics.fmean(t["popularity"] for t in found), 1)
    decades = Counter(f"{int(t['album']['release_date'][:4]) // 10 * 10}s" for t in found)
    assert stats["by_decade"] == dict(decades)
    on = Counter(a["id"] for t in found for a in t["artists"])
    assert stats["distinct_artists"] == len(on)
    listed = run_tool("spotify", state, "get_playlist_artists", args)["artists"]
    assert {a["id"]: a["tracks_on_playlist"] for a in listed} == dict(on)
    genres = {a["id"]: a["genres"] for a in state["artists"]["artists"]}
    assert all(a["genres"] == genres[a["id"]] for a in listed)


def test_adding_and_removing_playlist_items_moves_the_snapshot_and_total() -> None:
    state = small_state("spotify")
    playlist = state["playlists"][0]
    args = {"playlist_id": playlist["id"]}
    held = {i["track"]["id"] for i in playlist["tracks"]["items"]}
    fresh = next(t for t in state["tracks"]["tracks"] if t["id"] not in held)
    before, total = playlist["snapshot_id"], playlist["tracks"]["total"]
    added = run_tool(
        "spotify", state, "add_items_to_playlist", args | {"uris": [fresh["uri"]], "position": 0}
    )
    items = run_tool("spotify", state, "get_playlist_items", args)
    assert items["items"][0]["track"]["id"] == fresh["id"] and items["total"] == total + 1
    assert added["snapshot_id"] == state["playlists"][0]["snapshot_id"] != before
    with pytest.raises(ToolError, match="snapshot"):
        run_tool(
            "spotify",
            state,
            "remove_playlist_items",
            args | {"tracks": [{"uri": fresh["uri"]}], "snapshot_id": before},
        )
    run_tool(
        "spotify",
        state,
        "remove_playlist_items",
        args | {"tracks": [{"uri": fresh["uri"]}], "snapshot_id": added["snapshot_id"]},
    )
    items = run_tool("spotify", state, "get_playlist_items", args)
    assert fresh["id"] not in {i["track"]["id"] for i in items["items"]}
    assert items["total"] == len(items["items"]) == total


# confluence


class _Rows(HTMLParser):
    """The Page Properties rows of a storage-format body, read by an HTML parser: a cell's
    account id, status title, date, linked page title or text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[str, str] = {}
        self.key: str | None = None
        self.cell: str | None = None
        self.where = ""
        self.parameter = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.where = tag
        if tag == "td":
            self.cell = ""
        elif tag == "ri:user":
            self.cell = found["ri:account-id"]
        elif tag == "time":
            self.cell = found["datetime"]
        elif tag == "ri:page":
            self.cell = found["ri:content-title"]
        elif tag == "ac:parameter":
            self.parameter = found["ac:name"] or ""

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_data(self, data: str) -> None:
        if self.where == "th":
            self.key = data
        elif self.where == "td" and self.cell is not None:
            self.cell += data
        elif self.where == "ac:parameter" and self.parameter == "title":
            self.cell = data

    def handle_endtag(self, tag: str) -> None:
        self.where = ""
        if tag == "td" and self.key is not None and self.cell is not None:
            self.rows[self.key] = self.cell
            self.key = self.cell = None


def _rows(page: dict[str, Any]) -> dict[str, str]:
    parser = _Rows()
    parser.feed(page["body"]["storage"]["value"])
    return parser.rows


def _labelled(state: State, label: str) -> list[dict[str, Any]]:
    return [
        p
        for p in state["content"]["results"]
        if label in [lab["name"] for lab in p["metadata"]["labels"]["results"]]
    ]


def test_confluence_pages_keep_facts_in_storage_format_and_the_tree_in_ancestors() -> None:
    state = small_state("confluence")
    found = state["content"]["results"]
    by_id = {p["id"]: p for p in found}
    accounts = {u["accountId"] for u in state["users"]["results"]}
    for page in found:
        if page["ancestors"]:
            parent = by_id[page["ancestors"][-1]["id"]]
            assert page["ancestors"][:-1] == parent["ancestors"]
        assert page["metadata"]["labels"]["size"] == len(page["metadata"]["labels"]["results"])
        assert page["body"]["storage"]["representation"] == "storage"
        assert set(page) >= {"id", "type", "status", "title", "version", "_links"}
    services, incidents = _labelled(state, "service"), _labelled(state, "incident")
    assert services and incidents
    for page in services:
        rows = _rows(page)
        assert set(rows) == {"Owner", "Team", "Tier", "Status", "Language", "Repository"} | {
            "Last review"
        }
        assert rows["Owner"] in accounts and rows["Status"] in {"PRODUCTION", "BETA", "DEPRECATED"}
    titles = {p["title"] for p in services}
    assert all(_rows(p)["Service"] in titles for p in incidents)


def test_cql_answers_exactly_the_pages_meeting_every_clause() -> None:
    state = small_state("confluence")
    page = _labelled(state, "incident")[2]
    parent, day = page["ancestors"][-1]["id"], page["version"]["when"][:10]
    cql = f'space = OPS AND label = "incident" AND ancestor = {parent} AND lastmodified <= "{day}"'
    answer = run_tool("confluence", state, "search_content", {"cql": cql, "limit": 100})
    wanted = [
        p["id"]
        for p in _labelled(state, "incident")
        if parent in [a["id"] for a in p["ancestors"]] and p["version"]["when"][:10] <= day
    ]
    assert [p["id"] for p in answer["results"]] == wanted and page["id"] in wanted
    assert all("body" not in p for p in answer["results"])
    assert answer["size"] == len(wanted)


def test_the_report_renders_people_by_name_and_the_summary_counts_each_value() -> None:
    state = small_state("confluence")
    names = {u["accountId"]: u["displayName"] for u in state["users"]["results"]}
    parent = _labelled(state, "service")[0]["ancestors"][-1]["id"]
    args = {"label": "service", "ancestor": parent}
    report = run_tool("confluence", state, "page_properties_report", args)
    pages = sorted(
        (p for p in _labelled(state, "service") if p["ancestors"][-1]["id"] == parent),
        key=lambda p: str(p["title"]),
    )
    assert [r["id"] for r in report["rows"]] == [p["id"] for p in pages]
    for row, page in zip(report["rows"], pages, strict=True):
        rows = _rows(page)
        assert row["Owner"] == names[rows["Owner"]] and row["Tier"] == rows["Tier"]
    incidents = _labelled(state, "incident")
    counted = run_tool(
        "confluence",
        state,
        "summarize_page_property",
        {"label": "incident", "property": "Severity"},
    )
    assert counted["counts"] == dict(Counter(_rows(p)["Severity"] for p in incidents))
    minutes = [int(_rows(p)["Duration (min)"]) for p in incidents]
    summed = run_tool(
        "confluence",
        state,
        "summarize_page_property",
        {"label": "incident", "property": "Duration (min)"},
    )
    assert (summed["sum"], summed["min"], summed["max"]) == (
        sum(minutes),
        min(minutes),
        max(minutes),
    )


def test_a_property_update_saves_the_next_version_and_refuses_a_stale_one() -> None:
    state = small_state("confluence")
    page = _labelled(state, "incident")[0]
    number, ident = page["version"]["number"], page["id"]
    args = {"page_id": ident, "property": "Status", "value": "OPEN", "version": number}
    with pytest.raises(ToolError, match="Current version is"):
        run_tool("confluence", state, "update_page_property", args)
    saved = run_tool("confluence", state, "update_page_property", args | {"version": number + 1})
    assert saved["version"]["number"] == number + 1
    read = run_tool("confluence", state, "get_page", {"page_id": ident})
    rows = _rows(read)
    assert rows["Status"] == "OPEN" and read["version"]["by"]["displayName"] == "Ops Assistant"
    assert {k: v for k, v in rows.items() if k != "Status"} == {
        k: v for k, v in _rows(page).items() if k != "Status"
    }
    labels = run_tool(
        "confluence", state, "add_labels", {"page_id": ident, "labels": ["Needs-Review"]}
    )
    assert labels["results"][-1]["name"] == "needs-review" and labels["size"] == len(
        labels["results"]
    )
    assert run_tool("confluence", state, "get_labels", {"page_id": ident}) == labels
