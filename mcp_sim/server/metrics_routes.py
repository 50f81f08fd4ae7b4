"""The server's metrics over HTTP, for every world it hosts together::

      GET /control/metrics     sessions, calls, latency, tokens, errors (JSON)
      GET /metrics             the same in the Prometheus text format

(``/metrics`` sits outside ``/control`` because that is where Prometheus looks by default.)
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp_sim.episodes.hub import EpisodeHub
from mcp_sim.runtime.session import SessionStore
from mcp_sim.simulator.metrics import Metrics
from mcp_sim.simulator.prometheus_text import CONTENT_TYPE, prometheus_text


class MetricsEndpoints:
    """The metrics of a hub's worlds (which share one :class:`Metrics`)."""

    def __init__(self, hub: EpisodeHub) -> None:
        self.hub = hub
        # A suite's hub starts with no world loaded; its worlds share one Metrics when they load.
        loaded = next(iter(hub.simulators.values()), None)
        self._metrics = loaded.metrics if loaded is not None else None

    @property
    def metrics(self) -> Metrics:
        loaded = next(iter(self.hub.simulators.values()), None)
        if loaded is not None:
            self._metrics = loaded.metrics
        return self._metrics if self._metrics is not None else Metrics()

    @property
    def stores(self) -> list[SessionStore]:
        return [s.sessions for s in self.hub.simulators.values()]

    def routes(self) -> list[Route]:
        return [
            Route("/control/metrics", self.report, methods=["GET"]),
            Route("/metrics", self.prometheus, methods=["GET"]),
        ]

    async def report(self, request: Request) -> Response:
        return JSONResponse(self.metrics.report(self.stores) | {"episodes": len(self.hub)})

    async def prometheus(self, request: Request) -> Response:
        text = prometheus_text(self.metrics, self.stores)
        return Response(text, headers={"content-type": CONTENT_TYPE})
