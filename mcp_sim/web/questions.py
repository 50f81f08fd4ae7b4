"""What the page store asks the world model, what it gets back, and what it answers a call with.

The store never talks to the model itself: the simulator hands it an :data:`Ask` that sends a
:class:`ModelQuestion` through the call's prompt, seeds and cache. A question may carry a turn
that follows an earlier answer (a correction, or the facts a page established), sent in the same
conversation so it shares the prompt's prefix.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class ModelQuestion:
    """One request the page store needs the world model to answer for the current call."""

    arguments: dict[str, Any]
    """The action shown as the current call (a search of a single query, say)."""
    sections: tuple[str, ...] = ()
    """What the store tells the model about this call."""
    response_schema: dict[str, Any] | None = None
    """Ask for JSON constrained by this schema instead of the native text."""
    then: tuple[str, str] | None = None
    """(an answer the model gave to this question, what to ask about it now): a correction or
    a follow-up, sent as the next turn of the same conversation so it shares the prefix."""
    follow_up: bool = False
    """A short question about the answer (thinking off, small token limit), such as facts."""


@dataclass(frozen=True)
class ModelReply:
    text: str
    """The observation (or, for a JSON question, the JSON text)."""
    content: str
    """The model's whole answer, as it goes back into a correction's conversation."""
    reasoning: str | None = None


Ask = Callable[[ModelQuestion], Awaitable[ModelReply]]


@dataclass(frozen=True)
class WebAnswer:
    text: str
    is_error: bool = False
    source: Literal["model", "memory"] = "memory"
    reasoning: str | None = None
    violations: tuple[str, ...] = ()
    """What the answer still fails to state after the one retry (reference answers, the
    numbers of a page's snippet)."""


def retry_note(problem: str, missing: Sequence[str], fix: str) -> str:
    """What a correction says: the problem, what is missing, and what to do."""
    return f"{problem}: " + "; ".join(missing) + f". {fix}"


def correction(note: str, *, bounded: bool, page: bool = False) -> str:
    """A correction, with how to answer it (the format of the first answer: native text, or
    JSON for a model with bounded output)."""
    if not bounded:
        return (
            f"{note}\n\nGive the observation again, wrapped in "
            "<predicted_observation></predicted_observation> tags."
        )
    if page:
        return f'{note}\n\nAnswer with only a JSON object whose "observation" field holds the page.'
    return f"{note}\n\nAnswer with the JSON object only."
