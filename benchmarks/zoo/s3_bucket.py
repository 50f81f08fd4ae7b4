"""The ``s3`` shape's data: a versioned bucket as ``aws s3api list-object-versions`` prints it
(``Versions`` and ``DeleteMarkers``, each sorted by key and newest first, ``IsLatest`` on one
entry of a key), with each current object's tags as ``aws s3api get-object-tagging`` prints
them, keyed by object key; and the reads every tool shares."""

from __future__ import annotations

import hashlib
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.zoo.kit import LAST, WORDS, State, ToolError, fill, size_of

BUCKET = "harrowby-analytics-prod"
OWNER = {"ID": hashlib.sha256(b"harrowby-analytics").hexdigest()}
CLASSES = ["STANDARD", "STANDARD_IA", "INTELLIGENT_TIERING", "GLACIER_IR", "DEEP_ARCHIVE"]
EXPORTED = datetime(2025, 11, 30, 23, 0, tzinfo=UTC)
TAGS = {
    "project": ["atlas", "beacon", "cobalt", "drift", "ember"],
    "classification": ["public", "internal", "confidential"],
    "retention": ["30d", "1y", "7y"],
}
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._"


def when(moment: datetime) -> str:
    """A time as the CLI prints it (``2025-03-01T12:00:07+00:00``)."""
    return moment.isoformat()


def version_id(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(32))


def etag(key: str, size: int, rng: random.Random) -> str:
    """A quoted MD5, or a multipart upload's ``"<md5>-<parts>"`` for an object over 16 MiB."""
    digest = hashlib.md5(f"{key}/{size}/{rng.random()}".encode()).hexdigest()
    parts = -(-size // (8 * 1024 * 1024))
    return f'"{digest}-{parts}"' if size > 16 * 1024 * 1024 else f'"{digest}"'


def _key(rng: random.Random, n: int, day: datetime) -> tuple[str, int, str]:
    """A key for data of ``day``, its size in bytes and its storage class."""
    ymd = day.strftime("%Y/%m/%d")
    kind = rng.choice(["raw", "logs", "reports", "exports", "backups", "images"])
    if kind == "raw":
        source = rng.choice(["clickstream", "orders", "sensors"])
        return f"raw/{source}/{ymd}/part-{n:05d}.parquet", rng.randint(2, 900) * 65_536, "STANDARD"
    if kind == "logs":
        app = rng.choice(["api", "web", "worker"])
        key = f"logs/{app}/{ymd}/{app}-{n:05d}.log.gz"
        return key, rng.randint(10_000, 4_000_000), rng.choice(CLASSES[:2])
    if kind == "reports":
        team = rng.choice(["finance", "marketing", "ops"])
        name = f"{rng.choice(WORDS)}-{rng.choice(WORDS)}"
        key = f"reports/{team}/{day.year}/{name}-{n}.xlsx"
        return key, rng.randint(20_000, 3_000_000), rng.choice(CLASSES[:3])
    if kind == "exports":
        key = f"exports/{rng.choice(LAST).lower()}/{day.strftime('%Y-%m-%d')}-{n}.csv"
        return key, rng.randint(1_000, 60_000_000), rng.choice(CLASSES[:3])
    if kind == "backups":
        db = rng.choice(["orders-db", "users-db"])
        key = f"backups/{db}/{day.strftime('%Y-%m-%d')}-{n}.sql.gz"
        return key, rng.randint(50, 900) * 1_048_576, rng.choice(CLASSES[3:])
    key = f"images/products/{rng.choice(WORDS)}-{n:05d}.jpg"
    return key, rng.randint(40_000, 2_500_000), "STANDARD"


def _object(rng: random.Random, state: State, n: int) -> None:
    day = EXPORTED - timedelta(days=rng.randint(40, 600))
    key, size, storage = _key(rng, n, day)
    listing = state["ListObjectVersions"]
    moments = sorted(
        (day + timedelta(days=rng.choice([0, 0, 1, 3, 9, 30]), seconds=rng.randint(0, 86_399)))
        for _ in range(rng.choice([1, 1, 1, 2, 3]))
    )
    deleted = rng.random() < 0.12
    versions = []
    for m, at in enumerate(moments):
        later = size if m == len(moments) - 1 else int(size * rng.uniform(0.6, 1.1))
        versions.append(
            {
                "ETag": etag(key, later, rng),
                "Size": later,
                "StorageClass": storage,
                "Key": key,
                "VersionId": version_id(rng),
                "IsLatest": False,
                "LastModified": when(at.replace(microsecond=0)),
                "Owner": OWNER,
            }
        )
    versions.reverse()  # newest first, as the listing orders a key's versions
    if deleted:
        at = moments[-1] + timedelta(days=rng.randint(1, 30))
        marker = {"Owner": OWNER, "Key": key, "VersionId": version_id(rng), "IsLatest": True}
        listing["DeleteMarkers"].append(marker | {"LastModified": when(at)})
    else:
        versions[0]["IsLatest"] = True
        tags = rng.sample(sorted(TAGS), rng.randint(0, 3))
        state["ObjectTagging"][key] = {
            "VersionId": versions[0]["VersionId"],
            "TagSet": [{"Key": t, "Value": rng.choice(TAGS[t])} for t in tags],
        }
    listing["Versions"].extend(versions)


def bucket(rng: random.Random, target_bytes: int) -> State:
    """The bucket's listing of about ``target_bytes``, keys in order."""
    state: State = {
        "ListObjectVersions": {
            "IsTruncated": False,
            "KeyMarker": "",
            "VersionIdMarker": "",
            "Versions": [],
            "DeleteMarkers": [],
            "Name": BUCKET,
            "Prefix": "",
            "MaxKeys": 1000,
        },
        "ObjectTagging": {},
    }
    count = [0]

    def add() -> None:
        count[0] += 1
        _object(rng, state, count[0])

    fill(add, lambda: size_of(state), target_bytes)
    listing = state["ListObjectVersions"]
    # Sorted by key, a key's versions newest first (a stable sort keeps them so).
    listing["Versions"].sort(key=lambda v: v["Key"])
    listing["DeleteMarkers"].sort(key=lambda v: v["Key"])
    state["ObjectTagging"] = dict(sorted(state["ObjectTagging"].items()))
    return state


def versions(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["ListObjectVersions"]["Versions"]
    return found


def markers(state: State) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = state["ListObjectVersions"]["DeleteMarkers"]
    return found


def current(state: State) -> list[tuple[int, dict[str, Any]]]:
    """The objects a plain listing shows: each key's latest version, unless a delete marker is
    the latest (then the key is not listed); with their index in ``Versions``."""
    return [(n, v) for n, v in enumerate(versions(state)) if v["IsLatest"]]


def latest(state: State, key: str) -> tuple[int, dict[str, Any]]:
    for n, version in current(state):
        if version["Key"] == key:
            return n, version
    raise ToolError("An error occurred (404) when calling the HeadObject operation: Not Found")


def check_bucket(args: dict[str, Any]) -> None:
    if args.get("Bucket", BUCKET) != BUCKET:
        raise ToolError(
            "An error occurred (NoSuchBucket) when calling the operation: "
            "The specified bucket does not exist"
        )


def contents(version: dict[str, Any]) -> dict[str, Any]:
    """An object as ``ListObjectsV2`` lists it under ``Contents``."""
    return {k: version[k] for k in ("Key", "LastModified", "ETag", "Size", "StorageClass")}
