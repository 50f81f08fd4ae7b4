"""``s3``: an analytics team's versioned S3 bucket, as ``aws s3api`` prints it: one
``list-object-versions`` answer (``Versions`` and ``DeleteMarkers``, sorted by key, a key's
versions newest first, ``IsLatest`` on the current one), folders only as ``/`` inside keys,
ETags as quoted MD5s (``"<md5>-<parts>"`` for multipart uploads), sizes in bytes, and each
current object's ``get-object-tagging`` answer (a ``TagSet`` of ``Key``/``Value`` pairs) keyed
by object key. A deleted key still has its versions, hidden by a delete marker. Tools are the
S3 API's: ``HeadObject`` (of the current or a given version), ``GetObjectTagging``, a filtered
``ListObjectsV2``, objects by tag, a prefix's summary as ``aws s3 ls --summarize`` and the
console's folder sizes give it, ``PutObject``, ``DeleteObject`` and ``ListObjectVersions``."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from benchmarks.zoo.kit import (
    Answer,
    Filter,
    Planned,
    Search,
    State,
    Tool,
    ToolError,
    note_tool,
    pointer,
    prop,
)
from benchmarks.zoo.s3_bucket import (
    BUCKET,
    CLASSES,
    EXPORTED,
    OWNER,
    TAGS,
    bucket,
    check_bucket,
    contents,
    current,
    etag,
    latest,
    markers,
    version_id,
    versions,
    when,
)
from benchmarks.zoo.shape import Shape

B = {"Bucket": prop("string", f"Bucket name ({BUCKET}).")}
KEY = {"Key": prop("string", "Object key, e.g. reports/finance/2025/q1.xlsx.")}


def _viewed(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(v["Key"], v | {"Day": v["LastModified"][:10]}) for _, v in current(state)]


def _head(version: dict[str, Any]) -> dict[str, Any]:
    head = {
        "AcceptRanges": "bytes",
        "LastModified": version["LastModified"],
        "ContentLength": version["Size"],
        "ETag": version["ETag"],
        "VersionId": version["VersionId"],
        "ServerSideEncryption": "AES256",
        "Metadata": {},
    }
    # HeadObject names the storage class only when it is not STANDARD.
    storage = version["StorageClass"]
    return head if storage == "STANDARD" else head | {"StorageClass": storage}


def _level(prefix: str, key: str) -> str | None:
    """The common prefix (``Delimiter="/"``) a key rolls up into below ``prefix``."""
    rest = key[len(prefix) :]
    return prefix + rest.split("/")[0] + "/" if "/" in rest else None


def _summary(state: State, args: dict[str, Any]) -> Answer:
    check_bucket(args)
    prefix = args["Prefix"]
    live = [v for _, v in current(state) if v["Key"].startswith(prefix)]
    by_class: dict[str, dict[str, int]] = {}
    folders: dict[str, dict[str, int]] = {}
    for version in live:
        for group, name in (
            (by_class, version["StorageClass"]),
            (folders, _level(prefix, version["Key"])),
        ):
            if name is not None:
                row = group.setdefault(name, {"Objects": 0, "Size": 0})
                row["Objects"] += 1
                row["Size"] += version["Size"]
    old = [v for v in versions(state) if v["Key"].startswith(prefix) and not v["IsLatest"]]
    return {
        "Bucket": BUCKET,
        "Prefix": prefix,
        "TotalObjects": len(live),
        "TotalSize": sum(v["Size"] for v in live),
        "ByStorageClass": dict(sorted(by_class.items())),
        "CommonPrefixes": [{"Prefix": p} | row for p, row in sorted(folders.items())],
        "NoncurrentVersions": len(old),
        "NoncurrentSize": sum(v["Size"] for v in old),
        "DeleteMarkers": sum(1 for m in markers(state) if m["Key"].startswith(prefix)),
    }, []


def _tagged(state: State, args: dict[str, Any]) -> Answer:
    check_bucket(args)
    wanted = {"Key": args["TagKey"], "Value": args["TagValue"]}
    tagging = state["ObjectTagging"]
    found = [
        contents(v) | {"TagSet": tagging[v["Key"]]["TagSet"]}
        for _, v in current(state)
        if v["Key"].startswith(args.get("Prefix", "")) and wanted in tagging[v["Key"]]["TagSet"]
    ]
    return {
        "Contents": found[:50],
        "KeyCount": min(len(found), 50),
        "IsTruncated": len(found) > 50,
    }, []


def _versions_of(state: State, args: dict[str, Any]) -> Answer:
    check_bucket(args)
    prefix = args["Prefix"]
    answer: dict[str, Any] = {"IsTruncated": False, "KeyMarker": "", "VersionIdMarker": ""}
    answer["Versions"] = [v for v in versions(state) if v["Key"].startswith(prefix)]
    dead = [m for m in markers(state) if m["Key"].startswith(prefix)]
    if dead:  # the API leaves out what is empty
        answer["DeleteMarkers"] = dead
    return answer | {"Name": BUCKET, "Prefix": prefix, "MaxKeys": 1000}, []


def _moment(state: State) -> str:
    """When the next write happens: a minute after the last, after the export."""
    return when(EXPORTED + timedelta(minutes=len(versions(state)) + len(markers(state))))


def _tag_set(text: str) -> list[dict[str, str]]:
    """``x-amz-tagging``'s URL query form (``project=atlas&retention=1y``) as a TagSet."""
    pairs = [part.split("=", 1) for part in text.split("&") if part]
    return [{"Key": k, "Value": v} for k, v in pairs]


