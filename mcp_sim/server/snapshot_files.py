"""The one folder where ``--control-tools`` may save and load snapshot files.

An agent with the control tools chooses file names, so the names are plain (no folders, no
``..``), files are opened relative to the folder without following symbolic links, only
regular files are read (never a device or a pipe), reads are bounded and run off the event
loop, and no error message carries a file's content.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import anyio.to_thread

from mcp_sim.episodes.limits import EpisodeLimits
from mcp_sim.errors import SnapshotInvalid, shown
from mcp_sim.runtime.snapshot import Snapshot

FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024


class SnapshotFolder:
    """Snapshot files in ``root``, by plain file name."""

    def __init__(
        self,
        root: Path,
        max_bytes: int = MAX_SNAPSHOT_BYTES,
        limits: EpisodeLimits | None = None,
    ) -> None:
        """``limits``: how many JSON values a snapshot file may have (bytes alone do not bound
        what it grows to once parsed)."""
        self.root = root
        self.max_bytes = max_bytes
        self.limits = limits or EpisodeLimits()

    def inner(self, *names: str) -> SnapshotFolder:
        """A folder of its own inside this one (made when missing), for one owner's files:
        plain names cannot reach it from here, nor here from it."""
        root = self.root.joinpath(*(self._name(name) for name in names))
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        return SnapshotFolder(root, self.max_bytes)

    def _name(self, name: str) -> str:
        if not FILE_NAME.fullmatch(name) or name in (".", ".."):
            raise SnapshotInvalid(
                f"{shown(name)} is not a plain file name: use letters, digits, '.', '_' and "
                "'-' (the file goes in the snapshot folder)"
            )
        return name

    def _open(self, name: str, flags: int, doing: str) -> tuple[int, os.stat_result]:
        """A descriptor of regular file ``name`` in the folder, and its status."""
        try:
            folder = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
            try:
                fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
            finally:
                os.close(folder)
        except OSError as exc:
            raise SnapshotInvalid(f"cannot {doing} {name}: {exc.strerror}") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise SnapshotInvalid(f"cannot {doing} {name}: not a regular file")
        return fd, info

    async def save(self, name: str, snapshot: Snapshot) -> Path:
        """Write ``snapshot`` to ``name`` in the folder (replacing a file of that name)."""
        plain = self._name(name)
        data = (snapshot.model_dump_json() + "\n").encode()
        await anyio.to_thread.run_sync(self._write, plain, data)
        return self.root / plain

    def _write(self, name: str, data: bytes) -> None:
        fd, _ = self._open(name, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, "write")
        with os.fdopen(fd, "wb") as file:
            file.truncate(0)
            file.write(data)

    async def load(self, name: str) -> Snapshot:
        """The snapshot in file ``name`` of the folder."""
        # Parsed on the worker thread too: a large file takes a while.
        return await anyio.to_thread.run_sync(self._parsed, self._name(name))

    def _parsed(self, name: str) -> Snapshot:
        text = self._read(name)
        self.limits.check_snapshot(text)
        return Snapshot.parse(text)

    def _read(self, name: str) -> bytes:
        fd, info = self._open(name, os.O_RDONLY | os.O_NONBLOCK, "read snapshot")
        with os.fdopen(fd, "rb") as file:
            if info.st_size > self.max_bytes:
                raise SnapshotInvalid(
                    f"snapshot {name} is {info.st_size} bytes, over the limit of {self.max_bytes}"
                )
            return file.read(self.max_bytes + 1)[: self.max_bytes]
