"""The control operations as MCP tools (``sim_*``), offered only when the server runs with
``--control-tools``. Unlike the HTTP API, a snapshot can be saved to and loaded from a file
on the server here, which is the point of running the tools on a local (stdio) server: by
plain file name, in the folder ``--snapshot-dir`` names and nowhere else
(:mod:`mcp_sim.server.snapshot_files`). Episodes are out of the tools' reach: only the
caller's own session or plain sessions can be named."""

from __future__ import annotations

from typing import Any

from mcp_sim.errors import SnapshotInvalid, UnknownSession
from mcp_sim.server.control import Control
from mcp_sim.server.snapshot_files import SnapshotFolder

_SESSION = {"type": "string", "description": "Session id (default: this connection's session)"}
_SEED = {"type": "integer", "description": "Seed of the session's RNG"}

CONTROL_TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "sim_sessions": ("List the live sessions of this simulated world.", {}),
    "sim_create_session": (
        "Start a new session at the world's starting state, or from a snapshot file.",
        {
            "id": {"type": "string", "description": "Id of the new session (default: random)"},
            "seed": _SEED,
            "snapshot_file": {
                "type": "string",
                "description": "Continue from the snapshot saved under this file name in the "
                "server's snapshot folder (--snapshot-dir)",
            },
        },
    ),
    "sim_state": ("The world state of a session and its version.", {"session": _SESSION}),
    "sim_reset": (
        "Reset a session to the world's starting state.",
        {"session": _SESSION, "seed": _SEED},
    ),
    "sim_snapshot": (
        "Snapshot a session; optionally save the snapshot to a file on the server.",
        {
            "session": _SESSION,
            "file": {
                "type": "string",
                "description": "Save the snapshot under this plain file name in the server's "
                "snapshot folder (--snapshot-dir)",
            },
        },
    ),
    "sim_fork": (
        "Fork a session: a new, independent session continuing from its present state.",
        {
            "session": _SESSION,
            "id": {"type": "string", "description": "Id of the fork (default: random)"},
            "seed": _SEED,
        },
    ),
    "sim_journal": ("A session's journal, one JSON object per line.", {"session": _SESSION}),
    "sim_metrics": ("The server's metrics: sessions, calls, latency, tokens, errors.", {}),
}
"""The control operations as MCP tools: name → (description, input properties)."""


async def call_control_tool(
    control: Control, name: str, arguments: dict[str, Any], caller: str
) -> Any:
    """Run control tool ``name`` for a request of session ``caller``; returns JSON data (or
    text, for the journal). Raises :class:`SimError` subclasses and ``ValueError``."""
    for key, value in arguments.items():
        if key not in CONTROL_TOOLS[name][1]:
            raise ValueError(f"{name} has no argument {key!r}")
        expected = CONTROL_TOOLS[name][1][key]["type"]
        if (expected == "integer") != (isinstance(value, int) and not isinstance(value, bool)):
            raise ValueError(
                f"{key!r} must be {'an integer' if expected == 'integer' else 'a string'}"
            )
    session = arguments.get("session") or caller
    if session == caller:
        # The caller's own session exists from its first request, whatever that request was.
        control.simulator.sessions.get(caller)
    elif control.hidden(session):
        raise UnknownSession(f"no live session {session!r}")
    seed = arguments.get("seed")
    if name == "sim_sessions":
        return {"sessions": control.list()}
    if name == "sim_metrics":
        return control.metrics()
    if name == "sim_create_session":
        file = arguments.get("snapshot_file")
        snapshot = await _folder(control).load(file) if file else None
        return await control.create(arguments.get("id"), seed=seed, snapshot=snapshot)
    if name == "sim_state":
        return await control.state(session)
    if name == "sim_reset":
        return await control.reset(session, seed=seed)
    if name == "sim_snapshot":
        taken = await control.snapshot(session)
        data: dict[str, Any] = taken.model_dump(mode="json")
        if arguments.get("file"):
            target = await _folder(control).save(arguments["file"], taken)
            return {"saved_to": str(target), "version": taken.version}
        return data
    if name == "sim_fork":
        return await control.fork(session, arguments.get("id"), seed=seed)
    return control.journal(session)


def _folder(control: Control) -> SnapshotFolder:
    if control.snapshots is None:
        raise SnapshotInvalid(
            "this server keeps no snapshot files: start it with --snapshot-dir DIR to save and "
            "load them by name"
        )
    return control.snapshots