def _put(state: State, args: dict[str, Any]) -> Answer:
    check_bucket(args)
    key, size = args["Key"], args["ContentLength"]
    rng = random.Random(f"{key}/{len(versions(state))}")
    new = {
        "ETag": etag(key, size, rng),
        "Size": size,
        "StorageClass": args.get("StorageClass", "STANDARD"),
        "Key": key,
        "VersionId": version_id(rng),
        "IsLatest": True,
        "LastModified": _moment(state),
        "Owner": OWNER,
    }
    patch: list[dict[str, Any]] = []
    at = next((n for n, v in enumerate(versions(state)) if v["Key"] >= key), len(versions(state)))
    if (
        at < len(versions(state))
        and versions(state)[at]["Key"] == key
        and versions(state)[at]["IsLatest"]
    ):
        patch.append(
            {
                "op": "replace",
                "path": pointer("ListObjectVersions", "Versions", at, "IsLatest"),
                "value": False,
            }
        )
    for n, marker in enumerate(markers(state)):
        if marker["Key"] == key and marker["IsLatest"]:
            patch.append(
                {
                    "op": "replace",
                    "path": pointer("ListObjectVersions", "DeleteMarkers", n, "IsLatest"),
                    "value": False,
                }
            )
    patch.append({"op": "add", "path": pointer("ListObjectVersions", "Versions", at), "value": new})
    tags = {"VersionId": new["VersionId"], "TagSet": _tag_set(args.get("Tagging", ""))}
    patch.append({"op": "add", "path": pointer("ObjectTagging", key), "value": tags})
    answer = {"ETag": new["ETag"], "ServerSideEncryption": "AES256", "VersionId": new["VersionId"]}
    return answer, patch


def _delete(state: State, args: dict[str, Any]) -> Answer:
    check_bucket(args)
    key = args["Key"]
    n, _ = latest(state, key)
    marker = {
        "Owner": OWNER,
        "Key": key,
        "VersionId": version_id(random.Random(f"{key}/marker/{len(markers(state))}")),
        "IsLatest": True,
        "LastModified": _moment(state),
    }
    at = next((m for m, v in enumerate(markers(state)) if v["Key"] >= key), len(markers(state)))
    return {"DeleteMarker": True, "VersionId": marker["VersionId"]}, [
        {
            "op": "replace",
            "path": pointer("ListObjectVersions", "Versions", n, "IsLatest"),
            "value": False,
        },
        {"op": "add", "path": pointer("ListObjectVersions", "DeleteMarkers", at), "value": marker},
        {"op": "remove", "path": pointer("ObjectTagging", key)},
    ]


