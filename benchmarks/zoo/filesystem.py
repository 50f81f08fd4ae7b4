"""``filesystem`` (held out): a directory tree keyed by entry name at every level (no names
or paths as fields), files with size, owner and mode; users in groups; paths as arguments,
disk usage summed over a subtree, group → members → their files."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from benchmarks.zoo.kit import (
    WORDS,
    Answer,
    Planned,
    State,
    Tool,
    ToolError,
    fill,
    note_tool,
    pointer,
    prop,
    size_of,
    summary,
)
from benchmarks.zoo.shape import Shape

USERS = ["root", "amy", "bo", "cyd", "dee", "eli", "fox", "gus", "hal", "ivy"]
GROUPS = {
    "staff": ["amy", "bo", "cyd", "dee"],
    "ops": ["eli", "fox", "root"],
    "lab": ["gus", "hal", "ivy", "amy"],
}
EXTS = ["txt", "csv", "log", "py", "pdf", "png", "json"]


def _walk(node: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    yield path or "/", node
    for name, child in node.get("children", {}).items():
        yield from _walk(child, f"{path}/{name}")


def _files(state: State) -> list[tuple[str, dict[str, Any]]]:
    return [(p, n) for p, n in _walk(state["root"], "") if n["type"] == "file"]


def _node(state: State, path: str) -> dict[str, Any]:
    node: dict[str, Any] = state["root"]
    for part in [p for p in path.split("/") if p]:
        if part not in node.get("children", {}):
            raise ToolError(f"{path}: no such file or directory")
        node = node["children"][part]
    return node


def _ptr(path: str) -> str:
    parts: list[object] = ["root"]
    for part in [p for p in path.split("/") if p]:
        parts += ["children", part]
    return pointer(*parts)


class Filesystem(Shape):
    name = "filesystem"
    title = "Shared file server"
    description = (
        "A team's shared file server: a directory tree of files with owners, groups and "
        "permissions. Paths are absolute ('/projects/x/report.csv'). JSON answers; errors are "
        "text starting with 'Error:'."
    )
    note = ("annotate", "remark")

    def build(self, rng: random.Random, target_bytes: int) -> State:
        root: dict[str, Any] = {"type": "dir", "owner": "root", "mode": "0755", "children": {}}
        state: State = {"root": root, "groups": GROUPS}

        def add() -> None:
            node = root
            for _ in range(rng.randint(1, 5)):
                dirs = [c for c in node["children"].values() if c["type"] == "dir"]
                if not dirs or rng.random() < 0.2:
                    name = f"{rng.choice(WORDS)}{rng.randint(1, 99)}"
                    node["children"].setdefault(
                        name,
                        {"type": "dir", "owner": rng.choice(USERS), "mode": "0775", "children": {}},
                    )
                    dirs = (
                        [node["children"][name]]
                        if node["children"][name]["type"] == "dir"
                        else dirs
                    )
                if not dirs:
                    break
                node = rng.choice(dirs)
            name = f"{rng.choice(WORDS)}_{rng.randint(1, 9999)}.{rng.choice(EXTS)}"
            node["children"][name] = {
                "type": "file",
                "size": rng.randint(0, 5_000_000),
                "owner": rng.choice(USERS),
                "group": rng.choice(sorted(GROUPS)),
                "mode": rng.choice(["0644", "0640", "0600", "0755"]),
                "mtime": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00",
            }

        fill(add, lambda: size_of(state), target_bytes)
        return state

    def tools(self) -> list[Tool]:
        path = {"path": prop("string", "Absolute path.")}
        return [
            Tool(
                "stat",
                "A file's or directory's metadata (a directory without its entries).",
                path,
                self._stat,
                ("path",),
            ),
            Tool(
                "ls", "A directory's entries: name, type, size of files.", path, self._ls, ("path",)
            ),
            Tool(
                "find",
                "Files under a directory by extension, owner, size range or modification time.",
                path
                | {
                    "ext": prop("string", "Extension without the dot."),
                    "user": prop("string", "Owner."),
                    "larger_than": prop("integer", "Bytes."),
                    "smaller_than": prop("integer", "Bytes."),
                    "newer_than": prop("string", "ISO timestamp."),
                },
                self._find,
                ("path",),
            ),
            Tool(
                "group_files",
                "Files owned by the members of a group, under a directory.",
                path | {"group": prop("string", "Group.")},
                self._group_files,
                ("path", "group"),
            ),
            Tool(
                "du",
                "Disk usage of a directory: total bytes, files and owners.",
                path,
                self._du,
                ("path",),
            ),
            Tool(
                "chown",
                "Change a file's owner.",
                path | {"owner": prop("string", "User.")},
                self._chown,
                ("path", "owner"),
                effect="write",
            ),
            note_tool("annotate", "remark", "Add a remark to the session (answers nothing)."),
        ]

    def _stat(self, state: State, args: dict[str, Any]) -> Answer:
        node = _node(state, args["path"])
        return {k: v for k, v in node.items() if k != "children"}, []

    def _ls(self, state: State, args: dict[str, Any]) -> Answer:
        node = _node(state, args["path"])
        if node["type"] != "dir":
            raise ToolError("not a directory")
        return [
            {"name": n, "type": c["type"], **({"size": c["size"]} if c["type"] == "file" else {})}
            for n, c in node["children"].items()
        ], []

    def _under(self, state: State, path: str) -> list[tuple[str, dict[str, Any]]]:
        base = _node(state, path)
        return [(p, n) for p, n in _walk(base, path.rstrip("/")) if n["type"] == "file"]

    def _find(self, state: State, args: dict[str, Any]) -> Answer:
        found = [
            {"path": p, "size": n["size"], "owner": n["owner"], "mtime": n["mtime"]}
            for p, n in self._under(state, args["path"])
            if ("ext" not in args or p.endswith("." + args["ext"]))
            and args.get("user", n["owner"]) == n["owner"]
            and n["size"] > args.get("larger_than", -1)
            and n["size"] < args.get("smaller_than", 10**12)
            and n["mtime"] > args.get("newer_than", "")
        ]
        return found[:30], []

    def _group_files(self, state: State, args: dict[str, Any]) -> Answer:
        members = state["groups"].get(args["group"])
        if members is None:
            raise ToolError("no such group")
        return [
            {"path": p, "owner": n["owner"], "size": n["size"]}
            for p, n in self._under(state, args["path"])
            if n["owner"] in members
        ][:30], []

    def _du(self, state: State, args: dict[str, Any]) -> Answer:
        files = self._under(state, args["path"])
        return {
            "path": args["path"],
            "bytes": summary("sum", [n["size"] for _, n in files]),
            "files": len(files),
            "owners": summary("distinct", [n["owner"] for _, n in files]),
        }, []

    def _chown(self, state: State, args: dict[str, Any]) -> Answer:
        node = _node(state, args["path"])
        if args["owner"] not in USERS:
            raise ToolError("no such user")
        return {"path": args["path"], "owner": args["owner"], "was": node["owner"]}, [
            {"op": "replace", "path": _ptr(args["path"]) + "/owner", "value": args["owner"]}
        ]

    def _dir(self, rng: random.Random, state: State) -> str:
        dirs = [p for p, n in _walk(state["root"], "") if n["type"] == "dir" and p.count("/") <= 2]
        return rng.choice(dirs)

    def lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("lookup", "stat", {"path": rng.choice(_files(state))[0]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        return Planned("nested_lookup", "ls", {"path": self._dir(rng, state)})

    def search(self, rng: random.Random, state: State) -> Planned:
        path, node = rng.choice(_files(state))
        args: dict[str, Any] = {"path": "/" + path.split("/")[1], "ext": path.rsplit(".", 1)[1]}
        if rng.random() < 0.5:
            args["user"] = node["owner"]
        if rng.random() < 0.5:
            args["larger_than"] = node["size"] // 2
        return Planned("search", "find", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        return Planned(
            "join",
            "group_files",
            {"path": self._dir(rng, state), "group": rng.choice(sorted(GROUPS))},
        )

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        return Planned("aggregate", "du", {"path": self._dir(rng, state)})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        path, node = rng.choice(_files(state))
        owner = rng.choice([u for u in USERS if u != node["owner"]])
        return Planned("write", "chown", {"path": path, "owner": owner}), Planned(
            "read_after_write", "stat", {"path": path}
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        return Planned("empty", "find", {"path": self._dir(rng, state), "ext": "exe"})
