"""The one exception tree of mcp-sim.

    SimError
    ├── SpecError            a world file is broken (carries every problem found)
    ├── SettingsError        a setting (flag, MCP_SIM_* variable, config file key) is invalid
    ├── ModelError           the world model could not give a usable answer
    │   ├── ModelUnavailable     endpoint down, refused, 5xx / 429 after retries
    │   │   ├── ConnectFailed        no connection to an endpoint could be opened (one try)
    │   │   └── ConnectionBroken     a connection broke, or its peer broke HTTP (one try)
    │   ├── ModelTimeout         no answer within the configured timeout
    │   └── ModelOutputInvalid   truncated, malformed or schema-violating answer
    ├── EngineError          the embedded engine could not be installed or started
    ├── CacheError           the answer cache file cannot be opened, read or written
    ├── UpstreamError        a real MCP server (import, record) cannot be started or used
    ├── ImportFailed         a real server's tools or an OpenAPI document cannot become a world
    ├── WorldMemoryError     a world memory file cannot be opened or used
    ├── DraftError           ``world new`` could not draft a valid world spec
    ├── UnknownWorld         an episode was asked of a world the server does not host
    ├── ListenFailed         a server cannot listen on its address (taken, not this machine's)
    ├── EpisodeStoreError    the durable episode store cannot be reached or used
    │   ├── EpisodeBusy          another worker holds the episode's lease past the wait
    │   └── EpisodeConflict      the episode moved on elsewhere while a call ran here
    ├── VerifyError          an episode cannot be scored (no such task, a journal that does not replay)
    └── StateError           a world state change or snapshot cannot be used
        ├── PatchRejected        a proposed JSON Patch fails to apply or breaks a rule of the world
        ├── SnapshotInvalid      a snapshot is malformed or was taken in another world
        ├── UnknownSession       no live session has that id (control API)
        └── SessionExists        a new session was asked for under an id already live

Foreign errors (httpx2, JSON, jsonschema, subprocess) are translated into these once, at the
boundary where they happen. The server turns every ModelError into an ``isError`` tool
result, so one failing call never takes the server down.
"""

from __future__ import annotations

from dataclasses import dataclass

SHOWN_CHARACTERS = 64
"""How much of a value a client sent an error message shows."""


def shown(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """A value a client sent, as an error message names it: its ``repr`` (so control
    characters come escaped), cut to ``limit`` characters; a 10 MB value must not come back
    whole in the error about it."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


class SimError(Exception):
    """Base of every error mcp-sim raises on purpose."""


class SettingsError(SimError):
    """A setting has a value it cannot take, or no setting has that name; ``source`` names
    where it was given (a flag, an environment variable, a config file's key)."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


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


class ConnectFailed(ModelUnavailable):
    """No connection to a model endpoint could be opened: refused, unresolvable, TLS failed, or
    not within the connect timeout (``timed_out``). The model client retries it."""

    def __init__(self, message: str, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


class ConnectionBroken(ModelUnavailable):
    """A connection to a model endpoint broke, or the endpoint broke HTTP, before the answer was
    complete. The model client retries it."""


class ModelTimeout(ModelError):
    """The model endpoint did not answer in time."""


class ModelOutputInvalid(ModelError):
    """The model answered, but the answer cannot be used as an observation."""


class EngineError(SimError):
    """The embedded engine (vLLM CPU + tiny model) could not be installed or started."""


class UnknownWorld(SimError):
    """An episode was asked of a world this server does not host."""


class ListenFailed(SimError):
    """A server cannot listen on its address: another server holds it, it is not one of this
    machine's, or it needs privileges. ``address`` is ``HOST:PORT``; ``reason`` says why."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"cannot listen on {address}: {reason}")
        self.address = address
        self.reason = reason


class CapacityReached(SimError):
    """A server holds as many episodes or connections as its limits let it."""


class EpisodeStoreError(SimError):
    """The durable episode store (``--episode-store``) cannot be opened, reached or used."""


class EpisodeBusy(EpisodeStoreError):
    """Another worker held the episode's lease for longer than a call waits for it."""


class EpisodeConflict(EpisodeStoreError):
    """The episode's record moved on in the store while a call ran here (this worker's lease
    ran out and another took the episode): the call was not kept."""


class VerifyError(SimError):
    """An episode cannot be scored: its world has no such task, or its journal does not
    replay onto the world's starting state."""


class CacheError(SimError):
    """The answer cache (``--cache``) cannot be used: not an SQLite file, read-only, locked."""


class UpstreamError(SimError):
    """A real MCP server could not be started, reached or asked (``import``, ``record``)."""


class ImportFailed(SimError):
    """What was imported cannot become a world; the message names the tool or operation."""


class WorldMemoryError(SimError):
    """The world memory file cannot be opened or used (not SQLite, another format, I/O)."""


class DraftError(SimError):
    """The world model's draft of a world spec is not a valid world (the message lists why)."""


class StateError(SimError):
    """A change to a session's world state, or a saved copy of it, cannot be used."""


class PatchRejected(StateError):
    """A proposed state change was not committed; the message says why, for the model to fix."""


class SnapshotInvalid(StateError):
    """A snapshot cannot be restored: malformed, or taken in a different world."""


class UnknownSession(StateError):
    """The control API was asked about a session that does not exist (or has expired)."""


class SessionExists(StateError):
    """The control API was asked to create a session under an id that is already live."""
