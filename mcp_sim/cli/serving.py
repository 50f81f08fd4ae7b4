"""``mcp-sim serve``: worlds over MCP, one on stdio or several over streamable HTTP with their
episodes, while the world model starts beside them (calls that need the model wait for it;
pinned ones are answered at once)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path

import anyio
import anyio.abc
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp

from mcp_sim.api.worlds import Worlds
from mcp_sim.cli import wiring
from mcp_sim.cli.console import say
from mcp_sim.cli.serve_config import ServeConfig
from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.episodes.store_opening import open_store
from mcp_sim.errors import EngineError, SimError
from mcp_sim.models.starting import StartingModel
from mcp_sim.server.control_tools import ControlTools
from mcp_sim.server.hosting import HostingOptions, describe_routes, hosting_app
from mcp_sim.server.http_front import serve_http, transport_security
from mcp_sim.server.http_timeouts import HttpLimits
from mcp_sim.server.mcp_front import build_server, serve_stdio
from mcp_sim.server.snapshot_files import SnapshotFolder
from mcp_sim.simulator.core import Simulator
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.spec.world import World
from mcp_sim.ui.workbench_routes import PUBLIC_PATHS


def run(config: ServeConfig) -> int:
    anyio.run(_serve, config)
    return 0


async def _serve(config: ServeConfig) -> None:
    worlds = [wiring.load(path) for path in config.worlds]
    _check_names(worlds, config.worlds)
    config = replace(config, simulation=await wiring.with_served_window(config.simulation))
    starting = starting_model(config)
    async with AsyncExitStack() as stack:
        simulators = open_simulators(stack, config, worlds, starting)
        async with anyio.create_task_group() as tg:
            await tg.start(run_model, config, starting)
            if config.http is None:
                await _serve_stdio(config, next(iter(simulators.values())))
            else:
                await serve_worlds(config, Worlds(await episode_hub(stack, config, simulators)))
            tg.cancel_scope.cancel()


def starting_model(config: ServeConfig) -> StartingModel:
    """The model the simulators answer with, ready once :func:`run_model` has launched it."""
    model = config.simulation.model
    return StartingModel("the embedded world model" if not model.vllm else f"vLLM ({model.vllm})")


def open_simulators(
    stack: AsyncExitStack, config: ServeConfig, worlds: list[World], model: StartingModel
) -> dict[str, Simulator]:
    """A simulator for each world, by world id, sharing one set of metrics."""
    metrics = Metrics()
    return {
        world.world: wiring.open_simulator(
            stack,
            world,
            config.simulation,
            model=model,
            journal=config.journal,
            perturbations=wiring.perturber(config.perturb, world),
            replay=config.replay,
            memory=config.world_memory,
            # A stdio process is one session for as long as its host keeps it open.
            idle_timeout=config.session_idle_timeout if config.http is not None else None,
            metrics=metrics,
        )
        for world in worlds
    }


async def episode_hub(
    stack: AsyncExitStack, config: ServeConfig, simulators: dict[str, Simulator]
) -> EpisodeHub:
    """The hub of the served worlds' episodes, in the durable store if one is named."""
    store = open_store(config.episode_store, idle_seconds=config.session_idle_timeout)
    if store is None:
        return EpisodeHub(simulators)
    stack.push_async_callback(store.close)
    say(f"episodes are kept in {store.url}")
    return EpisodeHub(simulators, store=store, lease_seconds=config.episode_lease)


def _check_names(worlds: list[World], paths: tuple[Path, ...]) -> None:
    seen: dict[str, Path] = {}
    for world, path in zip(worlds, paths, strict=True):
        if world.world in seen:
            raise SimError(
                f"{path} and {seen[world.world]} are both world {world.world!r}: a server's "
                "worlds need different ids (the world: field)"
            )
        seen[world.world] = path


async def _serve_stdio(config: ServeConfig, simulator: Simulator) -> None:
    snapshots = SnapshotFolder(config.snapshot_dir) if config.snapshot_dir else None
    control = ControlTools.over(simulator, snapshots) if config.control_tools else None
    server = build_server(simulator, default_session="stdio", control=control)
    world = simulator.world
    say(f"serving {world.world} ({len(world.tools)} tools) on stdio")
    await serve_stdio(server, max_message_bytes=config.max_message_bytes)


async def serve_worlds(
    config: ServeConfig,
    worlds: Worlds,
    *,
    workbench: Callable[[TransportSecuritySettings], ASGIApp] | None = None,
    stop: anyio.Event | None = None,
) -> None:
    """Serve ``worlds`` over HTTP as ``config`` says, with the ``workbench`` app (built for
    the server's Host checks) under ``/ui`` if given, until the process is told to stop or
    ``stop`` is set."""
    assert config.http is not None
    host, port = config.http
    options = HostingOptions(
        host=host,
        auth_token=config.auth_token,
        session_idle_timeout=config.session_idle_timeout,
        allowed_hosts=config.allowed_hosts,
        json_response=config.json_response,
        control_tools=config.control_tools,
        snapshots=SnapshotFolder(config.snapshot_dir) if config.snapshot_dir else None,
        max_body_bytes=config.max_body_bytes,
        openenv=config.openenv,
        max_message_bytes=config.max_message_bytes,
    )
    if workbench is not None:
        security = transport_security(host, list(config.allowed_hosts))
        options = replace(options, workbench=workbench(security), public_paths=PUBLIC_PATHS)
    app = hosting_app(worlds, options)
    hub = worlds.hub
    named = ", ".join(f"{w} ({len(s.world.tools)} tools)" for w, s in hub.simulators.items())
    base = f"http://{f'[{host}]' if ':' in host else host}:{port}"
    routes = describe_routes(hub, base, openenv=config.openenv)
    say(f"serving {named} on {base}/mcp" if hub.default_world else f"serving {named}")
    for line in routes[1:] if hub.default_world else routes:
        say(f"  {line}")
    limits = HttpLimits(
        header_timeout=config.header_timeout,
        body_timeout=config.body_timeout,
        max_header_bytes=config.max_header_bytes,
    )
    await serve_http(app, host, port, limits, stop=stop)


async def run_model(
    config: ServeConfig,
    starting: StartingModel,
    *,
    task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Launch the world model and keep it until the server stops; a model that cannot start
    turns every call that needs it into an error result, and the server keeps serving."""

    def progress(message: str) -> None:
        starting.loading(message)
        say(message)

    task_status.started()
    try:
        async with wiring.launched_model(config.simulation.model, progress) as model:
            starting.ready(model)
            if not config.simulation.model.urls:
                say("world model ready")
            await anyio.sleep_forever()
    except EngineError as exc:
        starting.failed(str(exc))
        say(f"the world model could not start: {exc}")
