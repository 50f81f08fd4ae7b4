"""A Prometheus server's last six hours (the ``prometheus`` shape's state), as the answer of
``/api/v1/query_range?query={__name__=~".+"}&step=300`` exports it: a ``matrix`` of series,
each known only by its whole label set (``metric``, the metric's name under ``__name__``), its
samples ``[unix seconds, "value as text"]``; no ids, no records: a host is the series whose
``instance`` label names it, its name only in an info metric's ``nodename`` label whose value
is always 1; counters grow and start again from 0 when a process restarts; a host that came up
late has no samples before; a sample missing at a step is simply absent."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.zoo.kit import State, fill, size_of

END = 1_764_576_000
"""2025-12-01T08:00:00Z: the export's last step."""
STEP = 300
START = END - 6 * 3_600
LOOKBACK = 300
"""How far back an instant query looks for a series' last sample."""
SERVICES = {
    "api": ["/api/v1/orders", "/api/v1/customers"],
    "checkout": ["/checkout", "/cart"],
    "search": ["/search", "/suggest"],
    "worker": ["/jobs"],
}
ROUTES = [("GET", "200"), ("GET", "404"), ("POST", "201"), ("GET", "500")]
RELEASES = ["6.1.0-1027-aws", "6.8.0-1015-aws", "5.15.0-1066-aws"]
VERSIONS = ["1.14.2", "1.15.0", "1.15.1"]


def number(value: float) -> str:
    """A sample's value as Prometheus writes it: the shortest text that reads back the same,
    without an exponent for the values here."""
    return str(int(value)) if float(value).is_integer() else repr(round(value, 4))


def stamp(t: float) -> float | int:
    """A time as the API writes it: seconds, with a fraction only when it has one."""
    return int(t) if float(t).is_integer() else t


class Estate:
    """Hosts added one at a time, each with a node exporter and one service's process, every
    series sampled each step from when the host came up."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.result: list[dict[str, Any]] = []
        self.hosts = 0

    def _series(
        self, labels: dict[str, str], values: list[float | None], first: int
    ) -> dict[str, Any]:
        times = range(START + first * STEP, END + 1, STEP)
        samples = [
            [t, number(v)] for t, v in zip(times, values[first:], strict=True) if v is not None
        ]
        made = {"metric": labels, "values": samples}
        self.result.append(made)
        return made

    def _walk(self, low: float, high: float, points: int, whole: bool) -> list[float | None]:
        value, found = self.rng.uniform(low, high), []
        for _ in range(points):
            value += self.rng.uniform(-0.08, 0.08) * (high - low)
            # Reflected at the bounds (clamping would pile values up on them).
            value = 2 * low - value if value < low else 2 * high - value if value > high else value
            found.append(float(int(value)) if whole else round(value, 2))
        return list(found)

    def _counter(self, rate: float, points: int, reset: int | None) -> list[float | None]:
        total, found = self.rng.uniform(0, 50_000) if reset is None else 0.0, []
        for n in range(points):
            total = 0.0 if n == reset else total + max(0, int(self.rng.gauss(rate, rate / 4)))
            found.append(float(int(total)))
        return list(found)

    def add(self) -> None:
        rng, k = self.rng, self.hosts
        self.hosts += 1
        points = (END - START) // STEP + 1
        address = f"10.0.{k % 8 + 1}.{k // 8 + 10}"
        node, job = f"{address}:9100", list(SERVICES)[k % len(SERVICES)]
        app = f"{address}:8080"
        first = rng.randrange(points // 2) if rng.random() < 0.15 else 0
        down = rng.randrange(first + 1, points) if rng.random() < 0.2 else None
        nodename = f"ip-{address.replace('.', '-')}"
        info = {"__name__": "node_uname_info", "instance": node, "job": "node"}
        info |= {"machine": rng.choice(["x86_64", "aarch64"]), "nodename": nodename}
        self._series(info | {"release": rng.choice(RELEASES)}, [1.0] * points, first)
        base = {"instance": node, "job": "node"}
        self._series({"__name__": "up"} | base, [1.0] * points, first)
        memory = self._walk(0.4e9, 15.5e9, points, whole=True)
        self._series({"__name__": "node_memory_MemAvailable_bytes"} | base, memory, first)
        self._series({"__name__": "node_load1"} | base, self._walk(0, 8, points, False), first)
        for device, mount in (("/dev/nvme0n1p1", "/"), ("/dev/nvme1n1", "/var/lib/docker")):
            labels = {"__name__": "node_filesystem_avail_bytes", "device": device}
            labels |= {"fstype": "ext4"} | base | {"mountpoint": mount}
            self._series(labels, self._walk(1e9, 95e9, points, whole=True), first)
        base = {"instance": app, "job": job}
        up: list[float | None] = [0.0 if n == down else 1.0 for n in range(points)]
        self._series({"__name__": "up"} | base, up, first)
        build = {"__name__": "app_build_info", "goversion": "go1.23.4"} | base
        self._series(build | {"version": rng.choice(VERSIONS)}, [1.0] * points, first)
        resident = self._walk(60e6, 900e6, points, whole=True)
        if down is not None:
            resident[down] = None  # no scrape while the process was down
        self._series({"__name__": "process_resident_memory_bytes"} | base, resident, first)
        for handler in SERVICES[job]:
            for method, code in ROUTES:
                if code == "404" and rng.random() < 0.5:
                    continue
                rate = {"200": 900, "201": 120, "404": 6, "500": 2}[code] * rng.uniform(0.5, 1.5)
                labels = {"__name__": "http_requests_total", "code": code, "handler": handler}
                counts = self._counter(rate, points, down)
                self._series(labels | base | {"method": method}, counts, first)


def matrix(rng: random.Random, target_bytes: int) -> State:
    """The export of about ``target_bytes``: hosts' series in the order they were added."""
    estate = Estate(rng)
    state: State = {"status": "success", "data": {"resultType": "matrix", "result": []}}
    estate.result = state["data"]["result"]
    fill(estate.add, lambda: size_of(state), int(target_bytes * 0.98))
    return state
