"""A TRL environment for the mcp-sim world 'paperlane-books' (../../worlds/bookstore.yaml from
this file), written by `mcp-sim harness trl`.

    from trl import GRPOTrainer
    trainer = GRPOTrainer(..., environment_factory=PaperlaneBooks)

Each instance is one rollout's episode; reset(**row) starts a new one, scored by
get_reward() on the row's `task` (this world's: gift-order, no-antarctica), seeded by its `seed`. The
world model is the OpenAI-compatible server at $MCP_SIM_MODEL_URL.
"""

from __future__ import annotations

import os
from pathlib import Path

from mcp_sim.api.environment import EpisodeEnvironment


class PaperlaneBooks(EpisodeEnvironment):
    """Paperlane online bookstore"""

    world_file = str(Path(__file__).resolve().parent / "../../worlds/bookstore.yaml")
    model_url = os.environ.get("MCP_SIM_MODEL_URL", "http://127.0.0.1:8000/v1")

    def search_books(self, query: str, max_results: int | None = None) -> str:
        """Search the catalogue by keyword in title, author or genre. Returns matching books with price and stock.

        Args:
            query: Keywords to search for
            max_results: Maximum number of results (default 10)
        """
        return self._call("search_books", {"query": query, "max_results": max_results})

    def get_book(self, book_id: str) -> str:
        """Get the full record of one book by its id.

        Args:
            book_id: The book id, e.g. b1
        """
        return self._call("get_book", {"book_id": book_id})

    def place_order(self, book_id: str, quantity: int, email: str, country: str) -> str:
        """Place an order for one or more copies of a book, shipped to an address.

        Args:
            book_id: book id
            quantity: quantity
            email: Customer email
            country: Shipping country
        """
        return self._call(
            "place_order",
            {
                "book_id": book_id,
                "quantity": quantity,
                "email": email,
                "country": country,
            },
        )

    def cancel_order(self, order_id: str) -> str:
        """Cancel an order that has not shipped yet.

        Args:
            order_id: order id
        """
        return self._call("cancel_order", {"order_id": order_id})
