"""``gitstore``: a service's git repository as its object store holds it: commits, trees and
blobs in one map keyed by SHA-1, told apart by ``type``; a tree names its entries by one path
component each, so no object holds a file's path whole; file text only as base64 in blobs;
history only as each commit's parents. Tools answer as GitHub's REST API does and take what it
takes (a path and a branch, tag or SHA; ``BASE...HEAD``; an email as ``author``): a file at a
ref is a walk from the ref through a commit and its trees to a blob; a commit's changed files
are a diff of its tree and its parent's; a commit search filters a walk of the parents by
author, dates and the path a commit changed; contributors and languages count over the whole
history or tree; writing a file makes a blob, new trees up to the root and a commit, and moves
the branch."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.gitstore_api import (
    PER_PAGE,
    branches,
    changes,
    commit_of,
    epoch_of,
    history,
    matching_commits,
    resolve,
    tools,
    tree_of,
)
from benchmarks.zoo.gitstore_objects import decoded, iso, repository
from benchmarks.zoo.kit import WORDS, Planned, State, Tool, note_tool
from benchmarks.zoo.shape import Shape


class GitStore(Shape):
    name = "gitstore"
    title = "Code assistant over a git repository"
    description = (
        "The acme/billing-service repository as git holds it: commits, trees and blobs by "
        "SHA, branches and tags. The assistant commits as Helper Bot. Errors are text "
        "starting with 'Error:' and GitHub's message."
    )
    note = ("scratchpad", "note")

    def tools(self) -> list[Tool]:
        return [
            *tools(),
            note_tool("scratchpad", "note", "Write down a note for yourself (answers nothing)."),
        ]

    def build(self, rng: random.Random, target_bytes: int) -> State:
        return repository(rng, target_bytes)

    def _commit_on(self, rng: random.Random, state: State) -> str:
        return rng.choice(history(state, resolve(state, rng.choice(state["refs"])["ref"])))

    def lookup(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.45:
            sha = self._commit_on(rng, state)
            return Planned("lookup", "get_git_commit", {"commit_sha": sha})
        if choice < 0.7:
            ref = rng.choice(state["refs"])["ref"].removeprefix("refs/")
            return Planned("lookup", "get_git_ref", {"ref": ref})
        files = tree_of(state, self._commit_on(rng, state))
        return Planned("lookup", "get_git_blob", {"file_sha": rng.choice(list(files.values()))[0]})

    def nested_lookup(self, rng: random.Random, state: State) -> Planned:
        ref = rng.choice(state["refs"])["ref"].split("/", 2)[2]
        files = sorted(tree_of(state, resolve(state, ref)))
        path = rng.choice(files)
        if rng.random() < 0.25:
            path = rng.choice(["src/billing", ".github/workflows"])
        args = {"path": path} | ({"ref": ref} if ref != "main" or rng.random() < 0.5 else {})
        return Planned("nested_lookup", "get_file_contents", args)

    def search(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.2:
            # A start of a ref's name: its kind, a version's first digits, a branch's prefix.
            name = rng.choice(state["refs"])["ref"].removeprefix("refs/")
            prefix = name[: rng.randint(name.index("/") + 1, len(name))]
            return Planned("search", "list_matching_refs", {"ref": prefix})
        branch = rng.choice(["main", "main", *branches(state)])
        shas = history(state, resolve(state, branch))
        sha = rng.choice(shas)
        commit = commit_of(state, sha)
        date = epoch_of(commit["committer"]["date"])
        parents = commit["parents"]
        changed = [
            f["filename"]
            for f in changes(
                state,
                tree_of(state, parents[0]["sha"]) if parents else {},
                tree_of(state, sha),
                False,
            )
        ]
        path = rng.choice(changed)
        options = {
            "author": commit["author"]["email"],
            "since": iso(int(date) - rng.randint(0, 40) * 86_400)[:10] + "T00:00:00Z",
            "until": iso(int(date) + rng.randint(0, 40) * 86_400)[:10] + "T23:59:59Z",
            "path": path if rng.random() < 0.6 or "/" not in path else path.rsplit("/", 1)[0],
        }
        names = list(options)
        rng.shuffle(names)
        args: dict[str, Any] = {} if branch == "main" else {"sha": branch}
        for count, name in enumerate(names, start=1):
            args[name] = options[name]
            wanted = rng.randint(1, 4)
            if count >= wanted and len(matching_commits(state, args)) <= PER_PAGE:
                break
        return Planned("search", "list_commits", args)

    def join(self, rng: random.Random, state: State) -> Planned:
        tags = [r["ref"][10:] for r in state["refs"] if r["ref"].startswith("refs/tags/")]
        tags.sort(key=lambda tag: int(tag.split(".")[1]))
        if rng.random() < 0.3 and len(tags) >= 2:
            n = rng.randrange(1, len(tags))
            return Planned("join", "compare_commits", {"basehead": f"{tags[n - 1]}...{tags[n]}"})
        ref = rng.choice([self._commit_on(rng, state), rng.choice(tags or ["main"])])
        return Planned("join", "get_commit", {"ref": ref})

    def aggregate(self, rng: random.Random, state: State) -> Planned:
        choice = rng.random()
        if choice < 0.3:
            return Planned("aggregate", "list_contributors", {"anon": "true"})
        if choice < 0.55:
            return Planned("aggregate", "get_languages", {})
        branch = rng.choice([b for b in branches(state) if b != "main"])
        return Planned("aggregate", "compare_commits", {"basehead": f"main...{branch}"})

    def write(self, rng: random.Random, state: State) -> tuple[Planned, Planned]:
        branch = rng.choice(branches(state))
        files = tree_of(state, resolve(state, branch))
        path = rng.choice(sorted(p for p in files if not p.endswith(".py")))
        old = decoded(state["objects"][files[path][0]]["content"])
        text = old + f"{rng.choice(WORDS)}_note: {rng.randint(1, 99)}\n"
        args = {"path": path, "content": text, "message": f"Update {path.rsplit('/', 1)[-1]}"}
        args |= {"branch": branch, "sha": files[path][0]}
        read = {"path": path, "ref": branch}
        return Planned("write", "create_or_update_file", args), Planned(
            "read_after_write", "get_file_contents", read
        )

    def no_match(self, rng: random.Random, state: State) -> Planned:
        if rng.random() < 0.5:
            return Planned("empty", "list_matching_refs", {"ref": "tags/v2."})
        author = commit_of(state, resolve(state, "main"))["author"]["email"]
        return Planned("empty", "list_commits", {"author": author, "until": "2024-12-31T23:59:59Z"})
