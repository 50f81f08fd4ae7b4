"""The ``s3`` shape's tools: the S3 API's answers and the patches its writes make to the
bucket's listing (a new version or delete marker in key order, ``IsLatest`` moved to it)."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from benchmarks.zoo.kit import Answer, State, pointer, prop
from benchmarks.zoo.s3_bucket import (
    BUCKET,
    EXPORTED,
    OWNER,
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

B = {"Bucket": prop("string", f"Bucket name ({BUCKET}).")}
KEY = {"Key": prop("string", "Object key, e.g. reports/finance/2025/q1.xlsx.")}


def viewed(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(v["Key"], v | {"Day": v["LastModified"][:10]}) for _, v in current(state)]


def head_of(version: dict[str, Any]) -> dict[str, Any]:
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


def summarize_prefix(state: State, args: dict[str, Any]) -> Answer:
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


def objects_by_tag(state: State, args: dict[str, Any]) -> Answer:
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


def list_object_versions(state: State, args: dict[str, Any]) -> Answer:
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


def put_object(state: State, args: dict[str, Any]) -> Answer:
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


def delete_object(state: State, args: dict[str, Any]) -> Answer:
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
