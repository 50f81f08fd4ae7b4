"""The control operations as MCP tools (``sim_*``), offered only when the server runs with
``--control-tools``: a thin adapter over the episode hub's life cycle and journals
(:class:`mcp_sim.episodes.hub.EpisodeHub`), the same code the episode API runs. The HTTP API
for the same operations is the episode API (:mod:`mcp_sim.server.episode_routes`).

Unlike the HTTP API, a snapshot can be saved to and loaded from a file on the server here,
which is the point of running the tools on a local (stdio) server: by plain file name, in the
folder ``--snapshot-dir`` names and nowhere else (:mod:`mcp_sim.server.snapshot_files`).
Episodes are out of the tools' reach: on a shared endpoint only plain sessions can be named,
and the sessions the tools make are plain ones. On an episode's own endpoint the tools act on
that episode alone: no other session can be named (another's is answered as if it did not
exist), the tools that list or make sessions and ``sim_metrics`` (the operator's, on a shared
endpoint) are refused, and its snapshot files live in a folder of its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_sim.episodes.entry import EpisodeEntry
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.scoring import session_summary
from mcp_sim.errors import SnapshotInvalid, UnknownSession
from mcp_sim.server.request_meta import MAX_SESSION_ID_LENGTH
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.simulator.core import Simulator

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


@dataclass(frozen=True)
class ControlTools:
    """The control tools of one world of ``hub``; ``snapshots``: the folder snapshot files are
    saved to and loaded from, if any."""

    hub: EpisodeHub
    world: str
    snapshots: SnapshotFolder | None = None

    @classmethod
    def over(cls, simulator: Simulator, snapshots: SnapshotFolder | None = None) -> ControlTools:
        """The tools of a server of one simulator and no episodes (stdio)."""
        name = simulator.world.world
        return cls(EpisodeHub({name: simulator}), name, snapshots)

    @property
    def simulator(self) -> Simulator:
        return self.hub.simulator(self.world)

    def folder(self, episode: EpisodeEntry | None = None) -> SnapshotFolder:
        """The snapshot files of the shared sessions, or of ``episode`` (its own)."""
        if self.snapshots is None:
            raise SnapshotInvalid(
                "this server keeps no snapshot files: start it with --snapshot-dir DIR to save "
                "and load them by name"
            )
        if episode is None:
            return self.snapshots
        # Per incarnation: a later episode of the same id is another owner.
        return self.snapshots.inner(EPISODE_FOLDERS, f"{episode.id}.{episode.incarnation}")


EPISODE_FOLDERS = "episodes"
"""The folder, in the snapshot folder, of each episode's own folder."""
ONLY_SHARED = ("sim_sessions", "sim_metrics", "sim_create_session", "sim_fork")
"""The tools an episode's endpoint refuses: they list or make other sessions (an episode forks
with the episode API, which gives the fork its own token) or report on the whole server."""


def _confined(tools: ControlTools, name: str, session: str, caller: str) -> EpisodeEntry | None:
    """The caller's episode when it calls from its own endpoint, after refusing what an
    episode may not do there; ``None`` on a shared endpoint."""
    hub = tools.hub
    if not hub.is_episode(tools.world, caller):
        if hub.is_episode(tools.world, session):
            raise UnknownSession(f"no live session {session!r}")
        return None
    if name in ONLY_SHARED:
        raise ValueError(
            f"{name} is not offered on an episode's endpoint, whose tools act on the episode "
            "alone (the episode API forks and lists episodes)"
        )
    if session != caller:
        raise UnknownSession(f"no live session {session!r}")
    return hub.entry(caller)


def _check_arguments(name: str, arguments: dict[str, Any]) -> None:
    for key, value in arguments.items():
        if key not in CONTROL_TOOLS[name][1]:
            raise ValueError(f"{name} has no argument {key!r}")
        expected = CONTROL_TOOLS[name][1][key]["type"]
        if (expected == "integer") != (isinstance(value, int) and not isinstance(value, bool)):
            raise ValueError(
                f"{key!r} must be {'an integer' if expected == 'integer' else 'a string'}"
            )
    new_id = arguments.get("id")
    if new_id is not None and len(new_id) > MAX_SESSION_ID_LENGTH:
        raise ValueError(f"a session id is at most {MAX_SESSION_ID_LENGTH} characters")


async def call_control_tool(
    tools: ControlTools, name: str, arguments: dict[str, Any], caller: str
) -> Any:
    """Run control tool ``name`` for a request of session ``caller``; returns JSON data (or
    text, for the journal). Raises :class:`SimError` subclasses and ``ValueError``."""
    _check_arguments(name, arguments)
    hub, world = tools.hub, tools.world
    session = arguments.get("session") or caller
    episode = _confined(tools, name, session, caller)
    if session == caller and episode is None:
        # The caller's own session exists from its first request, whatever that request was.
        tools.simulator.sessions.get(caller)
    seed = arguments.get("seed")
    if name == "sim_sessions":
        return {"sessions": [session_summary(s) for s in hub.access.plain_sessions(world)]}
    if name == "sim_metrics":
        return tools.simulator.metrics.report(tools.simulator.sessions)
    if name == "sim_create_session":
        file = arguments.get("snapshot_file")
        snapshot = await tools.folder().load(file) if file else None
        made = hub.lifecycle.start_session(world, arguments.get("id"), seed=seed, snapshot=snapshot)
        return session_summary(made)
    if name == "sim_state":
        return await hub.lifecycle.state(session, world=world)
    if name == "sim_reset":
        return session_summary(await hub.lifecycle.reset(session, seed=seed, world=world))
    if name == "sim_snapshot":
        taken = await hub.lifecycle.snapshot(session, world=world)
        if arguments.get("file"):
            target = await tools.folder(episode).save(arguments["file"], taken)
            # The file's name only: the agent has no business knowing the server's folders.
            return {"saved_to": target.name, "version": taken.version}
        return taken.model_dump(mode="json")
    if name == "sim_fork":
        forked = await hub.lifecycle.fork_session(world, session, arguments.get("id"), seed=seed)
        return session_summary(forked)
    records = hub.scoring.journal(session, world=world)
    return "".join(r.to_json() + "\n" for r in records)