class S3(Shape):
    name = "s3"
    title = "Storage assistant over a versioned S3 bucket"
    description = (
        f"The analytics team's versioned S3 bucket {BUCKET} (raw data, logs, reports, exports, "
        "backups, product images). Answers are the S3 API's as the AWS CLI prints them; sizes "
        "in bytes; errors are text starting with 'Error:'."
    )
    note = ("log_step", "text")

    def __init__(self) -> None:
        self.finder = Search(
            "list_objects",
            "ListObjectsV2 of current objects under a key prefix, filtered by storage class, "
            "size range in bytes and last-modified day range (UTC); keys in order.",
            _viewed,
            [
                Filter("Prefix", "Key", "prefix", prop("string", "Key prefix, e.g. logs/api/.")),
                Filter("StorageClass", "StorageClass", "eq", prop("string", "", enum=CLASSES)),
                Filter("MinSize", "Size", "ge", prop("integer", "Least size in bytes.")),
                Filter("MaxSize", "Size", "le", prop("integer", "Most size in bytes.")),
                Filter("ModifiedAfter", "Day", "ge", prop("string", "YYYY-MM-DD, inclusive.")),
                Filter("ModifiedBefore", "Day", "le", prop("string", "YYYY-MM-DD, inclusive.")),
            ],
            lambda key, v: contents(v),
        )

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return bucket(rng, target_bytes)

    def tools(self) -> list[Tool]:
        version = {"VersionId": prop("string", "A version; the current one if left out.")}
        prefix = {"Prefix": prop("string", "Key prefix (a folder ends in /).")}
        return [
            Tool(
                "head_object",
                "HeadObject: an object's metadata (AcceptRanges bytes, SSE AES256).",
                B | KEY | version,
                self._head_object,
                ("Bucket", "Key"),
            ),
            Tool(
                "get_object_tagging",
                "GetObjectTagging: the current version's TagSet.",
                B | KEY,
                self._tagging,
                ("Bucket", "Key"),
            ),
            Tool(
                "list_objects",
                self.finder.description,
                B | self.finder.tool().properties,
                self._find,
                ("Bucket",),
            ),
            Tool(
                "find_objects_by_tag",
                "Current objects (under a prefix) whose tags include TagKey=TagValue, with "
                "their TagSet; at most 50.",
                B
                | prefix
                | {"TagKey": prop("string", "Tag key."), "TagValue": prop("string", "Tag value.")},
                _tagged,
                ("Bucket", "TagKey", "TagValue"),
            ),
            Tool(
                "summarize_prefix",
                "Current objects under a prefix: count and bytes in all, per storage class and "
                "per next-level folder; noncurrent versions and delete markers.",
                B | prefix,
                _summary,
                ("Bucket", "Prefix"),
            ),
            Tool(
                "put_object",
                "PutObject: upload a new version of a key (versioning is on).",
                B
                | KEY
                | {
                    "ContentLength": prop("integer", "Size in bytes."),
                    "StorageClass": prop("string", "Default STANDARD.", enum=CLASSES),
                    "Tagging": prop(
                        "string", "Tags as a URL query, e.g. project=atlas&retention=1y."
                    ),
                },
                _put,
                ("Bucket", "Key", "ContentLength"),
                effect="write",
            ),
            Tool(
                "delete_object",
                "DeleteObject without a version: adds a delete marker.",
                B | KEY,
                _delete,
                ("Bucket", "Key"),
                effect="write",
            ),
            Tool(
                "list_object_versions",
                "ListObjectVersions under a prefix.",
                B | prefix,
                _versions_of,
                ("Bucket", "Prefix"),
            ),
            note_tool("log_step", "text", "Write a line to the run log (answers nothing)."),
        ]

    def _head_object(self, state: State, args: dict[str, Any]) -> Answer:
        check_bucket(args)
        if "VersionId" not in args:
            return _head(latest(state, args["Key"])[1]), []
        for version in versions(state):
            if version["Key"] == args["Key"] and version["VersionId"] == args["VersionId"]:
                return _head(version), []
        raise ToolError(
            "An error occurred (400) when calling the HeadObject operation: Bad Request"
        )

    def _tagging(self, state: State, args: dict[str, Any]) -> Answer:
        check_bucket(args)
        latest(state, args["Key"])
        return state["ObjectTagging"][args["Key"]], []

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        check_bucket(args)
        found = self.finder.matches(state, args)
        page = found[: self.finder.limit]
        answer = {"IsTruncated": len(found) > len(page), "Contents": page, "Name": BUCKET}
        return answer | {
            "Prefix": args.get("Prefix", ""),
            "MaxKeys": self.finder.limit,
            "KeyCount": len(page),
        }, []

    def lookup(self, rng: random.Random, state: State) -> Planned:
        key = rng.choice(current(state))[1]["Key"]
        return Planned("lookup", "head_object", {"Bucket": BUCKET, "Key": key})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        old = [v for v in versions(state) if not v["IsLatest"]]
        if old and rng.random() < 0.5:
            version = rng.choice(old)
            args = {"Bucket": BUCKET, "Key": version["Key"], "VersionId": version["VersionId"]}
            return Planned("nested_lookup", "head_object", args)
        key = rng.choice(current(state))[1]["Key"]
        return Planned("nested_lookup", "get_object_tagging", {"Bucket": BUCKET, "Key": key})

    def search(self, rng: random.Random, state: State) -> Planned:
        return Planned("search", "list_objects", {"Bucket": BUCKET} | self.finder.plan(rng, state))

    def join(self, rng: random.Random, state: State) -> Planned:
        tagging = state["ObjectTagging"]
        tagged = [v["Key"] for _, v in current(state) if tagging[v["Key"]]["TagSet"]]
        key = rng.choice(tagged)
        tag = rng.choice(tagging[key]["TagSet"])
        parts = key.split("/")
        prefix = "/".join(parts[: rng.randint(1, len(parts) - 1)]) + "/"
        args = {"Bucket": BUCKET, "Prefix": prefix, "TagKey": tag["Key"], "TagValue": tag["Value"]}
        return Planned("join", "find_objects_by_tag", args)

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        parts = rng.choice(current(state))[1]["Key"].split("/")
        prefix = "/".join(parts[: rng.randint(1, min(3, len(parts) - 1))]) + "/"
        return Planned("aggregate", "summarize_prefix", {"Bucket": BUCKET, "Prefix": prefix})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        key = rng.choice(current(state))[1]["Key"]
        args: dict[str, Any] = {"Bucket": BUCKET, "Key": key}
        if rng.random() < 0.35:
            planned = Planned("write", "delete_object", args)
        else:
            if rng.random() < 0.4:
                folder, name = key.rsplit("/", 1)
                again = rng.choice(["final", "v2", "fixed"]) + f"-{rng.randint(1, 99)}"
                args["Key"] = f"{folder}/{again}.{name.split('.', 1)[1]}"
            args["ContentLength"] = rng.randint(1_000, 5_000_000)
            if rng.random() < 0.5:
                args["StorageClass"] = rng.choice(CLASSES[:3])
            if rng.random() < 0.6:
                tags = rng.sample(sorted(TAGS), rng.randint(1, 2))
                args["Tagging"] = "&".join(f"{t}={rng.choice(TAGS[t])}" for t in tags)
            planned = Planned("write", "put_object", args)
        read = {"Bucket": BUCKET, "Prefix": args["Key"]}
        return planned, Planned("read_after_write", "list_object_versions", read)

    def no_match(self, rng: random.Random, state: State) -> Planned:
        prefix = rng.choice(["tmp/", "quarantine/", "logs/api/2019/"])
        return Planned("empty", "list_objects", {"Bucket": BUCKET, "Prefix": prefix})
