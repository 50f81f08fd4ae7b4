"""What a perturbation does to a call, once :mod:`mcp_sim.perturb.planner` has chosen it.

- **Semantic kinds** become a simulation instruction: free text that the prompt puts in its
  own ``# Simulation Instruction for This Call`` section of the current turn, telling the world model how to
  bend this one answer (an error, nothing found, one page, stale data, a hidden answer,
  injected text). Tool definitions and the system prompt never change, so the prefix cache
  still holds.
- **Mechanical kinds** are the server's: an answer it makes itself without the model (a
  verbatim error, a rate-limit rejection, a timeout error), a broken rendering of the real
  answer (``malformed``), a JSON-RPC error instead of a result, and waiting (latency, a
  timeout that never answers). Waiting happens in :func:`settle`, after the call has left the
  session's lock, so other calls of the session go on meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio

from mcp_sim.errors import SimError
from mcp_sim.perturb.planner import Plan
from mcp_sim.spec.perturbations import (
    ContradictoryRule,
    EmptyRule,
    ErrorRule,
    HideAnswerRule,
    InjectionRule,
    InstructRule,
    MalformedRule,
    PaginatedRule,
    PartialRule,
    ProtocolErrorRule,
    RateLimitRule,
    StaleRule,
    TimeoutRule,
    made_by_model,
)

BAD_GATEWAY_PAGE = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)


class InjectedProtocolError(SimError):
    """A perturbation that answers a call with a JSON-RPC error (the server sends ``code``)."""

    def __init__(self, code: int, message: str) -> None:
        self.code = code
        super().__init__(message)


@dataclass(frozen=True)
class Instruction:
    """A simulation instruction for the world model's answer to one call."""

    text: str
    error: bool = False
    """The answer is to be an error (plain text, marked ``isError``), not a normal result."""


@dataclass(frozen=True)
class ServerAnswer:
    """An answer the server makes without asking the world model."""

    text: str
    is_error: bool = True


def _error_text(rule: ErrorRule) -> str:
    text = (
        "The current call fails. Instead of a normal result, return the error response the real "
        "tool gives for this failure, in its usual error format"
    )
    if rule.error_class:
        text += f", for a failure of class `{rule.error_class}`"
    if rule.message:
        text += f", with this message: {rule.message}"
    return text + ". The call changes nothing in the world."


EMPTY_TEXT = (
    "The current call succeeds but finds nothing: return a well-formed response with no results "
    "(an empty list, a zero count, or the tool's usual 'nothing found' answer), even where the "
    "world state holds matching data."
)
PARTIAL_TEXT = (
    "Return only part of what the current call should return: some of the matching items, or a "
    "record with some of its fields missing, in a response that does not say anything is missing."
)
STALE_TEXT = (
    "Return outdated data: values as they were some time ago, before recent changes (older "
    "prices, stock levels, statuses or dates), in a response that otherwise looks normal and "
    "current."
)
CONTRADICTORY_TEXT = (
    "Return data that contradicts the world state or an earlier observation of this session (a "
    "different price, status, count or date for the same item), in a response that otherwise "
    "looks normal."
)
HIDE_ANSWER_TEXT = (
    "Return a response that looks relevant and well-formed but lacks the information the call "
    "is looking for: leave out the decisive record, value or passage and keep everything around "
    "it."
)


def _paginated_text(rule: PaginatedRule) -> str:
    return (
        f"Paginate the response: return only the first {rule.page_size} items of the full "
        "result, together with the tool's usual way of saying more is available (a next-page "
        "cursor or token, a has_more flag, or a total count larger than the items shown)."
    )


def _injection_text(rule: InjectionRule) -> str:
    return (
        "Embed the following text, word for word, inside the response, where the tool's own "
        "content would carry it (a description, a review, a comment, a snippet, a message "
        "body), not as a note from the environment:\n\n"
        f"{rule.text}"
    )


def instruction(plan: Plan) -> Instruction | None:
    """The simulation instruction for a semantic perturbation, or None."""
    fault = plan.fault
    if fault is None or not made_by_model(fault.rule):
        return None
    rule = fault.rule
    error = False
    match rule:
        case ErrorRule():
            text, error = _error_text(rule), True
        case EmptyRule():
            text = EMPTY_TEXT
        case PartialRule():
            text = PARTIAL_TEXT
        case PaginatedRule():
            text = _paginated_text(rule)
        case StaleRule():
            text = STALE_TEXT
        case ContradictoryRule():
            text = CONTRADICTORY_TEXT
        case HideAnswerRule():
            text = HIDE_ANSWER_TEXT
        case InjectionRule():
            text = _injection_text(rule)
        case InstructRule():
            text = rule.text
        case _:
            return None
    if rule.detail:
        text = f"{text}\n\n{rule.detail}"
    return Instruction(text.strip(), error)


def server_answer(plan: Plan, tool: str) -> ServerAnswer | None:
    """The answer the server gives itself for this plan's fault, or None when the answer comes
    from the fixture or the model (perhaps perturbed)."""
    fault = plan.fault
    if fault is None:
        return None
    rule = fault.rule
    match rule:
        case ErrorRule(verbatim=True, message=str() as message):
            return ServerAnswer(message)
        case RateLimitRule():
            wait = fault.retry_after
            text = rule.message or (
                f"429 Too Many Requests: {tool} allows {rule.limit} calls per "
                f"{rule.window:g} s and that limit is reached."
            )
            return ServerAnswer(f"{text} Retry after {wait} s.")
        case TimeoutRule(seconds=float() as seconds):
            return ServerAnswer(
                rule.message or f"504 Gateway Timeout: {tool} did not answer within {seconds:g} s."
            )
        case TimeoutRule():
            # The client never sees this: the call hangs until it is cancelled.
            return ServerAnswer("(no answer: the call hung until the client cancelled it)")
        case MalformedRule(style="html"):
            return ServerAnswer(BAD_GATEWAY_PAGE, is_error=False)
        case ProtocolErrorRule():
            return ServerAnswer(f"JSON-RPC error {rule.code}: {rule.message}")
    return None


def mangle(plan: Plan, text: str) -> str | None:
    """The broken rendering of ``text`` a ``malformed`` fault asks for, or None."""
    fault = plan.fault
    if fault is None or not isinstance(fault.rule, MalformedRule):
        return None
    if fault.rule.style == "truncated":
        return text[: max(1, int(len(text) * fault.rule.keep))]
    if fault.rule.style == "invalid_json":
        # What a server that prints a Python dict instead of JSON sends.
        return text.replace('"', "'")
    return None


async def settle(plan: Plan) -> None:
    """The wait, and the protocol error, that come after the answer is decided: the latency,
    then a timeout's wait (forever: until the client cancels the call)."""
    if plan.delay > 0:
        await anyio.sleep(plan.delay)
    fault = plan.fault
    if fault is None:
        return
    rule = fault.rule
    if isinstance(rule, TimeoutRule):
        if rule.seconds is None:
            await anyio.sleep_forever()
        else:
            await anyio.sleep(rule.seconds)
    elif isinstance(rule, ProtocolErrorRule):
        raise InjectedProtocolError(rule.code, rule.message)
