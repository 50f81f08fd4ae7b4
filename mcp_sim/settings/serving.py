"""What a simulator keeps and replays, the faults it injects, where episodes live, and how a
server is reached and limited."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field

from mcp_sim.settings import values
from mcp_sim.settings.declare import Flag
from mcp_sim.settings.model import FROZEN


class PerturbSettings(BaseModel):
    """The perturbation profiles switched on, and the seed of their decisions."""

    model_config = FROZEN

    perturb: Annotated[
        list[str],
        Flag(
            "NAME[,NAME]",
            "switch on perturbation profiles (see `mcp-sim perturbations WORLD`); decisions are "
            "reproducible with --perturb-seed or --seed",
        ),
    ] = []
    perturb_seed: Annotated[
        int | None,
        Flag(
            "N",
            "base seed of perturbation decisions only (default: --seed); for backends that "
            "should not be sent a sampling seed",
        ),
    ] = None

    @property
    def profiles(self) -> str:
        """The profiles as one comma list, as :class:`~mcp_sim.perturb.planner.Perturber`
        takes them."""
        return ",".join(self.perturb)


class RecordSettings(BaseModel):
    """What is kept of the calls, and what earlier runs answer: journal, answer cache, world
    memory, replay."""

    model_config = FROZEN

    journal: Annotated[
        Path | None,
        Flag("PATH", "append every call to this JSONL file", parse=values.output_file),
    ] = None
    journal_timing: Annotated[
        bool,
        Flag(None, "record wall-clock latency in the journal (replayed journals then differ)"),
    ] = False
    cache: Annotated[
        Path | None,
        Flag(
            "PATH",
            "keep model answers in this SQLite file and reuse them: a repeated run with the "
            "same --seed asks the model nothing (keyed on the world, the prompt, the sampling "
            "and seed, and the model as configured: --model, else the URLs)",
            parse=values.output_file,
        ),
    ] = None
    world_memory: Annotated[
        Path | None,
        Flag(
            "PATH",
            "keep the pages, results and facts the world's web has shown in this SQLite "
            "file, across sessions, restarts and servers sharing it",
            parse=values.output_file,
        ),
    ] = None
    replay: Annotated[
        Path | None,
        Flag(
            "JOURNAL",
            "answer calls from this journal (e.g. one written by `mcp-sim record`), matched "
            "by session, position, tool and arguments; other calls go to the model",
            parse=values.existing_file("journal"),
        ),
    ] = None


class EpisodeSettings(BaseModel):
    """Where episodes are kept, how long they live, and the operator's control tools and
    resources."""

    model_config = FROZEN

    episode_store: Annotated[
        str,
        Flag(
            "URL",
            "keep episodes durably, shared by every worker that names the same store: memory "
            "(this process only), sqlite:///PATH (the workers of one machine) or "
            "redis://HOST:PORT/DB (several machines; pip install 'mcp-sim[redis]')",
            parse=values.episode_store,
        ),
    ] = "memory"
    episode_lease: Annotated[
        float,
        Field(gt=0),
        Flag(
            "SECONDS",
            "with a durable --episode-store: how long a worker's hold on an episode lasts "
            "unless renewed (a dead worker's episodes move on after this)",
        ),
    ] = 15.0
    episode_store_timeout: Annotated[
        float,
        Field(gt=0),
        Flag(
            "SECONDS",
            "with a durable --episode-store: how long one store operation may take before the "
            "request that needed it is answered 503 episode_store",
        ),
    ] = 5.0
    session_idle_timeout: Annotated[
        float,
        Field(gt=0),
        Flag("SECONDS", "forget HTTP sessions and episodes idle this long"),
    ] = 1800.0
    max_episodes: Annotated[
        int,
        Field(ge=1),
        Flag(
            "N",
            "hold at most N episodes at once (per worker); creating one more is refused with "
            "429 capacity",
        ),
    ] = 10_000
    max_world_episodes: Annotated[
        int,
        Field(ge=1),
        Flag("N", "hold at most N episodes of any one world at once (per worker)"),
    ] = 10_000
    max_snapshot_values: Annotated[
        int,
        Field(ge=1),
        Flag(
            "N",
            "refuse snapshots (bodies and files) of more than N JSON values, counted before "
            "they are parsed: what bounds an episode's starting memory, where bytes do not",
        ),
    ] = 500_000
    control_tools: Annotated[
        bool,
        Flag(
            None,
            "also offer snapshot/fork/reset as MCP tools (sim_*); hidden by default so an agent "
            "under test never sees them (over HTTP the /episodes API is always there)",
        ),
    ] = False
    operator_resources: Annotated[
        bool,
        Flag(
            None,
            "on shared endpoints and stdio, also serve the operator's resources (sim://world "
            "with its tasks, checks and fixtures; each session's state, journal and "
            "consistency) for a designer; an episode's endpoint never serves them",
        ),
    ] = False
    snapshot_dir: Annotated[
        Path | None,
        Flag(
            "DIR",
            "with --control-tools: the one folder where sim_snapshot and sim_create_session "
            "save and load snapshot files, by plain file name",
            parse=values.existing_folder("snapshot folder"),
        ),
    ] = None


class ServerSettings(BaseModel):
    """How a server is reached (stdio, or streamable HTTP with its access rules) and what a
    client may send."""

    model_config = FROZEN

    http: Annotated[
        tuple[str, int] | None,
        Flag(
            "HOST:PORT",
            "serve streamable HTTP at http://HOST:PORT (/mcp, /worlds/W/mcp, /episodes) "
            "instead of stdio",
            parse=values.host_port,
        ),
    ] = None
    auth_token: Annotated[
        str | None,
        Flag("TOKEN", "require 'Authorization: Bearer TOKEN' over HTTP", secret=True),
    ] = None
    allow_host: Annotated[
        list[str],
        Flag("HOST", "extra Host header to accept over HTTP (DNS-rebinding protection stays on)"),
    ] = []
    json_response: Annotated[
        bool,
        Flag(
            None,
            "over HTTP, answer each request with one JSON body instead of an event stream: no "
            "progress notifications, about half the server CPU per call (for many sessions)",
        ),
    ] = False
    openenv: Annotated[
        bool,
        Flag(
            None,
            "over HTTP, also speak OpenEnv (WebSocket /ws, /reset, /step, /state, /health, "
            "/metadata, /schema): reset starts an episode, a step is a tool call",
        ),
    ] = False
    max_websockets: Annotated[
        int,
        Field(ge=1),
        Flag("N", "with --openenv: hold at most N OpenEnv WebSockets open at once"),
    ] = 1000
    websocket_idle_timeout: Annotated[
        float,
        Field(gt=0),
        Flag("SECONDS", "with --openenv: close a WebSocket that sends nothing for this long"),
    ] = 300.0
    max_body_bytes: Annotated[
        int,
        Field(ge=1024),
        Flag("N", "refuse episode API request bodies over N bytes with 413"),
    ] = 16 * 1024 * 1024
    max_message_bytes: Annotated[
        int,
        Field(ge=1024),
        Flag("N", "refuse MCP messages over N bytes, on stdio and HTTP"),
    ] = 4 * 1024 * 1024
    header_timeout: Annotated[
        float,
        Field(gt=0),
        Flag(
            "SECONDS",
            "over HTTP, close connections whose request line and headers take longer",
        ),
    ] = 10.0
    body_timeout: Annotated[
        float,
        Field(gt=0),
        Flag("SECONDS", "over HTTP, close connections whose request body takes longer"),
    ] = 60.0
    max_header_bytes: Annotated[
        int,
        Field(ge=1024),
        Flag("N", "over HTTP, refuse request lines and headers over N bytes with 431"),
    ] = 16 * 1024
