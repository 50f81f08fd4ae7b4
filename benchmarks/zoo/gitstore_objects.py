"""A git repository's object store (the ``gitstore`` shape's state), as a dump of ``git
cat-file --batch-all-objects`` with each object written the way GitHub's Git Database API
writes it: one ``objects`` map keyed by SHA-1 holding commits, trees and blobs alike, told
apart by ``type``; a tree lists its entries by name only (``path`` is one path component, the
mode a string, ``040000`` for a subtree); a blob's text is base64, wrapped every 60 characters
as GitHub wraps it; a commit names its tree and parents by SHA; branches and tags are ``refs``
naming a commit. SHAs are the real ones git computes, so a write makes new, different ones."""

from __future__ import annotations

import base64
import hashlib
import random
from datetime import UTC, datetime
from typing import Any

from benchmarks.zoo.kit import FIRST, LAST, WORDS, State, fill, size_of

REPOSITORY = {"full_name": "acme/billing-service", "default_branch": "main", "private": True}
START = 1_735_725_600
"""2025-01-01T10:00:00Z: the first commit."""
MODULES = ["invoices", "payments", "ledger", "refunds", "tax", "webhooks"]
FEATURES = ["feature/sepa-mandates", "feature/tax-rounding", "fix/webhook-retries"]
SUBJECTS = [
    "Fix {w} rounding in {m}",
    "Add {w} support to {m}",
    "Refactor {m}: extract {w} helper",
    "Bump {w} timeout for {m}",
    "Document {m} {w} flow",
    "Handle empty {w} in {m}",
]
LANGUAGES = {".py": "Python", ".md": "Markdown", ".yaml": "YAML", ".toml": "TOML", ".yml": "YAML"}
Tree = dict[str, Any]
"""A directory being built: name → a file's blob SHA and size, or a :data:`Tree`."""
Files = dict[str, tuple[str, int]]
"""A commit's files: path → blob SHA and size."""


def _hash(kind: str, body: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(body)}\0".encode() + body).hexdigest()


def encoded(text: str) -> str:
    """Base64 as GitHub answers a blob's content: wrapped every 60 characters."""
    flat = base64.b64encode(text.encode()).decode()
    return "".join(flat[i : i + 60] + "\n" for i in range(0, len(flat), 60))


def decoded(content: str) -> str:
    return base64.b64decode(content.replace("\n", "")).decode()


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def put_blob(objects: dict[str, Any], text: str) -> tuple[str, int]:
    """The blob of ``text``, stored; its SHA and size."""
    sha, size = _hash("blob", text.encode()), len(text.encode())
    objects[sha] = {"type": "blob", "size": size, "encoding": "base64"}
    objects[sha]["content"] = encoded(text)
    return sha, size


def _order(name: str, node: Any) -> str:
    # git sorts a tree's entries as if a subtree's name ended in "/".
    return name + "/" if isinstance(node, dict) else name


def put_tree(objects: dict[str, Any], node: Tree) -> str:
    """The tree (and its subtrees) of a directory, stored; its SHA."""
    entries, body = [], b""
    for name in sorted(node, key=lambda n: _order(n, node[n])):
        child = node[name]
        if isinstance(child, dict):
            sha, mode, kind = put_tree(objects, child), "40000", "tree"
            entries.append({"path": name, "mode": "040000", "type": kind, "sha": sha})
        else:
            (sha, size), mode, kind = child, "100644", "blob"
            entries.append({"path": name, "mode": mode, "type": kind, "sha": sha, "size": size})
        body += f"{mode} {name}\0".encode() + bytes.fromhex(sha)
    sha = _hash("tree", body)
    objects[sha] = {"type": "tree", "tree": entries}
    return sha


def put_commit(
    objects: dict[str, Any],
    tree: str,
    parents: list[str],
    who: dict[str, Any],
    epoch: int,
    message: str,
) -> str:
    person = f"{who['name']} <{who['email']}> {epoch} +0000"
    lines = [f"tree {tree}", *(f"parent {p}" for p in parents)]
    text = "\n".join([*lines, f"author {person}", f"committer {person}", "", message]) + "\n"
    sha = _hash("commit", text.encode())
    signature = {"name": who["name"], "email": who["email"], "date": iso(epoch)}
    objects[sha] = {"type": "commit", "tree": {"sha": tree}}
    objects[sha] |= {"parents": [{"sha": p} for p in parents], "author": signature}
    objects[sha] |= {"committer": dict(signature), "message": message}
    return sha


def nest(files: Files) -> Tree:
    """The directories of a commit's files."""
    root: Tree = {}
    for path, sha in files.items():
        *folders, name = path.split("/")
        node = root
        for folder in folders:
            node = node.setdefault(folder, {})
        node[name] = sha
    return root


def _code(rng: random.Random, module: str) -> str:
    w1, w2 = rng.choice(WORDS), rng.choice(WORDS)
    return (
        f"def {w1}_{w2}(amount):\n"
        f'    """{module.title()}: {w1} {w2} step."""\n'
        f"    return round(amount * {rng.randint(2, 97)} / 100, 2)\n\n"
    )


