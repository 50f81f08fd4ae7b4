"""The one exception tree of mcp-sim.

    SimError
    ├── SpecError            a world file is broken (carries every problem found)
    ├── ModelError           the world model could not give a usable answer
    │   ├── ModelUnavailable     endpoint down, refused, 5xx / 429 after retries
    │   ├── ModelTimeout         no answer within the configured timeout
    │   └── ModelOutputInvalid   truncated, malformed or schema-violating answer
    └── EngineError          the embedded engine could not be installed or started

Foreign errors (httpx, JSON, jsonschema, subprocess) are translated into these once, at the
boundary where they happen. The server turns every ModelError into an ``isError`` tool
result, so one failing call never takes the server down.
"""

from __future__ import annotations

from dataclasses import dataclass


class SimError(Exception):
    """Base of every error mcp-sim raises on purpose."""


@dataclass(frozen=True)
class SpecProblem:
    """One problem in a world file, located as precisely as we can."""

    file: str
    line: int
    column: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.column}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class SpecError(SimError):
    """A world file cannot be used; ``problems`` lists every reason."""

    def __init__(self, problems: list[SpecProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


class ModelError(SimError):
    """The world model gave no usable answer for a call."""


class ModelUnavailable(ModelError):
    """The model endpoint could not be reached or kept failing."""


class ModelTimeout(ModelError):
    """The model endpoint did not answer in time."""


class ModelOutputInvalid(ModelError):
    """The model answered, but the answer cannot be used as an observation."""


class EngineError(SimError):
    """The embedded engine (vLLM CPU + tiny model) could not be installed or started."""
