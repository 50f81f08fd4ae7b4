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
    prop,
)
from benchmarks.zoo.s3_api import (
    KEY,
    B,
    delete_object,
    head_of,
    list_object_versions,
    objects_by_tag,
    put_object,
    summarize_prefix,
    viewed,
)
from benchmarks.zoo.s3_bucket import (
    BUCKET,
    CLASSES,
    TAGS,
    bucket,
    check_bucket,
    contents,
    current,
    latest,
    versions,
)
from benchmarks.zoo.shape import Shape

HEAD = {
    "type": "object",
    "properties": {
        "AcceptRanges": {"enum": ["bytes"]},
        "ContentLength": {"type": "integer"},
        "ServerSideEncryption": {"enum": ["AES256", "aws:kms", "aws:kms:dsse"]},
        "StorageClass": {"enum": CLASSES},
        "Metadata": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
"""HeadObject's answer, as the SDK's shape types it."""


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
            viewed,
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
                output=HEAD,
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
                objects_by_tag,
                ("Bucket", "TagKey", "TagValue"),
            ),
            Tool(
                "summarize_prefix",
                "Current objects under a prefix: count and bytes in all, per storage class and "
                "per next-level folder; noncurrent versions and delete markers.",
                B | prefix,
                summarize_prefix,
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
                put_object,
                ("Bucket", "Key", "ContentLength"),
                effect="write",
            ),
            Tool(
                "delete_object",
                "DeleteObject without a version: adds a delete marker.",
                B | KEY,
                delete_object,
                ("Bucket", "Key"),
                effect="write",
            ),
            Tool(
                "list_object_versions",
                "ListObjectVersions under a prefix.",
                B | prefix,
                list_object_versions,
                ("Bucket", "Prefix"),
            ),
            note_tool("log_step", "text", "Write a line to the run log (answers nothing)."),
        ]

    def _head_object(self, state: State, args: dict[str, Any]) -> Answer:
        check_bucket(args)
        if "VersionId" not in args:
            return head_of(latest(state, args["Key"])[1]), []
        for version in versions(state):
            if version["Key"] == args["Key"] and version["VersionId"] == args["VersionId"]:
                return head_of(version), []
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