def _first_text(rng: random.Random, path: str) -> str:
    module = path.rsplit("/", 1)[-1].split(".")[0]
    if path.endswith(".py"):
        return "import decimal\n\n\n" + "".join(_code(rng, module) for _ in range(3))
    if path.endswith(".md"):
        return f"# {module.title()}\n\n" + " ".join(rng.choice(WORDS) for _ in range(30)) + "\n"
    return "".join(f"{rng.choice(WORDS)}_{n}: {rng.randint(1, 900)}\n" for n in range(6))


def _edited(rng: random.Random, path: str, text: str) -> str:
    module = path.rsplit("/", 1)[-1].split(".")[0]
    if path.endswith(".py"):
        functions = text.split("\n\n\n", 1)[1].split("\n\n")
        functions = [f + "\n\n" for f in functions if f.strip()]
        if len(functions) > 6 or (functions and rng.random() < 0.3):
            functions.pop(rng.randrange(len(functions)))
        functions.insert(rng.randint(0, len(functions)), _code(rng, module))
        return "import decimal\n\n\n" + "".join(functions)
    lines = text.splitlines(keepends=True)
    line = f"{rng.choice(WORDS)}_{rng.randint(0, 99)}: {rng.randint(1, 900)}\n"
    if path.endswith(".md"):
        line = " ".join(rng.choice(WORDS) for _ in range(12)) + "\n"
    lines[rng.randrange(1, len(lines))] = line
    return "".join(lines[:14])


def people(rng: random.Random) -> list[dict[str, str]]:
    chosen = rng.sample([(f, la) for f in FIRST for la in LAST], 9)
    return [
        {"name": f"{first} {last}", "email": f"{first.lower()}.{last.lower()}@acme.dev"}
        for first, last in chosen
    ]


class History:
    """Commits made one at a time on a branch, each changing one to three files of the
    working tree (sometimes adding one), with the trees and blobs it needs."""

    def __init__(self, rng: random.Random, objects: dict[str, Any]) -> None:
        self.rng, self.objects = rng, objects
        self.authors = people(rng)
        self.epoch = START
        paths = ["README.md", "pyproject.toml", ".github/workflows/ci.yml", "docs/runbook.md"]
        paths += [f"src/billing/{m}.py" for m in MODULES[:3]] + ["tests/test_invoices.py"]
        self.texts = {p: _first_text(rng, p) for p in paths}
        self.files = {p: put_blob(objects, t) for p, t in self.texts.items()}
        tree = put_tree(objects, nest(self.files))
        who = self.authors[0]
        self.head = put_commit(objects, tree, [], who, self.epoch, "Initial commit")
        self.count = 1

    def commit(self) -> str:
        rng = self.rng
        self.epoch += rng.randint(1_800, 86_400)
        missing = [m for m in MODULES if f"src/billing/{m}.py" not in self.files]
        if missing and rng.random() < 0.08:
            module = rng.choice(missing)
            for path in (f"src/billing/{module}.py", f"tests/test_{module}.py"):
                self.texts[path] = _first_text(rng, path)
                self.files[path] = put_blob(self.objects, self.texts[path])
            message = f"Add {module} module"
        else:
            changed = rng.sample(sorted(self.files), rng.randint(1, 3))
            for path in changed:
                self.texts[path] = _edited(rng, path, self.texts[path])
                self.files[path] = put_blob(self.objects, self.texts[path])
            module = changed[0].rsplit("/", 1)[-1].split(".")[0]
            message = rng.choice(SUBJECTS).format(w=rng.choice(WORDS), m=module)
            if rng.random() < 0.3:
                message += "\n\n" + " ".join(rng.choice(WORDS) for _ in range(14)) + "."
        tree = put_tree(self.objects, nest(self.files))
        who = rng.choice(self.authors)
        self.head = put_commit(self.objects, tree, [self.head], who, self.epoch, message)
        self.count += 1
        return self.head


def repository(rng: random.Random, target_bytes: int) -> State:
    """The object store of about ``target_bytes``: main's history, a tag every 25 commits,
    and a few branches forked from main near its end."""
    objects: dict[str, Any] = {}
    state: State = {"repository": dict(REPOSITORY), "refs": [], "objects": objects}
    main = History(rng, objects)
    tags: list[tuple[str, str]] = []

    def add() -> None:
        main.commit()
        if main.count % 25 == 0:
            tags.append((f"v1.{len(tags)}.0", main.head))

    fill(add, lambda: size_of(state) + 1_500 * len(FEATURES), int(target_bytes * 0.97))
    refs = [("refs/heads/main", main.head)]
    tip, files, texts, epoch = main.head, main.files, main.texts, main.epoch
    for branch in FEATURES:
        main.head, main.files, main.texts, main.epoch = tip, dict(files), dict(texts), epoch
        for _ in range(rng.randint(1, 3)):
            main.commit()
        refs.append((f"refs/heads/{branch}", main.head))
    refs += [(f"refs/tags/{name}", sha) for name, sha in tags]
    state["refs"] = [{"ref": r, "object": {"sha": s, "type": "commit"}} for r, s in sorted(refs)]
    return state
