"""The served model's context window, as the server reports it: where the prompt budget starts.

No prompt may exceed the model's context window less the answer's ``max_tokens``, so the
budget is best derived from the window the server actually serves with, not from a guess.
vLLM reports it per model as ``max_model_len`` in ``GET {base}/models`` (its ``ModelCard``;
a LoRA adapter's card carries ``null`` and names its base model in ``parent``). llama.cpp's
server and most others report no serving window there (llama-server's ``meta.n_ctx_train`` is
the length the model was *trained* with, not the one it serves with), so the answer is then
None and the caller applies its configured default.

Asking is best effort: a server that is down, slow, refuses the key or answers something else
costs one log line and None, never an exception, because a missing window must not keep the
simulator from starting.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx2

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 5.0
"""Seconds for the whole request: the listing is tiny, and start-up must not wait on it long."""


async def served_context_window(
    base_url: str,
    *,
    model: str | None = None,
    api_key: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    http_client: httpx2.AsyncClient | None = None,
) -> int | None:
    """The context window (tokens) that the OpenAI-compatible server at ``base_url`` (like
    ``http://host:8000/v1``) serves ``model`` with (the first listed model when None), or None
    when the server does not say. ``http_client`` is used as given (not closed) when passed."""
    url = f"{base_url.rstrip('/')}/models"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        if http_client is not None:
            response = await http_client.get(url, headers=headers, timeout=timeout)
        else:
            async with httpx2.AsyncClient(timeout=timeout) as client:
                response = await client.get(url, headers=headers)
    except httpx2.HTTPError as exc:
        logger.warning("could not ask %s for the context window (%s): using the default", url, exc)
        return None
    if response.status_code != 200:
        logger.warning(
            "%s answered HTTP %d when asked for the context window: using the default",
            url,
            response.status_code,
        )
        return None
    try:
        listing = response.json()
    except ValueError:
        logger.warning("%s did not answer with JSON: using the default context window", url)
        return None
    window = context_window_in_listing(listing, model)
    if window is None:
        logger.info(
            "%s reports no max_model_len for %s: using the default context window",
            url,
            model or "its model",
        )
    return window


def context_window_in_listing(listing: Any, model: str | None = None) -> int | None:
    """``max_model_len`` of ``model`` (the first listed when None) in a ``/models`` answer, or of
    the model it adapts (``parent``) when its own card has none; None when absent."""
    cards = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(cards, list):
        return None
    by_id = {card.get("id"): card for card in cards if isinstance(card, dict)}
    if not by_id:
        return None
    card = by_id.get(model) if model is not None else next(iter(by_id.values()))
    seen: set[str] = set()
    while isinstance(card, dict):
        window = card.get("max_model_len")
        if isinstance(window, int) and not isinstance(window, bool) and window > 0:
            return window
        parent = card.get("parent")
        if not isinstance(parent, str) or parent in seen:
            return None
        seen.add(parent)
        card = by_id.get(parent)
    return None
