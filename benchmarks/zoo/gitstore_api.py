"""The GitHub REST API of the ``gitstore`` shape, answered from the object store: walks
from a ref through commits and trees (a path is found one component per tree), diffs of two
commits' trees, history as a walk of parents, and a file's write as the blob, trees and commit
it makes."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from difflib import SequenceMatcher
from typing import Any

from benchmarks.zoo.gitstore_objects import (
    LANGUAGES,
    Files,
    decoded,
    nest,
    put_blob,
    put_commit,
    put_tree,
)
from benchmarks.zoo.kit import (
    Answer,
    State,
    Tool,
    ToolError,
    pointer,
    prop,
)

BOT = {"name": "Helper Bot", "email": "helper-bot@acme.dev"}
PER_PAGE = 30


def commit_of(state: State, sha: str) -> dict[str, Any]:
    found = state["objects"].get(sha)
    if not found or found["type"] != "commit":
        raise ToolError(f"No commit found for SHA: {sha}")
    commit: dict[str, Any] = found
    return commit


def _ref_index(state: State, ref: str) -> int | None:
    for n, item in enumerate(state["refs"]):
        if item["ref"] in (ref, f"refs/heads/{ref}", f"refs/tags/{ref}", f"refs/{ref}"):
            return n
    return None


def resolve(state: State, ref: str) -> str:
    """The commit SHA of a branch, a tag or a SHA."""
    n = _ref_index(state, ref)
    if n is not None:
        sha: str = state["refs"][n]["object"]["sha"]
        return sha
    if ref in state["objects"]:
        commit_of(state, ref)  # raises unless the SHA is a commit's
        return ref
    raise ToolError(f"No commit found for the ref {ref}")


def files_of(state: State, tree: str, prefix: str = "") -> Files:
    """Every file under a tree: path → blob SHA and size."""
    found: Files = {}
    for entry in state["objects"][tree]["tree"]:
        path = prefix + entry["path"]
        if entry["type"] == "tree":
            found |= files_of(state, entry["sha"], path + "/")
        else:
            found[path] = (entry["sha"], entry["size"])
    return found


def entry_at(state: State, commit: str, path: str) -> dict[str, Any] | None:
    """The tree entry at ``path`` in a commit (the root tree for ``""``)."""
    entry: dict[str, Any] = {"type": "tree", "sha": commit_of(state, commit)["tree"]["sha"]}
    for part in [p for p in path.strip("/").split("/") if p]:
        if entry["type"] != "tree":
            return None
        found = [e for e in state["objects"][entry["sha"]]["tree"] if e["path"] == part]
        if not found:
            return None
        entry = found[0]
    return entry


def history(state: State, head: str) -> list[str]:
    """The commits reachable from ``head``, newest first (the history is linear)."""
    found = [head]
    while parents := commit_of(state, found[-1])["parents"]:
        found.append(parents[0]["sha"])
    return found


def _summary(sha: str, commit: dict[str, Any]) -> dict[str, Any]:
    shown = {k: commit[k] for k in ("author", "committer", "message", "tree")}
    return {"sha": sha, "commit": shown, "parents": commit["parents"]}


def _commit_object(sha: str, commit: dict[str, Any]) -> dict[str, Any]:
    return {"sha": sha} | {k: v for k, v in commit.items() if k != "type"}


def changes(state: State, old: Files, new: Files, stats: bool) -> list[dict[str, Any]]:
    changed = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        status = "added" if before is None else "removed" if after is None else "modified"
        shown: dict[str, Any] = {"sha": (after or before or ("",))[0], "filename": path}
        shown["status"] = status
        if stats:
            old_lines, new_lines = (
                decoded(state["objects"][side[0]]["content"]).splitlines() if side else []
                for side in (before, after)
            )
            added = deleted = 0
            for op, i1, i2, j1, j2 in SequenceMatcher(None, old_lines, new_lines).get_opcodes():
                if op != "equal":
                    deleted, added = deleted + i2 - i1, added + j2 - j1
            shown |= {"additions": added, "deletions": deleted, "changes": added + deleted}
        changed.append(shown)
    return changed


def epoch_of(date: str) -> float:
    return datetime.fromisoformat(date.replace("Z", "+00:00")).timestamp()


def branches(state: State) -> list[str]:
    return [r["ref"][11:] for r in state["refs"] if r["ref"].startswith("refs/heads/")]


def tree_of(state: State, sha: str) -> Files:
    return files_of(state, commit_of(state, sha)["tree"]["sha"])


def default_commit(state: State, ref: str | None) -> str:
    return resolve(state, ref or state["repository"]["default_branch"])


def get_git_commit(state: State, args: dict[str, Any]) -> Answer:
    return _commit_object(args["commit_sha"], commit_of(state, args["commit_sha"])), []


def get_git_ref(state: State, args: dict[str, Any]) -> Answer:
    for item in state["refs"]:
        if item["ref"] == f"refs/{args['ref']}":
            return item, []
    raise ToolError("Not Found")


def get_git_blob(state: State, args: dict[str, Any]) -> Answer:
    found = state["objects"].get(args["file_sha"])
    if not found or found["type"] != "blob":
        raise ToolError("Not Found")
    return {"sha": args["file_sha"]} | {k: v for k, v in found.items() if k != "type"}, []


def get_file_contents(state: State, args: dict[str, Any]) -> Answer:
    path = args["path"].strip("/")
    entry = entry_at(state, default_commit(state, args.get("ref")), path)
    if entry is None:
        raise ToolError("Not Found")
    if entry["type"] == "blob":
        blob = state["objects"][entry["sha"]]
        shown = {"type": "file", "encoding": "base64", "size": blob["size"]}
        shown |= {"name": path.rsplit("/", 1)[-1], "path": path}
        return shown | {"content": blob["content"], "sha": entry["sha"]}, []
    return [
        {"type": "file" if e["type"] == "blob" else "dir", "size": e.get("size", 0)}
        | {"name": e["path"], "path": f"{path}/{e['path']}", "sha": e["sha"]}
        for e in state["objects"][entry["sha"]]["tree"]
    ], []


def matching_commits(state: State, args: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for sha in history(state, default_commit(state, args.get("sha"))):
        commit = commit_of(state, sha)
        date = commit["committer"]["date"]
        if "author" in args and commit["author"]["email"] != args["author"].lower():
            continue
        if date < args.get("since", "") or date > args.get("until", "9999"):
            continue
        if "path" in args:
            parents = commit["parents"]
            here = entry_at(state, sha, args["path"])
            before = entry_at(state, parents[0]["sha"], args["path"]) if parents else None
            if here == before:
                continue
        found.append(_summary(sha, commit))
    return found


def list_commits(state: State, args: dict[str, Any]) -> Answer:
    return matching_commits(state, args)[:PER_PAGE], []


def list_matching_refs(state: State, args: dict[str, Any]) -> Answer:
    return [r for r in state["refs"] if r["ref"].startswith(f"refs/{args['ref']}")], []


def get_commit(state: State, args: dict[str, Any]) -> Answer:
    sha = resolve(state, args["ref"])
    commit = commit_of(state, sha)
    parents = commit["parents"]
    old = tree_of(state, parents[0]["sha"]) if parents else {}
    files = changes(state, old, tree_of(state, sha), stats=True)
    added = sum(f["additions"] for f in files)
    deleted = sum(f["deletions"] for f in files)
    stats = {"total": added + deleted, "additions": added, "deletions": deleted}
    return _summary(sha, commit) | {"stats": stats, "files": files}, []


def compare_commits(state: State, args: dict[str, Any]) -> Answer:
    base_ref, _, head_ref = args["basehead"].partition("...")
    base, head = resolve(state, base_ref), resolve(state, head_ref)
    ours, theirs = history(state, base), history(state, head)
    merge_base = next(sha for sha in theirs if sha in set(ours))
    ahead = theirs[: theirs.index(merge_base)]
    behind = ours[: ours.index(merge_base)]
    status = "identical" if not ahead and not behind else "diverged"
    status = "ahead" if ahead and not behind else "behind" if behind and not ahead else status
    commits = [
        {"sha": sha, "commit": {k: commit_of(state, sha)[k] for k in ("author", "message")}}
        for sha in reversed(ahead)
    ]
    files = changes(state, tree_of(state, merge_base), tree_of(state, head), stats=False)
    return {
        "status": status,
        "ahead_by": len(ahead),
        "behind_by": len(behind),
        "total_commits": len(ahead),
        "merge_base_commit": {"sha": merge_base},
        "commits": commits,
        "files": files,
    }, []


def list_contributors(state: State, args: dict[str, Any]) -> Answer:
    authors = [
        commit_of(state, sha)["author"] for sha in history(state, default_commit(state, None))
    ]
    counts = Counter(a["email"] for a in authors)
    named = {a["email"]: a["name"] for a in authors}
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [
        {"email": email, "name": named[email], "type": "Anonymous", "contributions": n}
        for email, n in ranked
    ], []


def get_languages(state: State, args: dict[str, Any]) -> Answer:
    counts: Counter[str] = Counter()
    for path, (_, size) in tree_of(state, default_commit(state, None)).items():
        extension = "." + path.rsplit(".", 1)[-1]
        if extension in LANGUAGES:
            counts[LANGUAGES[extension]] += size
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0]))), []


def create_or_update_file(state: State, args: dict[str, Any]) -> Answer:
    n = _ref_index(state, f"refs/heads/{args['branch']}")
    if n is None:
        raise ToolError(f"Branch {args['branch']} not found")
    head = state["refs"][n]["object"]["sha"]
    files = tree_of(state, head)
    path = args["path"].strip("/")
    if path in files and args.get("sha") != files[path][0]:
        raise ToolError(f'"sha" wasn\'t supplied or does not match {path}')
    made: dict[str, Any] = {}
    files[path] = put_blob(made, args["content"])
    tree = put_tree(made, nest(files))
    epoch = int(epoch_of(commit_of(state, head)["committer"]["date"])) + 3_600
    sha = put_commit(made, tree, [head], BOT, epoch, args["message"])
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": pointer("objects", key), "value": value}
        for key, value in made.items()
        if key not in state["objects"]
    ]
    patch.append({"op": "replace", "path": pointer("refs", n, "object", "sha"), "value": sha})
    blob, size = files[path]
    content = {"name": path.rsplit("/", 1)[-1], "path": path, "sha": blob, "size": size}
    return {"content": content | {"type": "file"}, "commit": _commit_object(sha, made[sha])}, patch


REF = prop("string", "Branch, tag or commit SHA; the default branch if left out.")


def tools() -> list[Tool]:
    """The API's tools: git objects by SHA, contents and history, comparisons and counts, and
    the contents write."""
    return [*_object_tools(), *_history_tools(), *_write_tools()]


def _object_tools() -> list[Tool]:
    return [
        Tool(
            "get_git_commit",
            "A commit object: tree, parents, author, committer, message.",
            {"commit_sha": prop("string", "The commit's full SHA.")},
            get_git_commit,
            ("commit_sha",),
        ),
        Tool(
            "get_git_ref",
            "A reference: the commit a branch or tag points at.",
            {"ref": prop("string", "heads/<branch> or tags/<tag>.")},
            get_git_ref,
            ("ref",),
        ),
        Tool(
            "get_git_blob",
            "A blob: its size and base64 content.",
            {"file_sha": prop("string", "The blob's SHA.")},
            get_git_blob,
            ("file_sha",),
        ),
        Tool(
            "get_file_contents",
            "A file's content (base64) at a ref, or a directory's listing: a list of its entries.",
            {"path": prop("string", "Path in the repository, e.g. src/app.py."), "ref": REF},
            get_file_contents,
            ("path",),
        ),
    ]


def _history_tools() -> list[Tool]:
    return [
        Tool(
            "list_commits",
            f"Commits reachable from a ref, newest first, {PER_PAGE} at most.",
            {
                "sha": REF,
                "path": prop("string", "Only commits changing this file or directory."),
                "author": prop("string", "GitHub login or email address."),
                "since": prop("string", "ISO 8601 time, e.g. 2025-03-01T00:00:00Z."),
                "until": prop("string", "ISO 8601 time."),
            },
            list_commits,
        ),
        Tool(
            "list_matching_refs",
            "References whose names start with a prefix.",
            {"ref": prop("string", "Prefix, e.g. tags/v1. or heads/feature.")},
            list_matching_refs,
            ("ref",),
        ),
        Tool(
            "get_commit",
            "A commit with its stats and the files it changed against its parent.",
            {"ref": prop("string", "Commit SHA, branch or tag.")},
            get_commit,
            ("ref",),
        ),
        Tool(
            "compare_commits",
            "How two refs differ: ahead/behind counts, commits of HEAD, files changed.",
            {"basehead": prop("string", "BASE...HEAD, e.g. v1.2.0...main.")},
            compare_commits,
            ("basehead",),
        ),
        Tool(
            "list_contributors",
            "Commit authors of the default branch by commits.",
            {"anon": prop("string", "'true' to list authors without a GitHub account.")},
            list_contributors,
        ),
        Tool(
            "get_languages",
            "Bytes of code per language on the default branch.",
            {},
            get_languages,
        ),
    ]


def _write_tools() -> list[Tool]:
    return [
        Tool(
            "create_or_update_file",
            "Commit a file's new content to a branch (sha: the blob replaced).",
            {
                "path": prop("string", "Path of the file."),
                "content": prop("string", "The new content (plain text)."),
                "message": prop("string", "Commit message."),
                "branch": prop("string", "Branch to commit to."),
                "sha": prop("string", "SHA of the blob being replaced, for an update."),
            },
            create_or_update_file,
            ("path", "content", "message", "branch"),
            effect="write",
        ),
    ]
