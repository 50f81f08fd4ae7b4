"""The request bodies of the episode API, as models that refuse what they do not know: a key
the API does not take (``{"taks": ...}``) is a 400 that names it and says which key was meant,
not a request silently run without it. The same models describe the bodies in the API's
OpenAPI document (:mod:`mcp_sim.server.episode_openapi`)."""

from __future__ import annotations

import difflib
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

MAX_BATCH = 1024
"""The most episodes one request may create or fork: enough for a large rollout group, few
enough that one request cannot tie up a server for long."""

Count = StrictInt | None
MAX_SEED = 2**63 - 1
"""The largest seed a client may give: seeds are 64-bit where they end up (the model server's
sampling), and OpenEnv's reset refuses negative ones. A batch's last seed (seed + count - 1)
must fit too."""


def seed_of(value: Any) -> int | None:
    """A seed a client sent, checked: a whole number from 0 to :data:`MAX_SEED`, or none."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_SEED:
        # Not echoed: a 4,000-digit number is no help in an error.
        raise ValueError("seed must be a whole number from 0 to 2**63 - 1")
    return value


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CreateBody(_Body):
    """``POST /episodes``."""

    world: StrictStr | None = Field(None, description="The world (left out on a one-world server).")
    id: StrictStr | None = Field(None, description="The episode's id (random when left out).")
    seed: StrictInt | None = Field(
        None,
        ge=0,
        le=MAX_SEED - MAX_BATCH,
        description="The episode's seed; with count, the first one's (then seed + i).",
    )
    snapshot: dict[str, Any] | None = Field(None, description="A snapshot document to continue.")
    task: StrictStr | None = Field(None, description="The verify task it is scored on.")
    count: Count = Field(
        None, ge=1, le=MAX_BATCH, description="Create this many; the answer lists them."
    )


class ForkBody(_Body):
    """``POST /episodes/{id}/fork``."""

    id: StrictStr | None = Field(None, description="The fork's id (random when left out).")
    seed: StrictInt | None = Field(
        None,
        ge=0,
        le=MAX_SEED - MAX_BATCH,
        description="The fork's seed (the parent's randomness when left out); with count, "
        "the first one's (then seed + i).",
    )
    count: Count = Field(
        None, ge=1, le=MAX_BATCH, description="Fork this many from one present; listed."
    )


class ResetBody(_Body):
    """``POST /episodes/{id}/reset``."""

    seed: StrictInt | None = Field(
        None, ge=0, le=MAX_SEED, description="A new seed (the same one when left out)."
    )


class VerifyBody(_Body):
    """``POST /episodes/{id}/verify``."""

    task: StrictStr | None = Field(None, description="The task (default: the episode's own).")


Body = TypeVar("Body", bound=_Body)


def parse_body(model: type[Body], data: dict[str, Any], where: str) -> Body:
    """``data`` as ``model``, the body of ``where`` (a route, for the messages). Raises
    :class:`ValueError` naming an unknown key (and the known key it looks like) or the first
    field that does not fit."""
    known = list(model.model_fields)
    unknown = [key for key in data if key not in model.model_fields]
    if unknown:
        raise ValueError(_unknown(unknown[0], known, where))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_input=False, include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"]) or "the body"
        raise ValueError(f"{where}: {field!r}: {first['msg']}") from None


def _unknown(key: str, known: list[str], where: str) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{where}: unknown key {key!r}{hint}; it takes {', '.join(known)}"
